/* The driver calls in flight (util/inflight.h): each slot a name and when it was entered. */
#include "util/inflight.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "os/clock.h"

static _Atomic(const char *) names[INFLIGHT_SLOTS];
static _Atomic double since[INFLIGHT_SLOTS];

int inflight_enter(const char *name)
{
	for (int i = 0; i < INFLIGHT_SLOTS; i++) {
		const char *none = NULL;

		if (atomic_compare_exchange_strong(&names[i], &none, name)) {
			atomic_store(&since[i], os_monotonic_s());
			return i;
		}
	}
	return -1;
}

void inflight_leave(int slot)
{
	if (slot >= 0 && slot < INFLIGHT_SLOTS)
		atomic_store(&names[slot], NULL);
}

size_t inflight_list(char *buf, size_t cap, double *seconds)
{
	double now = os_monotonic_s(), oldest = 0;
	size_t n = 0, used = 0;
	bool taken[INFLIGHT_SLOTS] = { false };

	if (cap)
		buf[0] = '\0';
	/* oldest first: a hung call is the one that started first */
	for (;;) {
		int best = -1;
		double best_t = 0;
		const char *name = NULL;

		for (int i = 0; i < INFLIGHT_SLOTS; i++) {
			const char *s = atomic_load(&names[i]);
			double t = atomic_load(&since[i]);

			if (s && !taken[i] && (best < 0 || t < best_t)) {
				best = i;
				best_t = t;
				name = s;
			}
		}
		if (best < 0)
			break;
		taken[best] = true;
		if (n == 0)
			oldest = now - best_t;
		if (used < cap)
			used += (size_t)snprintf(buf + used, cap - used, "%s%s", n ? ", " : "", name);
		n++;
	}
	if (used >= cap && cap > 4)
		snprintf(buf + cap - 4, 4, "...");
	*seconds = oldest;
	return n;
}
