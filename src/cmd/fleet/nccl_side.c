/* The rank's side of the fleet's NCCL runs (nccl_side.h): shared by the all-reduce across
 * every rank (nccl_run.c) and the rounds of pairs (pairs_run.c). */
#include "cmd/fleet/nccl_side.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "util/err.h"

/* The rank's place among the ranks of its host, from the launcher's variables. */
static int local_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
					    "PMIX_LOCAL_RANK", NULL };
	for (size_t i = 0; vars[i]; i++) {
		const char *v = os_getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return 0;
}

int fleet_cu(const struct cudrv *d, CUresult r, const char *call, char *err)
{
	return r == CUDA_SUCCESS ? CD_OK : cudrv_fail(d, err, call, r);
}

int fleet_nccl_prepare(struct fleet_nccl_side *x, struct cd_run *run, struct fleet_nccl_rank *rec, char *err)
{
	const struct cudrv *d = run ? run->cu : NULL;
	size_t free_b = 0, total = 0;
	int rc, count = 0;

	if (!d)
		return cd_fail(err, CD_EDRIVER, "libcuda did not load on this rank");
	if ((rc = cd_run_load_nccl(run, &x->nc, NULL, 0, err)) != CD_OK)
		return rc;
	x->loaded = true;
	snprintf(rec->nccl, sizeof rec->nccl, "%d.%d.%d", x->nc.version.major, x->nc.version.minor,
		 x->nc.version.patch);
	TRY(fleet_cu(d, d->DeviceGetCount(&count), "cuDeviceGetCount", err));
	if (count < 1)
		return cd_fail(err, CD_EDRIVER, "no CUDA device on this rank");
	rec->device = local_rank() % count;
	TRY(fleet_cu(d, d->DeviceGet(&x->dev, rec->device), "cuDeviceGet", err));
	TRY(fleet_cu(d, d->DevicePrimaryCtxRetain(&x->cctx, x->dev), "cuDevicePrimaryCtxRetain", err));
	x->ctx = true;
	TRY(fleet_cu(d, d->CtxSetCurrent(x->cctx), "cuCtxSetCurrent", err));
	TRY(fleet_cu(d, d->MemGetInfo(&free_b, &total), "cuMemGetInfo", err));
	rec->free_bytes = free_b;
out:
	return rc;
}

void fleet_nccl_release(struct fleet_nccl_side *x, const struct cudrv *d)
{
	if (x->comm)
		x->nc.CommDestroy(x->comm);
	if (x->send)
		d->MemFree(x->send);
	if (x->recv)
		d->MemFree(x->recv);
	if (x->s)
		d->StreamDestroy(x->s);
	if (x->ctx)
		d->DevicePrimaryCtxRelease(x->dev);
	free(x->host);
	if (x->loaded)
		nccl_unload(&x->nc);
}


int fleet_nccl_muster(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, struct cd_run *run,
		      double timeout_s, struct fleet_nccl_side *x, struct fleet_nccl_rank *rec,
		      struct fleet_nccl_rank **all, bool *unreached, char *err)
{
	char why[CD_ERRMSG] = "";
	int rc;

	*unreached = false;
	*all = NULL;
	memset(rec, 0, sizeof *rec);
	fleet_node_name(rec->node, sizeof rec->node);
	rec->device = -1;
	if (!os_getenv("NCCL_NVLS_ENABLE") && os_setenv("NCCL_NVLS_ENABLE", "0") != 0)
		return cd_fail(err, CD_ENOMEM, "setenv NCCL_NVLS_ENABLE: out of memory");
	if (fleet_nccl_prepare(x, run, rec, why) != CD_OK)
		snprintf(rec->error, sizeof rec->error, "%.250s", why);
	if (me->world_rank == 0 && !(*all = calloc((size_t)me->world_size, sizeof **all)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = mpi->gather(rec, sizeof *rec, *all, timeout_s, err)) != CD_OK) {
		*unreached = true;
		return rc;
	}
	for (int r = 0; *all && r < me->world_size; r++)
		(*all)[r].node[sizeof (*all)[r].node - 1] = (*all)[r].error[sizeof (*all)[r].error - 1] = '\0';
	return CD_OK;
}
