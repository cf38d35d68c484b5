/* PTX text: .version, .target and .entry names, read from a bounded buffer that need
 * not be NUL-terminated. */
#ifndef CUDOCTOR_BINFMT_PTX_H
#define CUDOCTOR_BINFMT_PTX_H

#include <stdbool.h>
#include <stddef.h>

struct ptx_info {
	unsigned isa_major, isa_minor;  /* .version */
	unsigned target;                /* .target sm_XY[a|f] -> 10*X+Y; 0 if absent */
	char target_suffix;             /* 'a', 'f' or 0 */
	char target_text[32];           /* as written, e.g. "sm_90a" */
	size_t n_entries;
};

/* True when the text looks like PTX: a .version directive among its first 200 lines and
 * 64 KiB (nothing further is read). */
bool ptx_looks_like_ptx(const unsigned char *data, size_t size);

/* CD_EFORMAT when no .version directive is found. */
int ptx_read(const unsigned char *data, size_t size, struct ptx_info *pi, char *err);

/* Calls fn(name, ctx) for each .entry, in text order; stops on a non-zero return. */
int ptx_entries(const unsigned char *data, size_t size,
		int (*fn)(const char *name, void *ctx), void *ctx, char *err);

#endif
