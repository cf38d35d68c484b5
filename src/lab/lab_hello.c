/* hello: the classic first <<<4, 8>>> launch. The kernel records each (block, thread) pair
 * in arrival order instead of calling printf, so --json keeps a clean stdout and the
 * host can check that every pair appears exactly once. */
#include <stdio.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "util/err.h"

enum { BLOCKS = 4, THREADS = 8, N = BLOCKS * THREADS };

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr count = 0, pairs = 0;
	CUfunction f;
	unsigned int h_count = 0, h_pairs[2 * N];
	TRY(lab_fn(c, "lab_hello", &f, err));
	TRY(lab_alloc(c, &count, sizeof(unsigned), err));
	TRY(lab_alloc(c, &pairs, sizeof h_pairs, err));
	TRY(lab_cu(c, c->d->MemsetD32(count, 0, 1), "cuMemsetD32", err));
	TRY(lab_cu(c, c->d->MemsetD32(pairs, 0xFFFFFFFFu, 2 * N), "cuMemsetD32", err)); /* poison */
	unsigned cap = 2 * N;
	void *args[] = { &count, &pairs, &cap };
	TRY(lab_launch(c, f, BLOCKS, 1, THREADS, 1, 0, args, err));
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(&h_count, count, sizeof h_count), "cuMemcpyDtoH", err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(h_pairs, pairs, sizeof h_pairs), "cuMemcpyDtoH", err));

	unsigned seen[BLOCKS][THREADS];
	memset(seen, 0, sizeof seen);
	unsigned dup = 0, missing = 0, bad = 0;
	unsigned n = h_count < cap ? h_count : cap;
	size_t len = 0;
	len += (size_t)snprintf(r->note + len, sizeof r->note - len, "arrival order (block,thread):");
	for (unsigned i = 0; i < n; i++) {
		unsigned b = h_pairs[i] >> 16, t = h_pairs[i] & 0xFFFF;
		if (b >= BLOCKS || t >= THREADS) {
			bad++;
			continue;
		}
		if (seen[b][t]++)
			dup++;
		if (len < sizeof r->note - 12)
			len += (size_t)snprintf(r->note + len, sizeof r->note - len, " %u,%u", b, t);
	}
	for (unsigned b = 0; b < BLOCKS; b++)
		for (unsigned t = 0; t < THREADS; t++)
			missing += seen[b][t] == 0;
	snprintf(r->setup, sizeof r->setup, "grid of %d blocks x %d threads; each thread appends (blockIdx.x, threadIdx.x) "
		 "to a device buffer through an atomic counter", BLOCKS, THREADS);
	lab_add(r, "", h_count, "threads that ran");
	lab_add(r, "", N, "expected (4 x 8)");
	lab_add(r, "", dup, "pairs seen twice");
	lab_add(r, "", missing, "pairs missing");
	if (bad) {
		r->wrong_result = true;
		lab_add(r, "", bad, "records outside the grid");
	}
	judge_hello(r, N, h_count, dup, missing);
	/* out-of-order arrival is the point; say whether this run showed it */
	bool in_order = true;
	for (unsigned i = 1; i < n; i++)
		if (h_pairs[i] < h_pairs[i - 1])
			in_order = false;
	lab_add(r, "", in_order ? 1 : 0, "arrived in launch order (1 = yes)");
out:
	lab_free(c, &count);
	lab_free(c, &pairs);
	return rc;
}

const struct lab lab_hello = {
	.name = "hello",
	.concept = "thread hierarchy: a grid of blocks of threads",
	.measures = "which (block, thread) pairs run, and in which order",
	.claim = "<<<4, 8>>> runs 32 threads: every (block, thread) pair exactly once, in no guaranteed order",
	.lesson = "Each thread must find its own work from blockIdx and threadIdx; never assume threads or blocks run "
		  "in order, and never rely on printf order to reason about a kernel.",
	.run = run,
};
