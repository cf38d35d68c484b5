/* What a health-check framework reads of a run: Nagios' (0 ok, 1 warning, 2 critical,
 * 3 unknown) or node-problem-detector's (0 ok, 1 problem, 2 unknown) exit status, and one
 * summary line of at most 80 bytes that names the worst finding. Only node health counts as a
 * problem there (rules/scope.h): an environment error is the job's, not the node's. */
#ifndef CUDOCTOR_RULES_CONTRACT_H
#define CUDOCTOR_RULES_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

enum exit_contract { CONTRACT_DEFAULT, CONTRACT_NAGIOS, CONTRACT_NPD };

/* The longest summary line, its newline not counted (NPD's max_output_length in its examples). */
#define CONTRACT_LINE_MAX 80

/* "default", "nagios", "npd" into *c; false for any other word. */
bool contract_parse(const char *word, enum exit_contract *c);

/* The severity the contract judges a finding at: its own, except an error of a scope that no
 * drain may name, which is a warning there. */
enum severity contract_severity(const struct finding *f);

/* The worst of r's findings (warn or error) as the contract judges them, node health first
 * among equals; NULL when none is a warning or worse. *more: how many others are as bad. */
const struct finding *contract_worst(const struct report *r, size_t *more);

/* "cudoctor: error xid-errors (+1): GPU 1 (NVIDIA H200): TITLE", "cudoctor: ok", cut to
 * CONTRACT_LINE_MAX bytes at a character's start, control bytes as '?'; into line (cap > 80). */
void contract_summary(const struct report *r, char *line, size_t cap);

/* "cudoctor: unknown: WHY" for a run that could not check, the same way cut. */
void contract_unknown(const char *why, char *line, size_t cap);

/* text cut as the summary is, into line. */
void contract_cut(char *line, size_t cap, const char *text);

/* The exit status under c for a worst severity (SEV_OK when none), or for a run that could
 * not check (could_not: usage, an unreadable input, a failure). */
int contract_exit(enum exit_contract c, enum severity worst, bool could_not);

#endif
