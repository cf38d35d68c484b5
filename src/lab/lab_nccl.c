/* nccl: NCCL's collectives in one process driving every visible GPU (ncclCommInitAll):
 * all-reduce, all-gather, reduce-scatter and broadcast from 8 B up to 4 GiB (bounded by
 * free memory), each result checked on the GPU, timed as nccl-tests times them (host clock
 * around a batch of operations), bus bandwidth by nccl-tests' factors, judged against the
 * slowest GPU's links. NVLink SHARP (NVLS) stays off. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nccl.h"
#include "lab/gpu.h"
#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/nccl_judge.h"
#include "lab/nvml_dev.h"
#include "lab/sizing.h"
#include "os/env.h"
#include "util/err.h"

enum { MAX_RANKS = 16, MAX_SIZES = 20 };
#define TOP_CAP ((size_t)4 << 30)

struct rank {
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fill, check;
	CUstream s;
	CUdeviceptr send, recv, bad;
	ncclComm_t comm;
	struct lab_nvml nv;
	bool nv_open;
};

struct run {
	struct lab_ctx *c;
	struct nccl *nc;
	struct rank rk[MAX_RANKS];
	int n;
};

static int use(struct run *u, int i, char *err)
{
	return lab_cu(u->c, u->c->d->CtxSetCurrent(u->rk[i].ctx), "cuCtxSetCurrent", err);
}

static bool driver_complete(const struct cudrv *d)
{
	return d->DeviceGetCount && d->DeviceGet && d->DevicePrimaryCtxRetain && d->DevicePrimaryCtxRelease &&
	       d->CtxSetCurrent && d->MemGetInfo && d->MemAlloc && d->MemFree && d->MemsetD32 && d->MemcpyDtoH &&
	       d->ModuleLoadData && d->ModuleUnload && d->ModuleGetFunction && d->LaunchKernel && d->StreamCreate &&
	       d->StreamDestroy && d->StreamSynchronize;
}

static int open_ranks(struct run *u, size_t *min_free, char *err)
{
	struct cudrv *d = u->c->d;
	int rc = CD_OK, count = 0;

	if ((rc = lab_cu(u->c, d->DeviceGetCount(&count), "cuDeviceGetCount", err)) != CD_OK)
		return rc;
	u->n = count < MAX_RANKS ? count : MAX_RANKS;
	*min_free = (size_t)-1;
	for (int i = 0; i < u->n; i++) {
		struct rank *k = &u->rk[i];
		size_t free_b = 0, total = 0;

		if ((rc = lab_cu(u->c, d->DeviceGet(&k->dev, i), "cuDeviceGet", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->DevicePrimaryCtxRetain(&k->ctx, k->dev), "cuDevicePrimaryCtxRetain", err)) !=
			    CD_OK ||
		    (rc = use(u, i, err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->ModuleLoadData(&k->mod, lab_fatbin), "cuModuleLoadData", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->ModuleGetFunction(&k->fill, k->mod, "lab_nccl_fill"), "cuModuleGetFunction",
				 err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->ModuleGetFunction(&k->check, k->mod, "lab_nccl_check"),
				 "cuModuleGetFunction", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->StreamCreate(&k->s, CU_STREAM_NON_BLOCKING), "cuStreamCreate", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->MemGetInfo(&free_b, &total), "cuMemGetInfo", err)) != CD_OK)
			return rc;
		if (free_b < *min_free)
			*min_free = free_b;
		lab_nvml_open(&k->nv, u->c->nv, d, k->dev);
		k->nv_open = true;
	}
	return CD_OK;
}

static void close_ranks(struct run *u)
{
	struct cudrv *d = u->c->d;

	for (int i = 0; i < u->n; i++) {
		struct rank *k = &u->rk[i];

		if (k->comm && u->nc->CommDestroy)
			u->nc->CommDestroy(k->comm);
		if (k->ctx && d->CtxSetCurrent(k->ctx) == CUDA_SUCCESS) {
			if (k->send)
				d->MemFree(k->send);
			if (k->recv)
				d->MemFree(k->recv);
			if (k->bad)
				d->MemFree(k->bad);
			if (k->s)
				d->StreamDestroy(k->s);
			if (k->mod)
				d->ModuleUnload(k->mod);
		}
		if (k->ctx)
			d->DevicePrimaryCtxRelease(k->dev);
		if (k->nv_open)
			lab_nvml_close(&k->nv);
	}
	if (u->c->ctx)
		d->CtxSetCurrent(u->c->ctx);
}

static int launch(struct run *u, int i, CUfunction f, unsigned long long n, void **args, char *err)
{
	unsigned long long blocks = (n + 255) / 256;
	unsigned grid = lab_fill_grid(u->c, 4);

	if (blocks < grid)
		grid = blocks ? (unsigned)blocks : 1;
	return lab_cu(u->c, u->c->d->LaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, u->rk[i].s, args, NULL), "cuLaunchKernel",
		      err);
}

/* Elements per rank's send and receive for a collective of `bytes` (nccl-tests' size:
 * the all-gather's whole output, the reduce-scatter's whole input). */
static void counts_of(enum nccl_coll coll, size_t bytes, int n, size_t *count, size_t *recv_n, size_t *chunk)
{
	size_t elems = bytes / 4;

	if (coll == NCCL_ALL_GATHER || coll == NCCL_REDUCE_SCATTER) {
		*chunk = elems / (size_t)n ? elems / (size_t)n : 1;
		*count = *chunk;
		*recv_n = coll == NCCL_ALL_GATHER ? *chunk * (size_t)n : *chunk;
	} else {
		*count = *recv_n = elems ? elems : 1;
		*chunk = 0;
	}
}

static int enqueue(struct run *u, enum nccl_coll coll, size_t count, char *err)
{
	struct nccl *nc = u->nc;
	ncclResult_t r = nc->GroupStart();

	if (r != ncclSuccess)
		return nccl_fail(nc, err, "ncclGroupStart", r);
	for (int i = 0; i < u->n; i++) {
		struct rank *k = &u->rk[i];
		const void *s = (const void *)(uintptr_t)k->send;
		void *d = (void *)(uintptr_t)k->recv;
		const char *call = "ncclBroadcast";

		switch (coll) {
		case NCCL_ALL_REDUCE: r = nc->AllReduce(s, d, count, ncclFloat32, ncclSum, k->comm, k->s); call = "ncclAllReduce"; break;
		case NCCL_ALL_GATHER: r = nc->AllGather(s, d, count, ncclFloat32, k->comm, k->s); call = "ncclAllGather"; break;
		case NCCL_REDUCE_SCATTER:
			r = nc->ReduceScatter(s, d, count, ncclFloat32, ncclSum, k->comm, k->s);
			call = "ncclReduceScatter";
			break;
		default: r = nc->Broadcast(s, d, count, ncclFloat32, 0, k->comm, k->s); break;
		}
		if (r != ncclSuccess) {
			nc->GroupEnd();
			return nccl_fail(nc, err, call, r);
		}
	}
	r = nc->GroupEnd();
	return r == ncclSuccess ? CD_OK : nccl_fail(nc, err, "ncclGroupEnd", r);
}

static int sync_all(struct run *u, char *err)
{
	int rc = CD_OK;

	for (int i = 0; i < u->n && rc == CD_OK; i++) {
		ncclResult_t a = ncclSuccess;
		rc = lab_cu(u->c, u->c->d->StreamSynchronize(u->rk[i].s), "cuStreamSynchronize", err);
		if (rc == CD_OK && u->nc->CommGetAsyncError(u->rk[i].comm, &a) == ncclSuccess && a != ncclSuccess &&
		    a != ncclInProgress)
			rc = nccl_fail(u->nc, err, "ncclCommGetAsyncError", a);
	}
	return rc;
}

/* One operation on poisoned outputs, then every rank's output checked on its GPU. */
static int verify(struct run *u, enum nccl_coll coll, size_t bytes, bool *ok, char *err)
{
	struct cudrv *d = u->c->d;
	size_t count, recv_n, chunk;
	int rc;

	counts_of(coll, bytes, u->n, &count, &recv_n, &chunk);
	for (int i = 0; i < u->n; i++)
		if ((rc = use(u, i, err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->MemsetD32(u->rk[i].recv, 0x7fc00000u, recv_n), "cuMemsetD32", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->MemsetD32(u->rk[i].bad, 0, 2), "cuMemsetD32", err)) != CD_OK)
			return rc;
	if ((rc = enqueue(u, coll, count, err)) != CD_OK || (rc = sync_all(u, err)) != CD_OK)
		return rc;
	*ok = true;
	for (int i = 0; i < u->n; i++) {
		unsigned long long n = recv_n, ch = chunk, bad = 0;
		int kind = (int)coll, rank = i, nranks = u->n;
		void *args[] = { &u->rk[i].recv, &n, &kind, &rank, &nranks, &ch, &u->rk[i].bad };

		if ((rc = use(u, i, err)) != CD_OK || (rc = launch(u, i, u->rk[i].check, n, args, err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->StreamSynchronize(u->rk[i].s), "cuStreamSynchronize", err)) != CD_OK ||
		    (rc = lab_cu(u->c, d->MemcpyDtoH(&bad, u->rk[i].bad, sizeof bad), "cuMemcpyDtoH", err)) != CD_OK)
			return rc;
		if (bad)
			*ok = false;
	}
	return CD_OK;
}

/* Seconds per operation: host clock around `iters` operations after `warmup`, as
 * nccl-tests measures. */
static int time_coll(struct run *u, enum nccl_coll coll, size_t bytes, int warmup, int iters, double *sec, char *err)
{
	size_t count, recv_n, chunk;
	int rc;

	counts_of(coll, bytes, u->n, &count, &recv_n, &chunk);
	for (int w = 0; w < warmup; w++)
		if ((rc = enqueue(u, coll, count, err)) != CD_OK)
			return rc;
	if ((rc = sync_all(u, err)) != CD_OK)
		return rc;
	double t0 = lab_now_s();
	for (int it = 0; it < iters; it++)
		if ((rc = enqueue(u, coll, count, err)) != CD_OK)
			return rc;
	if ((rc = sync_all(u, err)) != CD_OK)
		return rc;
	*sec = (lab_now_s() - t0) / iters;
	return CD_OK;
}

/* The slowest GPU's links per direction: active NVLinks x the generation's rate when every
 * GPU has some, else its PCIe link. */
static double link_theory(struct run *u, char *what, size_t cap)
{
	double nvl = -1, pcie = -1;
	int min_links = 0;

	for (int i = 0; i < u->n; i++) {
		struct lab_nvml *v = &u->rk[i].nv;
		int links = 0, gen = 0, width = 0, cc = 0, cc_minor = 0;

		for (unsigned l = 0; v->ok && v->n->DeviceGetNvLinkState && l < 18; l++) {
			int active = 0;
			if (v->n->DeviceGetNvLinkState(v->dev, l, &active) == NVML_SUCCESS && active)
				links++;
		}
		u->c->d->DeviceGetAttribute(&cc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, u->rk[i].dev);
		u->c->d->DeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, u->rk[i].dev);
		double bw = links * nccl_nvlink_rate(cc, cc_minor);
		if (nvl < 0 || bw < nvl) {
			nvl = bw;
			min_links = links;
		}
		double p = lab_nvml_link(v, &gen, &width) == 0 ? lab_pcie_bytes_per_s(gen, width) : 0;
		if (pcie < 0 || p < pcie) {
			pcie = p;
			snprintf(what, cap, "PCIe gen %d x%d", gen, width);
		}
	}
	if (nvl > 0) {
		snprintf(what, cap, "%d NVLinks", min_links);
		return nvl;
	}
	return pcie > 0 ? pcie : 0;
}

static const char *size_label(size_t b, char *buf, size_t n)
{
	if (b >= ((size_t)1 << 30))
		snprintf(buf, n, "%zu GiB", b >> 30);
	else if (b >= ((size_t)1 << 20))
		snprintf(buf, n, "%zu MiB", b >> 20);
	else if (b >= 1024)
		snprintf(buf, n, "%zu KiB", b >> 10);
	else
		snprintf(buf, n, "%zu B", b);
	return buf;
}

/* 8 B x 4^k below the largest size, then the largest: a power of two no more than a quarter
 * of the smallest free memory (send and receive buffers plus NCCL's own) and TOP_CAP. */
static size_t sweep_sizes(const struct lab_ctx *c, size_t min_free, size_t *out)
{
	size_t cap = c->tiny ? 8192 : c->quick ? ((size_t)128 << 20) : TOP_CAP, top = 8, n = 0;

	while (top * 2 <= cap && top * 2 <= min_free / 4)
		top *= 2;
	for (size_t s = 8; s < top && n < MAX_SIZES - 1; s *= 4)
		out[n++] = s;
	out[n++] = top;
	return n;
}

static int measure(struct run *u, struct lab_result *r, char *err)
{
	struct lab_ctx *c = u->c;
	size_t sizes[MAX_SIZES], min_free = 0, verified = 0, wrong = 0;
	double busbw[NCCL_COLLS][MAX_SIZES], sec[NCCL_COLLS][MAX_SIZES];
	int rc, devs[MAX_RANKS];
	char lbl[32], first_wrong[128] = "";

	if ((rc = open_ranks(u, &min_free, err)) != CD_OK)
		return rc;
	size_t ns = sweep_sizes(c, min_free, sizes), top = sizes[ns - 1];
	for (int i = 0; i < u->n; i++) {
		unsigned long long elems = top / 4;
		int rank = i;
		void *args[] = { &u->rk[i].send, &elems, &rank };

		devs[i] = i;
		if ((rc = use(u, i, err)) != CD_OK || (rc = lab_alloc(c, &u->rk[i].send, top, err)) != CD_OK ||
		    (rc = lab_alloc(c, &u->rk[i].recv, top, err)) != CD_OK ||
		    (rc = lab_alloc(c, &u->rk[i].bad, 8, err)) != CD_OK ||
		    (rc = launch(u, i, u->rk[i].fill, elems, args, err)) != CD_OK ||
		    (rc = lab_cu(c, c->d->StreamSynchronize(u->rk[i].s), "cuStreamSynchronize", err)) != CD_OK)
			return rc;
	}
	ncclComm_t comms[MAX_RANKS];
	ncclResult_t nr = u->nc->CommInitAll(comms, u->n, devs);
	if (nr != ncclSuccess)
		return nccl_fail(u->nc, err, "ncclCommInitAll", nr);
	for (int i = 0; i < u->n; i++)
		u->rk[i].comm = comms[i];

	int warmup = c->quick ? 2 : 5, iters = c->quick ? 10 : 20;
	for (int k = 0; k < NCCL_COLLS; k++) {
		for (size_t i = 0; i < ns; i++) {
			bool ok = false;
			lab_progress(c, (k * (double)ns + (double)i) / (NCCL_COLLS * (double)ns), "%s %s", nccl_coll_name[k],
				     size_label(sizes[i], lbl, sizeof lbl));
			if ((rc = verify(u, (enum nccl_coll)k, sizes[i], &ok, err)) != CD_OK)
				return rc;
			if (!ok && !wrong)
				snprintf(first_wrong, sizeof first_wrong, "first wrong result: %s of %s", nccl_coll_name[k],
					 size_label(sizes[i], lbl, sizeof lbl));
			ok ? verified++ : wrong++;
			if ((rc = time_coll(u, (enum nccl_coll)k, sizes[i], warmup, iters, &sec[k][i], err)) != CD_OK)
				return rc;
			/* the bytes moved: a size that n does not divide is rounded down, as in nccl-tests */
			size_t count, recv_n, chunk;
			counts_of((enum nccl_coll)k, sizes[i], u->n, &count, &recv_n, &chunk);
			double moved = 4.0 * (double)(chunk ? chunk * (size_t)u->n : count);
			busbw[k][i] = moved / sec[k][i] * nccl_bus_factor((enum nccl_coll)k, u->n);
			lab_plot_point(&r->plot, (size_t)k, nccl_coll_name[k], (double)sizes[i], moved / sec[k][i] / 1e9);
		}
	}
	lab_add(r, "ranks", u->n, "GPUs in the communicator");
	lab_add(r, "", u->nc->version_code, "NCCL version code (ncclGetVersion)");
	for (int k = 0; k < NCCL_COLLS; k++)
		lab_add(r, "us", sec[k][0] * 1e6, "%s time %s", nccl_coll_name[k], size_label(sizes[0], lbl, sizeof lbl));
	for (int k = 0; k < NCCL_COLLS; k++)
		lab_add(r, "GB/s", (double)top / sec[k][ns - 1] / 1e9, "%s algbw %s", nccl_coll_name[k],
			size_label(top, lbl, sizeof lbl));
	for (size_t i = 0; i < ns; i++)
		for (int k = 0; k < NCCL_COLLS; k++)
			lab_add(r, "GB/s", busbw[k][i] / 1e9, "%s busbw %s", nccl_coll_name[k],
				size_label(sizes[i], lbl, sizeof lbl));
	lab_add(r, "", (double)verified, "results verified");

	char what[64] = "";
	double link = u->n > 1 ? link_theory(u, what, sizeof what) : 0;
	snprintf(r->setup + strlen(r->setup), sizeof r->setup - strlen(r->setup),
		 "; %d rank%s, float sum, out of place, %zu sizes %zu B..%s; %d warm-up + %d timed operations per "
		 "size (host clock, as nccl-tests); every output checked on its GPU",
		 u->n, u->n == 1 ? "" : "s", ns, sizes[0], size_label(top, lbl, sizeof lbl), warmup, iters);
	r->plot.logx = true;
	snprintf(r->plot.title, sizeof r->plot.title, "NCCL algorithm bandwidth vs size, %d rank%s", u->n,
		 u->n == 1 ? "" : "s");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "bytes (nccl-tests size)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "algbw GB/s");
	judge_nccl(r, u->n, verified, wrong, busbw[NCCL_ALL_REDUCE][ns - 1], top, link, what);
	if (wrong)
		snprintf(r->note, sizeof r->note, "%s", first_wrong);
	return CD_OK;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	struct nccl nc;
	struct run *u = NULL;
	char lerr[CD_ERRMSG] = "";
	int rc;

	if (!c->open_nccl)
		return cd_fail(err, CD_EDRIVER, "lab nccl: this run cannot look for libnccl");
	rc = c->open_nccl(c, &nc, r->note, sizeof r->note, lerr);
	if (rc == CD_ENOMEM)
		return cd_fail(err, rc, "%s", lerr);
	if (rc == CD_ENOTFOUND) {
		r->verdict = LAB_INCONCLUSIVE;
		snprintf(r->decided, sizeof r->decided,
			 "no NCCL to run: %s; install it (pip install nvidia-nccl-cu13, or your distribution's "
			 "libnccl2) or set CUDOCTOR_LIBNCCL",
			 lerr);
		return CD_OK;
	}
	if (rc != CD_OK)
		return cd_fail(err, rc, "%s", lerr);
	if (!driver_complete(c->d)) {
		rc = cd_fail(err, CD_EDRIVER, "%s lacks a driver entry point lab nccl needs", c->d->path);
		goto out;
	}
	/* NVLink SHARP allocates multicast objects; it stays off unless the user chose */
	const char *nvls = os_getenv("NCCL_NVLS_ENABLE");
	bool ours = !nvls || !*nvls;
	if (ours && os_setenv("NCCL_NVLS_ENABLE", "0") != 0) {
		rc = cd_fail(err, CD_ENOMEM, "setenv NCCL_NVLS_ENABLE: out of memory");
		goto out;
	}
	snprintf(r->setup, sizeof r->setup, "NCCL %d.%d.%d from %.300s (%s); NCCL_NVLS_ENABLE=%.32s%s", nc.version.major,
		 nc.version.minor, nc.version.patch, nc.lib.path, nc.lib.how, ours ? "0" : nvls,
		 ours ? " set by cudoctor (NVLink SHARP off)" : " from your environment");
	if (!(u = calloc(1, sizeof *u))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	u->c = c;
	u->nc = &nc;
	rc = measure(u, r, err);
	close_ranks(u);
out:
	free(u);
	nccl_unload(&nc);
	return rc;
}

const struct lab lab_nccl = {
	.name = "nccl",
	.concept = "multi-GPU: NCCL collectives over the links between GPUs",
	.measures = "all-reduce, all-gather, reduce-scatter, broadcast: verified, algbw and busbw, 8 B..4 GiB",
	.claim = "NCCL's collectives return the exact result on every rank; small operations cost a fixed latency "
		 "of microseconds, and large ones move data at a bus bandwidth near the slowest GPU's links",
	.lesson = "Judge a multi-GPU job by busbw, not algbw: busbw is comparable with the link's bandwidth whatever "
		  "the number of GPUs. Batch small collectives (gradient buckets) so latency does not dominate, and "
		  "read NCCL_DEBUG=INFO (cudoctor explain) to see which transport each channel used.",
	.run = run,
};
