/* task.h on POSIX threads. */
#include "util/task.h"

#include <pthread.h>
#include <string.h>

#include "util/err.h"

_Static_assert(sizeof(pthread_t) <= sizeof(((struct task *)0)->handle), "pthread_t fits a task's handle");

static void *trampoline(void *arg)
{
	struct task *t = arg;

	t->fn(t->arg);
	return NULL;
}

int task_start(struct task *t, void (*fn)(void *), void *arg)
{
	pthread_t th;

	t->fn = fn;
	t->arg = arg;
	t->threaded = pthread_create(&th, NULL, trampoline, t) == 0;
	if (t->threaded)
		memcpy(t->handle, &th, sizeof th);
	else
		fn(arg);
	return CD_OK;
}

void task_wait(struct task *t)
{
	pthread_t th;

	if (!t->threaded)
		return;
	memcpy(&th, t->handle, sizeof th);
	pthread_join(th, NULL);
	t->threaded = false;
}
