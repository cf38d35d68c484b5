/* The text's facts read by explain (facts/textfacts.h): the extractors the line rules call on
 * the lines the automaton flags with their anchors, and what the matches add after the scan. */
#ifndef CUDOCTOR_EXPLAIN_TEXTFACTS_H
#define CUDOCTOR_EXPLAIN_TEXTFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"
#include "explain/scan_line.h"
#include "facts/textfacts.h"

/* The strings that flag a line holding a fact of the text's machine. */
const char *const *explain_fact_anchors(size_t *n);
/* Every fact the line l gives, into t (a fact once known stays: the first the text gives). */
void explain_text_facts_line(struct text_facts *t, const struct line *l);
/* After the scan: what the matches r name (the driver's CUDA, GPUs, archs) and the text's
 * platform from its markers. */
void explain_text_facts_settle(struct text_facts *t, const struct explain_result *r, bool windows, bool linux_seen,
			       bool wsl, bool rocm);
/* What the rules read of one match. */
void explain_match_facts(const struct explain_match *m, struct text_error *e);

#endif
