/* explain's match objects described once: a check on this machine, a fact a verdict read and
 * a kernel the launch check found (docs/json.md, explain's "matches"). */
#ifndef CUDOCTOR_CMD_EXPLAIN_FIELDS_H
#define CUDOCTOR_CMD_EXPLAIN_FIELDS_H

#include "util/field.h"

extern const struct field_table explain_check_field_table;  /* struct explain_check: matches[].checks[] */
extern const struct field_table judged_fact_field_table;    /* struct judged_fact: matches[].facts[] */
extern const struct field_table launch_kernel_field_table;  /* struct explain_launch_kernel: launch.kernels[] */

#endif
