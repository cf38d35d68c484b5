/* os/thread.h on POSIX threads. */
#include "os/thread.h"

#include <pthread.h>
#include <string.h>

_Static_assert(sizeof(pthread_t) <= sizeof(((struct os_thread *)0)->handle), "pthread_t fits a handle");

static void *trampoline(void *arg)
{
	struct os_thread *t = arg;

	t->fn(t->arg);
	return NULL;
}

bool os_thread_start(struct os_thread *t, void (*fn)(void *), void *arg)
{
	pthread_t th;

	t->fn = fn;
	t->arg = arg;
	if (pthread_create(&th, NULL, trampoline, t) != 0)
		return false;
	memcpy(t->handle, &th, sizeof th);
	return true;
}

void os_thread_join(struct os_thread *t)
{
	pthread_t th;

	memcpy(&th, t->handle, sizeof th);
	pthread_join(th, NULL);
}
