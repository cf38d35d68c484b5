/* Registers go to a block a warp at a time, each warp's share rounded up to the allocation
 * unit (the occupancy calculator's rule); a block whose warps need more than the SM lets one
 * block have cannot launch (cudaErrorLaunchOutOfResources), nor one above its launch bounds. */
#include "rules/arch_launch.h"

#include <string.h>

#define WARP 32u

const char *launch_limit_name(enum launch_limit l)
{
	static const char *const names[] = { "fits", "exceeds-block-limit", "exceeds-launch-bounds",
					     "exceeds-registers" };

	return names[l];
}

void launch_fit_judge(const struct cubin_kernel_res *k, const struct kb_sm_limits *l, unsigned block,
		      struct launch_fit *out)
{
	unsigned unit = l->reg_alloc_unit ? l->reg_alloc_unit : 1;
	unsigned bound = cubin_kernel_bound(k), regs = k->registers ? k->registers : 1;
	unsigned long per_warp = ((unsigned long)regs * WARP + unit - 1) / unit * unit;
	unsigned avail = l->max_regs_per_block < l->regs_per_sm ? l->max_regs_per_block : l->regs_per_sm;
	unsigned long warps = ((unsigned long)block + WARP - 1) / WARP;
	unsigned long by_regs = avail / per_warp * WARP;
	unsigned largest = l->max_threads_per_block;

	memset(out, 0, sizeof(*out));
	out->block = block;
	out->regs_per_warp = (unsigned)per_warp;
	out->regs_needed = warps * per_warp;
	out->regs_available = avail;
	if (by_regs < largest)
		largest = (unsigned)by_regs;
	if (bound && bound < largest)
		largest = bound;
	if (k->reqntid[0] && largest != bound)
		largest = 0; /* the one shape it accepts does not fit */
	out->largest = largest;
	if (block > l->max_threads_per_block)
		out->limit = LAUNCH_BLOCK_LIMIT;
	else if (bound && (k->reqntid[0] ? block != bound : block > bound))
		out->limit = LAUNCH_BOUNDS;
	else if (out->regs_needed > avail)
		out->limit = LAUNCH_REGISTERS;
	else
		out->limit = LAUNCH_FITS;
}
