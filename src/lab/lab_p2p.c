/* p2p: copies between every ordered pair of GPUs, through the copy engines
 * (cuMemcpyPeerAsync) and through the SMs (a copy kernel on peer pointers), one way and
 * both ways at once with peer access enabled, and staged through pinned host memory
 * without it. Each timed run queues its copies behind a wait kernel that spins on a
 * host-mapped flag, so what the events time is the copies and not their enqueueing;
 * every byte is checked against the run's own pattern. Judged against the link theory
 * of the topology room (lab/p2p_links.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/p2p_links.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum {
	MAXG = 8,          /* the heat map's 64 cells; more GPUs are named, not measured */
	CHUNKS = 8,        /* the host path's pipeline: chunk k goes up while chunk k+1 comes down */
	MAXREPS = 8,
	WAIT_SECONDS = 5,  /* the wait kernel's bound */
	MAXLAT = 4,
};

enum op { OP_CE_WRITE, OP_CE_READ, OP_SM_WRITE, OP_SM_READ, OP_HOST };
static const char *const op_name[] = { "CE write", "CE read", "SM write", "SM read", "via host" };

struct gpu {
	struct lab_ctx x;          /* this device's primary context, module and stream */
	bool open;
	CUfunction wait, copy, fill, check;
	CUdeviceptr src, dst, bad;
	CUdeviceptr go;            /* the host flags as this context addresses them */
	CUevent t0, t1, done;
	CUevent chunk[CHUNKS];
	unsigned copy_grid;
	long long timeout_cycles;
};

struct p2p {
	struct lab_ctx *c;
	struct gpu *g;             /* n of them */
	int n;
	bool access[MAXG][MAXG];   /* g[i]'s context may address g[j]'s memory */
	bool enabled[MAXG][MAXG];  /* and it was this lab that enabled it */
	unsigned int *flags;       /* pinned, mapped: [0] go, [1] wait kernels that gave up */
	unsigned char *stage;      /* pinned, the host path's buffer */
	size_t bytes;
	unsigned long long runs;
	int reps, iters, lat_iters;
};

/* entry points beyond what lab_open uses */
static const struct {
	size_t off;
	const char *name;
} needed[] = {
	{ offsetof(struct cudrv, DeviceGetCount), "cuDeviceGetCount" },
	{ offsetof(struct cudrv, DeviceCanAccessPeer), "cuDeviceCanAccessPeer" },
	{ offsetof(struct cudrv, CtxEnablePeerAccess), "cuCtxEnablePeerAccess" },
	{ offsetof(struct cudrv, CtxDisablePeerAccess), "cuCtxDisablePeerAccess" },
	{ offsetof(struct cudrv, CtxSetCurrent), "cuCtxSetCurrent" },
	{ offsetof(struct cudrv, MemcpyPeerAsync), "cuMemcpyPeerAsync" },
	{ offsetof(struct cudrv, MemHostAlloc), "cuMemHostAlloc" },
	{ offsetof(struct cudrv, MemFreeHost), "cuMemFreeHost" },
	{ offsetof(struct cudrv, MemHostGetDevicePointer), "cuMemHostGetDevicePointer" },
	{ offsetof(struct cudrv, MemAlloc), "cuMemAlloc" },
	{ offsetof(struct cudrv, MemFree), "cuMemFree" },
	{ offsetof(struct cudrv, MemcpyDtoH), "cuMemcpyDtoH" },
	{ offsetof(struct cudrv, MemcpyDtoHAsync), "cuMemcpyDtoHAsync" },
	{ offsetof(struct cudrv, MemcpyHtoDAsync), "cuMemcpyHtoDAsync" },
	{ offsetof(struct cudrv, MemsetD32), "cuMemsetD32" },
	{ offsetof(struct cudrv, LaunchKernel), "cuLaunchKernel" },
	{ offsetof(struct cudrv, OccupancyMaxActiveBlocksPerMultiprocessor), "cuOccupancyMaxActiveBlocksPerMultiprocessor" },
	{ offsetof(struct cudrv, StreamSynchronize), "cuStreamSynchronize" },
	{ offsetof(struct cudrv, StreamWaitEvent), "cuStreamWaitEvent" },
	{ offsetof(struct cudrv, EventCreate), "cuEventCreate" },
	{ offsetof(struct cudrv, EventRecord), "cuEventRecord" },
	{ offsetof(struct cudrv, EventSynchronize), "cuEventSynchronize" },
	{ offsetof(struct cudrv, EventElapsedTime), "cuEventElapsedTime" },
	{ offsetof(struct cudrv, EventDestroy), "cuEventDestroy" },
};

static int check_entry_points(const struct lab_ctx *c, char *err)
{
	for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
		void *fp;
		memcpy(&fp, (const char *)c->d + needed[i].off, sizeof fp);
		if (!fp)
			return cd_fail(err, CD_EDRIVER, "%s is missing from %s", needed[i].name, c->d->path);
	}
	return CD_OK;
}

static int use(struct p2p *P, int i, char *err)
{
	return lab_cu(P->c, P->c->d->CtxSetCurrent(P->g[i].x.ctx), "cuCtxSetCurrent", err);
}

static void size_name(size_t bytes, char *buf, size_t n)
{
	if (bytes >= LAB_MIB && bytes % LAB_MIB == 0)
		snprintf(buf, n, "%zu MiB", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, n, "%zu KiB", bytes >> 10);
	else
		snprintf(buf, n, "%zu B", bytes);
}

/* ---- set-up ---- */

/* the kernels of device i (its context was opened by lab_open) and their launch shapes */
static int load_kernels(struct p2p *P, int i, char *err)
{
	int rc = CD_OK;
	struct gpu *g = &P->g[i];
	const struct cudrv *d = P->c->d;
	int per_sm = 0;

	TRY(use(P, i, err));
	TRY(lab_fn(&g->x, "lab_p2p_wait", &g->wait, err));
	TRY(lab_fn(&g->x, "lab_p2p_copy", &g->copy, err));
	TRY(lab_fn(&g->x, "lab_p2p_fill", &g->fill, err));
	TRY(lab_fn(&g->x, "lab_p2p_check", &g->check, err));
	TRY(lab_cu(P->c, d->OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, g->copy, 512, 0),
		   "cuOccupancyMaxActiveBlocksPerMultiprocessor", err));
	g->copy_grid = lab_fill_grid(&g->x, per_sm);
	/* clock64 counts SM cycles: the peak clock makes the bound at least WAIT_SECONDS */
	double khz = g->x.info.clock_khz > 0 ? g->x.info.clock_khz : 2000000.0;
	g->timeout_cycles = (long long)(khz * 1e3 * WAIT_SECONDS);
out:
	return rc;
}

/* Peer access both ways for every pair CUDA says can have it. Already enabled (by a
 * caller sharing the primary context) counts as enabled, and is left so. */
static int enable_peers(struct p2p *P, char *err)
{
	int rc = CD_OK;
	const struct cudrv *d = P->c->d;
	for (int i = 0; i < P->n; i++)
		for (int j = 0; j < P->n; j++) {
			int can = 0;
			if (i == j)
				continue;
			TRY(lab_cu(P->c, d->DeviceCanAccessPeer(&can, P->g[i].x.dev, P->g[j].x.dev), "cuDeviceCanAccessPeer", err));
			if (!can)
				continue;
			TRY(use(P, i, err));
			CUresult r = d->CtxEnablePeerAccess(P->g[j].x.ctx, 0);
			if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
				char call[96];
				snprintf(call, sizeof call, "cuCtxEnablePeerAccess (GPU%d to GPU%d, which cuDeviceCanAccessPeer allows)",
					 i, j);
				TRY(lab_cu(P->c, r, call, err));
			}
			P->access[i][j] = true;
			P->enabled[i][j] = r == CUDA_SUCCESS;
		}
out:
	return rc;
}

static int alloc_buffers(struct p2p *P, char *err)
{
	int rc = CD_OK;
	const struct cudrv *d = P->c->d;
	TRY(use(P, 0, err));
	TRY(lab_cu(P->c, d->MemHostAlloc((void **)&P->flags, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
		   "cuMemHostAlloc", err));
	memset(P->flags, 0, 64);
	TRY(lab_cu(P->c, d->MemHostAlloc((void **)&P->stage, P->bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc", err));
	for (int i = 0; i < P->n; i++) {
		struct gpu *g = &P->g[i];
		TRY(use(P, i, err));
		TRY(lab_cu(P->c, d->MemHostGetDevicePointer(&g->go, P->flags, 0), "cuMemHostGetDevicePointer", err));
		TRY(lab_alloc(&g->x, &g->src, P->bytes, err));
		TRY(lab_alloc(&g->x, &g->dst, P->bytes, err));
		TRY(lab_alloc(&g->x, &g->bad, 8, err));
		TRY(lab_cu(P->c, d->EventCreate(&g->t0, CU_EVENT_DEFAULT), "cuEventCreate", err));
		TRY(lab_cu(P->c, d->EventCreate(&g->t1, CU_EVENT_DEFAULT), "cuEventCreate", err));
		TRY(lab_cu(P->c, d->EventCreate(&g->done, CU_EVENT_DISABLE_TIMING), "cuEventCreate", err));
		for (int k = 0; k < CHUNKS; k++)
			TRY(lab_cu(P->c, d->EventCreate(&g->chunk[k], CU_EVENT_DISABLE_TIMING), "cuEventCreate", err));
	}
out:
	return rc;
}

static void teardown(struct p2p *P)
{
	const struct cudrv *d = P->c->d;
	if (!P->g)
		return;
	for (int i = 0; i < P->n; i++) {
		struct gpu *g = &P->g[i];
		if (!g->open)
			continue;
		d->CtxSetCurrent(g->x.ctx);
		for (int j = 0; j < P->n; j++)
			if (P->enabled[i][j])
				d->CtxDisablePeerAccess(P->g[j].x.ctx);
		lab_free(&g->x, &g->src);
		lab_free(&g->x, &g->dst);
		lab_free(&g->x, &g->bad);
		CUevent evs[3 + CHUNKS] = { g->t0, g->t1, g->done };
		memcpy(evs + 3, g->chunk, sizeof g->chunk);
		for (size_t k = 0; k < sizeof evs / sizeof *evs; k++)
			if (evs[k] && d->EventDestroy)
				d->EventDestroy(evs[k]);
	}
	if (P->flags && d->MemFreeHost)
		d->MemFreeHost(P->flags);
	if (P->stage && d->MemFreeHost)
		d->MemFreeHost(P->stage);
	for (int i = 0; i < P->n; i++)
		if (P->g[i].open)
			lab_close(&P->g[i].x);
	if (P->c->ctx && d->CtxSetCurrent)
		d->CtxSetCurrent(P->c->ctx);
}

/* ---- one run ---- */

static int launch(struct p2p *P, int i, CUfunction f, unsigned grid, unsigned block, void **args, char *err)
{
	struct gpu *g = &P->g[i];
	return lab_cu(P->c, P->c->d->LaunchKernel(f, grid, 1, 1, block, 1, 1, 0, g->x.s, args, NULL), "cuLaunchKernel",
		      err);
}

/* the source gets the run's pattern, the destination its complement */
static int prepare(struct p2p *P, int a, int b, size_t bytes, unsigned long long seed, char *err)
{
	int rc = CD_OK;
	unsigned long long words = bytes / 4;
	unsigned int plain = 0, poison = ~0u;
	void *fa[] = { &P->g[a].src, &words, &seed, &plain }, *fb[] = { &P->g[b].dst, &words, &seed, &poison };
	TRY(use(P, a, err));
	TRY(launch(P, a, P->g[a].fill, P->g[a].copy_grid, 256, fa, err));
	TRY(lab_sync(&P->g[a].x, err));
	TRY(use(P, b, err));
	TRY(launch(P, b, P->g[b].fill, P->g[b].copy_grid, 256, fb, err));
	TRY(lab_sync(&P->g[b].x, err));
out:
	return rc;
}

/* words of b's destination that differ from the pattern */
static int verify(struct p2p *P, int b, size_t bytes, unsigned long long seed, unsigned long long *bad, char *err)
{
	int rc = CD_OK;
	struct gpu *g = &P->g[b];
	unsigned long long words = bytes / 4;
	void *args[] = { &g->dst, &words, &seed, &g->bad };
	*bad = 0;
	TRY(use(P, b, err));
	TRY(lab_cu(P->c, P->c->d->MemsetD32(g->bad, 0, 2), "cuMemsetD32", err));
	TRY(launch(P, b, g->check, g->copy_grid, 256, args, err));
	TRY(lab_sync(&g->x, err));
	TRY(lab_cu(P->c, P->c->d->MemcpyDtoH(bad, g->bad, 8), "cuMemcpyDtoH", err));
out:
	return rc;
}

/* The issuing GPU of an op on the flow a -> b. */
static int issuer(enum op op, int a, int b)
{
	return op == OP_CE_READ || op == OP_SM_READ ? b : a;
}

/* Queues one copy of `bytes` from a's source to b's destination. */
static int enqueue(struct p2p *P, enum op op, int a, int b, size_t bytes, char *err)
{
	int rc = CD_OK;
	const struct cudrv *d = P->c->d;
	struct gpu *ga = &P->g[a], *gb = &P->g[b];
	int who = issuer(op, a, b);
	TRY(use(P, who, err));
	if (op == OP_CE_WRITE || op == OP_CE_READ) {
		TRY(lab_cu(P->c, d->MemcpyPeerAsync(gb->dst, gb->x.ctx, ga->src, ga->x.ctx, bytes, P->g[who].x.s),
			   "cuMemcpyPeerAsync", err));
	} else if (op == OP_SM_WRITE || op == OP_SM_READ) {
		unsigned long long n = bytes;
		unsigned long long need = (bytes / 16 + 1023) / 1024; /* blocks of 256 threads x 4 accesses */
		unsigned grid = need < P->g[who].copy_grid ? (unsigned)(need ? need : 1) : P->g[who].copy_grid;
		void *args[] = { &ga->src, &gb->dst, &n };
		TRY(launch(P, who, P->g[who].copy, grid, bytes >= LAB_MIB ? 512 : 256, args, err));
	} else {
		/* down to pinned memory on a's stream, up from it on b's, chunk by chunk; a's stream
		 * then waits for b's last chunk, so a's events span the whole path */
		size_t chunk = bytes / CHUNKS >= 4 ? (bytes / CHUNKS) & ~(size_t)3 : bytes;
		for (size_t off = 0, k = 0; off < bytes; off += chunk, k++) {
			size_t len = bytes - off < chunk ? bytes - off : chunk;
			CUevent ev = ga->chunk[k % CHUNKS];
			TRY(use(P, a, err));
			TRY(lab_cu(P->c, d->MemcpyDtoHAsync(P->stage + off, ga->src + off, len, ga->x.s), "cuMemcpyDtoHAsync", err));
			TRY(lab_cu(P->c, d->EventRecord(ev, ga->x.s), "cuEventRecord", err));
			TRY(use(P, b, err));
			TRY(lab_cu(P->c, d->StreamWaitEvent(gb->x.s, ev, 0), "cuStreamWaitEvent", err));
			TRY(lab_cu(P->c, d->MemcpyHtoDAsync(gb->dst + off, P->stage + off, len, gb->x.s), "cuMemcpyHtoDAsync", err));
		}
		TRY(lab_cu(P->c, d->EventRecord(gb->done, gb->x.s), "cuEventRecord", err));
		TRY(use(P, a, err));
		TRY(lab_cu(P->c, d->StreamWaitEvent(ga->x.s, gb->done, 0), "cuStreamWaitEvent", err));
	}
out:
	return rc;
}

/* One flow of a timed run. */
struct flow {
	enum op op;
	int a, b;
};

/* Every flow's `count` copies queued behind a wait kernel on each issuing stream, then
 * released at once; sec[k] = flow k's time from release to its last copy. */
static int timed(struct p2p *P, const struct flow *f, int nf, size_t bytes, int count, double *sec, char *err)
{
	int rc = CD_OK;
	const struct cudrv *d = P->c->d;
	/* tiny shapes are for compute-sanitizer, which may hold the host in each launch until
	 * the kernel ends: there the wait kernel finds the flag already up */
	__atomic_store_n(&P->flags[0], P->c->tiny ? 1u : 0u, __ATOMIC_SEQ_CST);
	__atomic_store_n(&P->flags[1], 0u, __ATOMIC_SEQ_CST);
	for (int k = 0; k < nf; k++) {
		int who = issuer(f[k].op, f[k].a, f[k].b);
		struct gpu *g = &P->g[who];
		CUdeviceptr gave_up = g->go + 4;
		void *args[] = { &g->go, &gave_up, &g->timeout_cycles };
		TRY(use(P, who, err));
		TRY(launch(P, who, g->wait, 1, 32, args, err));
		TRY(lab_cu(P->c, d->EventRecord(g->t0, g->x.s), "cuEventRecord", err));
	}
	for (int i = 0; i < count; i++)
		for (int k = 0; k < nf; k++)
			TRY(enqueue(P, f[k].op, f[k].a, f[k].b, bytes, err));
	for (int k = 0; k < nf; k++) {
		int who = issuer(f[k].op, f[k].a, f[k].b);
		TRY(use(P, who, err));
		TRY(lab_cu(P->c, d->EventRecord(P->g[who].t1, P->g[who].x.s), "cuEventRecord", err));
	}
	__atomic_store_n(&P->flags[0], 1u, __ATOMIC_SEQ_CST);
	for (int k = 0; k < nf; k++) {
		int who = issuer(f[k].op, f[k].a, f[k].b);
		float ms = 0;
		TRY(use(P, who, err));
		TRY(lab_cu(P->c, d->EventSynchronize(P->g[who].t1), "cuEventSynchronize", err));
		TRY(lab_cu(P->c, d->EventElapsedTime(&ms, P->g[who].t0, P->g[who].t1), "cuEventElapsedTime", err));
		sec[k] = ms * 1e-3;
	}
out:
	/* whatever failed, no wait kernel may keep spinning on a flag about to be freed */
	if (P->flags)
		__atomic_store_n(&P->flags[0], 1u, __ATOMIC_SEQ_CST);
	if (rc == CD_OK && __atomic_load_n(&P->flags[1], __ATOMIC_SEQ_CST) != 0)
		rc = cd_fail(err, CD_EDRIVER,
			     "the wait kernel gave up after %d s before the copies were queued (a full launch queue?)",
			     WAIT_SECONDS);
	return rc;
}

/* Median rate (bytes/s) of each flow over P->reps timed runs after one untimed, with
 * every destination checked against this measurement's pattern. rate NULL: latency,
 * per_copy[k] = median seconds per copy instead. Sets *wrong and r->note on bad data. */
static int measure(struct p2p *P, struct lab_result *r, const struct flow *f, int nf, size_t bytes, int count,
		   double *rate, double *per_copy, bool *wrong, char *err)
{
	int rc = CD_OK;
	double sec[2][MAXREPS] = { { 0 } };
	unsigned long long seed[2];
	for (int k = 0; k < nf; k++) {
		seed[k] = P->c->seed ^ lab_mix64(++P->runs);
		TRY(prepare(P, f[k].a, f[k].b, bytes, seed[k], err));
	}
	double one[2];
	TRY(timed(P, f, nf, bytes, 1, one, err)); /* warm-up: first-touch of peer mappings, clocks */
	for (int i = 0; i < P->reps; i++) {
		TRY(timed(P, f, nf, bytes, count, one, err));
		for (int k = 0; k < nf; k++)
			sec[k][i] = one[k];
	}
	for (int k = 0; k < nf; k++) {
		unsigned long long bad = 0;
		TRY(verify(P, f[k].b, bytes, seed[k], &bad, err));
		if (bad) {
			char sz[32];
			size_name(bytes, sz, sizeof sz);
			*wrong = true;
			snprintf(r->note, sizeof r->note, "GPU%d->GPU%d %s of %s: %llu of %zu words differ from the run's pattern",
				 f[k].a, f[k].b, op_name[f[k].op], sz, bad, bytes / 4);
			goto out;
		}
		double med = lab_stats_of(sec[k], (size_t)P->reps).median;
		if (rate)
			rate[k] = med > 0 ? (double)bytes * count / med : 0;
		if (per_copy)
			per_copy[k] = med / count;
	}
out:
	return rc;
}

/* ---- the lab ---- */

struct pair_lat {
	double ce[MAXLAT], sm[MAXLAT]; /* seconds per copy */
};

static int measure_pair(struct p2p *P, struct lab_result *r, struct p2p_meas *m, struct p2p_meas *rev,
			struct pair_lat *lat, const size_t *lsz, size_t nl, bool *wrong, char *err)
{
	int rc = CD_OK;
	int a = m->a, b = m->b;
	double v[2];
	struct flow one = { OP_HOST, a, b };
	TRY(measure(P, r, &one, 1, P->bytes, 1, &m->host, NULL, wrong, err));
	if (*wrong || !m->peer)
		goto out;
	double *dest[4] = { &m->ce_write, &m->ce_read, &m->sm_write, &m->sm_read };
	for (int op = OP_CE_WRITE; op <= OP_SM_READ; op++) {
		one.op = (enum op)op;
		TRY(measure(P, r, &one, 1, P->bytes, P->iters, dest[op], NULL, wrong, err));
		if (*wrong)
			goto out;
	}
	/* both ways at once: once per unordered pair, each direction on its own source */
	if (a < b) {
		struct flow both[2] = { { OP_CE_WRITE, a, b }, { OP_CE_WRITE, b, a } };
		TRY(measure(P, r, both, 2, P->bytes, P->iters, v, NULL, wrong, err));
		if (*wrong)
			goto out;
		m->ce_both = v[0];
		rev->ce_both = v[1];
		both[0].op = both[1].op = OP_SM_WRITE;
		TRY(measure(P, r, both, 2, P->bytes, P->iters, v, NULL, wrong, err));
		if (*wrong)
			goto out;
		m->sm_both = v[0];
		rev->sm_both = v[1];
	}
	for (size_t s = 0; s < nl; s++) {
		one.op = OP_CE_WRITE;
		TRY(measure(P, r, &one, 1, lsz[s], P->lat_iters, NULL, &lat->ce[s], wrong, err));
		if (*wrong)
			goto out;
		one.op = OP_SM_WRITE;
		TRY(measure(P, r, &one, 1, lsz[s], P->lat_iters, NULL, &lat->sm[s], wrong, err));
		if (*wrong)
			goto out;
	}
out:
	return rc;
}

static void report_pairs(struct lab_result *r, const struct p2p *P, const struct p2p_meas *m, size_t np,
			 const struct pair_lat *lat, const size_t *lsz, size_t nl, const struct p2p_links *links)
{
	for (size_t i = 0; i < np; i++) {
		const struct p2p_meas *p = &m[i];
		int a = p->a, b = p->b;
		if (p->peer) {
			lab_add(r, "GB/s", p->ce_write / 1e9, "GPU%d->GPU%d CE write", a, b);
			lab_add(r, "GB/s", p->ce_read / 1e9, "GPU%d->GPU%d CE read", a, b);
			lab_add(r, "GB/s", p->ce_both / 1e9, "GPU%d->GPU%d CE both ways", a, b);
			lab_add(r, "GB/s", p->sm_write / 1e9, "GPU%d->GPU%d SM write", a, b);
			lab_add(r, "GB/s", p->sm_read / 1e9, "GPU%d->GPU%d SM read", a, b);
			lab_add(r, "GB/s", p->sm_both / 1e9, "GPU%d->GPU%d SM both ways", a, b);
		}
		lab_add(r, "GB/s", p->host / 1e9, "GPU%d->GPU%d via host", a, b);
		for (size_t s = 0; p->peer && s < nl; s++) {
			char sz[32];
			size_name(lsz[s], sz, sizeof sz);
			lab_add(r, "us", lat[i].ce[s] * 1e6, "GPU%d->GPU%d CE latency %s", a, b, sz);
			lab_add(r, "us", lat[i].sm[s] * 1e6, "GPU%d->GPU%d SM latency %s", a, b, sz);
		}
		if (p->theory > 0)
			lab_add(r, "GB/s", p->theory / 1e9, "GPU%d->GPU%d link theory (%s)", a, b, links->cell[a][b]);
	}
	/* the heat map: best one-way peer copy, row = source, column = destination */
	int n = P->n;
	snprintf(r->plot.title, sizeof r->plot.title, "Best one-way peer copy, GB/s (row to column)");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "to (destination)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "from (source)");
	r->plot.heatmap = true;
	for (int i = 0; i < n; i++) {
		snprintf(r->plot.labels[i], sizeof r->plot.labels[i], "GPU%d", i);
		for (int j = 0; j < n; j++) {
			double v = NAN;
			for (size_t k = 0; k < np; k++)
				if (m[k].a == i && m[k].b == j && m[k].peer)
					v = p2p_best_peer(&m[k]) / 1e9;
			lab_plot_point(&r->plot, 0, "GB/s", (double)(i * n + j), v);
		}
	}
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK, count = 0;
	struct p2p P;
	struct p2p_meas *m = NULL;
	struct pair_lat *lat = NULL;
	struct p2p_links *links = NULL;
	size_t lsz[MAXLAT], nl = lab_p2p_latency_sizes(c->quick, lsz, MAXLAT), np = 0;
	bool wrong = false;

	memset(&P, 0, sizeof P);
	P.c = c;
	if (!c->d->DeviceGetCount)
		return cd_fail(err, CD_EDRIVER, "cuDeviceGetCount is missing from %s", c->d->path);
	TRY(lab_cu(c, c->d->DeviceGetCount(&count), "cuDeviceGetCount", err));
	if (count < 2) {
		snprintf(r->setup, sizeof r->setup, "%d CUDA device%s visible (CUDA_VISIBLE_DEVICES applies)", count,
			 count == 1 ? "" : "s");
		snprintf(r->note, sizeof r->note, "there is no pair of GPUs to copy between: this lab needs two or more");
		judge_p2p(r, NULL, 0, count);
		return CD_OK;
	}
	TRY(check_entry_points(c, err));
	P.n = count < MAXG ? count : MAXG;
	np = (size_t)P.n * (size_t)(P.n - 1);
	P.g = calloc((size_t)P.n, sizeof *P.g);
	m = calloc(np, sizeof *m);
	lat = calloc(np, sizeof *lat);
	links = calloc(1, sizeof *links);
	if (!P.g || !m || !lat || !links) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	TRY(p2p_links_collect(c->d, c->nv, c->probe, links, err));
	size_t min_free = (size_t)-1;
	for (int i = 0; i < P.n; i++) {
		P.g[i].x.probe = c->probe;
		TRY(lab_open(&P.g[i].x, c->d, i, lab_fatbin, err));
		P.g[i].open = true;
		if (P.g[i].x.info.free_mem < min_free)
			min_free = P.g[i].x.info.free_mem;
	}
	/* peer access first: what fails there is this lab's subject */
	TRY(enable_peers(&P, err));
	for (int i = 0; i < P.n; i++)
		TRY(load_kernels(&P, i, err));
	P.bytes = lab_p2p_bytes(min_free, c->quick, c->tiny);
	if (P.bytes == 0) {
		rc = cd_fail(err, CD_ENOMEM, "under 4 MiB free on one of the GPUs: no room for the copy buffers");
		goto out;
	}
	P.reps = c->quick || c->tiny ? 3 : 5;
	P.iters = c->quick || c->tiny ? 2 : 4;
	P.lat_iters = c->tiny ? 4 : c->quick ? 20 : 100;
	TRY(alloc_buffers(&P, err));

	size_t k = 0;
	for (int a = 0; a < P.n; a++)
		for (int b = 0; b < P.n; b++) {
			if (a == b)
				continue;
			struct p2p_meas *p = &m[k++];
			p->a = a;
			p->b = b;
			p->peer = P.access[a][b] && P.access[b][a];
			p->theory = links->bps[a][b];
			snprintf(p->theory_text, sizeof p->theory_text, "%s", links->text[a][b]);
		}
	for (size_t i = 0; i < np && !wrong; i++) {
		struct p2p_meas *rev = NULL;
		for (size_t j = 0; j < np; j++)
			if (m[j].a == m[i].b && m[j].b == m[i].a)
				rev = &m[j];
		lab_progress(c, (double)i / (double)np, "GPU%d->GPU%d", m[i].a, m[i].b);
		TRY(measure_pair(&P, r, &m[i], rev, &lat[i], lsz, nl, &wrong, err));
	}
	if (wrong) {
		r->wrong_result = true;
		goto out;
	}
	report_pairs(r, &P, m, np, lat, lsz, nl, links);
	char total[32];
	size_name(P.bytes, total, sizeof total);
	snprintf(r->setup, sizeof r->setup,
		 "%d GPUs%s; %s per copy; each figure the median of %d runs of %d copies queued behind a wait kernel and "
		 "timed with events from its release; latency = %d back-to-back copies of 4 B..64 KiB; host path = %d "
		 "chunks through pinned memory, no peer access; every byte checked against each run's own pattern",
		 P.n, count > MAXG ? " (the first 8 of them)" : "", total, P.reps, P.iters, P.lat_iters, CHUNKS);
	if (links->why_unknown[0])
		snprintf(r->note, sizeof r->note, "no NVLink theory without NVML: %s", links->why_unknown);
	judge_p2p(r, m, np, count);
out:
	teardown(&P);
	free(P.g);
	free(m);
	free(lat);
	free(links);
	return rc;
}

const struct lab lab_p2p = {
	.name = "p2p",
	.concept = "several GPUs: peer-to-peer copies over NVLink or PCIe",
	.measures = "GB/s and latency per GPU pair: copy engine and SM, one and both ways, peer and via host",
	.claim = "with peer access enabled, copies between two GPUs run at 60%-105% of the link's per-direction rate "
		 "(NVLink links x rate, or the PCIe link), equally fast both ways (within 15%), each direction keeps "
		 ">= 70% when both run at once, and they are not slower than staging through host memory",
	.lesson = "Enable peer access (cudaDeviceEnablePeerAccess) between GPUs that exchange data and copy with "
		  "cudaMemcpyPeerAsync or a kernel on peer pointers; a pair far below its link, or slower than "
		  "through the host, points at the topology (cudoctor topo): PCIe through the CPU, ACS or IOMMU, "
		  "or NVLinks that are down.",
	.run = run,
};
