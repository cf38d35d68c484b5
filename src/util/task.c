/* task.h on os/thread.h. */
#include "util/task.h"

#include "os/thread.h"
#include "util/err.h"

int task_start(struct task *t, void (*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->threaded = os_thread_start(&t->thread, fn, arg);
	if (!t->threaded)
		fn(arg);
	return CD_OK;
}

void task_wait(struct task *t)
{
	if (!t->threaded)
		return;
	os_thread_join(&t->thread);
	t->threaded = false;
}
