/* Counting the newlines of a buffer at memory speed: explain's scanner numbers lines by the
 * newlines between the lines it looks at. Pure. */
#ifndef CUDOCTOR_EXPLAIN_NEWLINES_H
#define CUDOCTOR_EXPLAIN_NEWLINES_H

#include <stdbool.h>
#include <stddef.h>

/* The '\n' bytes in s[0..n). simd: SSE2 or AVX2 where the CPU has them; false: the portable
 * word-at-a-time count (what other CPUs run). Both give the same number. */
size_t newline_count(const char *s, size_t n, bool simd);

#endif
