/* lab nccl: each rank's input written where it lies, and each collective's output checked
 * element by element against the value it must have, so 1 GiB results are verified without
 * a copy to the host. Inputs are small integers, so float sums are exact in any order. */
#include "common.cuh"

static __device__ __forceinline__ float lab_nccl_in(int rank, unsigned long long i)
{
	return (float)((i * 7ull + (unsigned long long)rank * 13ull) % 61ull + 1ull);
}

extern "C" __global__ void lab_nccl_fill(float *buf, unsigned long long n, int rank)
{
	for (unsigned long long i = lab_tid(); i < n; i += (unsigned long long)gridDim.x * blockDim.x)
		buf[i] = lab_nccl_in(rank, i);
}

/* kind 0 all-reduce, 1 all-gather (chunk = send count), 2 reduce-scatter (chunk = receive
 * count), 3 broadcast from rank 0 */
extern "C" __global__ void lab_nccl_check(const float *out, unsigned long long n, int kind, int rank, int nranks,
					  unsigned long long chunk, unsigned long long *bad)
{
	unsigned long long wrong = 0;
	for (unsigned long long i = lab_tid(); i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
		float want = 0.0f;
		if (kind == 0 || kind == 2) {
			unsigned long long at = kind == 0 ? i : (unsigned long long)rank * chunk + i;
			for (int q = 0; q < nranks; q++)
				want += lab_nccl_in(q, at);
		} else if (kind == 1) {
			want = lab_nccl_in((int)(i / chunk), i % chunk);
		} else {
			want = lab_nccl_in(0, i);
		}
		wrong += out[i] != want;
	}
	if (wrong)
		atomicAdd(bad, wrong);
}
