/* transpose: out = in^T for an n x n float matrix (n a multiple of 32), with 32x8
 * threads per 32x32 tile. naive writes with a stride of n; tiled stages the tile
 * in shared memory (a column read: 32-way bank conflict); padded adds one word
 * per tile row so a column spans all 32 banks. */
#include "common.cuh"

#define TILE 32
#define ROWS 8

extern "C" __global__ void lab_tr_naive(const float *__restrict__ in, float *__restrict__ out, int n)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

#define TR_TILED(NAME, PAD)                                                                   \
	extern "C" __global__ void NAME(const float *__restrict__ in, float *__restrict__ out, int n) \
	{                                                                                     \
		__shared__ float tile[TILE][TILE + PAD];                                      \
		int x = blockIdx.x * TILE + threadIdx.x;                                      \
		int y = blockIdx.y * TILE + threadIdx.y;                                      \
		for (int j = 0; j < TILE; j += ROWS)                                          \
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];     \
		__syncthreads();                                                              \
		x = blockIdx.y * TILE + threadIdx.x;                                          \
		y = blockIdx.x * TILE + threadIdx.y;                                          \
		for (int j = 0; j < TILE; j += ROWS)                                          \
			out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];    \
	}

TR_TILED(lab_tr_tiled, 0)
TR_TILED(lab_tr_padded, 1)

extern "C" __global__ void lab_tr_fill(float *a, int n, unsigned long long seed)
{
	unsigned long long total = (unsigned long long)n * n;
	for (unsigned long long i = lab_tid(); i < total; i += lab_nthreads())
		a[i] = (float)lab_rand_unit(seed, i);
}

extern "C" __global__ void lab_tr_check(const float *__restrict__ out, int n, unsigned long long seed,
					unsigned long long *bad)
{
	unsigned long long total = (unsigned long long)n * n, nbad = 0;
	for (unsigned long long i = lab_tid(); i < total; i += lab_nthreads()) {
		unsigned long long r = i / n, c = i % n;   /* out[r][c] must be in[c][r] */
		if (out[i] != (float)lab_rand_unit(seed, c * n + r))
			nbad++;
	}
	if (nbad)
		atomicAdd(bad, nbad);
}
