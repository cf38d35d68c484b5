/* Little-endian field loads and overflow-free range checks shared by the binary parsers. */
#ifndef CUDOCTOR_BINFMT_BYTES_H
#define CUDOCTOR_BINFMT_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Little-endian loads; callers check bounds first. */
static inline uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* off + len fits in size, without overflow. */
static inline bool in_bounds(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

#endif
