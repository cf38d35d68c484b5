/* The driver and GPUs this process sees, through libcuda (src/driver/cudrv.h): enough for
 * gencode --native and explain's live checks (name, compute capability, memory). */
#ifndef CUDOCTOR_PROBE_GPUS_HERE_H
#define CUDOCTOR_PROBE_GPUS_HERE_H

#include <stdbool.h>
#include <stddef.h>

#define GPUS_HERE_MAX 64

struct gpu_here {
	int ordinal;
	char name[128];
	int cc_major, cc_minor;
	size_t total_bytes;
};

struct gpus_here {
	bool loaded;              /* libcuda.so.1 was found and loaded */
	char lib_path[4096];
	int init_result;          /* cuInit's CUresult (0 = success); -1 when not called */
	char init_error[96];      /* "CUDA_ERROR_NO_DEVICE" */
	int driver_cuda;          /* cuDriverGetVersion: 13000; 0 when unknown */
	struct gpu_here gpu[GPUS_HERE_MAX];
	size_t n;
};

/* Fills what it can; a missing driver or failing cuInit is recorded, not an error.
 * Returns CD_OK, or CD_ENOMEM. */
int gpus_here_probe(struct gpus_here *out, char *err);

#endif
