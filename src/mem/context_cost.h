/* What a CUDA context costs on this driver and GPU, measured: NVML's usage for our own
 * process after creating the primary context (else the device's used memory before
 * and after). Also cuMemGetInfo's view from inside that context. */
#ifndef CUDOCTOR_MEM_CONTEXT_COST_H
#define CUDOCTOR_MEM_CONTEXT_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "util/field.h"

struct mem_context_cost {
	bool measured;
	uint64_t bytes;
	const char *how;          /* "NVML, this process" / "NVML device used, before and after" */
	bool pid_namespace_differs; /* our PID is not in NVML's list though we hold a context */
	bool cu_valid;
	uint64_t cu_free, cu_total; /* cuMemGetInfo with the context current */
};

/* Described once (util/field.h; mem/fields.c): what `mem status` reports of it per GPU. */
enum mem_context_cost_field { MEM_CTX_CUDA_FREE, MEM_CTX_CUDA_TOTAL, MEM_CTX_BYTES, MEM_CTX_PID_NAMESPACE,
			      MEM_CTX_FIELDS };
extern const struct field_table mem_context_cost_field_table;

/* cu must have had cuInit; nv must have had nvmlInit. Creates and releases the
 * primary context of cuda_ordinal; nothing stays allocated. */
int mem_context_cost(const struct cudrv *cu, const struct nvml *nv, int cuda_ordinal, int nvml_index,
		     struct mem_context_cost *c, char *err);

#endif
