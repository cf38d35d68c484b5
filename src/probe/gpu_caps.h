/* What arch needs of this machine and nothing more: each GPU CUDA would see (its compute
 * capability and name) and the driver's version. From NVML when it answers and
 * CUDA_VISIBLE_DEVICES maps onto its devices; cuInit (0.1-0.3 s) only otherwise. */
#ifndef CUDOCTOR_PROBE_GPU_CAPS_H
#define CUDOCTOR_PROBE_GPU_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define GPU_CAPS_MAX 32

struct gpu_cap {
	int ordinal;          /* CUDA ordinal */
	char name[128];
	unsigned cc;          /* 10*major+minor */
};

/* Why no GPU was found, when GPUs were asked for and none came back. */
enum gpu_caps_missing {
	CAPS_FOUND,           /* n_gpus > 0 (or GPUs were not asked for) */
	CAPS_NO_LIBCUDA,      /* libcuda does not load; detail: the loader's message */
	CAPS_INIT_FAILED,     /* cuInit failed; detail: its CUresult name */
	CAPS_NO_DEVICE,       /* cuInit worked, no device visible */
};

struct gpu_caps {
	int cuda;                     /* CUDA version the driver supports (13000); 0 unknown */
	char version[32];             /* "580.95.05"; "" unknown (libcuda alone does not say) */
	struct gpu_cap gpus[GPU_CAPS_MAX];
	size_t n_gpus;
	const char *gpus_from;        /* "NVML", "libcuda", NULL */
	bool cuinit_called;
	enum gpu_caps_missing missing;
	char detail[CD_ERRMSG];
};

/* Fills c. want_gpus false asks for the driver only (no device is enumerated). Never
 * fails: what could not be learnt stays unknown, with the reason in missing/detail. */
void gpu_caps_probe(struct gpu_caps *c, bool want_gpus);

#endif
