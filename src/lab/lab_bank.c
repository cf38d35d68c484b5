/* bank-conflicts: every lane of a warp reads shared word lane*stride (+32k); with
 * gcd(stride, 32) lanes per bank the warp's read takes that many passes. Stride 33
 * is stride 32 plus one word of padding per row. */
#include <stdio.h>
#include <stdlib.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/stats.h"
#include "util/err.h"

enum { WORDS = 2048, BLOCK = 256 };
static const unsigned strides[] = { 0, 1, 2, 4, 8, 16, 32, 33 };
#define NS (sizeof strides / sizeof *strides)

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr in = 0, out = 0;
	unsigned *h_out = NULL, h_in[WORDS];
	struct lab_launch1d a = { .block = BLOCK };
	int per_sm = 0;
	unsigned reps = c->tiny ? 2 : c->quick ? 256 : 1024;
	double ms[16], med[NS];
	int nrep = c->quick ? 3 : 7;
	TRY(lab_fn(c, "lab_bank", &a.f, err));
	TRY(lab_cu(c, c->d->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a.f, BLOCK, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	a.grid = c->tiny ? 4 : lab_fill_grid(c, per_sm);
	size_t T = (size_t)a.grid * BLOCK;
	for (unsigned i = 0; i < WORDS; i++)
		h_in[i] = lab_rand32(c->seed ^ 0xBA4Cull, i);
	TRY(lab_alloc(c, &in, sizeof h_in, err));
	TRY(lab_alloc(c, &out, T * 4, err));
	h_out = malloc(T * 4);
	if (!h_out) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	TRY(lab_cu(c, c->d->MemcpyHtoD(in, h_in, sizeof h_in), "cuMemcpyHtoD", err));
	unsigned stride;
	void *params[] = { &in, &out, &stride, &reps };
	a.params = params;
	for (size_t i = 0; i < NS; i++) {
		stride = strides[i];
		lab_progress(c, (double)i / NS, "stride %u", stride);
		TRY(lab_cu(c, c->d->MemsetD32(out, 0xDEADBEEFu, T), "cuMemsetD32", err));
		TRY(lab_time(c, lab_launch1d_body, &a, 1, nrep, ms, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(h_out, out, T * 4), "cuMemcpyDtoH", err));
		unsigned want[32];
		for (unsigned lane = 0; lane < 32; lane++) {
			unsigned sum = 0, base = (lane * stride) & 1023u;
			for (unsigned k = 0; k < 32; k++)
				sum += h_in[base + k * 32];
			want[lane] = sum * reps;
		}
		for (size_t t = 0; t < T; t++)
			if (h_out[t] != want[t % 32]) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "stride %u: thread %zu read %u, expected %u", stride, t,
					 h_out[t], want[t % 32]);
				goto out;
			}
		med[i] = lab_stats_of(ms, (size_t)nrep).median;
	}
	double base = med[1];
	for (size_t i = 0; i < NS; i++) {
		char lab[16];
		if (strides[i] == 0)
			snprintf(lab, sizeof lab, "bcast");
		else if (strides[i] == 33)
			snprintf(lab, sizeof lab, "32+pad");
		else
			snprintf(lab, sizeof lab, "%u", strides[i]);
		lab_add(r, "x", med[i] / base, "stride %s (%d-way): time vs stride 1", lab, lab_bank_ways(strides[i]));
		lab_plot_bar(&r->plot, lab, med[i] / base);
	}
	double loads = (double)T / 32 * reps * 32; /* warp-wide shared loads */
	double clk = c->info.clock_khz * 1e3;
	if (clk > 0)
		lab_add(r, "B/clk/SM", loads * 128 / (base * 1e-3) / clk / c->info.sm_count,
			"stride 1 throughput (at the %d MHz peak clock)", c->info.clock_khz / 1000);
	lab_add(r, "ms", base, "stride 1 time");
	snprintf(r->setup, sizeof r->setup,
		 "%u blocks x %d threads (full occupancy); each thread reads shared word (lane*stride mod 1024) + "
		 "32k for k < 32, %u times (volatile, so every read is issued); stride 0 is a broadcast, 33 is 32 "
		 "with one word of padding; median of %d runs; all sums checked",
		 a.grid, BLOCK, reps, nrep);
	snprintf(r->plot.title, sizeof r->plot.title, "Shared-memory bank conflicts: time vs stride 1");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "stride between lanes (4-byte words)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "time / stride-1 time");
	judge_bank(r, strides, med, NS);
out:
	free(h_out);
	lab_free(c, &in);
	lab_free(c, &out);
	return rc;
}

const struct lab lab_bank = {
	.name = "bank-conflicts",
	.concept = "memory hierarchy: shared memory's 32 banks",
	.measures = "time of warp-wide shared reads at strides 0..33 against stride 1",
	.claim = "shared memory has 32 banks of 4 bytes: when n lanes of a warp read different words of one bank "
		 "the read takes n passes, so time grows as gcd(stride, 32); one word of padding (stride 33) removes "
		 "the conflict, and all lanes reading one word is a broadcast",
	.lesson = "Lay out shared arrays so a warp's lanes hit different banks: pad 2-D tiles by one word per row "
		  "(tile[32][33]) or swizzle the index; a column read of an unpadded 32-wide tile is 32 times slower.",
	.run = run,
};
