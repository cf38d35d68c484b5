/* block-size: one double per thread, no unrolling, so the bytes in flight are set by
 * how many threads are resident; the grid covers n with blocks of any size. */
#include "common.cuh"

extern "C" __global__ void lab_scale1(const double *__restrict__ a, double *__restrict__ b, double s,
				      unsigned long long n)
{
	unsigned long long i = lab_tid();
	if (i < n)
		b[i] = s * a[i];
}
