/* One lab's result into the report: claim, set-up, measurements, chart, verdict, lesson,
 * and the finding a wrong result, a failure, a refuted or an inconclusive verdict gives. */
#ifndef CUDOCTOR_CMD_LAB_RENDER_H
#define CUDOCTOR_CMD_LAB_RENDER_H

#include <jansson.h>

#include "lab/lab.h"
#include "report/report.h"

/* Appends the lab's JSON object to jlabs; err is what a failed run said. */
void lab_render_result(struct report *r, json_t *jlabs, const struct lab *l, const struct lab_result *res,
		       const char *err);

#endif
