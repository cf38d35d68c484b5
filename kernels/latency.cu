/* latency: a single thread chases pointers through a random single cycle of slots,
 * so every load depends on the one before and no prefetcher can guess the next. */
#include "common.cuh"

/* A bijection on [0, 2^(2*half)) by a 4-round Feistel network; cycle-walking keeps
 * it inside [0, n). */
static __device__ __forceinline__ unsigned long long chase_perm(unsigned long long i, unsigned long long n,
								unsigned int half, unsigned long long key)
{
	unsigned long long mask = (1ull << half) - 1;
	do {
		unsigned long long l = i >> half, r = i & mask;
		for (int round = 0; round < 4; round++) {
			unsigned long long f = lab_mix64(r ^ (key + round)) & mask;
			unsigned long long t = r;
			r = l ^ f;
			l = t;
		}
		i = (l << half) | r;
	} while (i >= n);
	return i;
}

/* slot k sits at buf[k * stride_words]; visiting order perm(0), perm(1), ... */
extern "C" __global__ void lab_chase_build(unsigned long long *buf, unsigned long long n,
					   unsigned int stride_words, unsigned int half, unsigned long long key)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads()) {
		unsigned long long from = chase_perm(i, n, half, key);
		unsigned long long to = chase_perm(i + 1 == n ? 0 : i + 1, n, half, key);
		buf[from * stride_words] = (unsigned long long)(buf + to * stride_words);
	}
}

/* Follows hops pointers from start; writes the final pointer (so the loop stays)
 * and the SM cycles it took. hops is a multiple of 16. */
extern "C" __global__ void lab_chase(const unsigned long long *start, unsigned long long hops,
				     unsigned long long *end, long long *cycles)
{
	const unsigned long long *p = start;
	long long t0 = clock64();
#pragma unroll 1
	for (unsigned long long h = 0; h < hops; h += 16) {
#pragma unroll
		for (int u = 0; u < 16; u++)
			p = (const unsigned long long *)*p;
	}
	long long t1 = clock64();
	end[0] = (unsigned long long)p;
	cycles[0] = t1 - t0;
}

/* Reads the whole buffer once with every SM so cache-sized sets start in L2. */
extern "C" __global__ void lab_chase_touch(const unsigned long long *buf, unsigned long long nwords,
					   unsigned long long *sink)
{
	unsigned long long acc = 0;
	for (unsigned long long i = lab_tid(); i < nwords; i += lab_nthreads())
		acc += buf[i];
	if (acc == 0x1234567ull)
		sink[0] = acc;
}
