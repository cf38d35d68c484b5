/* The driver layer's facts beyond what libcuda and NVML answer: the loaded kernel
 * module's version (/proc) and the user-space version resolved from NVML, the libcuda
 * file name or the module, written into the driver facts. */
#ifndef CUDOCTOR_PROBE_DRIVER_INFO_H
#define CUDOCTOR_PROBE_DRIVER_INFO_H

#include "facts/driver.h"

/* Fills p's kmod_*, compat_lib and, unless NVML answered it, user_driver_version and its
 * source, from p's libcuda facts and from /proc under root (NULL for /). */
void driver_info_collect(struct gpu_probe *p, const char *root);

#endif
