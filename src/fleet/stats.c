/* Median and MAD over any number of values (the lab's summaries cap theirs at a few
 * hundred repetitions; a fleet has thousands of nodes). */
#include "fleet/stats.h"
#include "util/sort.h"

#include <math.h>
#include <stdlib.h>

#include "util/err.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int fleet_spread_of(double *v, size_t n, struct fleet_spread *out)
{
	double *dev;

	out->median = out->mad = out->scale = 0;
	if (n == 0)
		return CD_OK;
	cd_qsort(v, n, sizeof *v, cmp_double);
	out->median = median_sorted(v, n);
	if (!(dev = malloc(n * sizeof *dev)))
		return CD_ENOMEM;
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - out->median);
	cd_qsort(dev, n, sizeof *dev, cmp_double);
	out->mad = median_sorted(dev, n);
	free(dev);
	/* identical nodes give MAD 0: a floor keeps a 0.1% wobble from being "infinitely far" */
	out->scale = 1.4826 * out->mad;
	if (out->scale < 0.01 * fabs(out->median))
		out->scale = 0.01 * fabs(out->median);
	return CD_OK;
}

double fleet_robust_z(const struct fleet_spread *s, double x)
{
	if (s->scale <= 0)
		return x == s->median ? 0 : (x > s->median ? INFINITY : -INFINITY);
	return (x - s->median) / s->scale;
}
