/* What arch needs of this machine and nothing more: each GPU CUDA would see (its compute
 * capability and name) and the driver's version. From NVML when it answers and
 * CUDA_VISIBLE_DEVICES maps onto its devices; cuInit (0.1-0.3 s) only otherwise. */
#ifndef CUDOCTOR_PROBE_GPU_CAPS_H
#define CUDOCTOR_PROBE_GPU_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/gpu_caps.h"

/* Fills c. want_gpus false asks for the driver only (no device is enumerated). Never
 * fails: what could not be learnt stays unknown, with the reason in missing/detail. */
void gpu_caps_probe(struct gpu_caps *c, bool want_gpus);

#endif
