/* Rules from GPU facts (probe/gpus.h) to findings: pure functions, no I/O, so doctor can
 * share them and the tests can feed them fabricated facts. */
#ifndef CUDOCTOR_GPU_FINDINGS_H
#define CUDOCTOR_GPU_FINDINGS_H

#include "kb/stack_rules.h"
#include "probe/driver_info.h"
#include "probe/gpus.h"
#include "report/report.h"

/* What the GPU probe saw of libcuda and NVML, for driver_info_collect. */
void gpu_driver_seen(const struct gpu_probe *p, struct driver_seen *s);

/* The stack rules' driver facts from the GPU probe and the driver info (the mapping doctor
 * and devices share; the kb's branch is left unset). Pointers point into p and di. */
void gpu_stack_driver(const struct gpu_probe *p, const struct driver_info *di, struct stack_driver *d);

/* The driver-layer findings (stack_driver_rules: no-driver, no-device, driver-init-failed,
 * system-not-ready, driver-library-mismatch, forward-compat-unsupported, nvml-unavailable)
 * from these facts; `platform` gives WSL, container and CUDA_VISIBLE_DEVICES. */
int gpu_driver_findings(struct report *r, const struct gpu_probe *p, const struct driver_info *di,
			const struct stack_platform *platform);

/* gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, clocks-throttled, per GPU. */
int gpu_health_findings(struct report *r, const struct gpu_probe *p);

/* pcie-link-degraded alone, per GPU (for commands that judge links, not health). */
int gpu_pcie_findings(struct report *r, const struct gpu_probe *p);

/* "GPU 0 (NVIDIA H200)", or "NVML device 1 (NVIDIA H200)" for a GPU CUDA does not see. */
void gpu_subject(const struct gpu_info *g, char *buf, size_t len);

#endif
