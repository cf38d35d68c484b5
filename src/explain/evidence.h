/* What a recognised error's text implies on its own, without this machine. */
#ifndef CUDOCTOR_EXPLAIN_EVIDENCE_H
#define CUDOCTOR_EXPLAIN_EVIDENCE_H

#include <stddef.h>

#include "explain/explain.h"

#define EXPLAIN_EVIDENCE_LINE 400

/* E.g. whether the arch list PyTorch printed covers the GPU it named. Fills at most max lines;
 * returns how many. (The OOM numbers' lines are rules/oom.h's oom_evidence.) */
size_t explain_offline_evidence(const struct explain_match *m, char lines[][EXPLAIN_EVIDENCE_LINE], size_t max);

#endif
