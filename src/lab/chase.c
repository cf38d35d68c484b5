/* The pointer chase as a callable measurement: build, warm, time, check the end slot. */
#include "lab/chase.h"

#include <stdio.h>

#include "lab/gpu.h"
#include "lab/gpu.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { SLOT = 64, STRIDE_WORDS = SLOT / 8, MAXREPS = 8 };

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

struct hop_run {
	struct lab_chase *ch;
	CUdeviceptr start;
	unsigned long long hops;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct hop_run *h = arg;
	void *p[] = { &h->start, &h->hops, &h->ch->end, &h->ch->cycles };
	return lab_launch(c, h->ch->chase, 1, 1, 1, 1, 0, p, err);
}

int lab_chase_open(struct lab_ctx *c, struct lab_chase *ch, size_t max_bytes, char *err)
{
	int rc = CD_OK;
	ch->cap = max_bytes;
	ch->key = c->seed ^ 0x1A7E9C1ull;
	TRY(lab_fn(c, "lab_chase", &ch->chase, err));
	TRY(lab_fn(c, "lab_chase_build", &ch->build, err));
	TRY(lab_fn(c, "lab_chase_touch", &ch->touch, err));
	TRY(lab_alloc(c, &ch->buf, max_bytes, err));
	TRY(lab_alloc(c, &ch->end, 8, err));
	TRY(lab_alloc(c, &ch->cycles, 8, err));
	TRY(lab_alloc(c, &ch->sink, 8, err));
out:
	return rc;
}

void lab_chase_close(struct lab_ctx *c, struct lab_chase *ch)
{
	lab_free(c, &ch->buf);
	lab_free(c, &ch->end);
	lab_free(c, &ch->cycles);
	lab_free(c, &ch->sink);
}

int lab_chase_measure(struct lab_ctx *c, struct lab_chase *ch, size_t bytes, unsigned long long hops, int reps,
		      double *cycles, double *ns, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	unsigned long long n = bytes / SLOT, words = bytes / 8;
	unsigned half = 1, sw = STRIDE_WORDS;
	uint64_t key = ch->key;
	*cycles = *ns = 0;
	if (bytes > ch->cap || n < 2)
		return cd_fail(err, CD_EUSAGE, "chase of %zu bytes in a %zu-byte buffer", bytes, ch->cap);
	if (reps > MAXREPS)
		reps = MAXREPS;
	while ((1ull << (2 * half)) < n)
		half++;
	void *bp[] = { &ch->buf, &n, &sw, &half, &key };
	TRY(lab_launch(c, ch->build, lab_fill_grid(c, 4), 1, 256, 1, 0, bp, err));
	void *tp[] = { &ch->buf, &words, &ch->sink };
	TRY(lab_launch(c, ch->touch, lab_fill_grid(c, 4), 1, 256, 1, 0, tp, err));
	/* Warm-up lap, then timed chases that continue it. The lap covers the whole cycle
	 * when it is short or fits in L2: the all-SM touch alone leaves many lines in the
	 * far L2 partition, which a short (--quick) chase would then meet for the first
	 * time and read as a higher L2 latency than a revisiting chase sees. */
	uint64_t pos = 0;
	bool whole_lap = n < hops || (c->info.l2_bytes > 0 && bytes <= (size_t)c->info.l2_bytes);
	struct hop_run h = { .ch = ch, .start = ch->buf + perm(0, n, half, key) * SLOT,
			     .hops = whole_lap ? ((n + 15) / 16) * 16 : hops };
	double ms[MAXREPS], cy[MAXREPS];
	for (int rep = -1; rep < reps; rep++) {
		long long h_cyc = 0;
		unsigned long long h_end = 0;
		double t = 0;
		TRY(lab_time(c, body, &h, 0, 1, &t, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(&h_end, ch->end, 8), "cuMemcpyDtoH", err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(&h_cyc, ch->cycles, 8), "cuMemcpyDtoH", err));
		pos = (pos + h.hops) % n;
		if (h_end != ch->buf + perm(pos, n, half, key) * SLOT) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "%zu KiB: the chase ended at 0x%llx, not at slot %llu", bytes >> 10,
				 h_end, (unsigned long long)perm(pos, n, half, key));
			goto out;
		}
		h.start = h_end;
		if (rep < 0) {
			h.hops = hops;
			continue;
		}
		ms[rep] = t;
		cy[rep] = (double)h_cyc / (double)h.hops;
	}
	*cycles = lab_stats_of(cy, (size_t)reps).median;
	*ns = lab_stats_of(ms, (size_t)reps).median * 1e6 / (double)hops;
out:
	return rc;
}

size_t lab_chase_dram_bytes(const struct lab_dev *d)
{
	size_t l2 = d->l2_bytes > 0 ? (size_t)d->l2_bytes : 4 * LAB_MIB, top = (size_t)1 << 30;
	size_t mem = d->free_mem ? d->free_mem : d->total_mem, want = 8 * l2;
	if (top > mem / 4)
		top = mem / 4;
	if (want > top)
		want = top;
	want -= want % LAB_MIB;
	return want < LAB_MIB ? LAB_MIB : want;
}
