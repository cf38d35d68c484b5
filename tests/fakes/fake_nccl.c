/* A fake libnccl.so.2 for the failure paths of NCCL's loading and initialisation and for the
 * fleet's timings, answering from FAKE_NCCL_* environment variables (see tests/fakes/README.md).
 * Built twice: the normal library and, with FAKE_OLD_ABI, a 2.3 release without
 * ncclCommGetAsyncError and ncclGetLastError. Collectives succeed and touch no memory unless
 * FAKE_NCCL_SUM asks the all-reduce to write its result. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#define EXPORT __declspec(dllexport) /* a DLL exports only these */
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef int ncclResult_t;
typedef struct fake_comm *ncclComm_t;
typedef struct {
	char internal[128];
} ncclUniqueId;

struct fake_comm {
	int rank, nranks;
};

static struct fake_comm comms[8];

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

/* This process plays the node named by the variable's value (CUDOCTOR_NODE). */
static int on_node(const char *value, size_t len)
{
	const char *me = getenv("CUDOCTOR_NODE");
	return me && strlen(me) == len && strncmp(me, value, len) == 0;
}

/* FAKE_NCCL_INIT_FAIL="NODE:CALL:RESULT": the CALL-th ncclCommInitRank of NODE returns RESULT. */
static int init_fails(void)
{
	static int calls;
	const char *v = getenv("FAKE_NCCL_INIT_FAIL"), *colon;
	int call = 0, result = 0;

	calls++;
	if (!v || !(colon = strchr(v, ':')) || !on_node(v, (size_t)(colon - v)))
		return 0;
	if (sscanf(colon + 1, "%d:%d", &call, &result) != 2 || call != calls)
		return 0;
	return result;
}

/* A collective's time: FAKE_NCCL_BASE_MS everywhere, FAKE_NCCL_SLOW_MS (default 100) more on
 * the node FAKE_NCCL_SLOW_NODE names. Back-to-back collectives are timed from when the one
 * before was due to end, as on a GPU's stream: a late wake-up on a loaded machine is made up
 * by the next call instead of adding up over a batch. */
static void take_time(void)
{
	static struct timespec due;
	struct timespec now;
	const char *slow = getenv("FAKE_NCCL_SLOW_NODE");
	long ms = env_int("FAKE_NCCL_BASE_MS", 0), late_ms;

	if (slow && on_node(slow, strlen(slow)))
		ms += env_int("FAKE_NCCL_SLOW_MS", 100);
	if (ms <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	late_ms = (now.tv_sec - due.tv_sec) * 1000 + (now.tv_nsec - due.tv_nsec) / 1000000;
	if (late_ms < 0 || late_ms > ms) /* not back to back: starts now */
		due = now;
	due.tv_sec += ms / 1000;
	due.tv_nsec += ms % 1000 * 1000000L;
	if (due.tv_nsec >= 1000000000L) {
		due.tv_sec++;
		due.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR)
		;
}

#ifdef FAKE_OLD_ABI
#define DEFAULT_VERSION 2304
#else
#define DEFAULT_VERSION 22809
#endif

EXPORT ncclResult_t ncclGetVersion(int *version)
{
	*version = env_int("FAKE_NCCL_VERSION", DEFAULT_VERSION);
	return 0;
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	for (size_t i = 0; i < sizeof id->internal; i++)
		id->internal[i] = (char)i;
	return 0;
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *out, int ndev, const int *devlist)
{
	int r = env_int("FAKE_NCCL_INIT_RESULT", 0);

	if (r)
		return r;
	if (ndev < 1 || ndev > 8)
		return 4; /* ncclInvalidArgument */
	for (int i = 0; i < ndev; i++) {
		comms[i].rank = devlist ? devlist[i] : i;
		out[i] = &comms[i];
	}
	return 0;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank)
{
	int r = env_int("FAKE_NCCL_INIT_RESULT", 0), f = init_fails();

	(void)id;
	if (r)
		return r;
	if (f)
		return f;
	if (rank < 0 || rank >= nranks || rank >= 8)
		return 4;
	comms[rank].rank = rank;
	comms[rank].nranks = nranks;
	*out = &comms[rank];
	return 0;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	(void)comm;
	return 0;
}

#ifndef FAKE_OLD_ABI
EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error)
{
	(void)comm;
	*async_error = env_int("FAKE_NCCL_ASYNC_ERROR", 0);
	return 0;
}

EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
	const char *v = getenv("FAKE_NCCL_LAST_ERROR");

	(void)comm;
	return v ? v : "";
}
#endif

EXPORT ncclResult_t ncclGroupStart(void)
{
	return 0;
}

EXPORT ncclResult_t ncclGroupEnd(void)
{
	return 0;
}

/* FAKE_NCCL_SUM=1 (device pointers are host memory: the fake libcuda's FAKE_CUDA_MEMORY):
 * a float sum writes what every comm rank k sending k+1 gives, n(n+1)/2; FAKE_NCCL_SUM=wrong
 * writes one more. */
EXPORT ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, int t, int op, ncclComm_t c, void *st)
{
	const char *sum = getenv("FAKE_NCCL_SUM");

	(void)s, (void)st;
	take_time();
	if (sum && c && r && t == 7 /* ncclFloat32 */ && op == 0 /* ncclSum */) {
		float v = (float)c->nranks * (float)(c->nranks + 1) / 2.0f + (strcmp(sum, "wrong") == 0 ? 1.0f : 0.0f);
		for (size_t i = 0; i < n; i++)
			((float *)r)[i] = v;
	}
	return 0;
}

EXPORT ncclResult_t ncclAllGather(const void *s, void *r, size_t n, int t, ncclComm_t c, void *st)
{
	(void)s, (void)r, (void)n, (void)t, (void)c, (void)st;
	return 0;
}

EXPORT ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, ncclComm_t c, void *st)
{
	(void)s, (void)r, (void)n, (void)t, (void)op, (void)c, (void)st;
	return 0;
}

EXPORT ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, int t, int root, ncclComm_t c, void *st)
{
	(void)s, (void)r, (void)n, (void)t, (void)root, (void)c, (void)st;
	return 0;
}

EXPORT const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case 0: return "no error";
	case 1: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case 2: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case 3: return "internal error - please report this issue to the NCCL developers";
	case 4: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case 5: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	default: return "unknown result code";
	}
}
