/* Per-SM and per-block limits of a compute capability (kb/sm_limits.tsv, the programming
 * guide's technical specifications): what decides whether a kernel's block can launch. */
#ifndef CUDOCTOR_KB_SM_LIMITS_H
#define CUDOCTOR_KB_SM_LIMITS_H

#include <stdbool.h>

struct kb_sm_limits {
	int arch;                   /* the row used: 10 * major + minor */
	bool inferred;              /* no row for the arch asked: the nearest lower one of its major */
	unsigned max_threads_per_block;
	unsigned max_warps_per_sm;
	unsigned max_blocks_per_sm;
	unsigned regs_per_sm;
	unsigned max_regs_per_block;
	unsigned max_regs_per_thread;
	unsigned reg_alloc_unit;    /* registers are given to a warp in units of this many */
	unsigned max_smem_per_block_kib; /* with opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize) */
	unsigned smem_per_sm_kib;
	bool uncertain;
	char source[320];
};

/* The row for arch, else the nearest lower row of the same major (inferred). CD_OK;
 * CD_ENOTFOUND when the table has neither; CD_EFORMAT when the table is malformed. */
int kb_sm_limits_find(int arch, struct kb_sm_limits *out, char *err);
/* Same, from a table's text (tests, fuzzing). */
int kb_sm_limits_find_in(const char *text, int arch, struct kb_sm_limits *out, char *err);

#endif
