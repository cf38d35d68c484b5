/* The fleet's judgement: what differs between nodes, every node's findings grouped by id,
 * outliers in measured numbers, and the Slurm commands that act on them, into a report
 * (text, Markdown and JSON through the usual renderers). Pure: no I/O. */
#ifndef CUDOCTOR_FLEET_JUDGE_H
#define CUDOCTOR_FLEET_JUDGE_H

#include <stdbool.h>

#include "fleet/fleet.h"
#include "report/report.h"

struct fleet_judge_opts {
	int expected_nodes;   /* under MPI: how many nodes the launcher started; -1 offline */
	int wait_s;           /* how long rank 0 waited for the others (evidence for missing nodes) */
};

/* CD_OK or CD_ENOMEM. O(N log N) in the number of nodes, findings and samples. */
int fleet_judge(const struct fleet *f, const struct fleet_judge_opts *o, struct report *r);

/* "scontrol update nodename=NODES state=drain reason='cudoctor: WHY'" with each interpolated
 * word single-quoted (str_shell_quote): a line to paste or run, whatever a report held.
 * Malloc'ed; NULL on OOM. */
char *fleet_drain_line(const char *nodes, const char *why);

/* Lists longer than this in text are summarised; JSON always has them whole. */
#define FLEET_TEXT_LIST_MAX 160
/* list itself, or "N nodes (--json lists them)" in buf when longer than FLEET_TEXT_LIST_MAX */
const char *fleet_text_list(const char *list, size_t count, char *buf, size_t n);

/* The inputs (inputs.c): node_count, node_list, expected_nodes, nodes, missing and skipped
 * into top, and the findings of missing and failed nodes and skipped inputs. */
int fleet_judge_inputs(const struct fleet *f, const struct fleet_judge_opts *o, struct report_rec *top,
		       struct report *r);

/* Outliers by median and MAD over each measurement the nodes share (outliers.c); a check
 * rate far below its median is fleet-check-slow, and slow[node] (n_nodes entries, NULL:
 * not wanted) is set for the nodes of those GPUs. */
int fleet_judge_outliers(const struct fleet *f, struct report_rec *top, struct report *r, bool *slow);

#endif
