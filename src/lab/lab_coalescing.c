/* coalescing: one large buffer read with stride 1..32 (4-byte words) and with
 * misaligned offsets; useful bytes per second against stride 1. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

static const unsigned strides[] = { 1, 2, 4, 8, 16, 32 };
static const unsigned offsets[] = { 1, 2, 4, 8, 16, 31 };
#define POISON 0xDEADBEEFu

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr in = 0, out = 0;
	CUfunction fill;
	unsigned *h = NULL;
	size_t bytes = c->tiny ? 16 * LAB_MIB : lab_dram_bytes(&c->info, 1, c->quick);
	unsigned long long words = bytes / 4, seed = c->seed ^ 0xC0A1E5CEull;
	struct lab_launch1d a = { .block = 256 };
	int per_sm = c->info.max_threads_per_sm / 256;
	a.grid = lab_fill_grid(c, per_sm > 0 ? per_sm : 1);
	unsigned long long T = (unsigned long long)a.grid * a.block;
	int reps = c->quick ? 3 : 10;
	double ms[16], gbs_stride[6], gbs_off[6], aligned = 0;
	size_t nst = sizeof strides / sizeof *strides, nof = sizeof offsets / sizeof *offsets;

	TRY(lab_fn(c, "lab_stride_read", &a.f, err));
	TRY(lab_fn(c, "lab_fill_rand32", &fill, err));
	TRY(lab_alloc(c, &in, bytes, err));
	TRY(lab_alloc(c, &out, T * 4, err));
	h = malloc(T * 4);
	if (!h) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	void *fargs[] = { &in, &words, &seed };
	TRY(lab_launch(c, fill, a.grid, 1, a.block, 1, 0, fargs, err));

	unsigned long long n;
	unsigned stride, offset;
	void *params[] = { &in, &n, &stride, &offset, &out };
	a.params = params;
	size_t total = nst + nof, step = 0;
	for (size_t pass = 0; pass < total; pass++) {
		bool is_off = pass >= nst;
		stride = is_off ? 1 : strides[pass];
		offset = is_off ? offsets[pass - nst] : 0;
		n = (words - 64) / stride;
		lab_progress(c, (double)step++ / (double)total, "stride %u offset %u", stride, offset);
		TRY(lab_cu(c, c->d->MemsetD32(out, POISON, T), "cuMemsetD32", err));
		TRY(lab_time(c, lab_launch1d_body, &a, 1, reps, ms, err));
		/* check: every thread wrote, and sampled threads' sums match the host's */
		TRY(lab_cu(c, c->d->MemcpyDtoH(h, out, T * 4), "cuMemcpyDtoH", err));
		size_t unwritten = 0, wrong = 0;
		for (unsigned long long t = 0; t < T; t++)
			unwritten += h[t] == POISON;
		for (unsigned long long t = 0; t < T; t += T / 61 + 1) {
			unsigned want = 0;
			for (unsigned long long j = t; j < n; j += T)
				want += lab_rand32(seed, j * stride + offset);
			wrong += h[t] != want;
		}
		if (unwritten > 2 || wrong) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "stride %u offset %u: %zu sums wrong, %zu threads wrote nothing",
				 stride, offset, wrong, unwritten);
			goto out;
		}
		struct lab_stats s = lab_stats_of(ms, (size_t)reps);
		double g = (double)n * 4 / (s.median * 1e-3);
		if (!is_off) {
			gbs_stride[pass] = g;
			if (stride == 1)
				aligned = g;
			lab_add(r, "GB/s", g / 1e9, "stride %u useful bandwidth", stride);
			lab_plot_point(&r->plot, 0, "measured", stride, g / 1e9);
			lab_plot_point(&r->plot, 1, "stride-1 / s", stride, aligned / stride / 1e9);
		} else {
			gbs_off[pass - nst] = g;
			lab_add(r, "GB/s", g / 1e9, "offset %u words", offset);
		}
	}
	for (size_t i = 1; i < nst; i++)
		lab_add(r, "x", aligned / gbs_stride[i], "stride %u: bytes moved per useful byte", strides[i]);
	double worst = 1e300;
	for (size_t i = 0; i < nof; i++)
		worst = gbs_off[i] < worst ? gbs_off[i] : worst;
	snprintf(r->setup, sizeof r->setup,
		 "%zu MiB buffer of random 32-bit words (%s L2), %u blocks x %u threads, each thread sums "
		 "in[j*stride + offset] with 4 loads in flight; median of %d runs; useful bytes = words summed x 4",
		 bytes >> 20, lab_defeats_l2(&c->info, bytes) ? ">= 4x" : "NOT 4x", a.grid, a.block, reps);
	r->plot.logx = r->plot.logy = true;
	snprintf(r->plot.title, sizeof r->plot.title, "Strided reads: useful bandwidth falls as 1/stride");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "stride (4-byte words)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "useful GB/s");
	judge_coalescing(r, strides, gbs_stride, nst, worst / aligned);
out:
	free(h);
	lab_free(c, &in);
	lab_free(c, &out);
	return rc;
}

const struct lab lab_coalescing = {
	.name = "coalescing",
	.concept = "memory hierarchy: coalesced global access, 32-byte sectors",
	.measures = "useful bandwidth of strided and misaligned reads from DRAM",
	.claim = "a warp's loads are served in 32-byte sectors: reading every s-th word moves the same sectors as "
		 "reading every word, so useful bandwidth falls as 1/s (up to one word per sector); a misaligned start "
		 "costs one extra sector per warp: a modest loss (at least 60% kept), never a stride's",
	.lesson = "Make consecutive threads touch consecutive addresses (structure of arrays, not array of "
		  "structures); a stride of s wastes (s-1)/s of every byte DRAM moves.",
	.run = run,
};
