/* explain's live checks: for a recognised error, what this machine says about it, through
 * the same probes and rules doctor and arch use (probe/gpus, probe/toolkits, binfmt/devcode,
 * kb/compat). Collects and reports; never prints. */
#ifndef CUDOCTOR_EXPLAIN_CHECKS_H
#define CUDOCTOR_EXPLAIN_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"
#include "probe/gpus.h"
#include "probe/toolkits.h"

#define EXPLAIN_MAX_CHECKS 12

enum check_result { CHECK_OK, CHECK_PROBLEM, CHECK_INFO, CHECK_SKIPPED };

struct explain_check {
	char name[24];       /* driver, gpus, binary, nvcc, ptx, env, nodes, wsl, ldpath, memory */
	enum check_result result;
	char detail[512];
};

struct explain_checks {
	struct explain_check c[EXPLAIN_MAX_CHECKS];
	size_t n;
};

/* What the machine looks like, probed once and shared by every match. */
struct explain_env {
	bool gpus_probed, toolkits_probed;
	struct gpu_probe gpus;
	struct toolkits toolkits;
	const char *binary;  /* --binary PATH, or NULL */
};

/* Runs the checks x->checks names for match m. CD_OK or CD_ENOMEM. */
int explain_checks_run(const struct explain_match *m, const struct kb_explanation *x,
		       struct explain_env *env, struct explain_checks *out, char *err);
void explain_env_free(struct explain_env *env);
/* The nvcc a build here would run: the first on PATH, else $CUDA_HOME's, else the first found. */
const struct toolkit *explain_build_nvcc(const struct toolkits *ts);
const char *check_result_name(enum check_result r);   /* "ok" "problem" "info" "skipped" */

/* What the text alone says, without this machine: e.g. whether the arch list PyTorch
 * printed covers the GPU it named. Fills at most max lines; returns how many. */
size_t explain_offline_evidence(const struct explain_match *m, char lines[][400], size_t max);

#endif
