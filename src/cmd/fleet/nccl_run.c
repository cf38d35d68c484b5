/* `cudoctor fleet --nccl`: one cross-rank NCCL all-reduce, one GPU per rank (the rank's
 * place on its host picks the CUDA device), NCCL's unique id broadcast through the MPI
 * plug-in. Every rank prepares and reports whether it can take part before any rank
 * enters ncclCommInitRank, so one rank without NCCL or a GPU cannot leave the others
 * waiting; the NCCL calls themselves are bounded by an alarm. */
#include "cmd/fleet/fleet.h"
#include "cmd/fleet/nccl_side.h"
#include "os/proc.h"
#include "util/clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/nccl.h"
#include "lab/nccl_judge.h"
#include "util/err.h"

/* The all-reduce at every size of the plan: rank r sends r+1 everywhere, so every element
 * of the result is n(n+1)/2; timed as nccl-tests times it (host clock around a batch). */
static int sweep(struct fleet_nccl_side *x, const struct cudrv *d, const struct fleet_nccl_plan *p, int rank,
		 struct fleet_nccl_rank *rec, char *err)
{
	size_t max = p->bytes[p->n_sizes - 1], n = max / sizeof(float);
	float want = (float)p->nranks * (float)(p->nranks + 1) / 2.0f;
	ncclResult_t nr;
	int rc = CD_OK;

	if ((nr = x->nc.CommInitRank(&x->comm, p->nranks, p->id, rank)) != ncclSuccess) {
		x->comm = NULL;
		rc = nccl_fail(&x->nc, err, "ncclCommInitRank", nr);
		goto out;
	}
	if (!(x->host = malloc(max)))
		return cd_fail(err, CD_ENOMEM, "out of memory for a %zu-byte host buffer", max);
	for (size_t i = 0; i < n; i++)
		x->host[i] = (float)(rank + 1);
	TRY(fleet_cu(d, d->StreamCreate(&x->s, 0), "cuStreamCreate", err));
	TRY(fleet_cu(d, d->MemAlloc(&x->send, max), "cuMemAlloc", err));
	TRY(fleet_cu(d, d->MemAlloc(&x->recv, max), "cuMemAlloc", err));
	TRY(fleet_cu(d, d->MemcpyHtoD(x->send, x->host, max), "cuMemcpyHtoD", err));
	for (int k = 0; k < p->n_sizes; k++) {
		size_t count = p->bytes[k] / sizeof(float);
		double t0 = 0;
		/* the first one warms up and is checked; the batch after it is timed */
		for (int it = 0; it <= FLEET_NCCL_ITERS; it++) {
			if (it == 1)
				t0 = cd_now_s();
			if ((nr = x->nc.AllReduce((const void *)(uintptr_t)x->send, (void *)(uintptr_t)x->recv, count,
						  ncclFloat32, ncclSum, x->comm, x->s)) != ncclSuccess) {
				rc = nccl_fail(&x->nc, err, "ncclAllReduce", nr);
				goto out;
			}
			if (it > 0 && it < FLEET_NCCL_ITERS)
				continue;
			TRY(fleet_cu(d, d->StreamSynchronize(x->s), "cuStreamSynchronize", err));
			if (it > 0)
				continue;
			TRY(fleet_cu(d, d->MemcpyDtoH(x->host, x->recv, p->bytes[k]), "cuMemcpyDtoH", err));
			for (size_t i = 0; i < count; i++)
				if (x->host[i] != want) {
					rec->wrong++;
					break;
				}
		}
		rec->seconds[k] = (cd_now_s() - t0) / FLEET_NCCL_ITERS;
	}
out:
	return rc;
}

int fleet_nccl_run(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const struct cd_globals *g,
		   double timeout_s, struct fleet_nccl_result *res, char *err)
{
	const struct cudrv *d = g->run ? g->run->cu : NULL;
	struct fleet_nccl_rank rec = { 0 }, *all = NULL;
	struct fleet_nccl_plan plan = { 0 };
	struct fleet_nccl_side x = { 0 };
	char why[CD_ERRMSG] = "";
	bool unreached;
	int rc;

	memset(res, 0, sizeof *res);
	rc = fleet_nccl_muster(mpi, me, g->run, timeout_s, &x, &rec, &all, &unreached, err);
	if (unreached)
		goto unreached;
	if (rc)
		goto out;
	if (me->world_rank == 0) {
		size_t min_free = (size_t)-1;
		plan.nranks = me->world_size;
		plan.go = 1;
		for (int r = 0; r < me->world_size; r++) {
			if (all[r].error[0] && plan.go) {
				plan.go = 0;
				snprintf(plan.why, sizeof plan.why, "rank %d (%.60s): %.180s", r, all[r].node, all[r].error);
			}
			if (all[r].free_bytes < min_free)
				min_free = all[r].free_bytes;
		}
		/* two buffers of the largest size in a quarter of the smallest free memory */
		for (size_t b = (size_t)1 << 20; b <= FLEET_NCCL_TOP && 8 * b <= min_free; b <<= 2)
			plan.bytes[plan.n_sizes++] = b;
		if (plan.go && !plan.n_sizes) {
			plan.go = 0;
			snprintf(plan.why, sizeof plan.why, "too little free GPU memory (%zu bytes) for 1 MiB", min_free);
		}
		if (plan.go && x.nc.GetUniqueId(&plan.id) != ncclSuccess) {
			plan.go = 0;
			snprintf(plan.why, sizeof plan.why, "rank 0: ncclGetUniqueId failed");
		}
	}
	if ((rc = mpi->bcast(&plan, sizeof plan, timeout_s, err)) != CD_OK)
		goto unreached;
	plan.why[sizeof plan.why - 1] = '\0';
	if (plan.go) {
		os_exit_after((unsigned)timeout_s + 1, FLEET_NCCL_TIMEOUT_MSG);
		if (sweep(&x, d, &plan, me->world_rank, &rec, why) != CD_OK)
			snprintf(rec.error, sizeof rec.error, "%.250s", why);
		os_exit_after(0, NULL);
		if ((rc = mpi->gather(&rec, sizeof rec, all, timeout_s, err)) != CD_OK)
			goto unreached;
	}
	if (me->world_rank == 0) {
		res->plan = plan;
		res->ranks = all;
		res->n_ranks = me->world_size;
		all = NULL;
	}
	goto out;
unreached:
	/* a rank that hung or died before NCCL must not cost the fleet its report: the NCCL
	 * part says why it is missing and the gathering of reports names the node */
	memset(&res->plan, 0, sizeof res->plan);
	res->plan.nranks = me->world_size;
	snprintf(res->plan.why, sizeof res->plan.why, "%s", err);
	*err = '\0';
	rc = CD_OK;
out:
	fleet_nccl_release(&x, d);
	free(all);
	return rc;
}

void fleet_nccl_free(struct fleet_nccl_result *res)
{
	free(res->ranks);
	memset(res, 0, sizeof *res);
}
