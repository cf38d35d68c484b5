/* Whether a kernel's block can launch on a compute capability: its registers per thread and
 * launch bounds (binfmt/cubin_attrs) against the SM's limits (kb/sm_limits), and the largest
 * block that would. Pure arithmetic; shared by `arch --resources` and explain. */
#ifndef CUDOCTOR_RULES_ARCH_LAUNCH_H
#define CUDOCTOR_RULES_ARCH_LAUNCH_H

#include <stdbool.h>

#include "binfmt/cubin_attrs.h"
#include "kb/sm_limits.h"

enum launch_limit {
	LAUNCH_FITS,
	LAUNCH_BLOCK_LIMIT,   /* more threads than any block may have on this GPU */
	LAUNCH_BOUNDS,        /* more threads than __launch_bounds__ (or not the .reqntid shape) */
	LAUNCH_REGISTERS,     /* threads x registers exceed the registers a block may have */
};

struct launch_fit {
	enum launch_limit limit;
	unsigned block;             /* threads per block judged */
	unsigned regs_per_warp;     /* registers per thread x 32, in allocation units */
	unsigned long regs_needed;  /* by the block judged */
	unsigned regs_available;    /* per block on this GPU */
	unsigned largest;           /* largest block (a multiple of 32, or the .reqntid shape) that
				       launches; 0 when none does */
};

/* Judges block threads of kernel k against limits l. */
void launch_fit_judge(const struct cubin_kernel_res *k, const struct kb_sm_limits *l, unsigned block,
		      struct launch_fit *out);
/* "fits", "exceeds-block-limit", "exceeds-launch-bounds", "exceeds-registers" */
const char *launch_limit_name(enum launch_limit l);

#endif
