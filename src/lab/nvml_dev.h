/* NVML readings the labs take during a run: the SM clock and the PCIe link of the
 * NVML device on the same PCI address as the CUDA device. The labs work without it. */
#ifndef CUDOCTOR_LAB_NVML_DEV_H
#define CUDOCTOR_LAB_NVML_DEV_H

#include <stdbool.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"

struct lab_nvml {
	const struct nvml *n; /* the run's NVML (borrowed, initialised); NULL without one */
	nvmlDevice_t dev;
	bool ok;        /* NVML there and the device found */
};

/* Finds CUDA device dev in the run's NVML nv (already initialised; NULL when there is none).
 * Never fails: without NVML, or without a matching device, ok stays false. */
void lab_nvml_open(struct lab_nvml *v, const struct nvml *nv, struct cudrv *d, CUdevice dev);
void lab_nvml_close(struct lab_nvml *v);
/* callbacks for struct lab_ctx (user = struct lab_nvml *) */
int lab_nvml_sm_clock(void *user);                     /* MHz, 0 when unknown */
int lab_nvml_link(void *user, int *gen, int *width);   /* 0 on success */

#endif
