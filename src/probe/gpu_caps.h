/* What arch needs of this machine and nothing more, into the driver facts: the driver's
 * version and CUDA version and each GPU CUDA would see (its ordinal, name and compute
 * capability, as gpu_info). From the kernel module's /proc files and the kb, else NVML when
 * CUDA_VISIBLE_DEVICES maps onto its devices; cuInit (0.1-0.3 s) only otherwise. */
#ifndef CUDOCTOR_PROBE_GPU_CAPS_H
#define CUDOCTOR_PROBE_GPU_CAPS_H

#include <stdbool.h>

#include "facts/driver.h"

#define GPU_CAPS_MAX 32

/* Fills p (the caller frees it with gpu_probe_free). want_gpus false asks for the driver
 * only (no device is enumerated). Never fails: what could not be learnt stays unknown; with
 * no GPU, p says why (cuda_load_error, or cuInit's result when it failed). */
void gpu_caps_probe(struct gpu_probe *p, bool want_gpus);

#endif
