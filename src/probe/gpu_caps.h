/* What arch needs of this machine and nothing more, into the driver facts: the driver's
 * version and CUDA version and each GPU CUDA would see (its ordinal, name and compute
 * capability, as gpu_info). The run context (cmd/run.c) asks these in order, cheapest first,
 * with the libraries it loaded once for the run; where none can say what CUDA would see, it
 * collects the whole driver part (cuInit) instead. */
#ifndef CUDOCTOR_PROBE_GPU_CAPS_H
#define CUDOCTOR_PROBE_GPU_CAPS_H

#include <stdbool.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/driver.h"

#define GPU_CAPS_MAX 32

/* From the kernel module's /proc files (under the host root) and the kb's names, no library
 * at all: the driver, and the GPUs when want_gpus. True when that says everything asked (p
 * is filled); false leaves p as it was. */
bool gpu_caps_from_proc(struct gpu_probe *p, bool want_gpus);
/* From NVML, loaded by the caller (NULL: not loaded; nvmlInit and nvmlShutdown here): the
 * driver's versions into p, and with want_gpus the GPUs when CUDA's view of them can be told
 * without cuInit (no MIG, CUDA_VISIBLE_DEVICES and the order NVML can map). Returns whether
 * the GPUs are done. */
bool gpu_caps_from_nvml(struct gpu_probe *p, const struct nvml *nv, bool want_gpus);
/* The driver's CUDA version from libcuda, loaded by the caller (NULL: not loaded), without
 * cuInit; then the version as every command resolves it (driver_info_collect). */
void gpu_caps_from_cuda(struct gpu_probe *p, const struct cudrv *cu);

#endif
