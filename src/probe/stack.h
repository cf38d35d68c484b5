/* The whole CUDA stack collected, as doctor shows it: the driver and platform facts the run
 * already has, then every other probe once, then the kb's knowledge beside them. */
#ifndef CUDOCTOR_PROBE_STACK_H
#define CUDOCTOR_PROBE_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "facts/platform.h"
#include "probe/gpus.h"
#include "probe/python.h"
#include "probe/runtimes.h"
#include "probe/toolkits.h"
#include "probe/windows.h"

#define STACK_MAX_RUNTIME_SETS 9

struct stack_opts {
	const char *root;      /* prefix for fixed system paths; NULL for / */
	bool list_archs;       /* -v: ask the selected nvcc for --list-gpu-arch */
};

struct stack_facts {
	const struct gpu_probe *gp;   /* the caller's */
	const struct platform_info *pf;
	struct toolkits tk;
	struct runtimes rt[STACK_MAX_RUNTIME_SETS]; /* [0] libcudart, [1 + l] runtime_libraries[l] */
	size_t n_rt;
	struct python_info py;
	struct win_side win;          /* read only where there is a Windows side (WSL2's /mnt/c) */
	struct facts f;               /* the rules' view of all of the above */
	char kb_error[CD_ERRMSG];     /* the kb did not load: rules run without its knowledge */
};

/* Everything beyond the driver and platform facts, in two steps: the probes, which need
 * neither the driver nor the kb (so they may run while the driver initialises), then the
 * driver facts gp and the platform pf (kept by the caller, only pointed to) joined and the
 * kb's knowledge added. CD_OK or CD_ENOMEM (driver and file problems become facts); either
 * frees df when it fails. */
int stack_probe(struct stack_facts *df, const struct stack_opts *o, char *err);
int stack_join(struct stack_facts *df, const struct gpu_probe *gp, const struct platform_info *pf, char *err);
void stack_facts_free(struct stack_facts *df);

#endif
