/* occupancy: a read stream in which every warp keeps exactly one 512-byte load in flight,
 * swept from 1 resident warp per SM to the maximum (block size, and dynamic shared memory
 * per block to cap the blocks per SM), against Little's law: bandwidth = bytes in flight /
 * latency, with the DRAM latency the latency lab's pointer chase measures. */
#include <stdio.h>

#include "lab/chase.h"
#include "lab/gpu.h"
#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { MAXC = 12, REQ = 512, MAXREPS = 8 };

/* Dynamic shared memory per block of `block` threads that leaves exactly `k` blocks on an
 * SM (0 when the SM's own limits already allow no more than k); *got is what fits. */
static int smem_for(struct lab_ctx *c, CUfunction f, int block, int k, unsigned *smem, int *got, char *err)
{
	int rc = CD_OK, occ = 0;
	TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, block, 0),
		   "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	*smem = 0;
	*got = occ;
	if (occ <= k)
		goto out;
	int s = c->info.smem_per_sm / k;
	if (s > c->info.smem_per_block_optin)
		s = c->info.smem_per_block_optin;
	s -= s % 256;
	/* the driver reserves some shared memory per block: step down until k blocks fit */
	for (; s > 0; s -= 256) {
		TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, block, (size_t)s),
			   "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
		if (occ >= k)
			break;
	}
	*smem = (unsigned)(s > 0 ? s : 0);
	*got = occ;
out:
	return rc;
}

struct occ_run {
	CUfunction f;
	unsigned grid, block, smem;
	void **params;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct occ_run *o = arg;
	return lab_launch(c, o->f, o->grid, 1, o->block, 1, o->smem, o->params, err);
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	struct lab_chase ch = { 0 };
	CUdeviceptr A = 0, total = 0;
	CUfunction fill, expect;
	struct occ_run o = { 0 };
	static const int full[] = { 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64 }, quick[] = { 1, 2, 4, 8, 16, 32, 64 };
	const int *want = c->quick ? quick : full;
	size_t nwant = c->quick ? sizeof quick / sizeof *quick : sizeof full / sizeof *full, n = 0;
	int ws = c->info.warp_size, max_warps = c->info.max_threads_per_sm / ws;
	int warps[MAXC];
	double bw[MAXC], spread[MAXC];
	size_t bytes = c->tiny ? 4 * LAB_MIB : lab_dram_bytes(&c->info, 1, true);
	unsigned long long n4 = bytes / 16, seed = c->seed ^ 0x0CC0ull, want_sum = 0;
	int reps = c->tiny ? 1 : c->quick ? 3 : 5;
	double lat_cycles = 0, lat_ns = 0, ms[MAXREPS];

	/* Little's law needs the latency of one load with the memory system idle */
	lab_progress(c, 0, "DRAM latency");
	size_t chase_bytes = c->tiny ? 16 * LAB_MIB : lab_chase_dram_bytes(&c->info);
	TRY(lab_chase_open(c, &ch, chase_bytes, err));
	TRY(lab_chase_measure(c, &ch, chase_bytes, c->tiny ? 1024 : lab_chase_hops(true), 3, &lat_cycles, &lat_ns, r, err));
	lab_chase_close(c, &ch);
	if (r->wrong_result)
		goto out;

	TRY(lab_fn(c, "lab_occ_read", &o.f, err));
	TRY(lab_fn(c, "lab_occ_fill", &fill, err));
	TRY(lab_fn(c, "lab_occ_expect", &expect, err));
	if (c->info.smem_per_block_optin > c->info.smem_per_block)
		TRY(lab_cu(c, c->d->FuncSetAttribute(o.f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						     c->info.smem_per_block_optin),
			   "cuFuncSetAttribute", err));
	TRY(lab_alloc(c, &A, bytes, err));
	TRY(lab_alloc(c, &total, 8, err));
	unsigned long long nf = n4 * 4;
	void *fp[] = { &A, &nf, &seed };
	TRY(lab_launch(c, fill, lab_fill_grid(c, 4), 1, 256, 1, 0, fp, err));
	TRY(lab_cu(c, c->d->MemsetD32(total, 0, 2), "cuMemsetD32", err));
	void *ep[] = { &nf, &seed, &total };
	TRY(lab_launch(c, expect, lab_fill_grid(c, 4), 1, 256, 1, 0, ep, err));
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(&want_sum, total, 8), "cuMemcpyDtoH", err));
	void *rp[] = { &A, &n4, &total };
	o.params = rp;

	for (size_t i = 0; i < nwant && n < MAXC; i++) {
		int w = want[i] < max_warps ? want[i] : max_warps;
		/* up to 8 warps per block (a divisor of w), then more blocks per SM */
		int per_block = w <= 8 ? w : w % 8 == 0 ? 8 : w % 4 == 0 ? 4 : w % 2 == 0 ? 2 : 1, k = w / per_block, got = 0;
		o.block = (unsigned)(per_block * ws);
		TRY(smem_for(c, o.f, (int)o.block, k, &o.smem, &got, err));
		if (got < 1 || (n && got * per_block <= warps[n - 1]))
			continue;
		o.grid = (unsigned)(got * c->info.sm_count); /* one wave: every block resident at once */
		lab_progress(c, (double)(i + 1) / (double)(nwant + 1), "%d warps/SM", got * per_block);
		for (int rep = 0; rep < reps; rep++) {
			unsigned long long sum = 0;
			TRY(lab_cu(c, c->d->MemsetD32(total, 0, 2), "cuMemsetD32", err));
			TRY(lab_time(c, body, &o, rep == 0 ? 1 : 0, 1, &ms[rep], err));
			TRY(lab_cu(c, c->d->MemcpyDtoH(&sum, total, 8), "cuMemcpyDtoH", err));
			/* the warm-up and the timed run both added to total */
			if (sum != (rep == 0 ? 2 : 1) * want_sum) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%d warps/SM: the reads summed to %llu, not %llu", w, sum,
					 (rep == 0 ? 2 : 1) * want_sum);
				goto out;
			}
		}
		struct lab_stats st = lab_stats_of(ms, (size_t)reps);
		warps[n] = got * per_block;
		bw[n] = st.median > 0 ? (double)bytes / (st.median * 1e-3) : 0;
		spread[n] = st.spread;
		lab_add(r, "GB/s", bw[n] / 1e9, "%d warps/SM (%u threads x %d blocks, %u KiB smem)", warps[n], o.block, got,
			o.smem >> 10);
		n++;
	}
	double peak = lab_peak_dram(&c->info);
	struct lab_occ_model m = { .latency_ns = lat_ns, .peak = peak, .sm_count = c->info.sm_count,
				   .request_bytes = REQ };
	for (size_t i = 0; i < n; i++) {
		double pred = lab_occ_little(&m, warps[i]);
		lab_plot_point(&r->plot, 0, "measured", warps[i], bw[i] / 1e9);
		lab_plot_point(&r->plot, 1, "Little's law", warps[i], pred / 1e9);
		if (peak > 0)
			lab_plot_point(&r->plot, 2, "peak from clocks", warps[i], peak / 1e9);
		if (bw[i] > 0)
			lab_add(r, "ns", (double)c->info.sm_count * warps[i] * REQ / bw[i] * 1e9,
				"%d warps/SM: latency under load (bytes in flight / bandwidth)", warps[i]);
	}
	lab_add(r, "ns", lat_ns, "DRAM latency, idle (pointer chase over %zu MiB)", chase_bytes >> 20);
	lab_add(r, "cycles", lat_cycles, "DRAM latency, idle, in SM cycles");
	if (peak > 0) {
		lab_add(r, "GB/s", peak / 1e9, "peak from clocks");
		lab_add(r, "KiB", lat_ns * 1e-9 * peak / 1024, "bytes in flight the peak needs (latency x peak)");
		lab_add(r, "warps", lab_occ_warps_needed(&m), "resident warps per SM that hold them (512 B each)");
	}
	double worst = 0;
	for (size_t i = 0; i < n; i++)
		worst = spread[i] > worst ? spread[i] : worst;
	lab_add(r, "%", worst * 100, "largest spread of a point");
	int mhz = c->sm_clock_mhz ? c->sm_clock_mhz(c->clock_user) : 0;
	if (mhz > 0)
		lab_add(r, "MHz", mhz, "SM clock NVML reports after the run");
	snprintf(r->setup, sizeof r->setup,
		 "%zu MiB of random floats read as float4, one load in flight per thread (no unrolling: each add waits "
		 "for its load), so bytes in flight = SMs x warps x 512; warps per SM set by block size (32..256 "
		 "threads) and dynamic shared memory per block (cuOccupancyMaxActiveBlocksPerMultiprocessor), one wave "
		 "of blocks; median of %d runs with events; the sum checked against the hash; idle DRAM latency from "
		 "the latency lab's pointer chase",
		 bytes >> 20, reps);
	snprintf(r->plot.title, sizeof r->plot.title, "Bandwidth vs resident warps per SM (Little's law)");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "resident warps per SM");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "GB/s");
	judge_occupancy(r, warps, bw, n, &m);
out:
	lab_chase_close(c, &ch);
	lab_free(c, &A);
	lab_free(c, &total);
	return rc;
}

const struct lab lab_occupancy = {
	.name = "occupancy",
	.concept = "latency hiding: resident warps and Little's law",
	.measures = "read bandwidth from 1 to 64 resident warps per SM vs bytes in flight / DRAM latency",
	.claim = "enough resident threads hide memory latency: with one load in flight per warp, bandwidth grows in "
		 "proportion to resident warps, as Little's law predicts from the DRAM latency (bandwidth = bytes in "
		 "flight / latency), until it reaches the DRAM peak",
	.lesson = "Bytes in flight = latency x bandwidth: an H200-class GPU needs megabytes in flight to stream at "
		  "peak. Get them from occupancy (block size, registers and shared memory per block decide it) or from "
		  "several independent loads per thread (unrolling, vector loads) when occupancy is low.",
	.run = run,
};
