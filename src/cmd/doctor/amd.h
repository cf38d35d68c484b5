/* doctor on an AMD machine: its GPUs and device nodes, will each framework found run on each
 * AMD GPU, and the AMD rules' findings. */
#ifndef CUDOCTOR_CMD_DOCTOR_AMD_H
#define CUDOCTOR_CMD_DOCTOR_AMD_H

#include "cmd/cmd.h"
#include "cmd/doctor/frameworks.h"

/* Nothing when the machine shows nothing AMD. CD_OK or CD_ENOMEM. */
int doctor_amd(struct report *r, struct cd_run *run, const struct doctor_scan *s, char *err);

#endif
