/* The AMD machine's judgements (doctor): the amdgpu driver and KFD, the device nodes and their
 * groups, HIP against KFD, and the ROCm environment variables judged against the GPUs. Pure:
 * the facts of facts/amd.h in, findings out. */
#ifndef CUDOCTOR_RULES_AMD_H
#define CUDOCTOR_RULES_AMD_H

#include "facts/amd.h"
#include "report/report.h"

/* Whether the facts show an AMD GPU machine: a KFD GPU node, the amdgpu module, or /dev/kfd. */
bool rules_amd_present(const struct amd_host *h);
/* The findings of h into r. CD_OK or CD_ENOMEM. */
int rules_amd(struct report *r, const struct amd_host *h);

#endif
