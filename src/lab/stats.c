/* Median and spread of a handful of repeated timings. */
#include "lab/stats.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct lab_stats lab_stats_of(const double *v, size_t n)
{
	struct lab_stats s = { 0 };
	double buf[256];
	if (n == 0)
		return s;
	if (n > sizeof buf / sizeof buf[0])
		n = sizeof buf / sizeof buf[0];
	memcpy(buf, v, n * sizeof *v);
	cd_qsort(buf, n, sizeof *buf, cmp_double);
	s.n = n;
	s.min = buf[0];
	s.max = buf[n - 1];
	s.median = (n % 2) ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
	if (n > 1 && s.median != 0)
		s.spread = (s.max - s.min) / s.median;
	return s;
}
