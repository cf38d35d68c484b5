/* The driver calls in flight now, by name, so that a watchdog on another thread can say which
 * call hung (an NVML query, cuInit) instead of only that the run did. Lock-free: a few slots
 * any thread takes and gives back. */
#ifndef CUDOCTOR_UTIL_INFLIGHT_H
#define CUDOCTOR_UTIL_INFLIGHT_H

#include <stddef.h>

#define INFLIGHT_SLOTS 8

/* Marks name (a string that lives for the run) as called now; returns the slot for
 * inflight_leave, or -1 when every slot is taken (the call is then not named). */
int inflight_enter(const char *name);
void inflight_leave(int slot);

/* The calls in flight, oldest first, "nvmlDeviceGetTotalEccErrors, cuInit", into buf; how
 * many. seconds: how long the oldest has been in flight (0 when none). */
size_t inflight_list(char *buf, size_t cap, double *seconds);

#endif
