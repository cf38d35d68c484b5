/* explain's match objects described once: a check on this machine, a fact a verdict read and
 * a kernel the launch check found, each through its field table, and the match's object
 * around them (docs/json.md, explain's "matches"). */
#ifndef CUDOCTOR_CMD_EXPLAIN_FIELDS_H
#define CUDOCTOR_CMD_EXPLAIN_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"
#include "kb/kb.h"
#include "report/report.h"
#include "rules/checks.h"
#include "rules/explain_judge.h"

/* The match's object, an item of matches (JSON only: its text is the finding), made from its
 * finding f (id, severity, why, evidence of the text, fix) and where the text said it; n_text:
 * how many of f's evidence lines are the text's (matched lines first, "matched: ..."); checks
 * null unless checked. Returns the item's end: CD_OK, CD_ENOMEM, or CD_EINTERNAL (a value
 * the JSON library refused: a bug). */
int explain_match_fields(struct report_rec *matches, const struct finding *f, const struct kb_finding *x,
			 const struct explain_match *m, size_t n_text, const struct explain_checks *ck, bool checked,
			 const struct explain_verdict *v);

#endif
