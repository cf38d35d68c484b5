/* The monotonic host clock (clock.h). */
#include "util/clock.h"

#include <time.h>

double cd_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
