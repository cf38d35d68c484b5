/* Rules from GPU facts (probe/gpus.h) to findings: pure functions, no I/O, so doctor can
 * share them and the tests can feed them fabricated facts. */
#ifndef CUDOCTOR_GPU_FINDINGS_H
#define CUDOCTOR_GPU_FINDINGS_H

#include "probe/gpus.h"
#include "report/report.h"

/* no-driver, driver-init-failed, no-device, nvml-unavailable. `visible_devices` is the
 * value of CUDA_VISIBLE_DEVICES (NULL when unset), quoted as evidence. */
int gpu_driver_findings(struct report *r, const struct gpu_probe *p, const char *visible_devices);

/* gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, clocks-throttled, per GPU. */
int gpu_health_findings(struct report *r, const struct gpu_probe *p);

/* "GPU 0 (NVIDIA H200)", or "NVML device 1 (NVIDIA H200)" for a GPU CUDA does not see. */
void gpu_subject(const struct gpu_info *g, char *buf, size_t len);

#endif
