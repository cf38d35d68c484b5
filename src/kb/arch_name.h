/* Compilation target names ("sm_90a", "compute_100f", "9.0") and their parts: text in,
 * text out, no table needed, so the loader and the lookups both stand on it. */
#ifndef CUDOCTOR_KB_ARCH_NAME_H
#define CUDOCTOR_KB_ARCH_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* A compilation target as nvcc names it: sm_90a -> {90, 'a'}; CC 9.0 -> {90, 0}.
 * num is 10*major + minor (12.1 -> 121). suffix is 0, 'a' (arch-specific) or 'f' (family). */
struct kb_arch {
	int num;
	char suffix;
};

static inline int kb_arch_major(struct kb_arch a) { return a.num / 10; }
static inline int kb_arch_minor(struct kb_arch a) { return a.num % 10; }
static inline bool kb_arch_eq(struct kb_arch a, struct kb_arch b)
{
	return a.num == b.num && a.suffix == b.suffix;
}

/* Parses "sm_90a", "compute_90a", "lto_90", "90a", "90", "9.0", "12.0", "sm_100f".
 * Returns CD_OK or CD_EFORMAT. Does not check that the arch exists. */
int kb_arch_parse(const char *text, struct kb_arch *out);
/* "sm_90a" with prefix "sm_", "compute_90a" with "compute_", "9.0" with NULL (no suffix). */
void kb_arch_format(struct kb_arch a, const char *prefix, char *buf, size_t n);
/* The order of architectures everywhere they are listed: their names in str_natcmp's order
 * (sm_75 < sm_80 < sm_90 < sm_90a < sm_90f < sm_100 < sm_120). kb_arch_qsort_cmp: for qsort. */
int kb_arch_cmp(struct kb_arch a, struct kb_arch b);
int kb_arch_qsort_cmp(const void *a, const void *b);

#endif
