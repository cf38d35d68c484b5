/* `cudoctor kb torch|framework [QUERY]`: the framework build tables with their sources. */
#ifndef CUDOCTOR_CMD_KB_TORCH_H
#define CUDOCTOR_CMD_KB_TORCH_H

#include "report/report.h"

/* query: a release ("2.7", "2.7.1") or a variant ("cu128"); NULL lists every row. */
int kb_torch_cmd(struct report *r, const char *query, char *err);
/* query: jax, vllm or ollama; NULL lists every row. */
int kb_framework_cmd(struct report *r, const char *query, char *err);

#endif
