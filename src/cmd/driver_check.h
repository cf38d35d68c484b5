/* The driver opened and judged for a command that needs it on one path only (gencode
 * --native): the run context's own steps (cmd/run.c), with the facts handed back. */
#ifndef CUDOCTOR_CMD_DRIVER_CHECK_H
#define CUDOCTOR_CMD_DRIVER_CHECK_H

#include <stdbool.h>

#include "probe/gpus.h"
#include "report/report.h"

/* Opens the driver as cd_run_driver does, adds the driver findings (no-driver, no-device,
 * driver-init-failed, ...) and moves the driver and GPU facts into p (the caller frees
 * them with gpu_probe_free); the libraries are closed again. */
int driver_check_run(struct report *r, struct gpu_probe *p, char *err);

/* Whether the facts say CUDA can run work (rules_cuda_usable). When false,
 * driver_check_run has added an error finding saying why. */
bool driver_check_cuda_usable(const struct gpu_probe *p);

#endif
