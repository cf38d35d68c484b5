/* latency: one thread chases pointers through a random single cycle over working
 * sets from 4 KiB to GiBs; cycles per hop from clock64, ns per hop from events.
 * The steps are the L1, the L2 (near and far partitions) and DRAM; past the TLB's
 * reach page walks add more. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/chase.h"
#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "util/err.h"

enum { SLOT = 64, MAXS = 64 };

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	struct lab_chase ch = { 0 };
	size_t sizes[MAXS];
	size_t ns = lab_latency_sizes(&c->info, c->quick, sizes, MAXS);
	if (c->tiny && ns > 3)
		ns = 3;
	double cycles[MAXS], nsec[MAXS];
	unsigned long long hops = c->tiny ? 1024 : lab_chase_hops(c->quick);
	int reps = 3;
	if (ns == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "no working-set size fits this device");
	TRY(lab_chase_open(c, &ch, sizes[ns - 1], err));
	for (size_t i = 0; i < ns; i++) {
		lab_progress(c, (double)i / (double)ns, "%zu KiB", sizes[i] >> 10);
		TRY(lab_chase_measure(c, &ch, sizes[i], hops, reps, &cycles[i], &nsec[i], r, err));
		if (r->wrong_result)
			goto out;
		lab_plot_point(&r->plot, 0, "cycles per load", (double)sizes[i], cycles[i]);
	}
	double l1, l2, dram;
	judge_latency(r, sizes, cycles, ns, (size_t)c->info.l2_bytes, &l1, &l2, &dram);
	double ghz = 0;
	for (size_t i = 0; i < ns; i++)
		if (sizes[i] >= 8 * (size_t)c->info.l2_bytes && nsec[i] > 0) {
			ghz = cycles[i] / nsec[i];
			break;
		}
	if (ghz <= 0 && nsec[ns - 1] > 0)
		ghz = cycles[ns - 1] / nsec[ns - 1];
	lab_add(r, "cycles", l1, "L1 hit");
	lab_add(r, "cycles", l2, "L2 hit (near, 2 MiB..L2/4)");
	for (size_t i = 0; i < ns; i++)
		if (sizes[i] >= (size_t)c->info.l2_bytes * 5 / 8 && sizes[i] <= (size_t)c->info.l2_bytes * 7 / 8) {
			lab_add(r, "cycles", cycles[i], "L2 at %zu MiB (far partition)", sizes[i] >> 20);
			break;
		}
	lab_add(r, "cycles", dram, "DRAM (8x L2..1 GiB)");
	if (ghz > 0) {
		lab_add(r, "ns", l1 / ghz, "L1 hit time");
		lab_add(r, "ns", l2 / ghz, "L2 hit time");
		lab_add(r, "ns", dram / ghz, "DRAM time");
		lab_add(r, "MHz", ghz * 1000, "SM clock during the chase (cycles / ns)");
	}
	int nvml = c->sm_clock_mhz ? c->sm_clock_mhz(c->clock_user) : 0;
	if (nvml > 0)
		lab_add(r, "MHz", nvml, "SM clock NVML reports after the run");
	for (size_t i = 0; i < ns; i++)
		lab_add(r, "cycles", cycles[i], "%zu KiB", sizes[i] >> 10);
	if (sizes[ns - 1] > ((size_t)1 << 30) && dram > 0)
		snprintf(r->note, sizeof r->note,
			 "TLB: at %zu MiB a load takes %.0f cycles, %.0f%% more than DRAM within 1 GiB: page-table walks "
			 "once the working set outgrows the TLB's reach",
			 sizes[ns - 1] >> 20, cycles[ns - 1], (cycles[ns - 1] / dram - 1) * 100);
	snprintf(r->setup, sizeof r->setup,
		 "one thread follows 64-bit pointers through a random single cycle of %d-byte slots (a Feistel "
		 "permutation); %zu working sets %zu KiB..%zu MiB; %llu timed hops after a warm-up lap, median of %d; "
		 "cycles from clock64, ns from events",
		 SLOT, ns, sizes[0] >> 10, sizes[ns - 1] >> 20, hops, reps);
	r->plot.logx = true;
	snprintf(r->plot.title, sizeof r->plot.title, "Pointer-chase latency staircase");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "working set (bytes)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "cycles per dependent load");
out:
	lab_chase_close(c, &ch);
	return rc;
}

const struct lab lab_latency = {
	.name = "latency",
	.concept = "memory hierarchy: L1, L2, DRAM latency",
	.measures = "cycles and ns per dependent load for working sets from 4 KiB to GiBs",
	.claim = "a dependent load costs tens of cycles from L1, a few hundred from L2 and more again from DRAM: "
		 "latency rises in steps as the working set outgrows each level",
	.lesson = "A single thread waiting on memory wastes hundreds of cycles: GPUs hide latency with many warps "
		  "in flight and independent loads per thread, not with caches alone. Keep reused data within L1/shared "
		  "or L2 sizes.",
	.run = run,
};
