/* libnccl.so.2 loaded with dlopen through driver/loader: our own declarations of the few
 * NCCL types and entry points cudoctor uses (from NCCL's public API documentation), the
 * library's version, and its result codes as text. */
#ifndef CUDOCTOR_DRIVER_NCCL_H
#define CUDOCTOR_DRIVER_NCCL_H

#include <stddef.h>

#include "driver/cuda_types.h"
#include "driver/loader.h"
#include "util/version.h"

typedef enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7,
} ncclResult_t;

typedef enum { ncclInt32 = 2, ncclFloat32 = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;

typedef struct ncclComm *ncclComm_t;
typedef struct {
	char internal[128];
} ncclUniqueId;

/* The oldest release with every required entry point (ncclCommGetAsyncError came in 2.4). */
#define NCCL_MIN_MAJOR 2
#define NCCL_MIN_MINOR 4

struct nccl {
	struct dl_lib lib;
	int version_code;           /* as ncclGetVersion returns it: 22809 */
	struct version version;     /* 2.28.9 */

	ncclResult_t (*GetVersion)(int *version);
	ncclResult_t (*GetUniqueId)(ncclUniqueId *id);
	ncclResult_t (*CommInitAll)(ncclComm_t *comms, int ndev, const int *devlist);
	ncclResult_t (*CommInitRank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
	ncclResult_t (*CommDestroy)(ncclComm_t comm);
	ncclResult_t (*CommGetAsyncError)(ncclComm_t comm, ncclResult_t *async_error);
	ncclResult_t (*GroupStart)(void);
	ncclResult_t (*GroupEnd)(void);
	ncclResult_t (*AllReduce)(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
				  ncclComm_t comm, CUstream stream);
	ncclResult_t (*AllGather)(const void *send, void *recv, size_t send_count, ncclDataType_t type,
				  ncclComm_t comm, CUstream stream);
	ncclResult_t (*ReduceScatter)(const void *send, void *recv, size_t recv_count, ncclDataType_t type,
				      ncclRedOp_t op, ncclComm_t comm, CUstream stream);
	ncclResult_t (*Broadcast)(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
				  ncclComm_t comm, CUstream stream);
	const char *(*GetErrorString)(ncclResult_t r);
	const char *(*GetLastError)(ncclComm_t comm);    /* 2.13 and later; may be NULL */
};

/* 22809 -> 2.28.9 and 2304 -> 2.3.4 (NCCL_VERSION_CODE changed its layout in 2.9). */
struct version nccl_version_decode(int code);

/* Loads libnccl.so.2: $CUDOCTOR_LIBNCCL if set (only that file), else the loader's search
 * (LD_LIBRARY_PATH, the ld cache), else each of dirs (NULL-terminated, may be NULL).
 * CD_ENOTFOUND when nothing loads; CD_EUNSUPPORTED, with the version and the missing entry
 * points named, when the library is older than NCCL_MIN_MAJOR.NCCL_MIN_MINOR. */
int nccl_load(struct nccl *n, const char *const *dirs, char *err);
void nccl_unload(struct nccl *n);

/* "ncclUnhandledCudaError" for a result code, "ncclResult(42)" for an unknown one. */
const char *nccl_result_name(ncclResult_t r);
/* A failed call as one line: "ncclCommInitAll: ncclUnhandledCudaError (1): unhandled cuda
 * error; NCCL says: <ncclGetLastError>". Returns CD_EDRIVER. */
int nccl_fail(const struct nccl *n, char *err, const char *call, ncclResult_t r);

#endif
