/* Newline counting: bytes compared sixteen or thirty-two at a time, the matches summed in
 * byte counters that are folded into the total before they can wrap. */
#include "explain/newlines.h"

#include <stdint.h>
#include <string.h>

#include "util/cpu.h"

/* eight bytes at a time: a byte of w ^ "\n\n.." is zero exactly where w has a newline */
static size_t count_portable(const unsigned char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u, low7 = 0x7F7F7F7F7F7F7F7Fu;
	size_t i = 0, c = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		w ^= ones * '\n';
		/* high bit set in each byte that is nonzero, without carries between bytes */
		w = ((w & low7) + low7) | w;
		c += (size_t)__builtin_popcountll(~w & high);
	}
	for (; i < n; i++)
		c += s[i] == '\n';
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* SSE2 is in every x86-64 */
static size_t count_sse2(const unsigned char *s, size_t n)
{
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	size_t i = 0, c = 0;

	while (i + 16 <= n) {
		__m128i acc = zero, sum;
		size_t stop = n - i < 255 * 16 ? i + (n - i) / 16 * 16 : i + 255 * 16;

		for (; i < stop; i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), nl));
		sum = _mm_sad_epu8(acc, zero);
		c += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(sum, sum));
	}
	return c + count_portable(s + i, n - i);
}

__attribute__((target("avx2"))) static size_t count_avx2(const unsigned char *s, size_t n)
{
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	size_t i = 0, c = 0;

	while (i + 32 <= n) {
		__m256i acc = zero, sum;
		size_t stop = n - i < 255 * 32 ? i + (n - i) / 32 * 32 : i + 255 * 32;

		for (; i < stop; i += 32)
			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + i)), nl));
		sum = _mm256_sad_epu8(acc, zero);
		c += (size_t)_mm256_extract_epi64(sum, 0) + (size_t)_mm256_extract_epi64(sum, 1) +
		     (size_t)_mm256_extract_epi64(sum, 2) + (size_t)_mm256_extract_epi64(sum, 3);
	}
	return c + count_sse2(s + i, n - i);
}

enum newline_path newline_best(void)
{
	return cpu_has_avx2() ? NEWLINE_AVX2 : NEWLINE_SSE2;
}

size_t newline_count(const char *s, size_t n, enum newline_path path)
{
	if (path == NEWLINE_AVX2 && cpu_has_avx2())
		return count_avx2((const unsigned char *)s, n);
	if (path != NEWLINE_PORTABLE)
		return count_sse2((const unsigned char *)s, n);
	return count_portable((const unsigned char *)s, n);
}
#else
enum newline_path newline_best(void)
{
	return NEWLINE_PORTABLE;
}

size_t newline_count(const char *s, size_t n, enum newline_path path)
{
	(void)path;
	return count_portable((const unsigned char *)s, n);
}
#endif
