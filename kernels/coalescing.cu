/* coalescing: read in[j * stride + offset] for consecutive j across a warp and sum.
 * stride 1 uses every byte of each 32-byte sector; stride s uses 1/s of it. */
#include "common.cuh"

extern "C" __global__ void lab_stride_read(const unsigned int *__restrict__ in, unsigned long long n,
					   unsigned int stride, unsigned int offset, unsigned int *__restrict__ out)
{
	unsigned long long t = lab_tid(), T = lab_nthreads();
	unsigned int acc = 0;
	unsigned long long j = t;
	/* four independent loads in flight per thread */
	for (; j + 3 * T < n; j += 4 * T) {
		unsigned int a = in[j * stride + offset];
		unsigned int b = in[(j + T) * stride + offset];
		unsigned int c = in[(j + 2 * T) * stride + offset];
		unsigned int d = in[(j + 3 * T) * stride + offset];
		acc += a + b + c + d;
	}
	for (; j < n; j += T)
		acc += in[j * stride + offset];
	out[t] = acc;
}

extern "C" __global__ void lab_fill_rand32(unsigned int *a, unsigned long long n, unsigned long long seed)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		a[i] = lab_rand32(seed, i);
}
