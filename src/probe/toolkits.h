/* Every nvcc on this machine: where it was found, its version (from files when they
 * exist, `nvcc --version` only when not), and which one a build would use. */
#ifndef CUDOCTOR_PROBE_TOOLKITS_H
#define CUDOCTOR_PROBE_TOOLKITS_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/paths.h"
#include "util/version.h"

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
	char root[PROBE_PATH];      /* as found: /usr/local/cuda */
	char nvcc[PROBE_PATH];      /* as found: /usr/local/cuda/bin/nvcc */
	char real_nvcc[PROBE_PATH]; /* resolved; two finds of one file are one toolkit */
	char version_text[32];      /* "13.0.88" */
	struct version version;     /* parts 0 when no source told */
	const char *version_source; /* "version.json", "version.txt", "dist-info", "nvcc --version" */
	unsigned found_by;          /* enum toolkit_found_by bits */
	int path_rank;              /* index of its dir in $PATH, -1 when not on PATH */
	bool selected;              /* first nvcc on PATH: what `nvcc` and most builds run */
	char *gpu_archs;            /* with list_archs: `nvcc --list-gpu-arch`, space-separated; else NULL */
};

struct toolkits {
	struct toolkit *t;
	size_t n;
	bool spawned;               /* some version needed `nvcc --version` */
};

struct toolkits_opts {
	const char *root;           /* prefix for fixed system paths (tests); NULL for / */
	const char *const *site_dirs; /* Python site-packages to search for the pip nvcc */
	size_t n_site_dirs;
	bool list_archs;            /* run `nvcc --list-gpu-arch` on the selected one (-v) */
	bool no_spawn;              /* never run nvcc (version stays unknown without files) */
};

int toolkits_probe(struct toolkits *out, const struct toolkits_opts *o, char *err);
void toolkits_free(struct toolkits *t);
const char *toolkit_found_by_text(unsigned found_by, char *buf, size_t n);

/* Version of the toolkit rooted at root from its files only; CD_ENOTFOUND if none says. */
int toolkit_version_from_files(const char *root, char *out, size_t n, const char **source);

#endif
