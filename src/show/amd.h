/* The AMD machine as doctor and devices both show it: its facts, GPUs and device nodes,
 * written through their field tables into an "amd" object. */
#ifndef CUDOCTOR_SHOW_AMD_H
#define CUDOCTOR_SHOW_AMD_H

#include "facts/amd.h"
#include "report/report.h"

/* The "AMD GPUs" section and the "amd" object into top, in view (FIELD_BRIEF: doctor,
 * FIELD_FULL: devices); amd_only (rules_amd_only) is its "amd_only" key. Returns top's status. */
int show_amd(struct report_rec *top, const struct amd_host *h, bool amd_only, unsigned view);

#endif
