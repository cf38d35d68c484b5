/* doctor's collection step: the run's driver and platform facts, then every other probe
 * once, then the kb's knowledge beside them. */
#ifndef CUDOCTOR_CMD_DOCTOR_FACTS_H
#define CUDOCTOR_CMD_DOCTOR_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cmd.h"
#include "facts/facts.h"
#include "probe/python.h"
#include "probe/runtimes.h"
#include "probe/toolkits.h"

#define DOCTOR_MAX_RUNTIME_SETS 9

struct doctor_opts {
	const char *root;      /* prefix for fixed system paths; NULL for / */
	bool list_archs;       /* -v: ask the selected nvcc for --list-gpu-arch */
};

struct doctor_facts {
	const struct gpu_probe *gp;   /* the run's */
	const struct platform_info *pf;
	struct toolkits tk;
	struct runtimes rt[DOCTOR_MAX_RUNTIME_SETS]; /* [0] libcudart, [1 + l] runtime_libraries[l] */
	size_t n_rt;
	struct python_info py;
	struct facts f;               /* the rules' view of all of the above */
	char kb_error[CD_ERRMSG];     /* the kb did not load: rules run without its knowledge */
};

/* Collects everything beyond the run's driver facts, with the kb's knowledge.
 * CD_OK or CD_ENOMEM; driver and file problems become facts. */
int doctor_collect(struct doctor_facts *df, struct cd_run *run, const struct doctor_opts *o, char *err);
void doctor_facts_free(struct doctor_facts *df);

#endif
