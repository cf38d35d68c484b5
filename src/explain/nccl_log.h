/* NCCL's own log read into the facts of facts/nccl_log.h. Pure: text in, facts out; no I/O,
 * no judgement. */
#ifndef CUDOCTOR_EXPLAIN_NCCL_LOG_H
#define CUDOCTOR_EXPLAIN_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/nccl_log.h"

/* CD_OK (a text without NCCL lines gives an empty log) or CD_ENOMEM. */
int nccl_log_parse(const char *text, size_t len, struct nccl_log *out, char *err);

/* The same, a line at a time (explain's one pass over a log): init, then every line that
 * holds one of the anchors (len bytes, no newline, need not be NUL-terminated). A line
 * with none of them is not NCCL's. */
void nccl_log_init(struct nccl_log *l);
int nccl_log_line(struct nccl_log *l, const char *line, size_t len, char *err);
/* The same for a caller that has searched the line for the anchors already: hit[i] says
 * whether anchor i occurs (ignoring case); the ones that do not are not searched again. */
int nccl_log_line_hits(struct nccl_log *l, const char *line, size_t len, const bool *hit, char *err);
size_t nccl_log_anchor_count(void);
const char *nccl_log_anchor(size_t i); /* compared ignoring ASCII case */
void nccl_log_free(struct nccl_log *l);

#endif
