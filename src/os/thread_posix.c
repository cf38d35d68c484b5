/* os/thread.h on POSIX threads: started through os/sys.h's table (sys_posix.c). */
#include "os/thread.h"

#include <pthread.h>
#include <string.h>

#include "os/sys.h"

bool os_thread_start(struct os_thread *t, void (*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	return os_sys.thread_start(t) == 0;
}

void os_thread_join(struct os_thread *t)
{
	pthread_t th;

	memcpy(&th, t->handle, sizeof th);
	pthread_join(th, NULL);
}
