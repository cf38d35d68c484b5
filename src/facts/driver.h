/* What was collected about the driver layer, once per run: the libcuda loaded and what
 * cuInit said, NVML, the kernel module in /proc, the user-space version resolved from
 * them, and the GPUs they show (facts/gpu.h). The GPU probe (probe/gpus.c) and
 * probe/driver_info.c fill it; rules and renderers only read it. The name is the probe's. */
#ifndef CUDOCTOR_FACTS_DRIVER_H
#define CUDOCTOR_FACTS_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/cuda_types.h"
#include "driver/nvml.h"
#include "facts/gpu.h"
#include "util/err.h"

struct gpu_probe {
	/* libcuda */
	bool cuda_loaded;
	char cuda_path[4096], cuda_how[64], cuda_missing[1024];
	char cuda_load_error[CD_ERRMSG];
	bool has_cuda_driver_version;
	int cuda_driver_version;      /* cuDriverGetVersion: 13000 = CUDA 13.0 */
	bool cuda_init_called;
	CUresult cuda_init_result;
	char cuda_init_result_name[64];
	bool has_cuda_device_count;
	int cuda_device_count;

	/* NVML */
	bool nvml_loaded;
	char nvml_path[4096], nvml_how[64], nvml_missing[1024], nvml_fallbacks[512];
	char nvml_load_error[CD_ERRMSG];
	bool nvml_init_called;
	nvmlReturn_t nvml_init_result;
	char nvml_init_result_name[64], nvml_init_result_text[128];
	bool has_driver_version, has_nvml_version, has_nvml_cuda_driver_version, has_nvml_device_count;
	char driver_version[96];      /* "580.159.04" */
	char nvml_version[96];
	int nvml_cuda_driver_version;
	int nvml_device_count;

	/* /proc/driver/nvidia/version (probe/driver_info.c) */
	bool kmod_present;
	char kmod_version[64];        /* "" unknown */
	bool kmod_open;               /* the open GPU kernel module */
	/* the user-space driver version: NVML's, else libcuda's file name, else the module's */
	char user_driver_version[96]; /* "" unknown */
	const char *user_driver_version_source; /* "NVML", "libcuda file name", "/proc/driver/nvidia/version" */
	bool compat_lib;              /* a cuda-compat libcuda (.../compat/libcuda.so.*) */
	/* from the kb (facts/kb.c): the driver branch of user_driver_version, "R550"; "" unknown */
	char kb_branch[16];

	/* CUDA ordinals first, in CUDA order; then GPUs only NVML sees, in NVML order */
	struct gpu_info *gpus;
	size_t n_gpus;
};

/* NVML loaded and nvmlInit succeeded. */
static inline bool driver_nvml_ok(const struct gpu_probe *p)
{
	return p->nvml_loaded && p->nvml_init_called && p->nvml_init_result == NVML_SUCCESS;
}

/* Why NVML is not usable (the load error, else nvmlInit's result name); NULL when unknown. */
static inline const char *driver_nvml_error(const struct gpu_probe *p)
{
	if (p->nvml_load_error[0])
		return p->nvml_load_error;
	return p->nvml_init_result_name[0] ? p->nvml_init_result_name : NULL;
}

#endif
