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

/* NCCL loaded and the rank's device (its place on its host modulo the host's GPUs) current;
 * rec gets the NCCL version, the device and its free memory. CD_OK or CD_E* with err. */
int fleet_nccl_prepare(struct fleet_nccl_side *x, const struct cudrv *d, struct fleet_nccl_rank *rec, char *err);
/* Frees what prepare and the exchanges made; x may be partly filled. */
void fleet_nccl_release(struct fleet_nccl_side *x, const struct cudrv *d);

/* A CUDA call's result as CD_OK or CD_EDRIVER naming call. */
int fleet_cu(const struct cudrv *d, CUresult r, const char *call, char *err);

/* SIGALRM's handler while inside NCCL: a rank stuck there says so and exits 3. */
void fleet_nccl_on_alarm(int sig);

#endif
