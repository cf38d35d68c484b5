/* Threads: one function run beside the caller. */
#ifndef CUDOCTOR_OS_THREAD_H
#define CUDOCTOR_OS_THREAD_H

#include <stdbool.h>

struct os_thread {
	void (*fn)(void *);
	void *arg;
	unsigned char handle[16];
};

/* Runs fn(arg) on a thread of its own; false when no thread could start. t must stay where
 * it is until os_thread_join. */
bool os_thread_start(struct os_thread *t, void (*fn)(void *), void *arg);
void os_thread_join(struct os_thread *t);

#endif
