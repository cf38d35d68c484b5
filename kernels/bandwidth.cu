/* bandwidth: the STREAM kernels (copy, scale, add, triad, dot) on doubles with
 * 16-byte accesses and two independent loads in flight per thread; inputs come from
 * the counter hash so a check kernel can recompute every expected element. */
#include "common.cuh"

enum { BW_COPY = 0, BW_SCALE = 1, BW_ADD = 2, BW_TRIAD = 3, BW_DOT = 4 };

extern "C" __global__ void lab_fill_unit(double *a, unsigned long long n, unsigned long long seed)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		a[i] = lab_rand_unit(seed, i);
}

static __device__ __forceinline__ double2 bw_op(int kind, double2 a, double2 b, double s)
{
	double2 r;
	switch (kind) {
	case BW_COPY: r = a; break;
	case BW_SCALE: r.x = s * a.x; r.y = s * a.y; break;
	case BW_ADD: r.x = a.x + b.x; r.y = a.y + b.y; break;
	default: r.x = __fma_rn(s, b.x, a.x); r.y = __fma_rn(s, b.y, a.y); break;
	}
	return r;
}

/* n2 = number of double2 elements. kind is a template-like runtime switch that is
 * uniform over the grid, so it costs one predictable branch per element. */
#define BW_KERNEL(NAME, KIND, NEEDS_B)                                                        \
	extern "C" __global__ void NAME(const double2 *__restrict__ a, const double2 *__restrict__ b, \
					double2 *__restrict__ c, double s, unsigned long long n2) \
	{                                                                                     \
		unsigned long long T = lab_nthreads(), i = lab_tid();                         \
		for (; i + T < n2; i += 2 * T) {                                              \
			double2 a0 = a[i], a1 = a[i + T];                                     \
			double2 b0 = a0, b1 = a1;                                             \
			if (NEEDS_B) { b0 = b[i]; b1 = b[i + T]; }                            \
			c[i] = bw_op(KIND, a0, b0, s);                                        \
			c[i + T] = bw_op(KIND, a1, b1, s);                                    \
		}                                                                             \
		for (; i < n2; i += T) {                                                      \
			double2 a0 = a[i], b0 = a0;                                           \
			if (NEEDS_B) b0 = b[i];                                               \
			c[i] = bw_op(KIND, a0, b0, s);                                        \
		}                                                                             \
	}

BW_KERNEL(lab_bw_copy, BW_COPY, 0)
BW_KERNEL(lab_bw_scale, BW_SCALE, 0)
BW_KERNEL(lab_bw_add, BW_ADD, 1)
BW_KERNEL(lab_bw_triad, BW_TRIAD, 1)

/* 8-byte variants: one double per access, n = number of doubles */
static __device__ __forceinline__ double bw_op1(int kind, double a, double b, double s)
{
	switch (kind) {
	case BW_COPY: return a;
	case BW_SCALE: return s * a;
	case BW_ADD: return a + b;
	default: return __fma_rn(s, b, a);
	}
}

#define BW_KERNEL1(NAME, KIND, NEEDS_B)                                                       \
	extern "C" __global__ void NAME(const double *__restrict__ a, const double *__restrict__ b, \
					double *__restrict__ c, double s, unsigned long long n)  \
	{                                                                                     \
		unsigned long long T = lab_nthreads(), i = lab_tid();                         \
		for (; i + T < n; i += 2 * T) {                                               \
			double a0 = a[i], a1 = a[i + T];                                      \
			double b0 = a0, b1 = a1;                                              \
			if (NEEDS_B) { b0 = b[i]; b1 = b[i + T]; }                            \
			c[i] = bw_op1(KIND, a0, b0, s);                                       \
			c[i + T] = bw_op1(KIND, a1, b1, s);                                   \
		}                                                                             \
		if (i < n)                                                                    \
			c[i] = bw_op1(KIND, a[i], NEEDS_B ? b[i] : a[i], s);                  \
	}

BW_KERNEL1(lab_bw_copy_d, BW_COPY, 0)
BW_KERNEL1(lab_bw_scale_d, BW_SCALE, 0)
BW_KERNEL1(lab_bw_add_d, BW_ADD, 1)
BW_KERNEL1(lab_bw_triad_d, BW_TRIAD, 1)

/* dot: per-block partial sums (blockDim.x must be a power of two <= 1024) */
extern "C" __global__ void lab_bw_dot(const double2 *__restrict__ a, const double2 *__restrict__ b,
				      double *__restrict__ partial, unsigned long long n2)
{
	__shared__ double sh[1024];
	unsigned long long T = lab_nthreads(), i = lab_tid();
	double acc0 = 0.0, acc1 = 0.0;
	for (; i + T < n2; i += 2 * T) {
		double2 a0 = a[i], a1 = a[i + T], b0 = b[i], b1 = b[i + T];
		acc0 += a0.x * b0.x + a0.y * b0.y;
		acc1 += a1.x * b1.x + a1.y * b1.y;
	}
	for (; i < n2; i += T) {
		double2 a0 = a[i], b0 = b[i];
		acc0 += a0.x * b0.x + a0.y * b0.y;
	}
	sh[threadIdx.x] = acc0 + acc1;
	for (unsigned int off = blockDim.x / 2; off > 0; off /= 2) {
		__syncthreads();
		if (threadIdx.x < off)
			sh[threadIdx.x] += sh[threadIdx.x + off];
	}
	if (threadIdx.x == 0)
		partial[blockIdx.x] = sh[0];
}

/* Counts elements of c that differ from the kind's formula over the hashed inputs;
 * for dot, adds a reference sum into *ref instead (one atomic per block). */
extern "C" __global__ void lab_bw_check(int kind, const double *__restrict__ c, unsigned long long n,
					unsigned long long seed_a, unsigned long long seed_b, double s,
					unsigned long long *bad, double *ref)
{
	__shared__ double sh[256];
	double acc = 0.0;
	unsigned long long nbad = 0;
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads()) {
		double a = lab_rand_unit(seed_a, i), b = lab_rand_unit(seed_b, i), want;
		switch (kind) {
		case BW_COPY: want = a; break;
		case BW_SCALE: want = s * a; break;
		case BW_ADD: want = a + b; break;
		case BW_TRIAD: want = __fma_rn(s, b, a); break;
		default: acc += a * b; continue;
		}
		if (c[i] != want)
			nbad++;
	}
	if (kind == BW_DOT) {
		sh[threadIdx.x] = acc;
		for (unsigned int off = blockDim.x / 2; off > 0; off /= 2) {
			__syncthreads();
			if (threadIdx.x < off)
				sh[threadIdx.x] += sh[threadIdx.x + off];
		}
		if (threadIdx.x == 0)
			atomicAdd(ref, sh[0]);
	} else if (nbad) {
		atomicAdd(bad, nbad);
	}
}
