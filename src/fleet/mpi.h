/* The MPI plug-in's interface: libcudoctor-fleet-mpi.so, built against the system's MPI
 * (plugins/fleet_mpi.c), loaded by `cudoctor fleet` only under a launcher, so cudoctor
 * itself needs no MPI. Every wait is bounded: a rank that dies or hangs costs a timeout,
 * never the fleet. */
#ifndef CUDOCTOR_FLEET_MPI_H
#define CUDOCTOR_FLEET_MPI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "driver/loader.h"

#define FLEET_MPI_ABI 2
#define FLEET_MPI_SONAME "libcudoctor-fleet-mpi.so"
#define FLEET_MPI_SYMBOL "cudoctor_fleet_mpi"
#define FLEET_NODE_NAME 256

/* Where this rank stands, from init. */
struct fleet_mpi_rank {
	int world_rank, world_size;
	int node_rank;             /* 0: this rank is its node's leader */
	int n_nodes;               /* rank 0 only: how many node leaders there are */
	char (*leader_names)[FLEET_NODE_NAME]; /* rank 0 only: n_nodes names, by leader */
	int *leader_ranks;         /* rank 0 only: their world ranks */
};

struct fleet_mpi {
	int abi;                   /* FLEET_MPI_ABI */
	const char *mpi_version;   /* MPI_Get_library_version's first line */
	/* MPI_Init, then one leader per node: the ranks of one shared-memory host split once
	 * more by node name (CUDOCTOR_NODE lets one host play several nodes), then rank 0
	 * gathers every rank's node name, waiting at most timeout_s. CD_OK or CD_EDRIVER. */
	int (*init)(const char *node, double timeout_s, struct fleet_mpi_rank *me, char *err);
	/* A leader's report to rank 0 (any leader but rank 0). */
	int (*send)(const char *data, size_t len, char *err);
	/* Rank 0: the next report from any leader, waiting at most timeout_s or until *stop is
	 * set. CD_OK with *from (world rank) and *data (malloc'ed, NUL-terminated);
	 * CD_ENOTFOUND when the wait ended with nothing. */
	int (*recv)(double timeout_s, volatile sig_atomic_t *stop, int *from, char **data, size_t *len, char *err);
	/* Ends MPI: MPI_Finalize, or when others may hang, exits this process with code (at
	 * least 1) without finalizing, so the launcher ends the job. */
	void (*finish)(bool abort_rest, int code);
	void (*free_rank)(struct fleet_mpi_rank *me);
	/* Every rank: rank 0's len bytes of buf into every other rank's buf, waiting at most
	 * timeout_s. CD_OK or CD_EDRIVER. */
	int (*bcast)(void *buf, size_t len, double timeout_s, char *err);
	/* Every rank: len bytes of mine from each rank into rank 0's all (world_size x len,
	 * by rank; NULL elsewhere), waiting at most timeout_s. CD_OK or CD_EDRIVER. */
	int (*gather)(const void *mine, size_t len, void *all, double timeout_s, char *err);
};

typedef const struct fleet_mpi *(*fleet_mpi_entry)(void);

/* The launcher's variables say this process is one rank of an MPI job. */
bool fleet_under_launcher(void);

/* This node's name: CUDOCTOR_NODE when set (one host can play several nodes), else the
 * host name. */
void fleet_node_name(char *buf, size_t n);

/* Loads the plug-in: CUDOCTOR_FLEET_MPI, then the loader's search, then dirs (NULL-
 * terminated). CD_OK with *api; CD_ENOTFOUND / CD_EUNSUPPORTED with err saying why. */
int fleet_mpi_load(struct dl_lib *lib, const char *const *dirs, const struct fleet_mpi **api, char *err);

#endif
