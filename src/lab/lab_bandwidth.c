/* bandwidth: the STREAM kernels (copy, scale, add, triad, dot) over arrays many
 * times the L2, against the peak computed from the memory clock and bus width.
 * Bytes counted as BabelStream does: copy/scale/dot 2 arrays, add/triad 3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "os/env.h"
#include "util/err.h"

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_DOT, NK };
static const char *const kname[NK] = { "copy", "scale", "add", "triad", "dot" };
static const char *const kfn[NK] = { "lab_bw_copy", "lab_bw_scale", "lab_bw_add", "lab_bw_triad", "lab_bw_dot" };
static const char *const kfn_d[NK] = { "lab_bw_copy_d", "lab_bw_scale_d", "lab_bw_add_d", "lab_bw_triad_d", "lab_bw_dot" };
/* Launch shape, chosen on an H200 against BabelStream (bench/lab.md): 8-byte or
 * 16-byte accesses, and elements per thread (0: one persistent wave of blocks). */
enum { DEFAULT_VEC = 2, DEFAULT_ELEMS = 1 };
static const int karrays[NK] = { 2, 2, 3, 3, 2 };

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr A = 0, B = 0, C = 0, partial = 0, bad = 0, ref = 0;
	CUfunction fill, check;
	double *h_part = NULL;
	size_t bytes = c->tiny ? 16 * LAB_MIB : lab_dram_bytes(&c->info, 3, c->quick);
	unsigned long long n = bytes / 8, n2 = n / 2;
	unsigned long long seed_a = c->seed ^ 0xA11CEull, seed_b = c->seed ^ 0xB0Bull;
	double s = 0.4;
	int reps = c->quick ? 10 : 20, warm = 3, per_sm = 0;
	double ms[32], best[NK], med[NK];
	struct lab_launch1d a = { .block = 256 };

	TRY(lab_fn(c, "lab_fill_unit", &fill, err));
	TRY(lab_fn(c, "lab_bw_check", &check, err));
	TRY(lab_fn(c, kfn[K_TRIAD], &a.f, err));
	TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a.f, (int)a.block, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	/* tuning knobs for bench/lab.md; the defaults are what the lab uses */
	const char *env_vec = os_getenv("CUDOCTOR_LAB_BW_VEC"), *env_el = os_getenv("CUDOCTOR_LAB_BW_ELEMS");
	int vec = env_vec && atoi(env_vec) == 1 ? 1 : env_vec ? 2 : DEFAULT_VEC;
	int elems = env_el ? atoi(env_el) : DEFAULT_ELEMS;
	unsigned long long items = vec == 2 ? n2 : n;
	a.grid = lab_fill_grid(c, per_sm);
	unsigned dot_grid = a.grid, stream_grid = a.grid;
	if (elems > 0) {
		unsigned long long g = (items + 256ull * (unsigned)elems - 1) / (256ull * (unsigned)elems);
		stream_grid = g > 0x7fffffffull ? 0x7fffffffu : (unsigned)g;
	}
	TRY(lab_alloc(c, &A, bytes, err));
	TRY(lab_alloc(c, &B, bytes, err));
	TRY(lab_alloc(c, &C, bytes, err));
	TRY(lab_alloc(c, &partial, dot_grid * sizeof(double), err));
	TRY(lab_alloc(c, &bad, 8, err));
	TRY(lab_alloc(c, &ref, 8, err));
	h_part = malloc(dot_grid * sizeof(double));
	if (!h_part) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	void *fa[] = { &A, &n, &seed_a }, *fb[] = { &B, &n, &seed_b };
	TRY(lab_launch(c, fill, dot_grid, 1, 256, 1, 0, fa, err));
	TRY(lab_launch(c, fill, dot_grid, 1, 256, 1, 0, fb, err));

	void *p3[] = { &A, &B, &C, &s, &items };
	void *pdot[] = { &A, &B, &partial, &n2 };
	for (int k = 0; k < NK; k++) {
		lab_progress(c, (double)k / NK, "%s", kname[k]);
		TRY(lab_fn(c, vec == 2 ? kfn[k] : kfn_d[k], &a.f, err));
		a.params = k == K_DOT ? pdot : p3;
		a.grid = k == K_DOT ? dot_grid : stream_grid;
		TRY(lab_cu(c, c->d->MemsetD32(C, 0xFFFFFFFFu, n * 2), "cuMemsetD32", err)); /* NaN poison */
		TRY(lab_time(c, lab_launch1d_body, &a, warm, reps, ms, err));
		struct lab_stats st = lab_stats_of(ms, (size_t)reps);
		double moved = (double)karrays[k] * (double)n * 8;
		best[k] = moved / (st.min * 1e-3);
		med[k] = moved / (st.median * 1e-3);
		/* check every element (or the sum) against the formula */
		int kind = k;
		unsigned long long h_bad = 0;
		double h_ref = 0;
		TRY(lab_cu(c, c->d->MemsetD32(bad, 0, 2), "cuMemsetD32", err));
		TRY(lab_cu(c, c->d->MemsetD32(ref, 0, 2), "cuMemsetD32", err));
		void *pc[] = { &kind, &C, &n, &seed_a, &seed_b, &s, &bad, &ref };
		TRY(lab_launch(c, check, dot_grid, 1, 256, 1, 0, pc, err));
		TRY(lab_sync(c, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(&h_bad, bad, 8), "cuMemcpyDtoH", err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(&h_ref, ref, 8), "cuMemcpyDtoH", err));
		if (k == K_DOT) {
			double sum = 0;
			TRY(lab_cu(c, c->d->MemcpyDtoH(h_part, partial, dot_grid * sizeof(double)), "cuMemcpyDtoH", err));
			for (unsigned i = 0; i < dot_grid; i++)
				sum += h_part[i];
			if (!(fabs(sum - h_ref) <= 1e-9 * fabs(h_ref)))
				h_bad = 1;
		}
		if (h_bad) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "%s: %llu elements differ from the formula", kname[k], h_bad);
			goto out;
		}
		lab_add(r, "GB/s", med[k] / 1e9, "%s (median)", kname[k]);
		lab_add(r, "GB/s", best[k] / 1e9, "%s (best)", kname[k]);
		lab_add(r, "%", st.spread * 100, "%s spread", kname[k]);
		lab_plot_bar(&r->plot, kname[k], best[k] / 1e9);
	}
	double peak = lab_peak_dram(&c->info);
	if (peak > 0) {
		lab_add(r, "GB/s", peak / 1e9, "peak from clocks (2 x %d MHz x %d bit / 8)", c->info.mem_clock_khz / 1000,
			c->info.bus_width_bits);
		lab_plot_bar(&r->plot, "peak", peak / 1e9);
	}
	snprintf(r->setup, sizeof r->setup,
		 "3 arrays of %llu doubles (%zu MiB each, %s L2); %u blocks x %u threads, %d-byte accesses; %d "
		 "warm-up + %d timed runs with events; bytes counted as BabelStream "
		 "(copy/scale/dot 2, add/triad 3 arrays); every element checked after the runs",
		 n, bytes >> 20, lab_defeats_l2(&c->info, bytes) ? ">= 4x" : "NOT 4x", stream_grid, a.block, 8 * vec,
		 warm, reps);
	snprintf(r->plot.title, sizeof r->plot.title, "STREAM kernels vs peak from clocks");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "best GB/s");
	judge_bandwidth(r, best[K_COPY], best[K_SCALE], best[K_ADD], best[K_TRIAD], best[K_DOT], peak);
out:
	free(h_part);
	lab_free(c, &A);
	lab_free(c, &B);
	lab_free(c, &C);
	lab_free(c, &partial);
	lab_free(c, &bad);
	lab_free(c, &ref);
	return rc;
}

const struct lab lab_bandwidth = {
	.name = "bandwidth",
	.concept = "memory hierarchy: DRAM (HBM/GDDR) bandwidth",
	.measures = "copy, scale, add, triad, dot in bytes/s vs the peak from memory clock x bus width",
	.claim = "kernels that stream arrays far larger than the L2 are limited by DRAM bandwidth: copy and triad "
		 "reach most of (>= 70%) but never more than the peak computed from the memory clock and bus width",
	.lesson = "For element-wise kernels, time = bytes moved / this bandwidth; fuse passes to move fewer bytes, "
		  "since no amount of arithmetic tuning will beat this number.",
	.run = run,
};
