/* The driver layer: which libcuda was loaded and how, what cuInit said, the CUDA version
 * it supports, the user-space driver version and the loaded kernel module's version. */
#ifndef CUDOCTOR_PROBE_DRIVER_INFO_H
#define CUDOCTOR_PROBE_DRIVER_INFO_H

#include <stdbool.h>

#include "probe/paths.h"
#include "util/err.h"

struct driver_info {
	bool loaded;
	char load_error[CD_ERRMSG];
	char library_path[PROBE_PATH];
	char how[64];                 /* how cudrv found it */
	bool init_called;
	int init_result;              /* CUresult of cuInit(0) */
	char init_result_name[64];
	int cuda_version;             /* cuDriverGetVersion, 0 unknown */
	char version[64];             /* user-space driver, "" unknown */
	const char *version_source;   /* "NVML", "libcuda file name", "/proc/driver/nvidia/version" */
	bool kmod_present;
	char kmod_version[64];
	bool kmod_open;               /* the open GPU kernel module */
	bool compat_lib;              /* a cuda-compat libcuda (…/compat/libcuda.so.*) */
};

/* What loading libcuda and NVML told (the GPU probe does the loading and cuInit). */
struct driver_seen {
	bool loaded;
	const char *library_path, *how, *load_error;
	bool init_called;
	int init_result;
	const char *init_result_name;
	int cuda_version;             /* cuDriverGetVersion, 0 unknown */
	const char *nvml_version;     /* NVML's driver version, NULL when NVML failed */
};

/* Fills di from what was seen and from /proc under root (NULL for /). */
void driver_info_collect(struct driver_info *di, const struct driver_seen *s, const char *root);

#endif
