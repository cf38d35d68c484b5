/* The monotonic host clock (clock.h). */
#include "util/clock.h"

#include "os/clock.h"

double cd_now_s(void)
{
	return os_monotonic_s();
}
