/* constant-memory: every lane reads the __constant__ table; with one address per
 * warp the constant cache broadcasts it, with d distinct addresses it serves them
 * one after another. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/stats.h"
#include "util/err.h"

enum { WORDS = 4096, BLOCK = 256 };
static const unsigned distinct[] = { 1, 2, 4, 8, 16, 32 };
#define ND (sizeof distinct / sizeof *distinct)

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr out = 0, tab = 0;
	size_t tab_bytes = 0;
	unsigned *h_out = NULL, h_tab[WORDS];
	struct lab_launch1d a = { .block = BLOCK };
	int per_sm = 0, nrep = c->quick ? 3 : 7;
	unsigned reps = c->quick ? 512 : 2048;
	double ms[16], med[ND];
	TRY(lab_fn(c, "lab_const_read", &a.f, err));
	TRY(lab_cu(c, c->d->ModuleGetGlobal(&tab, &tab_bytes, c->mod, "lab_const_tab"), "cuModuleGetGlobal", err));
	if (tab_bytes < sizeof h_tab) {
		rc = cd_fail(err, CD_EFORMAT, "lab_const_tab is %zu bytes, expected %zu", tab_bytes, sizeof h_tab);
		goto out;
	}
	for (unsigned i = 0; i < WORDS; i++)
		h_tab[i] = lab_rand32(c->seed ^ 0xC0457ull, i);
	TRY(lab_cu(c, c->d->MemcpyHtoD(tab, h_tab, sizeof h_tab), "cuMemcpyHtoD", err));
	TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a.f, BLOCK, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	a.grid = lab_fill_grid(c, per_sm);
	size_t T = (size_t)a.grid * BLOCK;
	TRY(lab_alloc(c, &out, T * 4, err));
	h_out = malloc(T * 4);
	if (!h_out) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	unsigned d;
	void *params[] = { &out, &d, &reps };
	a.params = params;
	for (size_t i = 0; i < ND; i++) {
		d = distinct[i];
		lab_progress(c, (double)i / ND, "%u addresses", d);
		TRY(lab_cu(c, c->d->MemsetD32(out, 0xDEADBEEFu, T), "cuMemsetD32", err));
		TRY(lab_time(c, lab_launch1d_body, &a, 1, nrep, ms, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(h_out, out, T * 4), "cuMemcpyDtoH", err));
		unsigned want[32];
		for (unsigned lane = 0; lane < 32; lane++) {
			unsigned sum = 0, base = lane % d;
			for (unsigned rr = 0; rr < 8; rr++)
				for (unsigned k = 0; k < 8; k++)
					sum += h_tab[base + rr * 512 + k];
			want[lane] = sum * (reps / 8);
		}
		for (size_t t = 0; t < T; t++)
			if (h_out[t] != want[t % 32]) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%u addresses: thread %zu read %u, expected %u", d, t,
					 h_out[t], want[t % 32]);
				goto out;
			}
		med[i] = lab_stats_of(ms, (size_t)nrep).median;
	}
	for (size_t i = 0; i < ND; i++) {
		char lab[16];
		snprintf(lab, sizeof lab, "%u", distinct[i]);
		lab_add(r, "x", med[i] / med[0], "%u distinct addresses per warp: time vs 1", distinct[i]);
		lab_plot_bar(&r->plot, lab, med[i] / med[0]);
	}
	lab_add(r, "ms", med[0], "broadcast (1 address) time");
	snprintf(r->setup, sizeof r->setup,
		 "%u blocks x %d threads; each lane reads 8 consecutive words of a 16 KiB __constant__ table from "
		 "word (lane %% d), %u times; d = 1 is one address per warp; median of %d runs; all sums checked",
		 a.grid, BLOCK, reps, nrep);
	snprintf(r->plot.title, sizeof r->plot.title, "Constant memory: broadcast vs divergent addresses");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "distinct addresses per warp");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "time / broadcast time");
	judge_constant(r, distinct, med, ND);
out:
	free(h_out);
	lab_free(c, &out);
	return rc;
}

const struct lab lab_constant = {
	.name = "constant-memory",
	.concept = "memory hierarchy: constant memory and its broadcast",
	.measures = "time of __constant__ reads with 1..32 distinct addresses per warp",
	.claim = "the constant cache serves one address per warp per request and broadcasts it to all lanes: "
		 "reads of d distinct addresses are serialised, so time grows with d: already 2 addresses cost more "
		 "than one (>= 1.3x), and 32 cost several times a broadcast (>= 4x)",
	.lesson = "Put values every thread of a warp reads at the same time (coefficients, sizes) in __constant__ "
		  "memory or kernel parameters; data indexed by thread belongs in global or shared memory.",
	.run = run,
};
