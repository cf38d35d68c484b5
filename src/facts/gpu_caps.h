/* The GPUs arch judges against, as few facts as it needs: each GPU CUDA would see (its
 * compute capability and name) and the driver's version, with where they came from. */
#ifndef CUDOCTOR_FACTS_GPU_CAPS_H
#define CUDOCTOR_FACTS_GPU_CAPS_H

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
	const char *gpus_from;        /* "/proc/driver/nvidia and the kb's GPU names", "NVML", "libcuda", NULL */
	bool cuinit_called;
	enum gpu_caps_missing missing;
	char detail[CD_ERRMSG];
};

#endif
