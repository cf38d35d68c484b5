/* block-size: a one-double-per-thread scale kernel over arrays far larger than the
 * L2, for block sizes 32..1024 and non-multiples of 32; bandwidth against the
 * occupancy the driver's occupancy API predicts. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { MAXB = 48 };

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr A = 0, B = 0, bad = 0;
	CUfunction fill, check;
	int bs[MAXB];
	size_t nb = lab_block_sizes(&c->info, c->quick, bs, MAXB);
	double gbs[MAXB], occ[MAXB], resident[MAXB], ms[16];
	size_t bytes = c->tiny ? 16 * LAB_MIB : lab_dram_bytes(&c->info, 2, c->quick);
	unsigned long long n = bytes / 8, seed_a = c->seed ^ 0xB10Cull, seed_b = 0;
	double s = 3.0;
	int nrep = c->quick ? 3 : 7, warps_per_sm = c->info.max_threads_per_sm / 32;
	struct lab_launch1d a = { 0 };
	TRY(lab_fn(c, "lab_scale1", &a.f, err));
	TRY(lab_fn(c, "lab_fill_unit", &fill, err));
	TRY(lab_fn(c, "lab_bw_check", &check, err));
	TRY(lab_alloc(c, &A, bytes, err));
	TRY(lab_alloc(c, &B, bytes, err));
	TRY(lab_alloc(c, &bad, 8, err));
	unsigned fill_grid = lab_fill_grid(c, 8);
	void *fa[] = { &A, &n, &seed_a };
	TRY(lab_launch(c, fill, fill_grid, 1, 256, 1, 0, fa, err));
	void *params[] = { &A, &B, &s, &n };
	a.params = params;
	for (size_t i = 0; i < nb; i++) {
		int blocks = 0;
		a.block = (unsigned)bs[i];
		a.grid = (unsigned)((n + a.block - 1) / a.block);
		lab_progress(c, (double)i / (double)nb, "%d threads", bs[i]);
		TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, a.f, bs[i], 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
		int warps = blocks * ((bs[i] + 31) / 32);
		occ[i] = warps_per_sm > 0 ? (double)warps / warps_per_sm : 0;
		resident[i] = c->info.max_threads_per_sm > 0 ? (double)blocks * bs[i] / c->info.max_threads_per_sm : 0;
		TRY(lab_cu(c, c->d->MemsetD32(B, 0xFFFFFFFFu, n * 2), "cuMemsetD32", err));
		TRY(lab_time(c, lab_launch1d_body, &a, 1, nrep, ms, err));
		/* every element: B = s * A (kind 1 of lab_bw_check) */
		int kind = 1;
		unsigned long long h_bad = 0;
		TRY(lab_cu(c, c->d->MemsetD32(bad, 0, 2), "cuMemsetD32", err));
		void *pc[] = { &kind, &B, &n, &seed_a, &seed_b, &s, &bad, &bad };
		TRY(lab_launch(c, check, fill_grid, 1, 256, 1, 0, pc, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(&h_bad, bad, 8), "cuMemcpyDtoH", err));
		if (h_bad) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "%d threads per block: %llu elements wrong", bs[i], h_bad);
			goto out;
		}
		gbs[i] = 2.0 * (double)bytes / (lab_stats_of(ms, (size_t)nrep).median * 1e-3);
		lab_add(r, "GB/s", gbs[i] / 1e9, "%4d threads: %d blocks/SM, occupancy %.0f%%, lanes used %.0f%%", bs[i],
			blocks, occ[i] * 100, 100.0 * bs[i] / (32.0 * ((bs[i] + 31) / 32)));
		lab_plot_point(&r->plot, 0, "measured", bs[i], gbs[i] / 1e9);
	}
	double best = 0;
	for (size_t i = 0; i < nb; i++)
		best = gbs[i] > best ? gbs[i] : best;
	/* two predictions: resident warps (what the occupancy API reports) and resident threads
	 * (what does the work); 33 threads per block sits on the second */
	for (size_t i = 0; i < nb; i++) {
		lab_plot_point(&r->plot, 1, "warps x best", bs[i], occ[i] * best / 1e9);
		lab_plot_point(&r->plot, 2, "threads x best", bs[i], resident[i] * best / 1e9);
	}
	snprintf(r->setup, sizeof r->setup,
		 "b[i] = 3 a[i] over %zu MiB arrays, one double per thread, grid rounded up; occupancy from "
		 "cuOccupancyMaxActiveBlocksPerMultiprocessor (resident warps / %d); bandwidth counts read + write; "
		 "median of %d runs; every element checked",
		 bytes >> 20, warps_per_sm, nrep);
	snprintf(r->plot.title, sizeof r->plot.title, "Block size: bandwidth follows resident threads");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "threads per block");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "GB/s");
	judge_blocksize(r, bs, gbs, occ, nb);
out:
	lab_free(c, &A);
	lab_free(c, &B);
	lab_free(c, &bad);
	return rc;
}

const struct lab lab_blocksize = {
	.name = "block-size",
	.concept = "execution model: blocks, warps, occupancy",
	.measures = "bandwidth of a one-element-per-thread kernel for block sizes 32..1024, 33 and 100",
	.claim = "threads are scheduled in whole warps and an SM holds a limited number of blocks: 33 threads per "
		 "block occupy 2 warps but do the work of 33 lanes, so they get about the bandwidth of 32, not of 64; "
		 "a memory-bound kernel with one load per thread needs the most resident threads the occupancy API "
		 "allows",
	.lesson = "Use block sizes that are multiples of 32 (128-512 is a good start), check occupancy with "
		  "cudaOccupancyMaxActiveBlocksPerMultiprocessor, and give each thread several independent loads when "
		  "occupancy alone cannot cover memory latency.",
	.run = run,
};
