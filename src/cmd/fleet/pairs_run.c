/* `cudoctor fleet --nccl=pairs`: rounds of disjoint rank pairs (fleet/pairs.h), each pair its
 * own 2-rank NCCL communicator whose unique id its lower rank makes; the ids reach their
 * partners through the plug-in's bounded gather and broadcast, and every pair's result comes
 * back to rank 0 the same way. A pair whose NCCL fails is recorded and the next round runs;
 * a collective that runs out of time (a rank hung or died) ends the rounds, and one exchange
 * stuck inside NCCL is ended by the alarm. */
#include "cmd/fleet/fleet.h"
#include "cmd/fleet/nccl_side.h"
#include "os/proc.h"
#include "util/clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/pairs.h"
#include "util/err.h"

/* One rank's entry of a round's table: its unique id (the lower rank of a pair) and whether
 * it can take part. */
struct round_entry {
	ncclUniqueId id;
	int ready;
};

static int alloc_buffers(struct fleet_nccl_side *x, const struct cudrv *d, size_t bytes, char *err)
{
	int rc = CD_OK;

	if (!(x->host = malloc(bytes)))
		return cd_fail(err, CD_ENOMEM, "out of memory for a %zu-byte host buffer", bytes);
	TRY(fleet_cu(d, d->StreamCreate(&x->s, 0), "cuStreamCreate", err));
	TRY(fleet_cu(d, d->MemAlloc(&x->send, bytes), "cuMemAlloc", err));
	TRY(fleet_cu(d, d->MemAlloc(&x->recv, bytes), "cuMemAlloc", err));
out:
	return rc;
}

/* One pair's exchange: side 0 sends 1.0, side 1 sends 2.0, so every element of the sum is
 * 3; the first all-reduce is checked, the batch after it timed by the host clock. */
static int exchange(struct fleet_nccl_side *x, const struct cudrv *d, size_t bytes, const ncclUniqueId *id,
		    int side, struct fleet_pairs_rec *rec, char *err)
{
	size_t n = bytes / sizeof(float);
	ncclResult_t nr;
	double t0 = 0;
	int rc = CD_OK;

	for (size_t i = 0; i < n; i++)
		x->host[i] = (float)(side + 1);
	TRY(fleet_cu(d, d->MemcpyHtoD(x->send, x->host, bytes), "cuMemcpyHtoD", err));
	if ((nr = x->nc.CommInitRank(&x->comm, 2, *id, side)) != ncclSuccess) {
		x->comm = NULL;
		return nccl_fail(&x->nc, err, "ncclCommInitRank", nr);
	}
	for (int it = 0; it <= FLEET_NCCL_ITERS; it++) {
		if (it == 1)
			t0 = cd_now_s();
		if ((nr = x->nc.AllReduce((const void *)(uintptr_t)x->send, (void *)(uintptr_t)x->recv, n, ncclFloat32,
					  ncclSum, x->comm, x->s)) != ncclSuccess) {
			rc = nccl_fail(&x->nc, err, "ncclAllReduce", nr);
			goto out;
		}
		if (it > 0 && it < FLEET_NCCL_ITERS)
			continue;
		TRY(fleet_cu(d, d->StreamSynchronize(x->s), "cuStreamSynchronize", err));
		if (it > 0)
			continue;
		TRY(fleet_cu(d, d->MemcpyDtoH(x->host, x->recv, bytes), "cuMemcpyDtoH", err));
		for (size_t i = 0; i < n; i++)
			if (x->host[i] != 3.0f) {
				rec->wrong = 1;
				break;
			}
	}
	rec->seconds = (cd_now_s() - t0) / FLEET_NCCL_ITERS;
out:
	x->nc.CommDestroy(x->comm);
	x->comm = NULL;
	return rc;
}

/* Rank 0's plan from every rank's preparation: go when all can, the size within the
 * smallest free memory (two buffers in a quarter of it, as --nccl sizes its sweep). */
static void make_plan(const struct fleet_nccl_rank *all, int n, const struct fleet_opts *o,
		      struct fleet_pairs_plan *plan)
{
	size_t min_free = (size_t)-1, want = o->nccl_size ? o->nccl_size : FLEET_PAIRS_SIZE;

	plan->nranks = n;
	plan->go = 1;
	plan->rounds = fleet_pairs_rounds_for(n, o->rounds);
	for (int r = 0; r < n; r++) {
		if (all[r].error[0] && plan->go) {
			plan->go = 0;
			snprintf(plan->why, sizeof plan->why, "rank %d (%.60s): %.180s", r, all[r].node, all[r].error);
		}
		if (all[r].free_bytes < min_free)
			min_free = all[r].free_bytes;
	}
	/* the default shrinks to what fits; a size asked for is run as asked or not at all */
	while (!o->nccl_size && want > ((size_t)1 << 20) && 8 * want > min_free)
		want >>= 1;
	plan->bytes = want & ~(size_t)(sizeof(float) - 1);
	if (plan->go && n < 2) {
		plan->go = 0;
		snprintf(plan->why, sizeof plan->why, "pairs need at least 2 ranks, this run has %d", n);
	} else if (plan->go && (plan->bytes == 0 || 8 * plan->bytes > min_free)) {
		plan->go = 0;
		snprintf(plan->why, sizeof plan->why, "too little free GPU memory (%zu bytes) for two buffers of %zu bytes",
			 min_free, plan->bytes);
	}
}

/* One round on this rank: the id table, its pair's exchange, its record to rank 0. */
static int one_round(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, struct fleet_nccl_side *x,
		     const struct cudrv *d, const struct fleet_pairs_plan *plan, int round, bool ready,
		     struct round_entry *table, struct fleet_pairs_rec *recs, double timeout_s, char *err)
{
	struct fleet_pairs_rec rec = { .partner = fleet_pairs_partner(plan->nranks, round, me->world_rank) };
	struct round_entry mine = { .ready = ready };
	char why[CD_ERRMSG];
	int rc, p = rec.partner;

	if (ready && p > me->world_rank) {
		ncclResult_t nr = x->nc.GetUniqueId(&mine.id);
		if (nr != ncclSuccess) {
			nccl_fail(&x->nc, why, "ncclGetUniqueId", nr);
			snprintf(rec.error, sizeof rec.error, "%.200s", why);
			mine.ready = 0;
		}
	}
	if ((rc = mpi->gather(&mine, sizeof mine, table, timeout_s, err)) != CD_OK ||
	    (rc = mpi->bcast(table, (size_t)plan->nranks * sizeof *table, timeout_s, err)) != CD_OK)
		return rc;
	if (p >= 0 && mine.ready && !table[p].ready)
		snprintf(rec.error, sizeof rec.error, "its partner, rank %d, could not take part", p);
	else if (p >= 0 && mine.ready) {
		int lower = p < me->world_rank ? p : me->world_rank;
		os_exit_after((unsigned)timeout_s + 1, FLEET_NCCL_TIMEOUT_MSG);
		if (exchange(x, d, plan->bytes, &table[lower].id, me->world_rank == lower ? 0 : 1, &rec, why) != CD_OK)
			snprintf(rec.error, sizeof rec.error, "%.200s", why);
		os_exit_after(0, NULL);
	}
	return mpi->gather(&rec, sizeof rec, recs ? recs + (size_t)round * (size_t)plan->nranks : NULL, timeout_s, err);
}

int fleet_pairs_run(const struct fleet_mpi *mpi, const struct fleet_mpi_rank *me, const struct fleet_opts *o,
		    const struct cd_globals *g, struct fleet_pairs_result *res, char *err)
{
	const struct cudrv *d = g->run ? g->run->cu : NULL;
	double timeout_s = o->timeout_s;
	struct fleet_nccl_rank rec = { 0 }, *all = NULL;
	struct fleet_pairs_rec *recs = NULL;
	struct round_entry *table = NULL;
	struct fleet_pairs_plan plan = { 0 };
	struct fleet_nccl_side x = { 0 };
	char why[CD_ERRMSG] = "";
	bool ready, unreached;
	int rc;

	memset(res, 0, sizeof *res);
	rc = fleet_nccl_muster(mpi, me, g->run, timeout_s, &x, &rec, &all, &unreached, err);
	if (unreached)
		goto unreached;
	if (rc)
		goto out;
	if (me->world_rank == 0)
		make_plan(all, me->world_size, o, &plan);
	if ((rc = mpi->bcast(&plan, sizeof plan, timeout_s, err)) != CD_OK)
		goto unreached;
	plan.why[sizeof plan.why - 1] = '\0';
	if (me->world_rank == 0)
		res->ranks = all, all = NULL;
	res->plan = plan;
	if (!plan.go)
		goto out;
	if (plan.nranks != me->world_size || plan.rounds < 1) {
		rc = cd_fail(err, CD_EDRIVER, "rank 0's plan is for %d ranks, this run has %d", plan.nranks, me->world_size);
		goto out;
	}
	ready = alloc_buffers(&x, d, plan.bytes, why) == CD_OK;
	if (!(table = calloc((size_t)plan.nranks, sizeof *table)) ||
	    (me->world_rank == 0 && !(recs = calloc((size_t)plan.rounds * (size_t)plan.nranks, sizeof *recs)))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if (!ready)
		fprintf(stderr, "cudoctor fleet --nccl=pairs: rank %d cannot take part: %s\n", me->world_rank, why);
	for (int round = 0; round < plan.rounds; round++) {
		if ((rc = one_round(mpi, me, &x, d, &plan, round, ready, table, recs, timeout_s, err)) != CD_OK) {
			/* a rank that hung or died: the rounds measured so far stand */
			snprintf(res->stopped, sizeof res->stopped, "round %d of %d: %.200s", round + 1, plan.rounds, err);
			*err = '\0';
			rc = CD_OK;
			break;
		}
		res->rounds_done = round + 1;
	}
	if (me->world_rank == 0) {
		for (size_t i = 0; i < (size_t)res->rounds_done * (size_t)plan.nranks; i++)
			recs[i].error[sizeof recs[i].error - 1] = '\0';
		res->recs = recs, recs = NULL;
	}
	goto out;
unreached:
	/* as --nccl: a rank that hung or died before NCCL leaves the report its reason */
	memset(&res->plan, 0, sizeof res->plan);
	res->plan.nranks = me->world_size;
	snprintf(res->plan.why, sizeof res->plan.why, "%s", err);
	*err = '\0';
	rc = CD_OK;
out:
	fleet_nccl_release(&x, d);
	free(table);
	free(recs);
	free(all);
	return rc;
}

void fleet_pairs_free(struct fleet_pairs_result *res)
{
	free(res->ranks);
	free(res->recs);
	memset(res, 0, sizeof *res);
}
