/* check's memory test on one GPU: most of the free memory in chunks, each pattern written and
 * verified on the GPU (kernels/check_mem.cu), passes repeated until its time is spent. */
#include <string.h>

#include "check/load.h"
#include "lab/gpu.h"
#include "util/err.h"

#define CHUNK_BYTES (1ull << 30)
#define MAX_CHUNKS 1024
#define RESERVE_MIN (512ull << 20)
#define INJECT_FLIPS 3

struct rec { /* kernels/check_mem.cu's record */
	unsigned long long offset, expected, got, pattern;
};

static int launch(struct lab_ctx *c, CUfunction f, void **args, char *err)
{
	return lab_launch(c, f, lab_fill_grid(c, 8), 1, 256, 1, 0, args, err);
}

int check_memtest(struct lab_ctx *c, const struct check_mem_opts *o, struct check_mem_result *m,
		  struct check_mem_run *run, char *err)
{
	CUdeviceptr chunk[MAX_CHUNKS];
	unsigned long long chunk_bytes[MAX_CHUNKS];
	unsigned long long host_log[1 + CHECK_MEM_RECORDS * 4];
	CUfunction fwrite_, fverify, fflip;
	CUdeviceptr log = 0;
	size_t free_b = 0, total_b = 0;
	unsigned long long reserve, want;
	double t0, moved = 0;
	unsigned n = 0;
	int rc = CD_OK;

	memset(m, 0, sizeof *m);
	memset(run, 0, sizeof *run);
	TRY(lab_fn(c, "check_mem_write", &fwrite_, err));
	TRY(lab_fn(c, "check_mem_verify", &fverify, err));
	TRY(lab_fn(c, "check_mem_flip", &fflip, err));
	TRY(lab_alloc(c, &log, sizeof host_log, err));
	TRY(lab_cu(c, c->d->MemsetD8(log, 0, sizeof host_log), "cuMemsetD8", err));
	TRY(lab_cu(c, c->d->MemGetInfo(&free_b, &total_b), "cuMemGetInfo", err));

	reserve = free_b / 20 > RESERVE_MIN ? free_b / 20 : RESERVE_MIN;
	want = free_b > reserve ? free_b - reserve : 0;
	while (m->bytes < want && n < MAX_CHUNKS) {
		unsigned long long b = want - m->bytes < CHUNK_BYTES ? (want - m->bytes) & ~255ull : CHUNK_BYTES;
		if (b == 0 || c->d->MemAlloc(&chunk[n], b) != CUDA_SUCCESS)
			break; /* what others hold can change between the query and here */
		chunk_bytes[n++] = b;
		m->bytes += b;
	}
	if (n == 0) {
		rc = cd_fail(err, CD_EDRIVER, "no device memory to test (%zu bytes free)", free_b);
		goto out;
	}
	run->chunks = n;

	t0 = lab_now_s();
	do {
		for (unsigned p = 0; p < CHECK_PAT_COUNT; p++) {
			unsigned long long base = 0;
			for (unsigned i = 0; i < n; i++) {
				unsigned long long words = chunk_bytes[i] / 8;
				void *wargs[] = { &chunk[i], &words, &p, &base };
				void *vargs[] = { &chunk[i], &words, &p, &base, &log };
				TRY(launch(c, fwrite_, wargs, err));
				if (o->inject && run->passes == 0 && p == 0 && i == 0) {
					unsigned long long seed = o->seed;
					unsigned flips = INJECT_FLIPS;
					void *fargs[] = { &chunk[i], &words, &seed, &flips };
					TRY(lab_launch(c, fflip, 1, 1, 1, 1, 0, fargs, err));
					run->injected = flips;
				}
				TRY(launch(c, fverify, vargs, err));
				base += words;
			}
			check_samples_add(o->samples);
			/* one wait per pattern: a hung kernel is caught before the next is queued */
			TRY(lab_sync(c, err));
			moved += 2.0 * (double)m->bytes;
			m->patterns++;
		}
		run->passes++;
	} while (lab_now_s() - t0 < o->seconds);
	run->seconds = lab_now_s() - t0;
	run->bytes_per_s = run->seconds > 0 ? moved / run->seconds : 0;

	TRY(lab_cu(c, c->d->MemcpyDtoH(host_log, log, sizeof host_log), "cuMemcpyDtoH", err));
	m->errors = host_log[0];
	m->n_recorded = m->errors < CHECK_MEM_RECORDS ? (size_t)m->errors : CHECK_MEM_RECORDS;
	for (size_t i = 0; i < m->n_recorded; i++) {
		const struct rec *r = (const struct rec *)(host_log + 1) + i;
		m->rec[i] = (struct check_mem_error){ r->offset, r->expected, r->got, (unsigned)r->pattern };
	}
out:
	for (unsigned i = 0; i < n; i++)
		lab_free(c, &chunk[i]);
	lab_free(c, &log);
	return rc;
}
