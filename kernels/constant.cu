/* constant-memory: every lane reads lab_const_tab[base(lane) + offset]; with one
 * address per warp the constant cache broadcasts, with d distinct addresses it
 * serves them one after another. */
#include "common.cuh"

#define CONST_WORDS 4096
__constant__ unsigned int lab_const_tab[CONST_WORDS];

extern "C" __global__ void lab_const_read(unsigned int *__restrict__ out, unsigned int distinct, unsigned int reps)
{
	unsigned int lane = threadIdx.x & 31u;
	unsigned int base = (lane % distinct) * 16u;   /* distinct words, in distinct lines too */
	unsigned int acc = 0;
#pragma unroll 1
	for (unsigned int r = 0; r < reps; r++) {
		unsigned int off = base + (r & 7u) * 512u;
#pragma unroll
		for (int k = 0; k < 8; k++)
			acc += lab_const_tab[off + k];
	}
	out[lab_tid()] = acc;
}
