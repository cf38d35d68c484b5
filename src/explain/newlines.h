/* Counting the newlines of a buffer at memory speed: explain's scanner numbers lines by the
 * newlines between the lines it looks at. Pure. */
#ifndef CUDOCTOR_EXPLAIN_NEWLINES_H
#define CUDOCTOR_EXPLAIN_NEWLINES_H

#include <stddef.h>

/* How to count: eight bytes at a time (what every CPU runs), SSE2 (every x86-64), AVX2. */
enum newline_path { NEWLINE_PORTABLE, NEWLINE_SSE2, NEWLINE_AVX2 };

/* The fastest this CPU runs. */
enum newline_path newline_best(void);

/* The '\n' bytes in s[0..n), counted on path or, where the CPU lacks it, the next slower one.
 * Every path gives the same number. */
size_t newline_count(const char *s, size_t n, enum newline_path path);

#endif
