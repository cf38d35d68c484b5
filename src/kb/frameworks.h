/* The framework build tables: PyTorch's wheels (kb/torch.tsv: release -> CUDA variant ->
 * the archs its build carries) and the CUDA builds of JAX, vLLM, Ollama, CuPy and TensorFlow
 * (kb/frameworks.tsv: compute capability range and driver floor per build). Loaded
 * lazily from the embedded blobs beside the base tables; nothing here prints. */
#ifndef CUDOCTOR_KB_FRAMEWORKS_H
#define CUDOCTOR_KB_FRAMEWORKS_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"
#include "util/field.h"

#define KB_TORCH_MAX_ARCHS 24

struct kb_torch_build {
	const char *release;          /* "2.7.1" */
	struct version release_v;
	const char *variant;          /* "cu128" */
	struct version cuda;          /* 12.8 */
	const char *cuda_text;
	bool experimental;            /* RELEASE.md's "Experimental CUDA" column */
	const char *platform;         /* "x86_64" */
	struct kb_arch archs[KB_TORCH_MAX_ARCHS]; /* SASS the wheel carries, ascending */
	size_t n_archs;
	struct kb_arch ptx;           /* the +PTX arch when has_ptx */
	bool has_ptx;
	const char *index_url;        /* https://download.pytorch.org/whl/cu128 */
	bool uncertain;
	const char *source, *notes;
};

struct kb_fw_build {
	const char *framework;        /* jax, vllm, ollama, cupy, tensorflow */
	const char *release;          /* "current" or a version */
	const char *variant;          /* cuda12, cu129, cuda */
	struct version cuda;          /* parts == 0: the framework picks (ollama) */
	const char *cuda_text;
	int min_cc, max_cc;           /* 10*major+minor; max_cc 0: no upper bound */
	struct version min_driver;    /* valid when has_min_driver; else the toolkit family floor */
	bool has_min_driver;
	const char *min_driver_text;  /* "570" or "toolkit" */
	const char *install;
	bool uncertain;
	const char *source, *notes;
};

/* Parses both tables once. CD_OK, or CD_EFORMAT / CD_ENOMEM with "file:line: why". */
int kb_fw_load(char *err);
/* The same from given blobs (tests and the fuzzer feed malformed tables); replaces what was loaded. */
int kb_fw_load_blobs(const struct kb_blob *blobs, size_t n, char *err);

size_t kb_torch_count(void);
const struct kb_torch_build *kb_torch_at(size_t i); /* table order: oldest release first */
/* Whether a row belongs to a release query: "2.7" matches 2.7.x, "2.7.1" only itself. */
bool kb_torch_release_matches(const struct kb_torch_build *b, const struct version *q);

size_t kb_fw_count(void);
const struct kb_fw_build *kb_fw_at(size_t i);

/* A row of each table as fields (kb/frameworks_fields.c). */
extern const struct field_table kb_torch_build_field_table, kb_fw_build_field_table;

#endif
