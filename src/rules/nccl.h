/* NCCL log facts (explain/nccl_log.h) into findings: nccl-socket-fallback, nccl-ib-missing,
 * nccl-p2p-disabled, nccl-version-mismatch, nccl-timeout, nccl-cuda-error, nccl-system-error,
 * nccl-invalid-usage, nccl-internal-error (docs/findings.md). */
#ifndef CUDOCTOR_RULES_NCCL_H
#define CUDOCTOR_RULES_NCCL_H

#include <stddef.h>

#include "explain/nccl_log.h"
#include "report/report.h"

/* The findings for one log. CD_OK or CD_ENOMEM. */
int nccl_rules(const struct nccl_log *l, struct report *r, char *err);

/* explain's entry: parses text; when it holds NCCL lines, adds an "NCCL log" section (versions,
 * network, bootstrap interface, the transport per channel), the JSON key "nccl", and the
 * findings. A text without NCCL lines adds nothing. */
int nccl_explain(struct report *r, const char *text, size_t len, char *err);
/* The same for a log already read (explain's one pass). */
int nccl_explain_log(struct report *r, const struct nccl_log *l, char *err);

#endif
