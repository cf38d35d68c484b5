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
#include "util/field.h"

/* The driver facts with a validity bit (driver_has): a bit unset means the value is
 * unknown (the call does not exist, was not made, or failed), whatever the field holds. */
enum driver_field {
	DF_CUDA_VERSION,      /* cuda_driver_version */
	DF_CUDA_INIT,         /* cuInit was called: cuda_init_result(_name) */
	DF_CUDA_DEVICE_COUNT, /* cuda_device_count */
	DF_NVML_INIT,         /* nvmlInit was called: nvml_init_result(_name, _text) */
	DF_NVML_VERSION,      /* nvml_version */
	DF_NVML_CUDA_VERSION, /* nvml_cuda_driver_version */
	DF_NVML_DEVICE_COUNT, /* nvml_device_count */
	DF_VERSION,           /* user_driver_version and its source */
	DF_KMOD,              /* /proc/driver/nvidia/version was read: kmod_open */
	DF_KMOD_VERSION,      /* kmod_version */
	DF_BRANCH,            /* kb_branch */
	DF_COUNT
};

/* Where the user-space driver version came from (user_driver_version_source). */
#define DRIVER_FROM_NVML "NVML"
#define DRIVER_FROM_LIBCUDA_NAME "libcuda file name"
#define DRIVER_FROM_PROC "/proc/driver/nvidia/version"

struct gpu_probe {
	unsigned long long valid[(DF_COUNT + 63) / 64];

	/* libcuda */
	bool cuda_loaded;
	char cuda_path[4096], cuda_how[64], cuda_missing[1024];
	char cuda_load_error[CD_ERRMSG];
	int cuda_driver_version;      /* cuDriverGetVersion: 13000 = CUDA 13.0 */
	CUresult cuda_init_result;
	char cuda_init_result_name[64];
	int cuda_device_count;

	/* NVML */
	bool nvml_loaded;
	char nvml_path[4096], nvml_how[64], nvml_missing[1024], nvml_fallbacks[512];
	char nvml_load_error[CD_ERRMSG];
	nvmlReturn_t nvml_init_result;
	char nvml_init_result_name[64], nvml_init_result_text[128];
	char nvml_version[96];
	int nvml_cuda_driver_version;
	int nvml_device_count;

	/* /proc/driver/nvidia/version (probe/driver_info.c) */
	bool kmod_looked;             /* the platform has that file and it was looked for (Linux):
				       * elsewhere no kernel module line is shown */
	char kmod_version[64];        /* "580.95.05"; "" unknown */
	bool kmod_open;               /* the open GPU kernel module */
	/* the user-space driver version, one for every command: NVML's, else libcuda's file
	 * name, else the kernel module's; "" unknown */
	char user_driver_version[96];
	const char *user_driver_version_source; /* DRIVER_FROM_*; NULL unknown */
	bool compat_lib;              /* a cuda-compat libcuda (.../compat/libcuda.so.*) */
	/* from the kb (facts/kb.c): the driver branch of user_driver_version, "R550"; "" unknown */
	char kb_branch[16];

	/* CUDA ordinals first, in CUDA order; then GPUs only NVML sees, in NVML order */
	struct gpu_info *gpus;
	size_t n_gpus;
};

static inline bool driver_has(const struct gpu_probe *p, enum driver_field f)
{
	return (p->valid[f / 64] >> (f % 64)) & 1ULL;
}

static inline void driver_mark(struct gpu_probe *p, enum driver_field f)
{
	p->valid[f / 64] |= 1ULL << (f % 64);
}

static inline void driver_unmark(struct gpu_probe *p, enum driver_field f)
{
	p->valid[f / 64] &= ~(1ULL << (f % 64));
}

/* Their fields (driver_fields.c): "driver" and the "nvml" object inside it, for every
 * command that shows the driver (docs/json.md "driver and GPU facts"). */
extern const struct field_table driver_field_table, driver_nvml_field_table;

/* NVML loaded and nvmlInit succeeded. */
static inline bool driver_nvml_ok(const struct gpu_probe *p)
{
	return p->nvml_loaded && driver_has(p, DF_NVML_INIT) && p->nvml_init_result == NVML_SUCCESS;
}

/* Why NVML is not usable (the load error, else nvmlInit's result name); NULL when unknown. */
static inline const char *driver_nvml_error(const struct gpu_probe *p)
{
	if (p->nvml_load_error[0])
		return p->nvml_load_error;
	return p->nvml_init_result_name[0] ? p->nvml_init_result_name : NULL;
}

#endif
