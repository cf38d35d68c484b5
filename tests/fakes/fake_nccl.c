/* A fake libnccl.so.2 for the failure paths of NCCL's loading and initialisation, answering
 * from FAKE_NCCL_* environment variables (see tests/fakes/README.md). Built twice: the normal
 * library and, with FAKE_OLD_ABI, a 2.3 release without ncclCommGetAsyncError and
 * ncclGetLastError. Collectives touch no memory and succeed. */
#include <stddef.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

typedef int ncclResult_t;
typedef struct fake_comm *ncclComm_t;
typedef struct {
	char internal[128];
} ncclUniqueId;

struct fake_comm {
	int rank;
};

static struct fake_comm comms[8];

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
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
	int r = env_int("FAKE_NCCL_INIT_RESULT", 0);

	(void)id;
	if (r)
		return r;
	if (rank < 0 || rank >= nranks || rank >= 8)
		return 4;
	comms[rank].rank = rank;
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

EXPORT ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, int t, int op, ncclComm_t c, void *st)
{
	(void)s, (void)r, (void)n, (void)t, (void)op, (void)c, (void)st;
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
