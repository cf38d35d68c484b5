/* NCCL through the one loader: binding, the version check, result codes as text. */
#include "driver/nccl.h"

#include <stdio.h>
#include <string.h>

#include "util/err.h"

#define SYM(field, ...) { offsetof(struct nccl, field), { __VA_ARGS__ } }

static const struct dl_symbol symbols[] = {
	SYM(GetVersion, "ncclGetVersion"),
	SYM(GetUniqueId, "ncclGetUniqueId"),
	SYM(CommInitAll, "ncclCommInitAll"),
	SYM(CommInitRank, "ncclCommInitRank"),
	SYM(CommDestroy, "ncclCommDestroy"),
	SYM(CommGetAsyncError, "ncclCommGetAsyncError"),
	SYM(GroupStart, "ncclGroupStart"),
	SYM(GroupEnd, "ncclGroupEnd"),
	SYM(AllReduce, "ncclAllReduce"),
	SYM(AllGather, "ncclAllGather"),
	SYM(ReduceScatter, "ncclReduceScatter"),
	SYM(Broadcast, "ncclBroadcast"),
	SYM(GetErrorString, "ncclGetErrorString"),
	SYM(GetLastError, "ncclGetLastError"),
};

struct version nccl_version_decode(int code)
{
	struct version v = { 0, 0, 0, 3 };

	if (code >= 10000) {
		v.major = code / 10000;
		v.minor = code % 10000 / 100;
	} else {
		v.major = code / 1000;
		v.minor = code % 1000 / 100;
	}
	v.patch = code % 100;
	return v;
}

static bool required_missing(const struct nccl *n)
{
	/* every entry point but ncclGetLastError, which only 2.13 and later have */
	return !n->GetVersion || !n->GetUniqueId || !n->CommInitAll || !n->CommInitRank || !n->CommDestroy ||
	       !n->CommGetAsyncError || !n->GroupStart || !n->GroupEnd || !n->AllReduce || !n->AllGather ||
	       !n->ReduceScatter || !n->Broadcast || !n->GetErrorString;
}

int nccl_load(struct nccl *n, const char *const *dirs, char *err)
{
	static const struct dl_spec spec = {
		.soname = "libnccl.so.2", .override_env = "CUDOCTOR_LIBNCCL", .path_symbol = "ncclGetVersion",
	};
	struct dl_spec s = spec;
	int rc;

	memset(n, 0, sizeof *n);
	s.dirs = dirs;
	if ((rc = dl_open(&s, &n->lib, err)) != CD_OK)
		return rc;
	dl_bind(&n->lib, symbols, sizeof symbols / sizeof symbols[0], n, NULL);
	if (n->GetVersion && n->GetVersion(&n->version_code) == ncclSuccess)
		n->version = nccl_version_decode(n->version_code);
	if (n->version.major < NCCL_MIN_MAJOR ||
	    (n->version.major == NCCL_MIN_MAJOR && n->version.minor < NCCL_MIN_MINOR) || required_missing(n)) {
		char path[sizeof n->lib.path], missing[sizeof n->lib.missing];
		struct version v = n->version;

		snprintf(path, sizeof path, "%s", n->lib.path);
		snprintf(missing, sizeof missing, "%s", n->lib.missing);
		nccl_unload(n);
		return cd_fail(err, CD_EUNSUPPORTED, "%s is NCCL %d.%d.%d, older than %d.%d%s%s", path, v.major, v.minor,
			       v.patch, NCCL_MIN_MAJOR, NCCL_MIN_MINOR, missing[0] ? "; missing: " : "", missing);
	}
	return CD_OK;
}

void nccl_unload(struct nccl *n)
{
	dl_close(&n->lib);
	memset(n, 0, sizeof *n);
}

const char *nccl_result_name(ncclResult_t r)
{
	static const char *const names[] = {
		"ncclSuccess",		"ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
		"ncclInvalidArgument", "ncclInvalidUsage",	  "ncclRemoteError", "ncclInProgress",
	};

	if ((unsigned)r < sizeof names / sizeof names[0])
		return names[r];
	return "ncclResult(unknown)";
}

int nccl_fail(const struct nccl *n, char *err, const char *call, ncclResult_t r)
{
	const char *text = n->GetErrorString ? n->GetErrorString(r) : NULL;
	const char *last = n->GetLastError ? n->GetLastError(NULL) : NULL;

	return cd_fail(err, CD_EDRIVER, "%s: %s (%d)%s%s%s%s", call, nccl_result_name(r), (int)r, text ? ": " : "",
		       text ? text : "", last && *last ? "; NCCL says: " : "", last && *last ? last : "");
}
