/* divergence: k code paths of equal work selected per lane (a warp runs all k in
 * turn) or per warp (each warp runs one); time against a single path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/stats.h"
#include "util/err.h"

enum { BLOCK = 256 };
static const int paths[] = { 1, 2, 4, 8, 16, 32 };
#define NP (sizeof paths / sizeof *paths)

/* the host's copy of the kernel's chain for thread t */
static float expect(float x, int sel, int iters)
{
	float aa = 0.5f + (float)sel * (1.0f / 128.0f), b = 1.0f + (float)sel;
	for (int i = 0; i < iters; i++)
		x = fmaf(x, aa, b);
	return x;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr in = 0, out = 0;
	float *h_in = NULL, *h_out = NULL;
	struct lab_launch1d a = { .block = BLOCK };
	int per_sm = 0, iters = c->tiny ? 16 : 4096, nrep = c->quick ? 3 : 7;
	double ms[16], lane_ms[NP], warp_ms[NP];
	TRY(lab_fn(c, "lab_diverge", &a.f, err));
	TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a.f, BLOCK, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	a.grid = lab_fill_grid(c, per_sm * 2);
	size_t T = (size_t)a.grid * BLOCK;
	h_in = malloc(T * sizeof *h_in);
	h_out = malloc(T * sizeof *h_out);
	if (!h_in || !h_out) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t t = 0; t < T; t++)
		h_in[t] = (float)lab_rand_unit(c->seed ^ 0xD1Full, t);
	TRY(lab_alloc(c, &in, T * 4, err));
	TRY(lab_alloc(c, &out, T * 4, err));
	TRY(lab_cu(c, c->d->MemcpyHtoD(in, h_in, T * 4), "cuMemcpyHtoD", err));
	int k, by_warp;
	void *params[] = { &in, &out, &k, &by_warp, &iters };
	a.params = params;
	for (size_t i = 0; i < 2 * NP; i++) {
		k = paths[i % NP];
		by_warp = i >= NP;
		lab_progress(c, (double)i / (2 * NP), "%d paths %s", k, by_warp ? "per warp" : "per lane");
		TRY(lab_cu(c, c->d->MemsetD32(out, 0x7FC00000u, T), "cuMemsetD32", err)); /* NaN */
		TRY(lab_time(c, lab_launch1d_body, &a, 1, nrep, ms, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(h_out, out, T * 4), "cuMemcpyDtoH", err));
		for (size_t t = 0; t < T; t += 613) {
			int sel = by_warp ? (int)((t >> 5) % (size_t)k) : (int)((t & 31) % (size_t)k);
			float want = expect(h_in[t], sel, iters);
			if (h_out[t] != want) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%d paths: thread %zu computed %g, expected %g", k, t,
					 h_out[t], want);
				goto out;
			}
		}
		double m = lab_stats_of(ms, (size_t)nrep).median;
		if (by_warp)
			warp_ms[i % NP] = m;
		else
			lane_ms[i % NP] = m;
	}
	for (size_t i = 0; i < NP; i++) {
		lab_add(r, "x", lane_ms[i] / lane_ms[0], "%d paths, branch on lane", paths[i]);
		lab_plot_point(&r->plot, 0, "lane branch", paths[i], lane_ms[i] / lane_ms[0]);
		lab_plot_point(&r->plot, 2, "k (model)", paths[i], paths[i]);
	}
	for (size_t i = 0; i < NP; i++) {
		lab_add(r, "x", warp_ms[i] / warp_ms[0], "%d paths, branch on warp", paths[i]);
		lab_plot_point(&r->plot, 1, "warp branch", paths[i], warp_ms[i] / warp_ms[0]);
	}
	lab_add(r, "ms", lane_ms[0], "one path");
	snprintf(r->setup, sizeof r->setup,
		 "%u blocks x %d threads; each thread runs a chain of %d dependent FMAs on the path "
		 "`lane %% k` (divergent) or `warp %% k` (uniform) selects, k paths with different constants (real "
		 "branches: BSSY/BSYNC in the SASS); median of %d runs; outputs checked against the host's fmaf",
		 a.grid, BLOCK, iters, nrep);
	r->plot.logx = r->plot.logy = true;
	snprintf(r->plot.title, sizeof r->plot.title, "Warp divergence: cost grows with paths per warp");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "paths");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "time / one-path time");
	judge_divergence(r, paths, lane_ms, warp_ms, NP);
out:
	free(h_in);
	free(h_out);
	lab_free(c, &in);
	lab_free(c, &out);
	return rc;
}

const struct lab lab_divergence = {
	.name = "divergence",
	.concept = "execution model: SIMT, warps, divergence",
	.measures = "time of k equal-work paths chosen per lane vs per warp",
	.claim = "a warp executes one instruction for all its lanes: when lanes of one warp take k different paths "
		 "the warp runs all k one after another (time x k), while a branch on the warp index costs nothing",
	.lesson = "Branch on data that is uniform across a warp (warp index, block index) where you can; sort or "
		  "bin work so neighbouring threads take the same path, and keep divergent sections short.",
	.run = run,
};
