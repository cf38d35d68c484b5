/* arch's verdicts written once (arch and explain both print them): a line and an object per
 * GPU judged, the driver judged against, and the findings rules/arch calls for. */
#ifndef CUDOCTOR_SHOW_ARCH_VERDICTS_H
#define CUDOCTOR_SHOW_ARCH_VERDICTS_H

#include <jansson.h>

#include "report/report.h"
#include "rules/arch.h"

/* One verdict, written once: a line labelled with the GPU's name and the object
 * arch and explain both print (gpu, compute_capability, result, ...); the driver judged against (a line and "driver", empty when
 * unknown). */
void arch_verdict_fields(struct report_rec *w, const struct arch_gpu *g, const struct arch_verdict *v);
void arch_driver_fields(struct report_rec *top, const struct arch_driver *d);
/* Judges f on every GPU of t into v (t->n_gpus entries): the runtime's driver need, the
 * findings, and a line and an object of "verdicts" per GPU judged (GPUs with nothing to
 * judge left out) into file. CD_OK, CD_ENOMEM or arch_judge's error. */
int arch_verdicts(struct report_rec *file, const struct arch_file *f, const struct arch_target *t,
		  struct arch_verdict *v, char *err);

#endif
