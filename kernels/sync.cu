/* sync: what __syncthreads() costs (k iterations of a dependent integer chain with and without
 * a barrier each) and what barriers that not every thread of the block reaches do. The block
 * splits by whole warps, never inside one: a warp split across a barrier could leave lanes
 * waiting at the compiler's reconvergence point for lanes held in the barrier, a wait no code
 * can break (docs/lab.md). Every loop that waits for another thread gives up after a clock64
 * budget or when the host sets the watchdog word in mapped pinned memory, then the thread
 * exits; the barrier waits only for non-exited threads, so a block can always finish. */
#include "common.cuh"

/* the chain: one dependent multiply-add per iteration (the host repeats it exactly) */
#define SYNC_STEP(x) ((x) * 1664525u + 1013904223u)

/* Thread 0 records the block's cycles between two barriers around the loop, so the
 * bracketing barriers cost the same in both kernels. */
template <bool BAR>
static __device__ __forceinline__ void sync_loop(const unsigned *__restrict__ in, unsigned *__restrict__ out, int k,
						 long long *cycles)
{
	unsigned long long t = lab_tid();
	unsigned x = in[t];
	__syncthreads();
	long long t0 = clock64();
#pragma unroll 1
	for (int i = 0; i < k; i++) {
		x = SYNC_STEP(x);
		if (BAR)
			__syncthreads();
	}
	__syncthreads();
	long long t1 = clock64();
	if (threadIdx.x == 0)
		cycles[blockIdx.x] = t1 - t0;
	out[t] = x;
}

extern "C" __global__ void lab_sync_bar(const unsigned *__restrict__ in, unsigned *__restrict__ out, int k,
					long long *cycles)
{
	sync_loop<true>(in, out, k, cycles);
}

extern "C" __global__ void lab_sync_nobar(const unsigned *__restrict__ in, unsigned *__restrict__ out, int k,
					  long long *cycles)
{
	sync_loop<false>(in, out, k, cycles);
}

/* The divergent experiments. Warps [0, half) are side A, the rest side B.
 * counts[] (per launch, summed over blocks), see src/lab/lab_sync.c: */
enum {
	SYNC_A_PASSED,     /* side A threads past their barrier */
	SYNC_EXCHANGED,    /* threads that read their partner's token written before the barrier */
	SYNC_B_SAW,        /* side B threads that saw side A's post-barrier flag */
	SYNC_B_CLOCK,      /* side B threads that gave up on the clock64 budget */
	SYNC_B_WATCHDOG,   /* side B threads that gave up on the host's watchdog word */
	SYNC_A_SAW_GONE,   /* side A threads that found all of side B gone when released */
	SYNC_NCOUNT
};
enum { SYNC_MISMATCHED, SYNC_ONE_SIDED, SYNC_EARLY_EXIT };

static __device__ __forceinline__ unsigned sync_token(unsigned long long seed, unsigned block, unsigned tid)
{
	return lab_rand32(seed, (unsigned long long)block * 1024 + tid) | 1u;
}

/* mode SYNC_MISMATCHED: each side has its own __syncthreads(), tokens exchanged across it;
 * SYNC_ONE_SIDED: only side A has a barrier, side B waits for a flag A sets after it (a
 * deadlock in the code, broken only by side B giving up); SYNC_EARLY_EXIT: side B returns
 * before side A's barrier. tok and ready are per block (blockDim and 1 words), zeroed. */
extern "C" __global__ void lab_sync_diverge(int mode, unsigned long long seed, unsigned *tok, unsigned *ready,
					    unsigned *gone, const volatile unsigned *watchdog,
					    long long budget, unsigned long long *counts)
{
	unsigned tid = threadIdx.x, n = blockDim.x, warp = tid / warpSize, half = (n / warpSize) / 2;
	bool side_a = warp < half;
	unsigned *btok = tok + (unsigned long long)blockIdx.x * n;
	volatile unsigned *bready = ready + blockIdx.x, *bgone = gone + blockIdx.x;
	unsigned partner = (tid + half * warpSize) % n; /* the same lane in the other side */
	unsigned nb = n - half * warpSize;              /* side B threads */

	if (mode == SYNC_MISMATCHED) {
		btok[tid] = sync_token(seed, blockIdx.x, tid);
		if (side_a) {
			__syncthreads();
			atomicAdd(&counts[SYNC_A_PASSED], 1ull);
		} else {
			__syncthreads();
		}
		if (btok[partner] == sync_token(seed, blockIdx.x, partner))
			atomicAdd(&counts[SYNC_EXCHANGED], 1ull);
		return;
	}
	if (!side_a) {
		if (mode == SYNC_EARLY_EXIT)
			return;
		long long start = clock64();
		unsigned spins = 0;
		int why = -1;
		for (;;) {
			if (*bready) {
				why = SYNC_B_SAW;
				break;
			}
			if ((spins++ & 31u) == 0 && *watchdog) {
				why = SYNC_B_WATCHDOG;
				break;
			}
			if (clock64() - start > budget) {
				why = SYNC_B_CLOCK;
				break;
			}
#if __CUDA_ARCH__ >= 700
			__nanosleep(256);
#endif
		}
		atomicAdd(&counts[why], 1ull);
		atomicAdd((unsigned *)bgone, 1u);
		__threadfence();
		return;
	}
	__syncthreads();
	atomicAdd(&counts[SYNC_A_PASSED], 1ull);
	if (mode == SYNC_ONE_SIDED) {
		if (tid == 0)
			*bready = 1u;
		if (*bgone == nb)
			atomicAdd(&counts[SYNC_A_SAW_GONE], 1ull);
	}
}
