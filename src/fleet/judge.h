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

/* Outliers by median and MAD over each measurement the nodes share (outliers.c); a check
 * rate far below its median is fleet-check-slow, and slow[node] (n_nodes entries, NULL:
 * not wanted) is set for the nodes of those GPUs. */
int fleet_judge_outliers(const struct fleet *f, struct report_rec *top, struct report *r, bool *slow);

#endif
