/* The driver layer: which libcuda was loaded and how, what cuInit said, the CUDA version
 * it supports, the user-space driver version and the loaded kernel module's version. */
#ifndef CUDOCTOR_PROBE_DRIVER_INFO_H
#define CUDOCTOR_PROBE_DRIVER_INFO_H

#include <stdbool.h>

#include "driver/cudrv.h"
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

/* Fills di from a loaded driver (d, or NULL with load_error saying why), NVML's
 * driver version string (NULL when NVML is unavailable) and /proc under root.
 * Calls cuInit(0) and cuDriverGetVersion when d is loaded. */
void driver_info_collect(struct driver_info *di, const struct cudrv *d, const char *load_error,
			 const char *nvml_version, const char *root);

#endif
