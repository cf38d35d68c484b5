/* One lab's result into the report: claim, set-up, measurements, chart, verdict, lesson,
 * and the finding a wrong result, a failure, a refuted or an inconclusive verdict gives. */
#ifndef CUDOCTOR_CMD_LAB_RENDER_H
#define CUDOCTOR_CMD_LAB_RENDER_H

#include "lab/lab.h"
#include "report/report.h"

/* The lab's section and its object of labs (the "labs" array); err is what a failed run said. */
void lab_render_result(struct report_rec *labs, const struct lab *l, const struct lab_result *res, const char *err);

#endif
