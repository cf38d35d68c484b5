/* What was collected about each copy of a CUDA library (libcudart, and the others doctor
 * checks for shadowing): where, which version and what the loader would pick.
 * probe/runtimes.c fills it (facts/kb.c the kb part); rules and renderers only read it. */
#ifndef CUDOCTOR_FACTS_RUNTIME_H
#define CUDOCTOR_FACTS_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"
#include "util/version.h"

enum runtime_origin { ORIGIN_SYSTEM, ORIGIN_TOOLKIT, ORIGIN_PIP, ORIGIN_TORCH, ORIGIN_CONDA };

/* "system", "toolkit", "pip wheel", "torch", "conda" */
const char *runtime_origin_name(enum runtime_origin o);

struct runtime {
	char path[FACTS_PATH];      /* as found: the soname link when there is one */
	char real_path[FACTS_PATH]; /* resolved; one file found twice is one runtime */
	char soname[64];            /* "libcudart.so.12" */
	char version_text[64];      /* "12.4.127" or "12" */
	struct version version;
	const char *version_source; /* "file name", "version.json", "dist-info", "torch/version.py", "cuda_runtime_api.h", "soname" */
	enum runtime_origin origin;
	int rank;                   /* loader order for a program without RUNPATH; -1 not on it */
	bool from_ld_library_path;
	bool picked;                /* the lowest rank of its soname */
	char kb_min_driver[32];     /* libcudart: the kb's driver floor of its CUDA release, "" unknown (facts/kb.c) */
};

/* libcudart's set and one per other CUDA library doctor looks for (probe/runtimes.h) */
#define RUNTIME_SETS_MAX 9

struct runtimes {
	const char *library;        /* the stem looked for: "libcudart", "libcublas", ... */
	struct runtime *r;
	size_t n;
	bool ldcache_ok;            /* /etc/ld.so.cache was read */
	char ldcache_error[256];
};

/* Its fields (toolkit_fields.c): doctor's "runtimes[]" and "libraries[]". */
extern const struct field_table runtime_field_table;

#endif
