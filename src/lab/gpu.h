/* The labs' thin layer over the driver API: one context, the embedded module,
 * checked calls, allocations, launches and event timing. */
#ifndef CUDOCTOR_LAB_GPU_H
#define CUDOCTOR_LAB_GPU_H

#include "lab/lab.h"
#include "util/err.h"

/* A driver call's result as a CD status: CD_OK, or CD_EDRIVER with "cuMemAlloc:
 * CUDA_ERROR_OUT_OF_MEMORY (2)" in err. call is the entry point's name. Used as
 * TRY(lab_cu(c, c->d->MemAlloc(&p, n), "cuMemAlloc", err)); lab_open has checked that
 * every entry point the labs call exists, so the pointer needs no test. */
int lab_cu(const struct lab_ctx *c, CUresult r, const char *call, char *err);

/* The view of CUDA device ordinal that the labs size themselves from, out of the run's
 * driver facts p (what the GPU probe read: nothing is asked of the driver again);
 * CD_EDRIVER when p has no such device or no multiprocessor count for it. */
int lab_dev_of(const struct gpu_probe *p, int ordinal, struct lab_dev *out, char *err);
/* Checks that d has every entry point the labs call ("cuX is missing from PATH" if not),
 * then cuInit (unless c->probe, which the caller sets, says its probe of d called it
 * already), device `ordinal` (its facts from c->probe), primary context
 * (c->info.free_mem), the module from `image`, one stream. */
int lab_open(struct lab_ctx *c, struct cudrv *d, int ordinal, const void *image, char *err);
void lab_close(struct lab_ctx *c);

int lab_fn(struct lab_ctx *c, const char *name, CUfunction *f, char *err);
int lab_launch(struct lab_ctx *c, CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
	       unsigned smem, void **args, char *err);
int lab_alloc(struct lab_ctx *c, CUdeviceptr *p, size_t bytes, char *err);
void lab_free(struct lab_ctx *c, CUdeviceptr *p);
int lab_sync(struct lab_ctx *c, char *err);

/* Grid that fills every SM with `per_sm` blocks (at least one block). */
unsigned lab_fill_grid(const struct lab_ctx *c, int per_sm);

/* Device time of one launch sequence: events around `run`, repeated `reps` times
 * after `warmup` untimed runs; times in ms. */
typedef int (*lab_body_fn)(struct lab_ctx *c, void *arg, char *err);
int lab_time(struct lab_ctx *c, lab_body_fn body, void *arg, int warmup, int reps, double *ms, char *err);

/* The common body: one 1-D launch of f (no dynamic shared memory) on the lab's stream.
 * Pass a struct lab_launch1d as lab_time's arg and lab_launch1d_body as its body. */
struct lab_launch1d {
	CUfunction f;
	unsigned grid, block;
	void **params;
};
int lab_launch1d_body(struct lab_ctx *c, void *arg, char *err);

double lab_now_s(void); /* monotonic host clock */

#endif
