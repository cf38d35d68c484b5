/* The one monotonic host clock, in seconds, for timeouts, progress and host-side timing. */
#ifndef CUDOCTOR_UTIL_CLOCK_H
#define CUDOCTOR_UTIL_CLOCK_H

double cd_now_s(void);

#endif
