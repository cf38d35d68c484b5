/* The host's copy of the kernels' counter hash (kernels/common.cuh): same values
 * bit for bit, so expected outputs are computed without moving the inputs. */
#ifndef CUDOCTOR_LAB_RNG_H
#define CUDOCTOR_LAB_RNG_H

#include <stdint.h>

static inline uint64_t lab_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static inline uint32_t lab_rand32(uint64_t seed, uint64_t i)
{
	return (uint32_t)(lab_mix64(seed ^ lab_mix64(i)) >> 32);
}

static inline double lab_rand_unit(uint64_t seed, uint64_t i)
{
	return 1.0 + (double)(lab_rand32(seed, i) >> 8) * (1.0 / 16777216.0);
}

#endif
