/* `cudoctor fleet`'s parts: one node's reports collected through the commands' own code
 * (collect.c), and the MPI run across nodes (mpi_run.c). */
#ifndef CUDOCTOR_CMD_FLEET_H
#define CUDOCTOR_CMD_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "util/err.h"

#define FLEET_MAX_LABS 16

struct fleet_opts {
	const char *labs[FLEET_MAX_LABS]; /* --labs: run on every GPU of every node */
	size_t n_labs;
	bool quick;                        /* --quick for the labs and check */
	bool check;                        /* --check: check's load tests on each node */
	int timeout_s;                     /* how long rank 0 waits for the other nodes */
	const char *prometheus_dir;        /* --prometheus DIR: one textfile per node */
	const char *save;                  /* --save FILE: the report there, not on stdout */
	bool nccl;                         /* --nccl: a cross-rank NCCL all-reduce */
	bool pairs;                        /* --nccl=pairs: rounds of 2-rank exchanges instead */
	int rounds;                        /* --rounds K for pairs; 0: the default */
	size_t nccl_size;                  /* --nccl-size for pairs; 0: FLEET_PAIRS_SIZE within free memory */
	bool prometheus;                   /* --format prometheus: NODE.prom files */
};

#include "driver/nccl.h"
#include "fleet/mpi.h"

#define FLEET_NCCL_SIZES 8
#define FLEET_NCCL_TOP ((size_t)256 << 20)
#define FLEET_NCCL_ITERS 5

/* What rank 0 decides for every rank: whether to run, the sizes, NCCL's unique id. */
struct fleet_nccl_plan {
	int go, nranks, n_sizes;
	size_t bytes[FLEET_NCCL_SIZES];
	ncclUniqueId id;
	char why[384];                     /* go == 0: the first rank that could not take part */
};

/* One rank's part, gathered by rank 0 (fixed size: sent as bytes). */
struct fleet_nccl_rank {
	char node[64], nccl[32], error[256];
	int device;                        /* CUDA ordinal used, -1 none */
	size_t free_bytes;
	int wrong;                         /* sizes whose result was not n(n+1)/2 */
	double seconds[FLEET_NCCL_SIZES];  /* per all-reduce, by plan size */
};

struct fleet_nccl_result {
	struct fleet_nccl_plan plan;
	struct fleet_nccl_rank *ranks;     /* rank 0 only: n_ranks, by world rank */
	int n_ranks;
};

/* Every rank (nccl_run.c): the all-reduce; rank 0 ends with every rank's part in res.
 * Failures of NCCL, CUDA, and MPI waits that ran out (a rank that hung or died) land in res
 * (plan.why, ranks[].error); CD_OK, or CD_ENOMEM. */
int fleet_nccl_run(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const struct cd_globals *g,
		   double timeout_s, struct fleet_nccl_result *res, char *err);
void fleet_nccl_free(struct fleet_nccl_result *res);
/* Rank 0 (nccl_render.c): the NCCL section, its JSON and a fleet-nccl-failed finding. */
int fleet_nccl_render(struct report *r, const struct fleet_nccl_result *res);
/* fleet-nccl-failed with its one text; pairs: found by the pair rounds (--nccl=pairs) */
int fleet_nccl_failed(struct report *r, int nranks, bool pairs, const char *subject, const char *what);

/* --nccl=pairs (pairs_run.c, pairs_render.c). */
#define FLEET_PAIRS_SIZE ((size_t)64 << 20)

struct fleet_pairs_plan {
	int go, nranks, rounds;
	size_t bytes;
	char why[384];                     /* go == 0: why not */
};

/* One rank's part of one round, gathered by rank 0 (fixed size: sent as bytes). */
struct fleet_pairs_rec {
	int partner;                       /* -1: sat this round out */
	int wrong;                         /* the sum was not 3 */
	double seconds;                    /* per all-reduce; 0 when it did not run */
	char error[232];                   /* the call and NCCL's or CUDA's code */
};

struct fleet_pairs_result {
	struct fleet_pairs_plan plan;
	struct fleet_nccl_rank *ranks;     /* rank 0: every rank's preparation, by world rank */
	struct fleet_pairs_rec *recs;      /* rank 0: rounds_done x nranks, by round then rank */
	int rounds_done;
	char stopped[CD_ERRMSG];           /* why the rounds ended early; "" when they did not */
};

/* Every rank: the rounds of pairs; rank 0 ends with every pair's records in res. CD_OK (the
 * failures of NCCL and of the waits land in res), or CD_ENOMEM. */
int fleet_pairs_run(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const struct fleet_opts *o,
		    const struct cd_globals *g, struct fleet_pairs_result *res, char *err);
void fleet_pairs_free(struct fleet_pairs_result *res);
/* Rank 0: the pairs ranked, judged and the slow nodes named, into r. CD_OK or CD_ENOMEM. */
int fleet_pairs_render(struct report *r, const struct fleet_pairs_result *res);

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

/* --prometheus DIR, --format prometheus: one DIR/NODE.prom per node (prometheus.c), each
 * file's path on listing when it is not NULL. */
struct fleet;
int fleet_write_prometheus(const struct fleet *f, const char *dir, FILE *listing, char *err);

#endif
