/* What was collected about each nvcc on this machine: where it was found, its version
 * and which one a build would use, with the kb's knowledge of that release beside it.
 * probe/toolkits.c fills it (facts/kb.c the kb part); rules and renderers only read it. */
#ifndef CUDOCTOR_FACTS_TOOLKIT_H
#define CUDOCTOR_FACTS_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"
#include "util/version.h"

#define TOOLKIT_KB_MAX_ARCHS 48

struct toolkit_kb {
	bool known;                 /* the kb lists the archs this release targets */
	int archs[TOOLKIT_KB_MAX_ARCHS]; /* plain SM numbers nvcc accepts, ascending (a/f variants left out) */
	size_t n_archs;
	char min_driver[32];        /* the oldest Linux driver that runs it, "580.65.06"; "" unknown */
	char min_branch[16];        /* "R580"; "" unknown */
};

enum toolkit_found_by {
	TK_PATH = 1 << 0,      /* a directory of $PATH */
	TK_CUDACXX = 1 << 1,   /* $CUDACXX (CMake's choice) */
	TK_CUDA_HOME = 1 << 2,
	TK_CUDA_PATH = 1 << 3,
	TK_SYSTEM = 1 << 4,    /* /usr/local/cuda*, /opt/cuda */
	TK_CONDA = 1 << 5,     /* $CONDA_PREFIX/bin */
	TK_PIP = 1 << 6,       /* site-packages/nvidia/{cuda_nvcc,cu13}/bin */
	TK_WRAPPER = 1 << 7,   /* reached through a script that execs this nvcc */
};

struct toolkit {
	char root[FACTS_PATH];      /* as found: /usr/local/cuda */
	char nvcc[FACTS_PATH];      /* as found: /usr/local/cuda/bin/nvcc */
	char real_nvcc[FACTS_PATH]; /* resolved; two finds of one file are one toolkit */
	char version_text[32];      /* "13.0.88" */
	struct version version;     /* parts 0 when no source told */
	const char *version_source; /* "version.json", "version.txt", "dist-info", "nvcc --version" */
	unsigned found_by;          /* enum toolkit_found_by bits */
	int path_rank;              /* index of its dir in $PATH, -1 when not on PATH */
	bool selected;              /* first nvcc on PATH: what `nvcc` and most builds run */
	char *gpu_archs;            /* with list_archs: `nvcc --list-gpu-arch`, space-separated; else NULL */
	struct toolkit_kb kb;       /* what the kb says about this release (facts/kb.c) */
};

/* The ways in found_by, ", "-joined: "PATH, CUDA_HOME, system"; whole names only. */
const char *toolkit_found_by_text(unsigned found_by, char *buf, size_t n);

struct toolkits {
	struct toolkit *t;
	size_t n;
	bool spawned;               /* some version needed `nvcc --version` */
};

/* Its fields (toolkit_fields.c): doctor's "toolkits[]". */
extern const struct field_table toolkit_field_table;

#endif
