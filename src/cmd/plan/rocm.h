/* `plan` for AMD GPUs: the ROCm builds of PyTorch and JAX that carry code for each GPU, the
 * one to install, or why none fits. */
#ifndef CUDOCTOR_CMD_PLAN_ROCM_H
#define CUDOCTOR_CMD_PLAN_ROCM_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "rules/arch.h"

/* Whether --gpu SPEC names an AMD GPU (gfx1100, "RX 7900 XTX", 780M). */
bool plan_rocm_is_amd(const char *spec);
/* The plan for the AMD GPUs named (n of them, each an AMD spec) and framework ("torch", "jax"
 * or "none"). CD_OK, CD_EUSAGE, or CD_ENOMEM. */
int plan_rocm_report(struct report *r, const char *const *specs, size_t n, const char *framework, char *err);

#endif
