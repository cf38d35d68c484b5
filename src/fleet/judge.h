/* The fleet's judgement: what differs between nodes, every node's findings grouped by id,
 * outliers in measured numbers, and the Slurm commands that act on them, into a report
 * (text, Markdown and JSON through the usual renderers). Pure: no I/O. */
#ifndef CUDOCTOR_FLEET_JUDGE_H
#define CUDOCTOR_FLEET_JUDGE_H

#include "fleet/fleet.h"
#include "report/report.h"

struct fleet_judge_opts {
	int expected_nodes;   /* under MPI: how many nodes the launcher started; -1 offline */
	int wait_s;           /* how long rank 0 waited for the others (evidence for missing nodes) */
};

/* CD_OK or CD_ENOMEM. O(N log N) in the number of nodes, findings and samples. */
int fleet_judge(const struct fleet *f, const struct fleet_judge_opts *o, struct report *r);

/* Outliers by median and MAD over each measurement the nodes share (outliers.c). */
int fleet_judge_outliers(const struct fleet *f, struct report_rec *top, struct report *r);

#endif
