/* Python environments and the CUDA frameworks installed in them, found by looking at
 * the filesystem: no interpreter is started and nothing is imported. */
#ifndef CUDOCTOR_PROBE_PYTHON_H
#define CUDOCTOR_PROBE_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/paths.h"

struct py_env {
	char interpreter[PROBE_PATH]; /* python3 on PATH, or the env's bin/python3 */
	char prefix[PROBE_PATH];
	const char *kind;             /* "venv", "conda", "pyenv", "system" */
};

struct py_framework {
	char name[40];                /* "torch", "jax", "cupy-cuda12x", ... */
	char version[64];
	char cuda[64];                /* CUDA it was built for, "" unknown or none */
	bool cpu_only;
	bool rocm;                    /* torch built for HIP */
	char path[PROBE_PATH];        /* package directory, or the dist-info when there is none */
};

struct py_wheel {                 /* nvidia-* CUDA wheels */
	char name[96];                /* "nvidia-cuda-runtime-cu12" */
	char version[48];
	char site[PROBE_PATH];
};

#define PY_MAX_ENVS 4

struct python_info {
	struct py_env envs[PY_MAX_ENVS];
	size_t n_envs;
	char **site_dirs;             /* existing site/dist-packages dirs, first env first, no duplicates */
	size_t n_site_dirs;
	struct py_framework *fw;
	size_t n_fw;
	struct py_wheel *wheels;
	size_t n_wheels;
};

struct python_opts {
	const char *home;             /* $HOME for the user site; NULL to skip it */
};

int python_probe(struct python_info *out, const struct python_opts *o, char *err);
void python_free(struct python_info *p);

#endif
