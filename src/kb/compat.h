/* "Will this image run on this GPU?" — the selection rules of fatbin.md §4 as pure
 * functions over header facts. Knows nothing about files; the family table and the
 * driver's PTX limit come in as arguments. */
#ifndef CUDOCTOR_KB_COMPAT_H
#define CUDOCTOR_KB_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kb/arch_name.h"

#define COMPAT_KIND_PTX 1
#define COMPAT_KIND_SASS 2

/* PTX ISA as one number: 9.0 -> 900, 8.10 -> 810. */
#define COMPAT_ISA(major, minor) ((unsigned)(major) * 100u + (unsigned)(minor))

struct compat_image {
	uint16_t kind;     /* COMPAT_KIND_*; other kinds are never selected */
	unsigned arch;     /* header arch, 10*major+minor */
	char suffix;       /* 'a', 'f' or 0 (header flags) */
	unsigned ptx_isa;  /* COMPAT_ISA of a PTX image */
	bool zstd;         /* stored Zstandard-compressed */
	bool compat_blob;  /* header flag 0x1000000: loses ties against an equal ELF without it */
};

/* One row of the family table (Programming Guide Table 28): code built for
 * `target`f runs on compute capability `cc`. */
struct compat_family_member {
	unsigned target;
	unsigned cc;
};

struct compat_env {
	unsigned cc;               /* the GPU, 10*major+minor */
	unsigned ptx_isa_max;      /* newest PTX ISA the driver's JIT takes; 0 = unknown (no limit) */
	int zstd_ok;               /* driver can load Zstandard images: 1 yes, 0 no, -1 unknown */
	bool force_ptx_jit;        /* CUDA_FORCE_PTX_JIT / CUDA_FORCE_JIT */
	bool disable_ptx_jit;      /* CUDA_DISABLE_PTX_JIT / CUDA_DISABLE_JIT */
	const struct compat_family_member *family;
	size_t n_family;
};

enum compat_outcome {
	COMPAT_SASS,          /* a compatible cubin is used as-is */
	COMPAT_JIT,           /* no cubin fits; a PTX is JIT-compiled at first load */
	COMPAT_NO_IMAGE,      /* 209 CUDA_ERROR_NO_BINARY_FOR_GPU */
	COMPAT_PTX_TOO_NEW,   /* 222: only PTX fits and its ISA is newer than the driver's JIT */
	COMPAT_JIT_DISABLED,  /* 223: only PTX fits and JIT is disabled */
};

struct compat_choice {
	enum compat_outcome outcome;
	long image;            /* index of the selected image, -1 when none */
	bool zstd_unloadable;  /* the selected image is Zstandard and the driver cannot read it (200) */
};

/* kb/arch_families.tsv (Programming Guide Table 28) as pairs, built once: the one family
 * table arch and explain judge with. */
const struct compat_family_member *compat_family_table(size_t *n);

bool compat_in_family(const struct compat_env *env, unsigned target, unsigned cc);
bool compat_sass_runs(const struct compat_env *env, const struct compat_image *im);
bool compat_ptx_runs(const struct compat_env *env, const struct compat_image *im); /* ignores ISA and JIT switches */

/* An arch list a framework printed (PyTorch's "supports sm_37 sm_50 ... compute_90"; ptx[i]:
 * entry i is PTX) on a GPU of compute capability cc: whether SASS in it runs there, and
 * (ptx_runs, may be NULL) whether a PTX in it could be JIT-compiled for it. */
void compat_arch_list(unsigned cc, const struct kb_arch *list, const bool *ptx, size_t n, bool *sass_runs,
		      bool *ptx_runs);

/* The driver's choice for one container (fatbin.md §4.4, §4.7). */
void compat_choose(const struct compat_image *imgs, size_t n, const struct compat_env *env,
		   struct compat_choice *out);

/* What one file amounts to on one GPU, from its containers' outcomes. */
enum compat_verdict {
	VERDICT_NATIVE, VERDICT_JIT, VERDICT_PARTIAL, VERDICT_NO_IMAGE, VERDICT_PTX_TOO_NEW,
	VERDICT_JIT_DISABLED, VERDICT_NONE /* nothing to judge: no container with kernels */
};

struct compat_tally {
	size_t sass, jit, no_image, ptx_too_new, jit_disabled;
};

void compat_tally_add(struct compat_tally *t, enum compat_outcome o);
enum compat_verdict compat_verdict_of(const struct compat_tally *t);
const char *compat_verdict_name(enum compat_verdict v);  /* "native", "jit", ... */
const char *compat_outcome_name(enum compat_outcome o);  /* "sass", "jit", "no-image", ... */

/* Reads CUDA_FORCE_PTX_JIT / CUDA_DISABLE_PTX_JIT (and the older CUDA_FORCE_JIT /
 * CUDA_DISABLE_JIT, which the PTX_ names override) through getenv-like `get`. */
void compat_env_from_vars(struct compat_env *env, const char *(*get)(const char *name));

#endif
