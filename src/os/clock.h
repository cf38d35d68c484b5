/* The monotonic clock and sleeping. */
#ifndef CUDOCTOR_OS_CLOCK_H
#define CUDOCTOR_OS_CLOCK_H

double os_monotonic_s(void);
void os_sleep_us(unsigned long us);

#endif
