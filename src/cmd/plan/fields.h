/* What `plan` reports of a plan, as field tables: each GPU's support range, the driver and
 * toolkit verdicts, each PyTorch build's fit per GPU and each framework build's row; the
 * keys of docs/json.md's plan object, the labels of its text. */
#ifndef CUDOCTOR_CMD_PLAN_FIELDS_H
#define CUDOCTOR_CMD_PLAN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/plan.h"
#include "util/field.h"

/* A build of the plan with what its fields read beside it. */
struct plan_torch_row {
	const struct plan *p;
	const struct plan_torch *t;
	const char *pip;              /* the pip its install lines run; NULL: pip */
};

struct plan_torch_gpu_row {
	const struct plan *p;
	const struct plan_torch *t;
	size_t g;                     /* the GPU of p */
};

struct plan_fw_row {
	const struct plan *p;
	const struct plan_fw *f;
};

/* gpus[] over struct plan_gpu; "driver" (the branches, this driver's verdict) and the
 * toolkit keys over struct plan; torch_builds[] over struct plan_torch_row (its "gpus" over
 * struct plan_torch_gpu_row); framework_builds[] over struct plan_fw_row. */
extern const struct field_table plan_gpu_field_table, plan_driver_field_table, plan_toolkit_field_table,
	plan_torch_field_table, plan_torch_gpu_field_table, plan_fw_field_table;

/* "GeForce RTX 4090", or the spec's label for a GPU the tables do not name */
const char *plan_gpu_label(const struct plan_gpu *g);
/* "R550", "current" for 0 */
const char *plan_branch_text(int branch, char *buf, size_t n);
/* " (PTX)" when some GPU gets only PTX from this build, else "" */
const char *plan_torch_ptx_note(const struct plan_torch *t, size_t n_gpus);
/* "runs", "runs (minor-version compatibility)", "needs a newer driver", "unknown" */
const char *plan_fit_driver_text(int fit);

#endif
