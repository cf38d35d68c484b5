/* Writing a finding's title, why and fix: only the catalogue (rules/catalogue.c, from an id's
 * row) and src/report/ itself (reading a report back) do, so an id has one text (test_layout). */
#ifndef CUDOCTOR_REPORT_FINDING_WRITE_H
#define CUDOCTOR_REPORT_FINDING_WRITE_H

#include "report/report.h"

/* Returns the new finding (owned by r) or NULL on OOM. Its pointer stays valid
 * until the next report_add_finding. */
struct finding *report_add_finding(struct report *r, enum severity sev, const char *id,
				   const char *subject, const char *title_fmt, ...)
	__attribute__((format(printf, 5, 6)));
int finding_why(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int finding_fix(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
