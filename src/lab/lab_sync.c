/* sync: the cost of __syncthreads() by block size (k barriers in a loop against the same
 * loop without, one block per SM), then barriers that not every thread of the block reaches,
 * split by whole warps and bounded: the waiting threads give up on a clock64 budget or a
 * watchdog word the host sets in mapped pinned memory, and the host polls the stream with a
 * wall-clock limit instead of synchronising (docs/lab.md, "How `sync` stays bounded"). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "os/clock.h"
#include "util/err.h"

enum { MAXB = 16, MAXREPS = 8, DIV_BLOCK = 256 };
/* kernels/sync.cu's counters and modes */
enum { A_PASSED, EXCHANGED, B_SAW, B_CLOCK, B_WATCHDOG, A_SAW_GONE, NCOUNT };
enum { MODE_MISMATCHED, MODE_ONE_SIDED, MODE_EARLY_EXIT };
/* a kernel still running this long after its watchdog word was set is stuck */
static const double hard_limit_s = 5.0;

/* x -> a x + c, k times, as x -> A x + C: the kernel's chain in closed form */
static void chain(int k, uint32_t *A, uint32_t *C)
{
	*A = 1;
	*C = 0;
	for (int i = 0; i < k; i++) {
		*A *= 1664525u;
		*C = *C * 1664525u + 1013904223u;
	}
}

struct cost_run {
	CUfunction f;
	unsigned grid, block;
	void **params;
};

static int cost_body(struct lab_ctx *c, void *arg, char *err)
{
	struct cost_run *o = arg;
	return lab_launch(c, o->f, o->grid, 1, o->block, 1, 0, o->params, err);
}

/* one kernel at one block size: median ns and cycles per iteration, every output checked */
static int cost_point(struct lab_ctx *c, struct lab_result *r, struct cost_run *o, CUdeviceptr out,
		      CUdeviceptr cycles, const uint32_t *h_in, uint32_t *h_out, long long *h_cyc, int k, int reps,
		      double *ns, double *cyc, char *err)
{
	int rc = CD_OK;
	size_t T = (size_t)o->grid * o->block;
	double ms[MAXREPS], per_run[MAXREPS];
	uint32_t A, C;
	chain(k, &A, &C);
	TRY(lab_cu(c, c->d->MemsetD32(out, 0xFFFFFFFFu, T), "cuMemsetD32", err)); /* poison */
	TRY(lab_time(c, cost_body, o, 1, 1, &ms[0], err));
	for (int rep = 0; rep < reps; rep++) {
		TRY(lab_time(c, cost_body, o, 0, 1, &ms[rep], err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(h_cyc, cycles, o->grid * sizeof *h_cyc), "cuMemcpyDtoH", err));
		double v[1024];
		size_t nb = o->grid < 1024 ? o->grid : 1024;
		for (size_t b = 0; b < nb; b++)
			v[b] = (double)h_cyc[b];
		per_run[rep] = lab_stats_of(v, nb).median / k;
	}
	TRY(lab_cu(c, c->d->MemcpyDtoH(h_out, out, T * 4), "cuMemcpyDtoH", err));
	for (size_t t = 0; t < T; t++) {
		uint32_t want = A * h_in[t] + C;
		if (h_out[t] != want) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "%u threads: thread %zu computed %u, expected %u", o->block, t,
				 h_out[t], want);
			goto out;
		}
	}
	*ns = lab_stats_of(ms, (size_t)reps).median * 1e6 / k;
	*cyc = lab_stats_of(per_run, (size_t)reps).median;
out:
	return rc;
}

/* Waits for the lab's stream without blocking in the driver: sets the watchdog word after
 * flag_after_s, gives up hard_limit_s later (then c->hung). */
static int bounded_wait(struct lab_ctx *c, volatile unsigned *watchdog, double flag_after_s, double *ms, char *err)
{
	double t0 = lab_now_s();
	bool flagged = false;
	for (;;) {
		CUresult q = c->d->StreamQuery(c->s);
		double dt = lab_now_s() - t0;
		if (q == CUDA_SUCCESS) {
			*ms = dt * 1e3;
			return CD_OK;
		}
		if (q != CUDA_ERROR_NOT_READY)
			return lab_cu(c, q, "cuStreamQuery", err);
		if (!flagged && dt >= flag_after_s) {
			*watchdog = 1u;
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			flagged = true;
		}
		if (flagged && dt >= flag_after_s + hard_limit_s) {
			c->hung = true;
			return cd_fail(err, CD_EDRIVER,
				       "a divergent-barrier kernel still ran %.1f s after its watchdog word was set; no "
				       "more work is queued on this GPU, and the process's exit releases it",
				       hard_limit_s);
		}
		os_sleep_us(100);
	}
}

struct div_bufs {
	CUdeviceptr tok, ready, gone, counts, watchdog_dev;
	volatile unsigned *watchdog;
	unsigned grid, block;
};

static int div_run(struct lab_ctx *c, CUfunction f, struct div_bufs *b, int mode, long long budget,
		   double flag_after_s, struct lab_sync_div *d, char *err)
{
	int rc = CD_OK;
	unsigned long long seed = c->seed ^ 0x5A1Cull, counts[NCOUNT];
	unsigned warps = b->block / (unsigned)c->info.warp_size, half = warps / 2;
	TRY(lab_cu(c, c->d->MemsetD32(b->tok, 0, (size_t)b->grid * b->block), "cuMemsetD32", err));
	TRY(lab_cu(c, c->d->MemsetD32(b->ready, 0, b->grid), "cuMemsetD32", err));
	TRY(lab_cu(c, c->d->MemsetD32(b->gone, 0, b->grid), "cuMemsetD32", err));
	TRY(lab_cu(c, c->d->MemsetD32(b->counts, 0, 2 * NCOUNT), "cuMemsetD32", err));
	/* the memsets are synchronous, so the word is clear before the kernel can read it */
	*b->watchdog = 0;
	void *p[] = { &mode, &seed, &b->tok, &b->ready, &b->gone, &b->watchdog_dev, &budget, &b->counts };
	TRY(lab_launch(c, f, b->grid, 1, b->block, 1, 0, p, err));
	TRY(bounded_wait(c, b->watchdog, flag_after_s, &d->ms, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(counts, b->counts, sizeof counts), "cuMemcpyDtoH", err));
	d->run = true;
	d->a_threads = (unsigned long long)b->grid * half * (unsigned)c->info.warp_size;
	d->b_threads = (unsigned long long)b->grid * b->block - d->a_threads;
	d->a_passed = counts[A_PASSED];
	d->exchanged = counts[EXCHANGED];
	d->b_saw = counts[B_SAW];
	d->b_clock = counts[B_CLOCK];
	d->b_watchdog = counts[B_WATCHDOG];
	d->a_saw_gone = counts[A_SAW_GONE];
out:
	return rc;
}

static int divergent(struct lab_ctx *c, struct lab_result *r, struct lab_sync_divergent *dv, char *err)
{
	int rc = CD_OK;
	struct div_bufs b = { .grid = c->tiny ? 2 : (unsigned)c->info.sm_count, .block = c->tiny ? 64 : DIV_BLOCK };
	void *host = NULL;
	CUfunction f;
	if (b.block > (unsigned)c->info.max_threads_per_block)
		b.block = (unsigned)c->info.max_threads_per_block;
	b.block -= b.block % (unsigned)c->info.warp_size;
	if (b.block < 2u * (unsigned)c->info.warp_size)
		goto out; /* fewer than two warps per block: nothing to split */
	TRY(lab_fn(c, "lab_sync_diverge", &f, err));
	TRY(lab_alloc(c, &b.tok, (size_t)b.grid * b.block * 4, err));
	TRY(lab_alloc(c, &b.ready, (size_t)b.grid * 4, err));
	TRY(lab_alloc(c, &b.gone, (size_t)b.grid * 4, err));
	TRY(lab_alloc(c, &b.counts, NCOUNT * 8, err));
	TRY(lab_cu(c, c->d->MemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc", err));
	TRY(lab_cu(c, c->d->MemHostGetDevicePointer(&b.watchdog_dev, host, 0), "cuMemHostGetDevicePointer", err));
	b.watchdog = host;
	/* budgets in SM cycles at the peak clock: a slower clock only makes them longer */
	long long ms_cycles = c->info.clock_khz > 0 ? c->info.clock_khz : 2000000;
	lab_progress(c, 0.7, "a __syncthreads() per branch");
	TRY(div_run(c, f, &b, MODE_MISMATCHED, ms_cycles, 0.5, &dv->mismatched, err));
	lab_progress(c, 0.8, "a barrier on one side, 1 ms budget");
	TRY(div_run(c, f, &b, MODE_ONE_SIDED, ms_cycles, 0.5, &dv->one_sided, err));
	lab_progress(c, 0.85, "a barrier on one side, host watchdog");
	TRY(div_run(c, f, &b, MODE_ONE_SIDED, 2000 * ms_cycles, 0.02, &dv->watchdog, err));
	lab_progress(c, 0.9, "early exit before a barrier");
	TRY(div_run(c, f, &b, MODE_EARLY_EXIT, ms_cycles, 0.5, &dv->early_exit, err));
	const struct lab_sync_div *d[] = { &dv->mismatched, &dv->one_sided, &dv->watchdog, &dv->early_exit };
	/* labels fit struct lab_meas (64 bytes) */
	static const char *const name[] = { "barrier per branch", "one-sided, 1 ms clock64", "one-sided, watchdog 20 ms",
					    "early return" };
	for (size_t i = 0; i < 4; i++) {
		lab_add(r, "threads", (double)d[i]->a_passed, "%s: side A past its barrier", name[i]);
		if (i == 0)
			lab_add(r, "threads", (double)d[i]->exchanged, "%s: partner tokens read", name[i]);
		if (i == 1 || i == 2) {
			lab_add(r, "threads", (double)d[i]->b_clock, "%s: waiters out on clock64", name[i]);
			lab_add(r, "threads", (double)d[i]->b_watchdog, "%s: waiters out on watchdog", name[i]);
			lab_add(r, "threads", (double)d[i]->b_saw, "%s: waiters that saw A pass", name[i]);
			lab_add(r, "threads", (double)d[i]->a_saw_gone, "%s: side A found all B gone", name[i]);
		}
		lab_add(r, "ms", d[i]->ms, "%s: launch to completion", name[i]);
	}
	snprintf(r->note, sizeof r->note,
		 "divergent barriers: %u blocks x %u threads, warps 0..%u side A, the rest side B (whole warps, never a "
		 "split warp: docs/lab.md says why); per launch %llu side-A and %llu side-B threads",
		 b.grid, b.block, b.block / (unsigned)c->info.warp_size / 2 - 1, dv->one_sided.a_threads,
		 dv->one_sided.b_threads);
out:
	if (host && !c->hung)
		c->d->MemFreeHost(host);
	if (!c->hung) {
		lab_free(c, &b.tok);
		lab_free(c, &b.ready);
		lab_free(c, &b.gone);
		lab_free(c, &b.counts);
	}
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUdeviceptr in = 0, out = 0, cycles = 0;
	uint32_t *h_in = NULL, *h_out = NULL;
	long long *h_cyc = NULL;
	CUfunction fbar, fnobar;
	int bs[MAXB];
	size_t nb = lab_sync_block_sizes(&c->info, c->quick, bs, MAXB), n = 0;
	struct lab_sync_cost pts[MAXB];
	double ns_bar = 0, ns_nobar = 0;
	struct lab_sync_divergent dv;
	int k = c->tiny ? 16 : c->quick ? 2048 : 8192, reps = c->tiny ? 1 : c->quick ? 3 : 7;
	unsigned grid = c->tiny ? 2 : (unsigned)c->info.sm_count;
	size_t T = (size_t)grid * (size_t)c->info.max_threads_per_block;

	memset(pts, 0, sizeof pts);
	memset(&dv, 0, sizeof dv);
	TRY(lab_fn(c, "lab_sync_bar", &fbar, err));
	TRY(lab_fn(c, "lab_sync_nobar", &fnobar, err));
	h_in = malloc(T * sizeof *h_in);
	h_out = malloc(T * sizeof *h_out);
	h_cyc = malloc(grid * sizeof *h_cyc);
	if (!h_in || !h_out || !h_cyc) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t t = 0; t < T; t++)
		h_in[t] = lab_rand32(c->seed ^ 0x5CCull, t);
	TRY(lab_alloc(c, &in, T * 4, err));
	TRY(lab_alloc(c, &out, T * 4, err));
	TRY(lab_alloc(c, &cycles, grid * sizeof *h_cyc, err));
	TRY(lab_cu(c, c->d->MemcpyHtoD(in, h_in, T * 4), "cuMemcpyHtoD", err));
	void *params[] = { &in, &out, &k, &cycles };
	for (size_t i = 0; i < nb; i++) {
		struct cost_run o = { .grid = grid, .block = (unsigned)bs[i], .params = params };
		lab_progress(c, 0.6 * (double)i / (double)nb, "%d threads", bs[i]);
		pts[n].block = bs[i];
		o.f = fnobar;
		TRY(cost_point(c, r, &o, out, cycles, h_in, h_out, h_cyc, k, reps, &ns_nobar, &pts[n].nobar_cycles, err));
		if (r->wrong_result)
			goto out;
		o.f = fbar;
		TRY(cost_point(c, r, &o, out, cycles, h_in, h_out, h_cyc, k, reps, &ns_bar, &pts[n].bar_cycles, err));
		if (r->wrong_result)
			goto out;
		double cyc = pts[n].bar_cycles - pts[n].nobar_cycles, ns = ns_bar - ns_nobar;
		lab_add(r, "cycles", cyc, "%4d threads: per barrier (clock64)", bs[i]);
		lab_add(r, "ns", ns, "%4d threads: per barrier (events)", bs[i]);
		lab_add(r, "cycles", pts[n].nobar_cycles, "%4d threads: loop iteration without barrier", bs[i]);
		lab_plot_point(&r->plot, 0, "cycles per barrier", bs[i], cyc);
		lab_plot_point(&r->plot, 1, "loop iteration without", bs[i], pts[n].nobar_cycles);
		n++;
	}
	int mhz = c->sm_clock_mhz ? c->sm_clock_mhz(c->clock_user) : 0;
	if (mhz > 0)
		lab_add(r, "MHz", mhz, "SM clock NVML reports after the barrier loops");
	TRY(divergent(c, r, &dv, err));
	snprintf(r->setup, sizeof r->setup,
		 "%u blocks (one per SM) of 32..%d threads; each thread runs %d iterations of a dependent multiply-add "
		 "on a random 32-bit value, with a __syncthreads() in each iteration or without; cycles from clock64 "
		 "between two barriers around the loop (median over blocks), ns from events; median of %d runs after a "
		 "warm-up; every output checked against the chain in closed form",
		 grid, c->info.max_threads_per_block, k, reps);
	r->plot.logx = true;
	snprintf(r->plot.title, sizeof r->plot.title, "__syncthreads() cost by block size (one block per SM)");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "threads per block");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "cycles");
	judge_sync(r, pts, n, dv.one_sided.run ? &dv : NULL);
out:
	free(h_in);
	free(h_out);
	free(h_cyc);
	if (!c->hung) {
		lab_free(c, &in);
		lab_free(c, &out);
		lab_free(c, &cycles);
	}
	return rc;
}

const struct lab lab_syncthreads = {
	.name = "sync",
	.concept = "execution model: block-wide barriers",
	.measures = "cycles per __syncthreads() for blocks of 32..1024 threads; what barriers not all threads reach do",
	.claim = "__syncthreads() has a cost: every barrier adds cycles at every block size (32..1024 threads), no "
		 "fewer for a full block than for one warp; and a barrier that not every thread of the block reaches "
		 "deadlocks it",
	.lesson = "Barriers are cheap but not free: keep them out of inner loops where a warp-level primitive "
		  "(__syncwarp, shuffles) will do. Every non-exited thread of the block must reach the same "
		  "__syncthreads(): a barrier in a branch only some threads take hangs the block, or completes by "
		  "accident on one GPU and hangs on the next.",
	.run = run,
};
