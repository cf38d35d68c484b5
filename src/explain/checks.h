/* explain's live checks: for a recognised error, what this machine says about it, through
 * the same probes and rules doctor and arch use (probe/gpus, probe/gpu_caps, probe/platform,
 * probe/toolkits, binfmt/devcode, rules/arch). Collects and reports; never prints. */
#ifndef CUDOCTOR_EXPLAIN_CHECKS_H
#define CUDOCTOR_EXPLAIN_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"
#include "probe/gpu_caps.h"
#include "probe/gpus.h"
#include "probe/platform.h"
#include "probe/toolkits.h"
#include "rules/arch.h"
#include "rules/arch_launch.h"

#define EXPLAIN_MAX_CHECKS 12

enum check_result { CHECK_OK, CHECK_PROBLEM, CHECK_INFO, CHECK_SKIPPED };

struct explain_check {
	char name[24];       /* driver, gpus, binary, launch, nvcc, ptx, env, nodes, wsl, ldpath, memory */
	enum check_result result;
	char detail[512];
};

/* The binary check's verdicts, one per GPU of the target that had something to judge
 * (rules/arch, as `cudoctor arch` reaches them). */
struct explain_binary {
	bool judged;
	char path[512];
	const char *format;              /* dc_format_name */
	struct arch_verdict *v;          /* n entries, heap */
	const struct arch_gpu **gpus;    /* the GPU of each verdict (in explain_env's target) */
	size_t n;
};

/* The launch check: each kernel of the image a GPU would run that cannot launch with the
 * block size judged (rules/arch_launch), with the largest block that would. */
struct explain_launch_kernel {
	char gpu[160];
	char image[32];                  /* "sm_90" */
	char name[128];                  /* the kernel (mangled, as the symbol table has it) */
	unsigned registers;
	enum launch_limit limit;
	unsigned largest;                /* 0: no block launches */
};

struct explain_launch {
	bool judged;
	unsigned block;                  /* threads per block judged */
	const char *block_from;          /* "--block", "the text", "the default" */
	struct explain_launch_kernel *k; /* heap */
	size_t n, cap;
};

struct explain_checks {
	struct explain_check c[EXPLAIN_MAX_CHECKS];
	size_t n;
	struct explain_binary binary;
	struct explain_launch launch;
};

/* What the machine looks like, probed once and shared by every match. */
struct explain_env {
	bool gpus_probed, toolkits_probed, platform_probed, target_probed;
	struct gpu_probe gpus;
	struct toolkits toolkits;
	struct platform_info platform;
	/* what binaries are judged against: --gpu / --driver, the rest from this machine
	 * (probe/gpu_caps, as arch does) unless offline */
	struct arch_target target;
	bool offline;        /* --offline: only the binary check, and only against named GPUs */
	const char *binary;  /* --binary PATH, or NULL */
	bool binary_bad;     /* --binary is a file but no binary: no fix names it */
	unsigned block;      /* --block N: threads per block the launch used; 0 when not given */
};

/* An env with no probe made yet and the target of arch_target_init. */
void explain_env_init(struct explain_env *env);
/* Runs the checks x->checks names for match m (offline: only "binary", when the target
 * names GPUs). CD_OK or CD_ENOMEM. */
int explain_checks_run(const struct explain_match *m, const struct kb_explanation *x,
		       struct explain_env *env, struct explain_checks *out, char *err);
void explain_checks_free(struct explain_checks *c);
void explain_env_free(struct explain_env *env);
/* The nvcc a build here would run: the first on PATH, else $CUDA_HOME's, else the first found. */
const struct toolkit *explain_build_nvcc(const struct toolkits *ts);
const char *check_result_name(enum check_result r);   /* "ok" "problem" "info" "skipped" */

/* What the text alone says, without this machine: e.g. whether the arch list PyTorch
 * printed covers the GPU it named. Fills at most max lines; returns how many. */
size_t explain_offline_evidence(const struct explain_match *m, char lines[][400], size_t max);

#endif
