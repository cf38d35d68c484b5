/* The AMD tables: the processors and the generic processors that cover them
 * (kb/amd_targets.tsv), AMD GPUs with their gfx target, memory and the ROCm releases that
 * support them on Linux (kb/amd_gpus.tsv), and the gfx targets of the ROCm builds of PyTorch
 * and JAX (kb/rocm_builds.tsv). Loaded lazily from the embedded blobs; nothing here prints. */
#ifndef CUDOCTOR_KB_AMD_H
#define CUDOCTOR_KB_AMD_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/embedded.h"
#include "util/version.h"

struct kb_amd_target {
	const char *processor;        /* "gfx1100" */
	const char *generic;          /* "gfx11-generic", or NULL when no generic processor covers it */
	bool xnack, sramecc;          /* the target features it has */
	int sramecc_default;          /* 1 on, 0 off, -1 differs by product or unsupported */
	bool uncertain;
	const char *source, *notes;
};

#define KB_AMD_MAX_ALIASES 4
struct kb_amd_gpu {
	const char *name;             /* "AMD Radeon RX 7900 XTX" */
	const char *aliases[KB_AMD_MAX_ALIASES];
	size_t n_aliases;
	const char *gfx;
	double vram_gb;               /* 0: shares the host's memory (an APU) */
	const char *segment;          /* Instinct, Radeon PRO, Radeon, APU */
	bool rocm;                    /* ROCm on Linux supports it: from rocm_first, to rocm_last if has_last */
	struct version rocm_first, rocm_last;
	bool has_last;
	const char *rocm_text;        /* "6.0-", "3.0-6.4", "-" */
	bool uncertain;
	const char *source, *notes;
};

#define KB_ROCM_MAX_TARGETS 24
struct kb_rocm_build {
	const char *framework;        /* torch, jax */
	const char *release;          /* "2.8.0" */
	struct version release_v;
	const char *variant;          /* "rocm6.4" */
	struct version rocm;          /* 6.4 */
	const char *targets[KB_ROCM_MAX_TARGETS]; /* processors and generic processors it carries */
	size_t n_targets;
	const char *install;
	bool uncertain;
	const char *source, *notes;
};

/* Parses the three tables once. CD_OK, or CD_EFORMAT / CD_ENOMEM with "file:line: why". */
int kb_amd_load(char *err);
/* The same from given blobs (tests and the fuzzer feed malformed tables). */
int kb_amd_load_blobs(const struct kb_blob *blobs, size_t n, char *err);

const struct kb_amd_target *kb_amd_target_find(const char *processor);
size_t kb_amd_target_count(void);
const struct kb_amd_target *kb_amd_target_at(size_t i);
/* Whether gfx (a concrete processor) runs code of target (a processor or generic processor). */
bool kb_amd_target_covers(const char *target, const char *gfx);
/* Whether name is one of the generic processors the table names. */
bool kb_amd_is_generic(const char *name);

size_t kb_amd_gpu_count(void);
const struct kb_amd_gpu *kb_amd_gpu_at(size_t i);
/* A GPU by its name or an alias ("AMD Radeon RX 7900 XTX", "RX 7900 XTX", "7900 XTX", "780M";
 * ASCII case, blanks and a leading "AMD "/"Radeon " ignored), or NULL. */
const struct kb_amd_gpu *kb_amd_gpu_find(const char *spec);
/* The first GPU of target gfx in the table, or NULL. */
const struct kb_amd_gpu *kb_amd_gpu_of_gfx(const char *gfx);

size_t kb_rocm_build_count(void);
const struct kb_rocm_build *kb_rocm_build_at(size_t i); /* oldest release first per framework */
/* Whether build b carries code gfx runs (its processor or a generic one covering it). */
bool kb_rocm_build_covers(const struct kb_rocm_build *b, const char *gfx);

#endif
