/* What was collected about Python: environments, their site-packages, the CUDA
 * frameworks and NVIDIA wheels installed in them. probe/python.c fills it (facts/kb.c
 * the kb part); rules and renderers only read it. */
#ifndef CUDOCTOR_FACTS_PYTHON_H
#define CUDOCTOR_FACTS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"

struct py_env {
	char interpreter[FACTS_PATH]; /* python3 on PATH, or the env's bin/python3 */
	char prefix[FACTS_PATH];
	const char *kind;             /* "venv", "conda", "pyenv", "system"; on the Windows side
				         "python_embeded", "conda (Windows)", "python.org (Windows)" */
};

#define PY_MAX_CODE 16

struct py_framework {
	char name[40];                /* "torch", "jax", "cupy-cuda12x", ... */
	char version[64];
	char cuda[64];                /* CUDA it was built for, "" unknown or none */
	bool cpu_only;
	bool rocm;                    /* torch built for HIP */
	char path[FACTS_PATH];        /* package directory, or the dist-info when there is none */
	char kb_min_driver[32];       /* the kb's driver floor of its CUDA release, "" unknown (facts/kb.c) */
	char *code[PY_MAX_CODE];      /* the shared objects that carry its device code (probe/python.c) */
	size_t n_code;
	bool code_alternatives;       /* those are builds it picks one of at run time (bitsandbytes) */
	const char *win_env;          /* installed in a Windows-side environment: its kind; NULL not */
	char win_python[FACTS_PATH];  /* that environment's python.exe as Windows names it; "" none */
};

struct py_wheel {                 /* nvidia-* CUDA wheels */
	char name[96];                /* "nvidia-cuda-runtime-cu12" */
	char version[48];
	char site[FACTS_PATH];
};

#define PY_MAX_ENVS 12

struct python_info {
	struct py_env envs[PY_MAX_ENVS];
	size_t n_envs;
	char **site_dirs;             /* existing site/dist-packages dirs, first env first, no duplicates */
	size_t n_site_dirs;
	struct py_framework *fw;
	size_t n_fw;
	struct py_wheel *wheels;
	size_t n_wheels;
	/* the py launcher's list (PEP 514) of a Windows side: "read", "not readable from WSL2";
	 * NULL when there is no Windows side */
	const char *win_registry;
	size_t n_win_registered;      /* installs it lists (each joins envs unless found already) */
};

/* Their fields (python_fields.c): doctor's "python" object. */
extern const struct field_table py_env_field_table, py_framework_field_table, py_wheel_field_table;

#endif
