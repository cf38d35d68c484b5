/* bank-conflicts: each lane of a warp reads shared word lane*stride (+ 32k, same
 * bank); lanes that hit one bank at different words are served one after another. */
#include "common.cuh"

#define BANK_WORDS 2048

extern "C" __global__ void lab_bank(const unsigned int *__restrict__ in, unsigned int *__restrict__ out,
				    unsigned int stride, unsigned int reps)
{
	__shared__ unsigned int sh[BANK_WORDS];
	for (unsigned int i = threadIdx.x; i < BANK_WORDS; i += blockDim.x)
		sh[i] = in[i];
	__syncthreads();
	unsigned int lane = threadIdx.x & 31u;
	/* volatile: every read is issued, none is hoisted out of the loop */
	volatile unsigned int *p = sh + ((lane * stride) & 1023u);
	unsigned int acc = 0;
#pragma unroll 1
	for (unsigned int r = 0; r < reps; r++) {
#pragma unroll
		for (int k = 0; k < 32; k++)
			acc += p[k * 32];
	}
	out[lab_tid()] = acc;
}
