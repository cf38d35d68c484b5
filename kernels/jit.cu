/* jit: the kernel the jit lab loads twice, once as SASS from the fatbin and once as
 * PTX text the driver compiles at load time; both must give the same answer. */
#include "common.cuh"

extern "C" __global__ void lab_jit_saxpy(float *y, const float *x, float a, unsigned long long n)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		y[i] = __fmaf_rn(a, x[i], y[i]);
}
