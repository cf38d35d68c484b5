/* check's load part: the load tests on every CUDA GPU in turn, within a time budget. */
#ifndef CUDOCTOR_CMD_CHECK_LOAD_H
#define CUDOCTOR_CMD_CHECK_LOAD_H

#include <stdbool.h>

/* src/check/load.h: check_gemm_types_parse, the GEMM types of check_load_opts */
#include "check/load.h"
#include "cmd/cmd.h"
#include "facts/deploy.h"
#include "report/report.h"

struct check_load_opts {
	double budget_s;          /* for all GPUs together */
	bool inject;              /* CUDOCTOR_CHECK_INJECT=bitflip */
	bool progress;            /* a progress line on stderr (a terminal) */
	unsigned long long seed;
	unsigned gemm_types;      /* bits of check_gemm_types (check_gemm_types_parse); 0: the GPU's fastest */
};

/* Runs the memory test on each GPU CUDA lists, samples NVML meanwhile, reads the kernel log
 * again after, and adds the judges' findings and a "load" record (one row per GPU). Without
 * a GPU CUDA can use, the record says why and nothing runs. before: the kernel log as read
 * before the load. CD_OK, or CD_ENOMEM. */
int check_load(struct report *r, struct cd_run *run, const struct check_load_opts *o,
	       const struct kmsg_events *before, char *err);

#endif
