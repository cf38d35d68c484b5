/* latency: one thread chases pointers through a random single cycle over working
 * sets from 4 KiB to GiBs; cycles per hop from clock64, ns per hop from events.
 * The steps are the L1, the L2 (near and far partitions) and DRAM; past the TLB's
 * reach page walks add more. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { SLOT = 64, STRIDE_WORDS = SLOT / 8, MAXS = 64 };

/* the host's copy of kernels/latency.cu chase_perm, to predict where a chase ends */
static uint64_t perm(uint64_t i, uint64_t n, unsigned half, uint64_t key)
{
	uint64_t mask = (1ull << half) - 1;
	do {
		uint64_t l = i >> half, rr = i & mask;
		for (int round = 0; round < 4; round++) {
			uint64_t f = lab_mix64(rr ^ (key + (uint64_t)round)) & mask;
			uint64_t t = rr;
			rr = l ^ f;
			l = t;
		}
		i = (l << half) | rr;
	} while (i >= n);
	return i;
}

struct chase {
	CUfunction f;
	CUdeviceptr start, end, cycles;
	unsigned long long hops;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct chase *ch = arg;
	void *p[] = { &ch->start, &ch->hops, &ch->end, &ch->cycles };
	return lab_launch(c, ch->f, 1, 1, 1, 1, 0, p, err);
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr buf = 0, end = 0, cyc = 0, sink = 0;
	CUfunction build, touch;
	struct chase ch = { 0 };
	size_t sizes[MAXS];
	size_t ns = lab_latency_sizes(&c->info, c->quick, sizes, MAXS);
	if (c->tiny && ns > 3)
		ns = 3;
	double cycles[MAXS], nsec[MAXS];
	unsigned long long hops = c->tiny ? 1024 : lab_chase_hops(c->quick);
	int reps = 3;
	uint64_t key = c->seed ^ 0x1A7E9C1ull;
	if (ns == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "no working-set size fits this device");
	TRY(lab_fn(c, "lab_chase", &ch.f, err));
	TRY(lab_fn(c, "lab_chase_build", &build, err));
	TRY(lab_fn(c, "lab_chase_touch", &touch, err));
	TRY(lab_alloc(c, &buf, sizes[ns - 1], err));
	TRY(lab_alloc(c, &end, 8, err));
	TRY(lab_alloc(c, &cyc, 8, err));
	TRY(lab_alloc(c, &sink, 8, err));
	ch.end = end;
	ch.cycles = cyc;
	unsigned grid = lab_fill_grid(c, 4);
	for (size_t i = 0; i < ns; i++) {
		lab_progress(c, (double)i / (double)ns, "%zu KiB", sizes[i] >> 10);
		unsigned long long n = sizes[i] / SLOT, words = sizes[i] / 8;
		unsigned half = 1, sw = STRIDE_WORDS;
		while ((1ull << (2 * half)) < n)
			half++;
		void *bp[] = { &buf, &n, &sw, &half, &key };
		TRY(lab_launch(c, build, grid, 1, 256, 1, 0, bp, err));
		void *tp[] = { &buf, &words, &sink };
		TRY(lab_launch(c, touch, grid, 1, 256, 1, 0, tp, err));
		/* Warm-up lap, then timed chases that continue it. The lap covers the whole cycle
		 * when it is short or fits in L2: the all-SM touch alone leaves many lines in the
		 * far L2 partition, which a short (--quick) chase would then meet for the first
		 * time and read as a higher L2 latency than a revisiting chase sees. */
		uint64_t first = perm(0, n, half, key), pos = 0;
		bool whole_lap = n < hops || (c->info.l2_bytes > 0 && sizes[i] <= (size_t)c->info.l2_bytes);
		ch.start = buf + first * SLOT;
		ch.hops = whole_lap ? ((n + 15) / 16) * 16 : hops;
		double ms[8], cy[8];
		for (int rep = -1; rep < reps; rep++) {
			long long h_cyc = 0;
			unsigned long long h_end = 0;
			double t = 0;
			TRY(lab_time(c, body, &ch, 0, 1, &t, err));
			TRY(lab_cu(c, c->d->MemcpyDtoH(&h_end, end, 8), "cuMemcpyDtoH", err));
			TRY(lab_cu(c, c->d->MemcpyDtoH(&h_cyc, cyc, 8), "cuMemcpyDtoH", err));
			pos = (pos + ch.hops) % n;
			if (h_end != buf + perm(pos, n, half, key) * SLOT) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%zu KiB: the chase ended at 0x%llx, not at slot %llu",
					 sizes[i] >> 10, h_end, (unsigned long long)perm(pos, n, half, key));
				goto out;
			}
			ch.start = h_end;
			if (rep < 0) {
				ch.hops = hops;
				continue;
			}
			ms[rep] = t;
			cy[rep] = (double)h_cyc / (double)ch.hops;
		}
		struct lab_stats sc = lab_stats_of(cy, (size_t)reps), st = lab_stats_of(ms, (size_t)reps);
		cycles[i] = sc.median;
		nsec[i] = st.median * 1e6 / (double)ch.hops;
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
	lab_free(c, &buf);
	lab_free(c, &end);
	lab_free(c, &cyc);
	lab_free(c, &sink);
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
