/* This machine's driver layer judged once, the same way for every command: the GPU probe,
 * /proc's driver info and the platform through gpu_driver_findings (kb/stack_rules.c). */
#ifndef CUDOCTOR_CMD_DRIVER_CHECK_H
#define CUDOCTOR_CMD_DRIVER_CHECK_H

#include <stdbool.h>

#include "probe/gpus.h"
#include "report/report.h"

/* Runs the GPU probe into p (the caller frees it with gpu_probe_free) and adds the driver
 * findings (no-driver, no-device, driver-init-failed, ...): driver info from /proc,
 * platform from the environment. */
int driver_check_run(struct report *r, struct gpu_probe *p, char *err);

/* The driver findings from a probe the caller collected itself (with libraries it keeps
 * loaded, as topo does). */
int driver_check_facts(struct report *r, const struct gpu_probe *p, char *err);

/* Whether the probe says CUDA can run work: libcuda loaded, cuInit succeeded and no
 * device count of 0. When false, driver_check_run has added an error finding saying why. */
bool driver_check_cuda_usable(const struct gpu_probe *p);

/* For commands that hold no probe (lab, mem probe): probes, adds the driver findings and
 * tells whether CUDA can run work. */
int driver_check(struct report *r, bool *cuda_usable, char *err);

#endif
