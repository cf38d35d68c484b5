/* Robust statistics for a fleet's measured numbers: the median and the median absolute
 * deviation (MAD), which one slow node cannot drag the way it drags a mean and a standard
 * deviation. */
#ifndef CUDOCTOR_FLEET_STATS_H
#define CUDOCTOR_FLEET_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct fleet_spread {
	double median;
	double mad;     /* median of |x - median| */
	double scale;   /* 1.4826 * mad (a standard deviation for normal data), floored at 1% of |median| */
};

/* v[0..n) is reordered. n >= 1. O(n log n). CD_OK or CD_ENOMEM. */
int fleet_spread_of(double *v, size_t n, struct fleet_spread *out);

/* How many scales x lies from the median (the robust z-score; Iglewicz and Hoaglin's
 * modified z uses 0.6745 * (x - median) / MAD, the same number). */
double fleet_robust_z(const struct fleet_spread *s, double x);

/* |z| above this is an outlier (Iglewicz and Hoaglin recommend 3.5). */
#define FLEET_OUTLIER_Z 3.5

#endif
