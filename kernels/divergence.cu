/* divergence: `paths` code paths of equal work, chosen per lane (threads of one warp
 * disagree: the warp runs every path in turn) or per warp (all lanes agree). */
#include "common.cuh"

extern "C" __global__ void lab_diverge(const float *__restrict__ in, float *__restrict__ out, int paths,
				       int by_warp, int iters)
{
	unsigned long long t = lab_tid();
	unsigned int lane = threadIdx.x & 31u;
	unsigned int warp = (unsigned int)(t >> 5);
	int sel = by_warp ? (int)(warp % (unsigned int)paths) : (int)(lane % (unsigned int)paths);
	float x = in[t];
	for (int j = 0; j < paths; j++) {
		if (sel == j) {
			/* a different constant pair per path so no two paths can merge */
			float a = 0.5f + (float)j * (1.0f / 128.0f);
			float b = 1.0f + (float)j;
#pragma unroll 8
			for (int i = 0; i < iters; i++)
				x = __fmaf_rn(x, a, b);
		}
	}
	out[t] = x;
}
