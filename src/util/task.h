/* One function run beside the caller and waited for before its result is read: the one
 * place that starts a thread (on os/thread.h). */
#ifndef CUDOCTOR_UTIL_TASK_H
#define CUDOCTOR_UTIL_TASK_H

#include <stdbool.h>

#include "os/thread.h"

struct task {
	void (*fn)(void *);
	void *arg;
	bool threaded; /* false: fn already ran in the caller (no thread could start) */
	struct os_thread thread;
};

/* Starts fn(arg) on its own thread; where no thread can start, runs it here before
 * returning. Either way task_wait must follow. Returns CD_OK. */
int task_start(struct task *t, void (*fn)(void *), void *arg);

/* Returns once fn(arg) has finished; its writes are then visible to the caller. */
void task_wait(struct task *t);

#endif
