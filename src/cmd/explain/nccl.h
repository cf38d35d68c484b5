/* explain's NCCL part: a log's facts shown (an "NCCL log" section: versions, network,
 * bootstrap interface, the transport per channel; the JSON key "nccl") and judged (rules/nccl.h). */
#ifndef CUDOCTOR_CMD_EXPLAIN_NCCL_H
#define CUDOCTOR_CMD_EXPLAIN_NCCL_H

#include <stddef.h>

#include "facts/nccl_log.h"
#include "report/report.h"

/* Reads text; when it holds NCCL lines, adds the section, the key and the findings. A text
 * without NCCL lines adds nothing. CD_OK or CD_ENOMEM. */
int nccl_explain(struct report *r, const char *text, size_t len, char *err);
/* The same for a log already read (explain's one pass). */
int nccl_explain_log(struct report *r, const struct nccl_log *l, char *err);

#endif
