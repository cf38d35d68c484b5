/* The MPI side of `cudoctor fleet` (src/fleet/mpi.h): built against the system's MPI as
 * libcudoctor-fleet-mpi.so and loaded by cudoctor only under a launcher. Only non-blocking
 * calls after the split, each polled against a deadline, so a rank that dies or hangs
 * cannot hold rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet/mpi.h"
#include "util/err.h"

#define TAG_REPORT 1401

static char version_line[256];

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap(void)
{
	struct timespec t = { 0, 2000000 }; /* 2 ms: polling costs nothing measurable */
	nanosleep(&t, NULL);
}

static int mpi_fail(char *err, int code, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;

	MPI_Error_string(code, msg, &len);
	return cd_fail(err, CD_EDRIVER, "%s: %s", what, msg);
}

/* Waits for req until the deadline; CD_OK, or CD_EDRIVER after cancelling it. */
static int wait_until(MPI_Request *req, double deadline, const char *what, char *err)
{
	int done = 0, rc;

	while ((rc = MPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done) {
		if (now_s() > deadline)
			return cd_fail(err, CD_EDRIVER, "%s: not every rank answered in time", what);
		nap();
	}
	return rc == MPI_SUCCESS ? CD_OK : mpi_fail(err, rc, what);
}

struct entry {
	char name[FLEET_NODE_NAME];
	int node_rank;
};

static int init(const char *node, double timeout_s, struct fleet_mpi_rank *me, char *err)
{
	MPI_Comm host = MPI_COMM_NULL, nodecomm = MPI_COMM_NULL;
	struct entry mine, *all = NULL, *peers = NULL;
	MPI_Request req;
	int provided, rc, hsize, hrank, color = 0, ret = CD_OK;
	double deadline;

	memset(me, 0, sizeof *me);
	memset(&mine, 0, sizeof mine);
	snprintf(mine.name, sizeof mine.name, "%s", node);
	if ((rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided)) != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Init");
	deadline = now_s() + timeout_s;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &me->world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &me->world_size);
	/* ranks of one host, then of one node name within it */
	if ((rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me->world_rank, MPI_INFO_NULL, &host)) !=
	    MPI_SUCCESS) {
		ret = mpi_fail(err, rc, "MPI_Comm_split_type");
		goto out;
	}
	MPI_Comm_size(host, &hsize);
	MPI_Comm_rank(host, &hrank);
	peers = calloc((size_t)hsize, sizeof *peers);
	if (!peers) {
		ret = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	MPI_Iallgather(&mine, (int)sizeof mine, MPI_BYTE, peers, (int)sizeof mine, MPI_BYTE, host, &req);
	if ((ret = wait_until(&req, deadline, "gathering node names on this host", err)) != CD_OK)
		goto out;
	for (color = 0; color < hsize && strcmp(peers[color].name, mine.name) != 0; color++)
		;
	if ((rc = MPI_Comm_split(host, color, hrank, &nodecomm)) != MPI_SUCCESS) {
		ret = mpi_fail(err, rc, "MPI_Comm_split");
		goto out;
	}
	MPI_Comm_rank(nodecomm, &me->node_rank);
	mine.node_rank = me->node_rank;
	if (me->world_rank == 0 && !(all = calloc((size_t)me->world_size, sizeof *all))) {
		ret = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	MPI_Igather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
	if ((ret = wait_until(&req, deadline, "gathering every rank's node name", err)) != CD_OK)
		goto out;
	if (me->world_rank == 0) {
		me->leader_names = calloc((size_t)me->world_size, sizeof *me->leader_names);
		me->leader_ranks = calloc((size_t)me->world_size, sizeof *me->leader_ranks);
		if (!me->leader_names || !me->leader_ranks) {
			ret = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		for (int r = 0; r < me->world_size; r++) {
			if (all[r].node_rank != 0)
				continue;
			memcpy(me->leader_names[me->n_nodes], all[r].name, FLEET_NODE_NAME);
			me->leader_names[me->n_nodes][FLEET_NODE_NAME - 1] = '\0';
			me->leader_ranks[me->n_nodes++] = r;
		}
	}
out:
	free(all);
	free(peers);
	if (nodecomm != MPI_COMM_NULL)
		MPI_Comm_free(&nodecomm);
	if (host != MPI_COMM_NULL)
		MPI_Comm_free(&host);
	return ret;
}

static int send_report(const char *data, size_t len, char *err)
{
	int rc;

	if (len > (size_t)0x7fffffff)
		return cd_fail(err, CD_EUSAGE, "report of %zu bytes is too large to send", len);
	if ((rc = MPI_Send(data, (int)len, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD)) != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Send to rank 0");
	return CD_OK;
}

static int recv_report(double timeout_s, volatile sig_atomic_t *stop, int *from, char **data, size_t *len,
		       char *err)
{
	double deadline = now_s() + timeout_s;
	MPI_Status st;
	int flag = 0, count = 0, rc;
	char *buf;

	*data = NULL;
	*len = 0;
	for (;;) {
		if ((rc = MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st)) != MPI_SUCCESS)
			return mpi_fail(err, rc, "MPI_Iprobe");
		if (flag)
			break;
		if ((stop && *stop) || now_s() > deadline)
			return CD_ENOTFOUND;
		nap();
	}
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (count < 0 || !(buf = malloc((size_t)count + 1)))
		return cd_fail(err, CD_ENOMEM, "out of memory for a report of %d bytes", count);
	if ((rc = MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) !=
	    MPI_SUCCESS) {
		free(buf);
		return mpi_fail(err, rc, "MPI_Recv");
	}
	buf[count] = '\0';
	*from = st.MPI_SOURCE;
	*data = buf;
	*len = (size_t)count;
	return CD_OK;
}

/* With ranks that may never finalize, this rank leaves without MPI_Finalize (which would
 * wait for them): the launcher then ends the job, as it does for any rank that exits
 * early. MPI_Abort would do the same in theory; Open MPI 4.1's mpirun was seen to hang
 * or crash in its own teardown after MPI_Abort while a rank was stuck. */
static void finish(bool abort_rest, int code)
{
	if (!abort_rest) {
		MPI_Finalize();
		return;
	}
	fflush(NULL);
	_exit(code ? code : 1);
}

static void free_rank(struct fleet_mpi_rank *me)
{
	free(me->leader_names);
	free(me->leader_ranks);
	memset(me, 0, sizeof *me);
}

static int bcast(void *buf, size_t len, double timeout_s, char *err)
{
	MPI_Request req;
	int rc;

	if (len > (size_t)0x7fffffff)
		return cd_fail(err, CD_EUSAGE, "broadcast of %zu bytes is too large", len);
	if ((rc = MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD, &req)) != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Ibcast");
	return wait_until(&req, now_s() + timeout_s, "broadcasting from rank 0", err);
}

static int gather(const void *mine, size_t len, void *all, double timeout_s, char *err)
{
	MPI_Request req;
	int rc;

	if (len > (size_t)0x7fffffff)
		return cd_fail(err, CD_EUSAGE, "gather of %zu bytes is too large", len);
	if ((rc = MPI_Igather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD, &req)) !=
	    MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Igather");
	return wait_until(&req, now_s() + timeout_s, "gathering every rank's result", err);
}

static struct fleet_mpi api = {
	.abi = FLEET_MPI_ABI,
	.mpi_version = version_line,
	.init = init,
	.send = send_report,
	.recv = recv_report,
	.finish = finish,
	.free_rank = free_rank,
	.bcast = bcast,
	.gather = gather,
};

__attribute__((visibility("default"))) const struct fleet_mpi *cudoctor_fleet_mpi(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	if (!version_line[0] && MPI_Get_library_version(v, &len) == MPI_SUCCESS)
		snprintf(version_line, sizeof version_line, "%.*s", (int)strcspn(v, "\n"), v);
	return &api;
}
