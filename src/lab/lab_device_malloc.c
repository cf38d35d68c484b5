/* device-malloc: scratch per thread from a buffer allocated before the launch, from
 * malloc()/free() inside the kernel per thread, and from one malloc() per block shared
 * through shared memory, at a few sizes. The heap is sized with cuCtxSetLimit before the
 * first launch of a kernel that calls malloc, and the old limit put back after; a NULL from
 * malloc is counted, and every word written is read back in the kernel and summed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { MODE_PREALLOC, MODE_PER_THREAD, MODE_PER_BLOCK, NMODE };
enum { NULL_THREAD, NULL_BLOCK, BAD_WORDS, NCOUNT }; /* kernels/device_malloc.cu */
enum { BLOCK = 256, MAXS = 4, MAXREPS = 8 };
static const char *const mode_name[NMODE] = { "preallocated", "malloc per thread", "malloc per block" };

/* the kernel's sum of word j = seed + t * 0x9E3779B1 + j * 0x85EBCA77 over j < n, mod 2^32 */
static uint32_t expected_sum(uint32_t seed, uint64_t t, uint32_t n)
{
	uint32_t base = seed + (uint32_t)t * 0x9E3779B1u;
	uint64_t tri = (uint64_t)n * (n - 1) / 2; /* exact: n <= 2^20 */
	return n * base + (uint32_t)tri * 0x85EBCA77u;
}

struct dm_run {
	CUfunction f;
	unsigned grid;
	void **params;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct dm_run *o = arg;
	return lab_launch(c, o->f, o->grid, 1, BLOCK, 1, 0, o->params, err);
}

/* every thread's result: 1 << 32 | the sum of what it read back, or 0 without scratch */
static int check(struct lab_ctx *c, struct lab_result *r, CUdeviceptr out, uint64_t *h_out, size_t threads,
		 uint32_t seed, unsigned bytes, const char *what, unsigned long long *no_scratch, char *err)
{
	int rc = CD_OK;
	*no_scratch = 0;
	TRY(lab_cu(c, c->d->MemcpyDtoH(h_out, out, threads * 8), "cuMemcpyDtoH", err));
	for (size_t t = 0; t < threads; t++) {
		uint32_t want = expected_sum(seed, t, bytes / 4);
		if (h_out[t] == 0) {
			(*no_scratch)++;
		} else if (h_out[t] != ((1ull << 32) | want)) {
			r->wrong_result = true;
			snprintf(r->note, sizeof r->note, "%s, %u B: thread %zu read back %#llx, expected %#llx", what, bytes, t,
				 (unsigned long long)h_out[t], (unsigned long long)((1ull << 32) | want));
			goto out;
		}
	}
out:
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	static const unsigned full[] = { 16, 256, 4096 }, quick[] = { 16, 4096 }, tiny[] = { 16, 256 };
	const unsigned *sizes = c->tiny ? tiny : c->quick ? quick : full;
	size_t ns = c->tiny ? 2 : c->quick ? 2 : 3;
	unsigned max_bytes = sizes[ns - 1];
	unsigned grid = c->tiny ? 2 : lab_fill_grid(c, c->quick ? 1 : 2);
	size_t threads_max = (size_t)grid * BLOCK, heap0 = 0, heap = 0;
	int reps = c->tiny ? 1 : c->quick ? 3 : 5;
	bool changed = false, launched = false;
	CUdeviceptr pre = 0, out = 0, counts = 0;
	uint64_t *h_out = NULL;
	CUfunction f;
	struct lab_dm_point pts[MAXS];
	uint32_t seed = (uint32_t)(c->seed ^ 0xD3A11Cull);
	double ms[MAXREPS];
	char heap_note[256] = "";

	memset(pts, 0, sizeof pts);
	TRY(lab_fn(c, "lab_dm_scratch", &f, err));
	/* the heap can only be sized before the first launch of a kernel that calls malloc */
	TRY(lab_cu(c, c->d->CtxGetLimit(&heap0, CU_LIMIT_MALLOC_HEAP_SIZE), "cuCtxGetLimit", err));
	size_t want = lab_heap_bytes(&c->info, threads_max * max_bytes, heap0);
	if (want > heap0) {
		CUresult sr = c->d->CtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, want);
		if (sr == CUDA_SUCCESS)
			changed = true;
		else if (sr == CUDA_ERROR_INVALID_VALUE) /* a malloc kernel already ran in this context */
			snprintf(heap_note, sizeof heap_note, "the heap could not grow past %zu MiB (cuCtxSetLimit: "
				 "CUDA_ERROR_INVALID_VALUE, a malloc kernel already ran); sizes fit to it",
				 heap0 >> 20);
		else
			TRY(lab_cu(c, sr, "cuCtxSetLimit", err));
	}
	TRY(lab_cu(c, c->d->CtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE), "cuCtxGetLimit", err));
	TRY(lab_alloc(c, &pre, threads_max * max_bytes, err));
	TRY(lab_alloc(c, &out, threads_max * 8, err));
	TRY(lab_alloc(c, &counts, NCOUNT * 8, err));
	h_out = malloc(threads_max * sizeof *h_out);
	if (!h_out) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}

	for (size_t s = 0; s < ns; s++) {
		unsigned bytes = sizes[s];
		/* as many threads as the heap holds with room to spare, the same for every path */
		unsigned threads = lab_heap_threads(heap, bytes, BLOCK, (unsigned)threads_max);
		struct dm_run o = { .f = f, .grid = threads / BLOCK };
		pts[s].bytes = bytes;
		for (int m = 0; m < NMODE; m++) {
			unsigned long long cnt[NCOUNT], no_scratch = 0;
			int mode = m;
			void *p[] = { &mode, &pre, &bytes, &seed, &out, &counts };
			o.params = p;
			lab_progress(c, (double)(s * NMODE + (size_t)m) / (double)(ns * NMODE), "%u B, %s", bytes, mode_name[m]);
			TRY(lab_cu(c, c->d->MemsetD32(counts, 0, 2 * NCOUNT), "cuMemsetD32", err));
			TRY(lab_cu(c, c->d->MemsetD32(out, 0xFFFFFFFFu, (size_t)threads * 2), "cuMemsetD32", err));
			launched = true;
			TRY(lab_time(c, body, &o, 1, reps, ms, err));
			TRY(lab_cu(c, c->d->MemcpyDtoH(cnt, counts, sizeof cnt), "cuMemcpyDtoH", err));
			TRY(check(c, r, out, h_out, threads, seed, bytes, mode_name[m], &no_scratch, err));
			if (r->wrong_result)
				goto out;
			/* threads without scratch in the last run: NULLs it counted, never more */
			unsigned long long nulls = cnt[NULL_THREAD] + cnt[NULL_BLOCK] * BLOCK;
			if (cnt[BAD_WORDS] || no_scratch > nulls || (m == MODE_PREALLOC && no_scratch)) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note,
					 "%s, %u B: %llu words read back differently from what the thread wrote; %llu "
					 "threads without scratch, %llu NULLs counted",
					 mode_name[m], bytes, cnt[BAD_WORDS], no_scratch, nulls);
				goto out;
			}
			double med = lab_stats_of(ms, (size_t)reps).median;
			*(m == MODE_PREALLOC ? &pts[s].prealloc : m == MODE_PER_THREAD ? &pts[s].per_thread : &pts[s].per_block) =
				med;
			pts[s].null_thread += cnt[NULL_THREAD];
			pts[s].null_block += cnt[NULL_BLOCK];
			lab_add(r, "ms", med, "%4u B x %u threads, %s", bytes, threads, mode_name[m]);
			lab_add(r, "%", lab_stats_of(ms, (size_t)reps).spread * 100, "%4u B, %s spread", bytes, mode_name[m]);
			if (m == MODE_PER_THREAD && med > 0)
				lab_add(r, "M/s", threads / (med * 1e-3) / 1e6, "%4u B: malloc+free pairs per second", bytes);
		}
		if (pts[s].null_thread || pts[s].null_block)
			lab_add(r, "calls", (double)(pts[s].null_thread + pts[s].null_block), "%4u B: malloc() returned NULL",
				bytes);
		if (pts[s].prealloc > 0) {
			lab_plot_point(&r->plot, 0, "malloc per thread", bytes, pts[s].per_thread / pts[s].prealloc);
			lab_plot_point(&r->plot, 1, "malloc per block", bytes, pts[s].per_block / pts[s].prealloc);
			lab_plot_point(&r->plot, 2, "preallocated", bytes, 1);
		}
	}
	lab_add(r, "MiB", (double)heap / (double)LAB_MIB, "device heap during the run (was %zu MiB)", heap0 >> 20);
	int mhz = c->sm_clock_mhz ? c->sm_clock_mhz(c->clock_user) : 0;
	if (mhz > 0)
		lab_add(r, "MHz", mhz, "SM clock NVML reports after the run");
	snprintf(r->setup, sizeof r->setup,
		 "blocks of %d threads, up to %zu threads (as many as half the %zu MiB heap holds); each thread writes "
		 "its scratch of B bytes with a pattern and reads every word back (volatile) and sums it; scratch from "
		 "one cuMemAlloc before the launch, malloc/free per thread, or one malloc per block shared through "
		 "shared memory; median of %d runs with events after a warm-up; every sum checked on the host",
		 BLOCK, threads_max, heap >> 20, reps);
	r->plot.logx = r->plot.logy = true;
	snprintf(r->plot.title, sizeof r->plot.title, "In-kernel malloc vs a preallocated buffer");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "bytes of scratch per thread");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "time / preallocated time");
	judge_device_malloc(r, pts, ns);
out:
	if (changed && launched) {
		/* cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE) returns CUDA_ERROR_INVALID_VALUE once a kernel
		 * that calls malloc has run (driver API reference): not asked, the heap stays */
		if (!heap_note[0])
			snprintf(heap_note, sizeof heap_note,
				 "the heap stays at %zu MiB for this context: the driver refuses to change it once a "
				 "kernel that calls malloc has run (cuCtxSetLimit), so it was not set back to %zu MiB",
				 heap >> 20, heap0 >> 20);
	} else if (changed) {
		CUresult sr = c->d->CtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, heap0);
		if (sr == CUDA_SUCCESS)
			snprintf(heap_note, sizeof heap_note, "heap limit restored to %zu MiB", heap0 >> 20);
	}
	if (heap_note[0] && !r->wrong_result)
		snprintf(r->note, sizeof r->note, "%s", heap_note);
	free(h_out);
	lab_free(c, &pre);
	lab_free(c, &out);
	lab_free(c, &counts);
	return rc;
}

const struct lab lab_device_malloc = {
	.name = "device-malloc",
	.concept = "memory hierarchy: allocation inside kernels",
	.measures = "scratch per thread from a preallocated buffer vs malloc/free per thread vs one malloc per block",
	.claim = "avoid allocating global memory inside kernels: malloc/free per thread costs a clear multiple (>= 2x) "
		 "of the same work on a buffer allocated before the launch, at every size",
	.lesson = "Allocate once, outside the kernel (cuMemAlloc, a pool, cudaMallocAsync) and hand each thread an "
		  "offset. If a kernel must allocate, do it once per block and share the pointer through shared "
		  "memory, size the heap with cuCtxSetLimit before the first launch, and check every malloc for NULL.",
	.run = run,
};
