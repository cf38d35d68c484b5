/* libraries: hand-written row-major GEMMs C = A x B (fp32, fp16, bf16 inputs; fp32
 * accumulate and output) to race cuBLAS. Inputs are k/256 - 1/2: 8 significant bits, exact
 * in every input type, so all variants compute the same exact products. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.cuh"

#define GEMM_TILE 32

static __device__ __forceinline__ float gemm_ld(const float *p) { return *p; }
static __device__ __forceinline__ float gemm_ld(const __half *p) { return __half2float(*p); }
static __device__ __forceinline__ float gemm_ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
static __device__ __forceinline__ void gemm_st(float *p, float v) { *p = v; }
static __device__ __forceinline__ void gemm_st(__half *p, float v) { *p = __float2half_rn(v); }
static __device__ __forceinline__ void gemm_st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
static __device__ __forceinline__ void gemm_st(double *p, float v) { *p = v; }

template <typename T> static __device__ void gemm_fill(T *a, unsigned long long n, unsigned long long seed)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		gemm_st(a + i, (float)(lab_rand32(seed, i) >> 24) * (1.0f / 256.0f) - 0.5f);
}

/* one thread per element of C; A's row is a broadcast within the warp, B's row is coalesced */
template <typename T> static __device__ void gemm_naive(const T *A, const T *B, float *C, int M, int N, int K)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int k = 0; k < K; k++)
		acc = fmaf(gemm_ld(A + (size_t)row * K + k), gemm_ld(B + (size_t)k * N + col), acc);
	C[(size_t)row * N + col] = acc;
}

/* The shared-memory tiling of the programming guide: a 32x32 block stages 32x32 tiles of
 * A and B, each thread accumulates one element of C. M, N, K multiples of 32. */
template <typename T> static __device__ void gemm_tiled(const T *A, const T *B, float *C, int M, int N, int K)
{
	__shared__ float As[GEMM_TILE][GEMM_TILE], Bs[GEMM_TILE][GEMM_TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * GEMM_TILE + ty, col = blockIdx.x * GEMM_TILE + tx;
	float acc = 0.0f;
	for (int t = 0; t < K; t += GEMM_TILE) {
		As[ty][tx] = gemm_ld(A + (size_t)row * K + t + tx);
		Bs[ty][tx] = gemm_ld(B + (size_t)(t + ty) * N + col);
		__syncthreads();
#pragma unroll
		for (int k = 0; k < GEMM_TILE; k++)
			acc = fmaf(As[ty][k], Bs[k][tx], acc);
		__syncthreads();
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = acc;
}

#define GEMM_KERNELS(SUFFIX, T)                                                                           \
	extern "C" __global__ void lab_gemm_fill_##SUFFIX(T *a, unsigned long long n, unsigned long long seed) \
	{                                                                                                 \
		gemm_fill(a, n, seed);                                                                    \
	}                                                                                                 \
	extern "C" __global__ void lab_gemm_naive_##SUFFIX(const T *A, const T *B, float *C, int M, int N, int K) \
	{                                                                                                 \
		gemm_naive(A, B, C, M, N, K);                                                             \
	}                                                                                                 \
	extern "C" __global__ void __launch_bounds__(1024)                                                \
		lab_gemm_tiled_##SUFFIX(const T *A, const T *B, float *C, int M, int N, int K)             \
	{                                                                                                 \
		gemm_tiled(A, B, C, M, N, K);                                                             \
	}

GEMM_KERNELS(f32, float)
GEMM_KERNELS(f16, __half)
GEMM_KERNELS(bf16, __nv_bfloat16)

/* |x - y| as the compare keeps it: a float (a double's difference rounded once) */
static __device__ __forceinline__ float gemm_diff(float x, float y) { return fabsf(x - y); }
static __device__ __forceinline__ float gemm_diff(double x, double y) { return (float)fabs(x - y); }

/* Counts elements where |x - y| > tol (NaN counts) and keeps the largest difference
 * (non-negative floats order as their bit patterns). */
template <typename T>
static __device__ void gemm_compare(const T *x, const T *y, unsigned long long n, float tol, unsigned long long *bad,
				    unsigned int *max_bits)
{
	unsigned long long nbad = 0;
	float worst = 0.0f;
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads()) {
		float d = gemm_diff(x[i], y[i]);
		if (!(d <= tol)) {
			nbad++;
			d = d == d ? d : __int_as_float(0x7f800000);
		}
		worst = fmaxf(worst, d);
	}
	if (nbad)
		atomicAdd(bad, nbad);
	atomicMax(max_bits, __float_as_uint(worst));
}

extern "C" __global__ void lab_gemm_compare(const float *x, const float *y, unsigned long long n, float tol,
					    unsigned long long *bad, unsigned int *max_bits)
{
	gemm_compare(x, y, n, tol, bad, max_bits);
}

/* check's FP64 GEMM: the same inputs in double, and its results compared in double */
extern "C" __global__ void lab_gemm_fill_f64(double *a, unsigned long long n, unsigned long long seed)
{
	gemm_fill(a, n, seed);
}

extern "C" __global__ void lab_gemm_compare_f64(const double *x, const double *y, unsigned long long n, float tol,
						unsigned long long *bad, unsigned int *max_bits)
{
	gemm_compare(x, y, n, tol, bad, max_bits);
}
