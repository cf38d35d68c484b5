/* `cudoctor fleet` under mpirun or srun: each node's leader collects its reports and sends
 * them; rank 0 gathers them until all came or the wait ran out, judges and renders. A rank
 * that dies or hangs becomes a missing node; rank 0 then leaves without MPI_Finalize (which
 * would wait for it), and the launcher ends the job. */
#include "cmd/fleet/fleet.h"
#include "os/fs.h"
#include "os/proc.h"
#include "util/clock.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/judge.h"
#include "fleet/mpi.h"
#include "report/render.h"
#include "util/err.h"

/* Seconds MPI_Init and the leader election may take before this rank gives up: MPI_Init
 * cannot be interrupted, so a rank that never starts is caught by an alarm. */
#define STARTUP_GRACE_S 60

static volatile sig_atomic_t stop_waiting;


/* Beside the binary (the build tree's plugins/), then an installed prefix's lib/cudoctor. */
static void plugin_dirs(char bufs[3][PATH_MAX], const char *dirs[4])
{
	char exe[PATH_MAX];
	char *slash;
	size_t k = 0;

	if (os_exe_path(exe, sizeof exe)) {
		if ((slash = (char *)os_last_sep(exe)))
			*slash = '\0';
		snprintf(bufs[0], PATH_MAX, "%.*s/plugins", PATH_MAX - 16, exe);
		snprintf(bufs[1], PATH_MAX, "%.*s/../lib/cudoctor", PATH_MAX - 24, exe);
		snprintf(bufs[2], PATH_MAX, "%.*s", PATH_MAX - 1, exe);
		for (; k < 3; k++)
			dirs[k] = bufs[k];
	}
	dirs[k] = NULL;
}

static int leader_index(const struct fleet_mpi_rank *me, int rank)
{
	for (int i = 0; i < me->n_nodes; i++)
		if (me->leader_ranks[i] == rank)
			return i;
	return -1;
}

/* Rank 0: its own bundle, then the others' until every leader sent or time ran out. */
static int gather(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const char *own, double wait_s,
		  struct fleet *f, char *err)
{
	bool *got = calloc((size_t)(me->n_nodes ? me->n_nodes : 1), sizeof *got);
	double deadline = cd_now_s() + wait_s;
	int left = me->n_nodes, rc = CD_OK;
	char rerr[CD_ERRMSG], source[FLEET_NODE_NAME + 32];

	if (!got)
		return CD_ENOMEM;
	for (int i = 0; i < me->n_nodes && left > 0; i++)
		if (me->leader_ranks[i] == 0) {
			rc = fleet_read_report(f, (const unsigned char *)own, strlen(own), me->leader_names[i], rerr);
			if (rc != CD_OK && rc != CD_ENOMEM)
				rc = fleet_skip(f, "rank 0", rerr);
			got[i] = true;
			left--;
		}
	while (rc == CD_OK && left > 0 && !stop_waiting) {
		char *data = NULL;
		size_t len = 0;
		int from = -1, li;
		double remain = deadline - cd_now_s();

		if (remain <= 0)
			break;
		rc = mpi->recv(remain, &stop_waiting, &from, &data, &len, err);
		if (rc == CD_ENOTFOUND) {
			rc = CD_OK;
			break;
		}
		if (rc != CD_OK)
			break;
		li = leader_index(me, from);
		snprintf(source, sizeof source, "rank %d (%s)", from, li >= 0 ? me->leader_names[li] : "not a leader");
		if (li < 0 || got[li]) {
			rc = fleet_skip(f, source, li < 0 ? "a report from a rank that leads no node" : "a second report");
		} else {
			got[li] = true;
			left--;
			rc = fleet_read_report(f, (const unsigned char *)data, len, me->leader_names[li], rerr);
			if (rc != CD_OK && rc != CD_ENOMEM)
				rc = fleet_skip(f, source, rerr);
		}
		free(data);
	}
	for (int i = 0; i < me->n_nodes && rc == CD_OK; i++)
		if (!got[i])
			rc = fleet_missing(f, me->leader_names[i]);
	free(got);
	if (rc == CD_ENOMEM)
		cd_fail(err, rc, "out of memory gathering the reports");
	return rc;
}

/* Every rank opens its driver (a leader's collection already did and judged it) and joins
 * the all-reduce or the rounds of pairs. */
static int nccl_phase(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const struct fleet_opts *o,
		      const struct cd_globals *g, struct fleet_nccl_result *res, struct fleet_pairs_result *pres,
		      char *err)
{
	const struct gpu_probe *gp;
	int rc;

	if ((rc = cd_run_driver(g->run, &gp, err)) != CD_OK)
		return rc;
	return o->pairs ? fleet_pairs_run(mpi, me, o, g, pres, err) : fleet_nccl_run(mpi, me, g, o->timeout_s, res, err);
}

int fleet_mpi_run(struct report *r, const struct fleet_opts *o, const struct cd_globals *g, char *err)
{
	char bufs[3][PATH_MAX], node[FLEET_NODE_NAME];
	const char *dirs[4];
	const struct fleet_mpi *mpi;
	struct fleet_mpi_rank me;
	struct dl_lib lib;
	struct fleet f;
	struct fleet_nccl_result nres = { 0 };
	struct fleet_pairs_result pres = { 0 };
	char *own = NULL;
	double started;
	int rc, code = 0;
	bool aborting = false;

	fleet_node_name(node, sizeof node);
	plugin_dirs(bufs, dirs);
	if ((rc = fleet_mpi_load(&lib, dirs, &mpi, err)) != CD_OK)
		return cd_fail(err, rc, "started by an MPI launcher, but the MPI plug-in did not load: %.180s", err);
	os_exit_after(STARTUP_GRACE_S + (unsigned)o->timeout_s,
		      "cudoctor fleet: MPI start-up did not finish in time (a rank did not start?)\n");
	rc = mpi->init(node, o->timeout_s + STARTUP_GRACE_S, &me, err);
	os_exit_after(0, NULL);
	if (rc != CD_OK)
		return rc; /* MPI never came up or the election failed: nothing to finish cleanly */
	r->self_rendered = true; /* only rank 0 prints, and it prints before MPI ends */
	if (me.world_rank == 0)
		os_on_terminate(&stop_waiting); /* the launcher ending the job: report what came */
	if (me.node_rank == 0 && (rc = fleet_collect_node(node, o, g, &own, err)) != CD_OK)
		goto out;
	/* before any report is sent: a leader blocked sending to rank 0 would stall NCCL's exchange */
	if (o->nccl && (rc = nccl_phase(mpi, &me, o, g, &nres, &pres, err)) != CD_OK)
		goto out;
	if (me.world_rank != 0) {
		if (me.node_rank == 0 && (rc = mpi->send(own, strlen(own), err)) != CD_OK)
			goto out;
		goto out;
	}
	fleet_init(&f);
	started = cd_now_s();
	rc = gather(mpi, &me, own, o->timeout_s, &f, err);
	if (rc == CD_OK) {
		struct fleet_judge_opts jo = { me.n_nodes, (int)(cd_now_s() - started + 0.5) };
		rc = fleet_judge(&f, &jo, r);
	}
	if (rc == CD_OK && o->nccl && (rc = o->pairs ? fleet_pairs_render(r, &pres) : fleet_nccl_render(r, &nres)) != CD_OK)
		cd_fail(err, rc, "out of memory writing the NCCL section");
	if (rc == CD_OK && o->prometheus_dir)
		rc = fleet_write_prometheus(&f, o->prometheus_dir, o->prometheus ? stderr : NULL, err);
	aborting = f.n_missing > 0 || stop_waiting;
	fleet_free(&f);
	if (rc != CD_OK)
		goto out;
	if ((rc = fleet_render(r, o, g, err)) != CD_OK)
		goto out;
	code = r->oom ? 3 : report_has_errors(r) ? 1 : 0;
out:
	fleet_nccl_free(&nres);
	fleet_pairs_free(&pres);
	free(own);
	if (rc != CD_OK && me.world_rank == 0) {
		/* main.c prints err; the other ranks must not be left waiting for rank 0 */
		fprintf(stderr, "cudoctor fleet: %s\n", *err ? err : cd_strerror(rc));
		fflush(stderr);
		aborting = true;
		code = 3;
	}
	mpi->free_rank(&me);
	mpi->finish(aborting, code); /* does not return when aborting */
	/* the plug-in stays mapped: MPI's exit handlers live in the libraries it pulled in */
	return rc;
}
