/* streams: an H2D -> kernel -> D2H pipeline over pinned memory, split into k chunks
 * on k streams so copies in both directions overlap the kernel; measured against
 * the overlap model built from each stage's own time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/stats.h"
#include "util/err.h"

static const int ks[] = { 1, 2, 4, 8 };
#define NK (sizeof ks / sizeof *ks)

struct pipe {
	CUfunction f;
	CUstream st[8];
	float *h_in, *h_out;
	CUdeviceptr d, d2;
	unsigned long long n;
	int k, iters;
	unsigned grid;
	float a, b;
};

static int stage(struct lab_ctx *c, struct pipe *p, int which, char *err)
{
	int rc = CD_OK;
	size_t bytes = p->n * 4;
	if (which == 0)
		TRY(lab_cu(c, c->d->MemcpyHtoDAsync(p->d, p->h_in, bytes, c->s), "cuMemcpyHtoDAsync", err));
	else if (which == 2)
		TRY(lab_cu(c, c->d->MemcpyDtoHAsync(p->h_out, p->d, bytes, c->s), "cuMemcpyDtoHAsync", err));
	else {
		void *args[] = { &p->d, &p->n, &p->iters, &p->a, &p->b };
		TRY(lab_launch(c, p->f, p->grid, 1, 256, 1, 0, args, err));
	}
out:
	return rc;
}

static int h2d(struct lab_ctx *c, void *arg, char *err) { return stage(c, arg, 0, err); }

/* both directions at once on two streams (into d, out of d2): what PCIe gives full duplex */
static int duplex(struct lab_ctx *c, struct pipe *p, double *sec, char *err)
{
	int rc = CD_OK;
	size_t bytes = p->n * 4;
	double t0 = lab_now_s();
	TRY(lab_cu(c, c->d->MemcpyHtoDAsync(p->d, p->h_in, bytes, p->st[0]), "cuMemcpyHtoDAsync", err));
	TRY(lab_cu(c, c->d->MemcpyDtoHAsync(p->h_out, p->d2, bytes, p->st[1]), "cuMemcpyDtoHAsync", err));
	TRY(lab_cu(c, c->d->StreamSynchronize(p->st[0]), "cuStreamSynchronize", err));
	TRY(lab_cu(c, c->d->StreamSynchronize(p->st[1]), "cuStreamSynchronize", err));
	*sec = lab_now_s() - t0;
out:
	return rc;
}
static int kern(struct lab_ctx *c, void *arg, char *err) { return stage(c, arg, 1, err); }
static int d2h(struct lab_ctx *c, void *arg, char *err) { return stage(c, arg, 2, err); }

/* the whole pipeline in k chunks on k streams; host time from first enqueue to the end */
static int pipeline(struct lab_ctx *c, struct pipe *p, double *sec, char *err)
{
	int rc = CD_OK;
	unsigned long long chunk = p->n / (unsigned long long)p->k;
	double t0 = lab_now_s();
	for (int j = 0; j < p->k; j++) {
		unsigned long long off = chunk * (unsigned long long)j;
		unsigned long long len = j == p->k - 1 ? p->n - off : chunk;
		CUdeviceptr d = p->d + off * 4;
		TRY(lab_cu(c, c->d->MemcpyHtoDAsync(d, p->h_in + off, len * 4, p->st[j]), "cuMemcpyHtoDAsync", err));
		void *args[] = { &d, &len, &p->iters, &p->a, &p->b };
		TRY(lab_cu(c, c->d->LaunchKernel(p->f, p->grid, 1, 1, 256, 1, 1, 0, p->st[j], args, NULL), "cuLaunchKernel", err));
		TRY(lab_cu(c, c->d->MemcpyDtoHAsync(p->h_out + off, d, len * 4, p->st[j]), "cuMemcpyDtoHAsync", err));
	}
	for (int j = 0; j < p->k; j++)
		TRY(lab_cu(c, c->d->StreamSynchronize(p->st[j]), "cuStreamSynchronize", err));
	*sec = lab_now_s() - t0;
out:
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	struct pipe p;
	memset(&p, 0, sizeof p);
	size_t bytes = c->tiny ? ((size_t)16 << 20) : ((size_t)256 << 20);
	p.n = bytes / 4;
	p.a = 1.0f;
	p.b = 0.0f;
	p.iters = 64;
	p.grid = lab_fill_grid(c, 8);
	int nrep = 3;
	double ms[16], t_h2d, t_k, t_d2h, t_dup = 0, total[NK];
	TRY(lab_fn(c, "lab_stream_work", &p.f, err));
	TRY(lab_cu(c, c->d->MemHostAlloc((void **)&p.h_in, bytes, 0), "cuMemHostAlloc", err));
	TRY(lab_cu(c, c->d->MemHostAlloc((void **)&p.h_out, bytes, 0), "cuMemHostAlloc", err));
	TRY(lab_alloc(c, &p.d, bytes, err));
	TRY(lab_alloc(c, &p.d2, bytes, err));
	for (int j = 0; j < 8; j++)
		TRY(lab_cu(c, c->d->StreamCreate(&p.st[j], CU_STREAM_NON_BLOCKING), "cuStreamCreate", err));
	for (unsigned long long i = 0; i < p.n; i++)
		p.h_in[i] = (float)lab_rand_unit(c->seed ^ 0x57Eull, i);

	/* each stage alone; the kernel's work is scaled until it takes as long as the H2D copy */
	TRY(lab_time(c, h2d, &p, 1, nrep, ms, err));
	t_h2d = lab_stats_of(ms, (size_t)nrep).median;
	TRY(lab_time(c, kern, &p, 1, 3, ms, err));
	double k0 = lab_stats_of(ms, 3).median;
	if (k0 > 0) {
		double it = p.iters * t_h2d / k0;
		p.iters = it < 1 ? 1 : it > 1e6 ? 1000000 : (int)it;
	}
	TRY(lab_time(c, kern, &p, 1, nrep, ms, err));
	t_k = lab_stats_of(ms, (size_t)nrep).median;
	TRY(lab_time(c, d2h, &p, 1, nrep, ms, err));
	t_d2h = lab_stats_of(ms, (size_t)nrep).median;
	for (int rep = -1; rep < nrep; rep++) {
		double sec = 0;
		TRY(duplex(c, &p, &sec, err));
		if (rep >= 0)
			ms[rep] = sec * 1e3;
	}
	t_dup = lab_stats_of(ms, (size_t)nrep).median;

	for (size_t i = 0; i < NK; i++) {
		p.k = ks[i];
		lab_progress(c, (double)i / NK, "%d streams", p.k);
		double v[16];
		for (int rep = -1; rep < nrep; rep++) {
			memset(p.h_out, 0xFF, bytes); /* NaN poison */
			double sec = 0;
			TRY(pipeline(c, &p, &sec, err));
			if (rep >= 0)
				v[rep] = sec * 1e3;
		}
		for (unsigned long long j = 0; j < p.n; j++)
			if (p.h_out[j] != 2.0f * p.h_in[j] + 1.0f) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%d streams: element %llu is %g, expected %g", p.k, j,
					 p.h_out[j], 2.0f * p.h_in[j] + 1.0f);
				goto out;
			}
		total[i] = lab_stats_of(v, (size_t)nrep).median;
	}
	lab_add(r, "ms", t_h2d, "H2D alone (%zu MiB)", bytes >> 20);
	lab_add(r, "ms", t_k, "kernel alone (%d FMAs per element)", p.iters);
	lab_add(r, "ms", t_d2h, "D2H alone");
	lab_add(r, "ms", t_dup, "H2D and D2H at once (full duplex)");
	for (size_t i = 0; i < NK; i++) {
		double model = lab_streams_model(t_h2d, t_k, t_d2h, t_dup, ks[i], c->info.async_engines);
		lab_add(r, "ms", total[i], "%d stream%s (model %.2f ms)", ks[i], ks[i] > 1 ? "s" : "", model);
		lab_plot_point(&r->plot, 0, "measured", ks[i], total[i]);
		lab_plot_point(&r->plot, 1, "model", ks[i], model);
	}
	lab_add(r, "", c->info.async_engines, "copy engines (asyncEngineCount)");
	snprintf(r->setup, sizeof r->setup,
		 "%zu MiB of floats in pinned memory; H2D, a kernel sized to take as long as the H2D copy, D2H; the "
		 "array split into k chunks, each chunk's three stages in its own non-blocking stream; host clock "
		 "from first enqueue to the last sync, median of %d; every output element checked; model = the "
		 "steady stage (the kernel, or both copies at once with two copy engines) + (sum of the others) / k",
		 bytes >> 20, nrep);
	snprintf(r->plot.title, sizeof r->plot.title, "Copy/compute overlap with k streams");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "streams (chunks)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "ms for the whole pipeline");
	judge_streams(r, ks, total, NK, t_h2d, t_k, t_d2h, t_dup, c->info.async_engines);
out:
	for (int j = 0; j < 8; j++)
		if (p.st[j])
			c->d->StreamDestroy(p.st[j]);
	if (p.h_in)
		c->d->MemFreeHost(p.h_in);
	if (p.h_out)
		c->d->MemFreeHost(p.h_out);
	lab_free(c, &p.d);
	lab_free(c, &p.d2);
	return rc;
}

const struct lab lab_streams = {
	.name = "streams",
	.concept = "execution model: streams, copy engines, overlap",
	.measures = "time of an H2D -> kernel -> D2H pipeline in 1..8 streams vs the overlap model",
	.claim = "operations in different streams run concurrently: with the work split into k chunks on k streams, "
		 "H2D copies, kernels and D2H copies overlap, and the time approaches max stage + (sum of the "
		 "others) / k",
	.lesson = "Split large transfers into chunks and pipeline them in several streams with pinned memory and "
		  "cudaMemcpyAsync; nothing overlaps on the legacy default stream or from pageable memory.",
	.run = run,
};
