/* doctor's collection step: runs every probe once and turns their results, plus the
 * kb's knowledge, into the facts the stack rules judge. */
#ifndef CUDOCTOR_CMD_DOCTOR_FACTS_H
#define CUDOCTOR_CMD_DOCTOR_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/stack_rules.h"
#include "probe/driver_info.h"
#include "probe/gpus.h"
#include "probe/platform.h"
#include "probe/python.h"
#include "probe/runtimes.h"
#include "probe/toolkits.h"

#define DOCTOR_MAX_ARCHS 48

struct doctor_opts {
	const char *root;      /* prefix for fixed system paths; NULL for / */
	bool list_archs;       /* -v: ask the selected nvcc for --list-gpu-arch */
};

struct doctor_facts {
	struct gpu_probe gp;
	struct driver_info di;
	struct toolkits tk;
	struct runtimes rt;
	struct runtimes libs[8];      /* runtime_libraries[i], for the shadowing check */
	size_t n_libs;
	struct python_info py;
	struct platform_info pf;

	/* the rules' view; pointers into the probes above and into these arrays */
	struct stack_facts sf;
	struct stack_gpu *gpus;
	struct stack_mig *migs;       /* every GPU's MIG devices, one block */
	struct stack_toolkit *toolkits;
	int (*archs)[DOCTOR_MAX_ARCHS];
	char (*tk_min_driver)[32];
	char (*tk_branch)[16];
	struct stack_runtime *runtimes;  /* libcudart copies first, then every libs[] copy */
	size_t n_runtimes;
	char (*rt_min_driver)[32];
	struct stack_framework *frameworks;
	char (*fw_min_driver)[32];
	char driver_branch[16];
	char kb_error[CD_ERRMSG];   /* the kb did not load: rules run without its knowledge */
};

/* Collects everything. CD_OK or CD_ENOMEM; driver and file problems become facts. */
int doctor_collect(struct doctor_facts *df, const struct doctor_opts *o, char *err);
void doctor_facts_free(struct doctor_facts *df);

#endif
