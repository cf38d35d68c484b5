/* check --slurm-drain: this node drained through scontrol on node-health errors, and resumed
 * only when cudoctor drained it (its reason starts "cudoctor:") and the checks pass; what to
 * do is rules/slurm.h's, asking and acting is here. */
#ifndef CUDOCTOR_CMD_CHECK_SLURM_H
#define CUDOCTOR_CMD_CHECK_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "rules/slurm.h"

/* What to do with the node given the ids that drain it (n 0: the checks passed): reads the
 * node with `scontrol -o show node`. CD_OK; CD_ENOTFOUND (no scontrol) or CD_EIO, err says. */
int slurm_plan(const char *const *ids, size_t n, struct slurm_plan *p, char *err);

/* Runs the plan's scontrol update (nothing for SLURM_NONE and SLURM_LEFT_ALONE). */
int slurm_act(const struct slurm_plan *p, char *err);

/* The ids of r's error findings that a drain may name (rules/scope.h), each once, into ids. */
size_t slurm_drain_ids(const struct report *r, const char **ids, size_t max);

/* The plan as the report's "slurm" section; with dry_run its line is also an answer line. */
int slurm_put(struct report *r, const struct slurm_plan *p, bool dry_run, bool acted);

#endif
