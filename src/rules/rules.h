/* The rules: pure functions from collected facts (src/facts) and the kb to findings.
 * No I/O; every fact is given. One file per layer: driver.c, toolkit.c, runtime.c,
 * python.c, platform.c, gpu_health.c; stack.c runs them in doctor's order, verdict.c
 * sums up, subject.c names a GPU the one way every finding does. */
#ifndef CUDOCTOR_RULES_H
#define CUDOCTOR_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "report/report.h"

/* The driver layer: no-driver, cuInit's failures (no-device, system-not-ready,
 * driver-library-mismatch, forward-compat-unsupported, driver-init-failed), a device count
 * of 0, kernel module vs user-space mismatch and nvml-unavailable. Reads f->driver and
 * f->platform (WSL, container, CUDA_VISIBLE_DEVICES) only. The run context (cmd/run.c)
 * runs it once for every command that needs the driver. Returns CD_OK or CD_ENOMEM. */
int rules_driver(const struct facts *f, struct report *r);

/* Whether CUDA can run work: libcuda loaded, cuInit succeeded and no device count of 0.
 * When false, rules_driver has said why with an error finding. */
bool rules_cuda_usable(const struct gpu_probe *p);

/* Every layer above the driver, in doctor's order: toolkits, runtimes and frameworks
 * against the driver, toolkits against the GPUs, shadowed libraries, CPU-only builds,
 * CUDA_VISIBLE_DEVICES, device order, device nodes, WSL, persistence mode, nvidia-smi's
 * CUDA version. Every pointer in f must be set. Returns CD_OK or CD_ENOMEM. */
int rules_stack(const struct facts *f, struct report *r);

/* helper-timeout: program (a path) run with args ("--version") was stopped after ms
 * milliseconds without an answer. Shared by doctor, gencode, explain and arch --python. */
int rules_helper_timeout(struct report *r, const char *program, const char *args, unsigned ms);
/* helper-timeout for each nvcc in ts that did not answer (toolkit.timed_out). */
int rules_toolkit_timeouts(const struct toolkits *ts, struct report *r);

/* gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, clocks-throttled, per
 * GPU. Returns CD_OK or CD_ENOMEM. */
int rules_gpu_health(const struct gpu_probe *p, struct report *r);
/* pcie-link-degraded alone, per GPU (for commands that judge links, not health: topo). */
int rules_gpu_pcie(const struct gpu_probe *p, struct report *r);

/* The one-line verdict when the report holds no warning or error and CUDA initialised:
 * an ok finding `stack-consistent` with what was checked. Run after every other rule. */
int rules_verdict(const struct facts *f, struct report *r);

/* True when a toolkit accepts sm_<cc_major><cc_minor> (plain target), by the kb. */
/* Whether code built against CUDA `cuda` runs on a driver that supports `driver_cuda`: the
 * rule toolkit-newer-than-driver applies (minor-version compatibility from CUDA 11 on). */
enum cuda_fit { CUDA_FITS, CUDA_NEWER_MINOR, CUDA_NEWER_MAJOR };
enum cuda_fit rules_cuda_fit(const struct version *cuda, const struct version *driver_cuda);

bool rules_toolkit_targets(const struct toolkit *t, int cc_major, int cc_minor);

/* The subject of every finding about one GPU: "GPU 0 (NVIDIA H200)" by CUDA's ordinal,
 * or "NVML device 1 (NVIDIA H200)" for a GPU CUDA does not see. */
void gpu_subject(const struct gpu_info *g, char *buf, size_t len);

#endif
