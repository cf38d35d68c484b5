/* Helpers shared by the lab kernels: the counter-based random numbers the host
 * side (src/lab/rng.h) reproduces bit for bit, so outputs can be checked. */
#ifndef CUDOCTOR_KERNELS_COMMON_CUH
#define CUDOCTOR_KERNELS_COMMON_CUH

/* splitmix64 finaliser: a bijection, so distinct indices give distinct values */
static __device__ __forceinline__ unsigned long long lab_mix64(unsigned long long x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static __device__ __forceinline__ unsigned int lab_rand32(unsigned long long seed, unsigned long long i)
{
	return (unsigned int)(lab_mix64(seed ^ lab_mix64(i)) >> 32);
}

/* a double in [1, 2): exact in float and double arithmetic tests */
static __device__ __forceinline__ double lab_rand_unit(unsigned long long seed, unsigned long long i)
{
	return 1.0 + (double)(lab_rand32(seed, i) >> 8) * (1.0 / 16777216.0);
}

static __device__ __forceinline__ unsigned long long lab_tid(void)
{
	return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ unsigned long long lab_nthreads(void)
{
	return (unsigned long long)gridDim.x * blockDim.x;
}

#endif
