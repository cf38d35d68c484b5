/* What every rank of `cudoctor fleet --nccl` and `--nccl=pairs` does around NCCL itself
 * (nccl_side.c): libnccl loaded, the rank's GPU picked and its context current, the
 * buffers, and the alarm that ends a rank stuck inside NCCL. */
#ifndef CUDOCTOR_CMD_FLEET_NCCL_SIDE_H
#define CUDOCTOR_CMD_FLEET_NCCL_SIDE_H

#include <stdbool.h>

#include "cmd/fleet/fleet.h"
#include "driver/cudrv.h"
#include "driver/nccl.h"

struct fleet_nccl_side {
	struct nccl nc;
	bool loaded, ctx;
	CUdevice dev;
	CUcontext cctx;
	CUstream s;
	CUdeviceptr send, recv;
	float *host;
	ncclComm_t comm;
};

/* NCCL loaded (found through the run context) and the rank's device (its place on its host modulo the host's GPUs) current;
 * rec gets the NCCL version, the device and its free memory. CD_OK or CD_E* with err. */
int fleet_nccl_prepare(struct fleet_nccl_side *x, struct cd_run *run, struct fleet_nccl_rank *rec, char *err);
/* Every rank's readiness at rank 0, the start of --nccl and --nccl=pairs alike:
 * NCCL_NVLS_ENABLE=0 unless set, prepare (its error, if any, in rec->error, not fatal), and
 * rank 0's *all (calloc'd, world_size records, strings terminated) from the plug-in's
 * bounded gather. CD_OK; CD_ENOMEM; or the gather's error with *unreached set (a rank hung
 * or died before NCCL: the caller reports why instead of failing). */
int fleet_nccl_muster(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, struct cd_run *run,
		      double timeout_s, struct fleet_nccl_side *x, struct fleet_nccl_rank *rec,
		      struct fleet_nccl_rank **all, bool *unreached, char *err);
/* Frees what prepare and the exchanges made; x may be partly filled. */
void fleet_nccl_release(struct fleet_nccl_side *x, const struct cudrv *d);

/* A CUDA call's result as CD_OK or CD_EDRIVER naming call. */
int fleet_cu(const struct cudrv *d, CUresult r, const char *call, char *err);

/* What a rank stuck inside NCCL says before it exits 3 (os_exit_after's watchdog). */
#define FLEET_NCCL_TIMEOUT_MSG "cudoctor fleet --nccl: NCCL did not finish in time (a rank hung in NCCL)\n"

#endif
