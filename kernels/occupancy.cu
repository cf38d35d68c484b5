/* occupancy: a read-only stream in which every iteration's add waits for its own 16-byte
 * load (no unrolling), so each warp has exactly one 512-byte request in flight and the
 * bytes in flight per SM are resident warps x 512. The launch's dynamic shared memory is
 * never touched: it only limits how many blocks fit on an SM. */
#include "common.cuh"

extern "C" __global__ void lab_occ_read(const float4 *__restrict__ a, unsigned long long n,
					unsigned long long *total)
{
	float acc = 0.0f;
#pragma unroll 1
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads()) {
		float4 v = a[i];
		acc += (v.x + v.y) + (v.z + v.w);
	}
	/* small integers: every partial sum is exact in float. One atomic per warp, not per
	 * thread: a same-address atomic per thread serialises in L2 and, with many resident
	 * warps, costs more than the reads being measured. */
	unsigned long long sum = (unsigned long long)acc;
	for (int off = 16; off > 0; off >>= 1)
		sum += __shfl_down_sync(0xffffffffu, sum, off);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(total, sum);
}

/* integers 0..15 as floats, from the counter hash */
extern "C" __global__ void lab_occ_fill(float *a, unsigned long long n, unsigned long long seed)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		a[i] = (float)(lab_rand32(seed, i) >> 28);
}

/* the sum the reads must reach, regenerated from the hash without reading memory */
extern "C" __global__ void lab_occ_expect(unsigned long long n, unsigned long long seed, unsigned long long *total)
{
	unsigned long long acc = 0;
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		acc += lab_rand32(seed, i) >> 28;
	atomicAdd(total, acc);
}
