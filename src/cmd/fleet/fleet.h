/* `cudoctor fleet`'s parts: one node's reports collected through the commands' own code
 * (collect.c), and the MPI run across nodes (mpi_run.c). */
#ifndef CUDOCTOR_CMD_FLEET_H
#define CUDOCTOR_CMD_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cmd.h"

#define FLEET_MAX_LABS 16

struct fleet_opts {
	const char *labs[FLEET_MAX_LABS]; /* --labs: run on every GPU of every node */
	size_t n_labs;
	bool quick;                        /* --quick for the labs */
	int timeout_s;                     /* how long rank 0 waits for the other nodes */
	const char *prometheus_dir;        /* --prometheus DIR: one textfile per node */
	const char *save;                  /* --save FILE: the report there, not on stdout */
};

/* Renders r to --save's file (or stdout) and marks it rendered. CD_OK or CD_EIO. */
int fleet_render(struct report *r, const struct fleet_opts *o, const struct cd_globals *g, char *err);

/* This node's doctor, devices and lab reports as one "fleet-node" JSON bundle: what
 * `cudoctor --json doctor` and `devices` print, run through the same commands. A command
 * that fails leaves its reason in the bundle's "failure". CD_OK or CD_ENOMEM. */
int fleet_collect_node(const char *node, const struct fleet_opts *o, const struct cd_globals *g, char **json,
		       char *err);

/* Every rank: elect leaders, collect, send; rank 0 gathers, judges into r and renders.
 * CD_OK; the others as main.c maps them. */
int fleet_mpi_run(struct report *r, const struct fleet_opts *o, const struct cd_globals *g, char *err);

/* --prometheus: one DIR/NODE.prom per node (prometheus.c). */
struct fleet;
int fleet_write_prometheus(const struct fleet *f, const char *dir, char *err);

#endif
