/* NCCL log facts (facts/nccl_log.h) into findings: nccl-socket-fallback, nccl-ib-missing,
 * nccl-p2p-disabled, nccl-version-mismatch, nccl-timeout, nccl-cuda-error, nccl-system-error,
 * nccl-invalid-usage, nccl-internal-error (docs/findings.md). */
#ifndef CUDOCTOR_RULES_NCCL_H
#define CUDOCTOR_RULES_NCCL_H

#include <stddef.h>

#include "facts/nccl_log.h"
#include "report/report.h"

/* The findings for one log. CD_OK or CD_ENOMEM. */
int nccl_rules(const struct nccl_log *l, struct report *r, char *err);

#endif
