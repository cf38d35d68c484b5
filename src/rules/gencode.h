/* Choosing nvcc targets for a set of GPUs and a toolkit: SASS for each GPU's arch, PTX
 * for the newest so future GPUs can JIT, and the toolkit and driver range the result
 * needs. Pure: the kb tables in, a plan out. */
#ifndef CUDOCTOR_RULES_GENCODE_H
#define CUDOCTOR_RULES_GENCODE_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"

#define GENCODE_MAX 64

struct gencode_target {
	struct gpu_spec spec;                /* what was asked for */
	const struct kb_toolkit *min_toolkit;/* oldest toolkit that builds spec.arch */
	const struct kb_toolkit *max_toolkit;/* newest, or NULL while still current */
	const char *refusal;                 /* NULL, toolkit-cannot-target-gpu or arch-dropped-by-toolkit */
};

struct gencode_plan {
	struct gencode_target t[GENCODE_MAX];
	size_t n;
	const struct kb_toolkit *toolkit;    /* the toolkit the flags are for */
	struct kb_arch sass[GENCODE_MAX];    /* unique, ascending */
	size_t n_sass;
	struct kb_arch ptx;                  /* PTX target (plain arch) when has_ptx */
	bool has_ptx;
	const struct kb_toolkit *min_toolkit;/* oldest toolkit that builds every target */
	const struct kb_toolkit *max_toolkit;/* newest (NULL: current) */
	bool no_common_toolkit;              /* the targets' ranges do not overlap */
	bool refused;                        /* some target cannot be built by `toolkit` */
	char nvcc[2048], cmake[512], torch[512], makefile[2200];
	const char *min_driver;              /* what the built binary needs to run: the toolkit's floor,
	                                      * or a GPU's own first driver when that is newer */
	long min_driver_gpu;                 /* the target that sets min_driver; -1 the toolkit */
	int max_branch;                      /* the last branch that supports every GPU; 0 current */
	long max_branch_gpu;                 /* the target that sets it; -1 none */
	const char *ptx_min_driver;          /* what a driver needs to JIT its PTX */
};

/* specs: the GPUs/archs to build for (n <= GENCODE_MAX); tk: the toolkit that will build
 * (must be in the tables); ptx: add PTX for the newest arch. Fills plan; targets the
 * toolkit cannot build get a refusal and stay out of the flags. CD_OK or CD_EUSAGE. */
int gencode_plan(const struct gpu_spec *specs, size_t n, const struct kb_toolkit *tk, bool ptx,
		 struct gencode_plan *plan, char *err);

/* Every plain arch tk accepts (--all), or the lowest plain arch of each major (--all-major). */
size_t gencode_all_archs(const struct kb_toolkit *tk, bool major_only, struct gpu_spec *out,
			 size_t max);

#endif
