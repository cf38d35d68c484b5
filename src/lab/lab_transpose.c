/* transpose: naive (uncoalesced writes), tiled through shared memory (a 32-way bank
 * conflict on the column read) and tiled with one word of padding, against a plain
 * copy of the same bytes. */
#include <stdio.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { NAIVE, TILED, PADDED, COPY, NV };
static const char *const vname[NV] = { "naive", "tiled", "tiled+padded", "copy" };
static const char *const vfn[NV] = { "lab_tr_naive", "lab_tr_tiled", "lab_tr_padded", "lab_bw_copy" };

struct args {
	CUfunction f;
	unsigned gx, gy, bx, by;
	void **params;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct args *a = arg;
	return lab_launch(c, a->f, a->gx, a->gy, a->bx, a->by, 0, a->params, err);
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr in = 0, out = 0, bad = 0;
	CUfunction fill, check;
	int n = c->tiny ? 256 : lab_transpose_n(&c->info), nrep = c->quick ? 3 : 10;
	size_t bytes = (size_t)n * n * 4;
	unsigned long long seed = c->seed ^ 0x7A05ull, n2 = bytes / 16;
	double ms[16], gbs[NV];
	double s = 1.0;
	TRY(lab_fn(c, "lab_tr_fill", &fill, err));
	TRY(lab_fn(c, "lab_tr_check", &check, err));
	TRY(lab_alloc(c, &in, bytes, err));
	TRY(lab_alloc(c, &out, bytes, err));
	TRY(lab_alloc(c, &bad, 8, err));
	unsigned grid = lab_fill_grid(c, 8);
	void *fp[] = { &in, &n, &seed };
	TRY(lab_launch(c, fill, grid, 1, 256, 1, 0, fp, err));
	void *tp[] = { &in, &out, &n };
	void *cp[] = { &in, &in, &out, &s, &n2 };
	for (int v = 0; v < NV; v++) {
		struct args a = { .gx = (unsigned)n / 32, .gy = (unsigned)n / 32, .bx = 32, .by = 8, .params = tp };
		if (v == COPY) {
			a = (struct args){ .gx = grid, .gy = 1, .bx = 256, .by = 1, .params = cp };
		}
		lab_progress(c, (double)v / NV, "%s", vname[v]);
		TRY(lab_fn(c, vfn[v], &a.f, err));
		TRY(lab_cu(c, c->d->MemsetD32(out, 0x7FC00000u, bytes / 4), "cuMemsetD32", err));
		TRY(lab_time(c, body, &a, 1, nrep, ms, err));
		gbs[v] = 2.0 * (double)bytes / (lab_stats_of(ms, (size_t)nrep).median * 1e-3);
		if (v != COPY) {
			unsigned long long h_bad = 0;
			TRY(lab_cu(c, c->d->MemsetD32(bad, 0, 2), "cuMemsetD32", err));
			void *kp[] = { &out, &n, &seed, &bad };
			TRY(lab_launch(c, check, grid, 1, 256, 1, 0, kp, err));
			TRY(lab_cu(c, c->d->MemcpyDtoH(&h_bad, bad, 8), "cuMemcpyDtoH", err));
			if (h_bad) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%s: %llu elements are not the transpose", vname[v], h_bad);
				goto out;
			}
		}
		lab_add(r, "GB/s", gbs[v] / 1e9, "%s", vname[v]);
		lab_plot_bar(&r->plot, vname[v], gbs[v] / 1e9);
	}
	snprintf(r->setup, sizeof r->setup,
		 "%dx%d floats (%zu MiB); 32x32 tiles, 32x8 threads, 4 elements per thread; bandwidth counts read + "
		 "write; median of %d runs; every element of each transpose checked",
		 n, n, bytes >> 20, nrep);
	snprintf(r->plot.title, sizeof r->plot.title, "Matrix transpose: coalescing and bank conflicts");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "GB/s");
	judge_transpose(r, gbs[NAIVE], gbs[TILED], gbs[PADDED], gbs[COPY]);
out:
	lab_free(c, &in);
	lab_free(c, &out);
	lab_free(c, &bad);
	return rc;
}

const struct lab lab_transpose = {
	.name = "transpose",
	.concept = "memory hierarchy: coalescing and bank conflicts together",
	.measures = "bandwidth of naive, tiled and tiled+padded transposes vs a copy",
	.claim = "a naive transpose writes with a stride of n and wastes most of each sector; staging 32x32 tiles "
		 "in shared memory makes both global accesses coalesced, but the column read of an unpadded tile is "
		 "a 32-way bank conflict; one word of padding per row removes it and gets close to a copy",
	.lesson = "When a kernel must read rows and write columns, go through a shared-memory tile declared "
		  "[32][33]: coalesced on both sides, conflict-free in between.",
	.run = run,
};
