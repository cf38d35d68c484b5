/* Summaries of repeated measurements: median and spread, best and worst. */
#ifndef CUDOCTOR_LAB_STATS_H
#define CUDOCTOR_LAB_STATS_H

#include <stddef.h>

struct lab_stats {
	size_t n;
	double median, min, max;
	double spread; /* (max - min) / median, 0 when n < 2 or median == 0 */
};

/* v is not modified. n == 0 gives all zeros. */
struct lab_stats lab_stats_of(const double *v, size_t n);

#endif
