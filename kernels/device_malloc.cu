/* device-malloc: every thread needs `bytes` of scratch, taken from a buffer allocated before
 * the launch, from malloc()/free() per thread, or from one malloc() per block whose pointer
 * thread 0 shares through shared memory. Each thread writes a pattern over its scratch, reads
 * every word back through a volatile pointer (so neither the loads nor the allocation can be
 * optimised away) and stores the sum; a NULL from malloc is counted, never dereferenced. */
#include "common.cuh"

enum { DM_PREALLOC, DM_PER_THREAD, DM_PER_BLOCK };
enum { DM_NULL_THREAD, DM_NULL_BLOCK, DM_BAD_WORDS, DM_NCOUNT };

/* word j of thread t: the host sums it in closed form (src/lab/lab_device_malloc.c) */
static __device__ __forceinline__ unsigned dm_word(unsigned seed, unsigned long long t, unsigned j)
{
	return seed + (unsigned)t * 0x9E3779B1u + j * 0x85EBCA77u;
}

/* out[t] = 1 << 32 | sum of the words read back, or 0 when the thread had no scratch */
extern "C" __global__ void lab_dm_scratch(int mode, unsigned char *pre, unsigned bytes, unsigned seed,
					  unsigned long long *out, unsigned long long *counts)
{
	__shared__ unsigned char *block_scratch;
	unsigned long long t = lab_tid();
	unsigned char *p = NULL;

	if (mode == DM_PER_BLOCK) {
		if (threadIdx.x == 0) {
			block_scratch = (unsigned char *)malloc((size_t)bytes * blockDim.x);
			if (!block_scratch)
				atomicAdd(&counts[DM_NULL_BLOCK], 1ull);
		}
		__syncthreads();
		if (block_scratch)
			p = block_scratch + (size_t)threadIdx.x * bytes;
	} else if (mode == DM_PER_THREAD) {
		p = (unsigned char *)malloc(bytes);
		if (!p)
			atomicAdd(&counts[DM_NULL_THREAD], 1ull);
	} else {
		p = pre + t * bytes;
	}

	unsigned long long result = 0;
	if (p) {
		unsigned *w = (unsigned *)p, n = bytes / 4, sum = 0, bad = 0;
		volatile unsigned *back = w;
#pragma unroll 4
		for (unsigned j = 0; j < n; j++)
			w[j] = dm_word(seed, t, j);
#pragma unroll 4
		for (unsigned j = 0; j < n; j++) {
			unsigned v = back[j];
			bad += v != dm_word(seed, t, j);
			sum += v;
		}
		if (bad)
			atomicAdd(&counts[DM_BAD_WORDS], (unsigned long long)bad);
		result = 1ull << 32 | sum;
	}
	out[t] = result;

	if (mode == DM_PER_BLOCK) {
		__syncthreads(); /* every thread is done with the block's scratch */
		if (threadIdx.x == 0 && block_scratch)
			free(block_scratch);
	} else if (mode == DM_PER_THREAD && p) {
		free(p);
	}
}
