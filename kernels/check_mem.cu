/* check's memory test: write a pattern over a chunk, verify every word on the GPU, count the
 * words that read back wrong and record the first ones (offset, expected, read, pattern).
 * The patterns and the record are src/check/judge.h's (enum check_pattern, struct
 * check_mem_error); the log is one counter followed by CHECK_MEM_RECORDS records. */
#include "common.cuh"

#define CHECK_MEM_RECORDS 16

struct check_mem_rec {
	unsigned long long offset, expected, got, pattern;
};

/* base_words: the chunk's first word in the tested range, so walking ones continue across
 * chunks; the address pattern is each word's own device address */
static __device__ __forceinline__ unsigned long long check_pat(unsigned pattern, unsigned long long base_words,
							       unsigned long long i, const unsigned long long *p)
{
	switch (pattern) {
	case 0: return 0ull;
	case 1: return ~0ull;
	case 2: return 0x5555555555555555ull;
	case 3: return 0xaaaaaaaaaaaaaaaaull;
	case 4: return 1ull << ((base_words + i) & 63);
	default: return (unsigned long long)p;
	}
}

extern "C" __global__ void check_mem_write(unsigned long long *buf, unsigned long long n, unsigned pattern,
					   unsigned long long base_words)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads())
		buf[i] = check_pat(pattern, base_words, i, buf + i);
}

/* test only (CUDOCTOR_CHECK_INJECT=bitflip): between write and verify, flip one bit in each of
 * `count` words chosen from seed, the fault the verify kernel must report */
extern "C" __global__ void check_mem_flip(unsigned long long *buf, unsigned long long n, unsigned long long seed,
					  unsigned count)
{
	if (lab_tid() != 0 || n == 0)
		return;
	for (unsigned k = 0; k < count; k++) {
		unsigned long long h = lab_mix64(seed + k);
		buf[h % n] ^= 1ull << (lab_mix64(h) & 63);
	}
}

extern "C" __global__ void check_mem_verify(const unsigned long long *__restrict__ buf, unsigned long long n,
					    unsigned pattern, unsigned long long base_words, unsigned long long *log)
{
	for (unsigned long long i = lab_tid(); i < n; i += lab_nthreads()) {
		unsigned long long want = check_pat(pattern, base_words, i, buf + i), got = buf[i];

		if (got == want)
			continue;
		unsigned long long slot = atomicAdd(log, 1ull);
		if (slot < CHECK_MEM_RECORDS) {
			struct check_mem_rec *r = (struct check_mem_rec *)(log + 1) + slot;
			r->offset = (base_words + i) * 8;
			r->expected = want;
			r->got = got;
			r->pattern = pattern;
		}
	}
}
