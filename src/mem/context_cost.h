/* What a CUDA context costs on this driver and GPU, measured: NVML's usage for our own
 * process after creating the primary context (else the device's used memory before
 * and after). Also cuMemGetInfo's view from inside that context. */
#ifndef CUDOCTOR_MEM_CONTEXT_COST_H
#define CUDOCTOR_MEM_CONTEXT_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"

struct mem_context_cost {
	bool measured;
	uint64_t bytes;
	const char *how;          /* "NVML, this process" / "NVML device used, before and after" */
	bool pid_namespace_differs; /* our PID is not in NVML's list though we hold a context */
	bool cu_valid;
	uint64_t cu_free, cu_total; /* cuMemGetInfo with the context current */
};

/* cu must have had cuInit; nv must have had nvmlInit. Creates and releases the
 * primary context of cuda_ordinal; nothing stays allocated. */
int mem_context_cost(const struct cudrv *cu, const struct nvml *nv, int cuda_ordinal, int nvml_index,
		     struct mem_context_cost *c, char *err);

#endif
