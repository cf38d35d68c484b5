/* Loading libcuda.so.1 with dlopen and resolving each entry point by its versioned name. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cudrv.h"

/* Where driver libraries live when the loader's search does not find them: WSL2's
 * driver store, NVIDIA container toolkit mounts, and the distributions' paths. */
static const char *const known_dirs[] = {
	"/usr/lib/wsl/lib",
	"/usr/local/nvidia/lib64",
	"/usr/local/nvidia/lib",
	"/run/nvidia/driver/usr/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/lib64",
	"/usr/lib/aarch64-linux-gnu",
	NULL,
};

struct symbol {
	size_t offset;          /* of the pointer in struct cudrv */
	const char *names[3];   /* newest first */
};

#define SYM(field, ...) { offsetof(struct cudrv, field), { __VA_ARGS__ } }

static const struct symbol symbols[] = {
	SYM(Init, "cuInit"),
	SYM(DriverGetVersion, "cuDriverGetVersion"),
	SYM(GetErrorName, "cuGetErrorName"),
	SYM(GetErrorString, "cuGetErrorString"),
	SYM(DeviceGetCount, "cuDeviceGetCount"),
	SYM(DeviceGet, "cuDeviceGet"),
	SYM(DeviceGetName, "cuDeviceGetName"),
	SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
	SYM(DeviceTotalMem, "cuDeviceTotalMem_v2"),
	SYM(DeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid"),
	SYM(DeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
	SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
	SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	SYM(CtxSynchronize, "cuCtxSynchronize"),
	SYM(MemGetInfo, "cuMemGetInfo_v2"),
	SYM(MemAlloc, "cuMemAlloc_v2"),
	SYM(MemFree, "cuMemFree_v2"),
	SYM(MemAllocHost, "cuMemAllocHost_v2"),
	SYM(MemHostAlloc, "cuMemHostAlloc"),
	SYM(MemFreeHost, "cuMemFreeHost"),
	SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
	SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	SYM(MemcpyDtoD, "cuMemcpyDtoD_v2"),
	SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
	SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
	SYM(MemsetD8, "cuMemsetD8_v2"),
	SYM(MemsetD32, "cuMemsetD32_v2"),
	SYM(ModuleLoadData, "cuModuleLoadData"),
	SYM(ModuleUnload, "cuModuleUnload"),
	SYM(ModuleGetFunction, "cuModuleGetFunction"),
	SYM(ModuleGetGlobal, "cuModuleGetGlobal_v2"),
	SYM(FuncGetAttribute, "cuFuncGetAttribute"),
	SYM(FuncSetAttribute, "cuFuncSetAttribute"),
	SYM(LaunchKernel, "cuLaunchKernel"),
	SYM(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
	SYM(StreamCreate, "cuStreamCreate"),
	SYM(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"),
	SYM(StreamSynchronize, "cuStreamSynchronize"),
	SYM(StreamBeginCapture, "cuStreamBeginCapture_v2"),
	SYM(StreamEndCapture, "cuStreamEndCapture"),
	SYM(GraphInstantiate, "cuGraphInstantiateWithFlags"),
	SYM(GraphLaunch, "cuGraphLaunch"),
	SYM(GraphExecDestroy, "cuGraphExecDestroy"),
	SYM(GraphDestroy, "cuGraphDestroy"),
	SYM(EventCreate, "cuEventCreate"),
	SYM(EventRecord, "cuEventRecord"),
	SYM(EventSynchronize, "cuEventSynchronize"),
	SYM(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
	SYM(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
	SYM(MemAddressReserve, "cuMemAddressReserve"),
	SYM(MemAddressFree, "cuMemAddressFree"),
	SYM(MemCreate, "cuMemCreate"),
	SYM(MemRelease, "cuMemRelease"),
	SYM(MemMap, "cuMemMap"),
	SYM(MemUnmap, "cuMemUnmap"),
	SYM(MemSetAccess, "cuMemSetAccess"),
	SYM(MemGetAllocationGranularity, "cuMemGetAllocationGranularity"),
};

static void note_missing(struct cudrv *d, const char *name)
{
	size_t len = strlen(d->missing);

	snprintf(d->missing + len, sizeof(d->missing) - len, "%s%s", len ? " " : "", name);
}

static void resolve_symbols(struct cudrv *d)
{
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *p = NULL;

		for (size_t k = 0; k < 3 && symbols[i].names[k] && !p; k++)
			p = dlsym(d->handle, symbols[i].names[k]);
		if (!p)
			note_missing(d, symbols[i].names[0]);
		/* POSIX guarantees function pointers round-trip through void *. */
		memcpy((char *)d + symbols[i].offset, &p, sizeof(p));
	}
}

/* The file the loader actually mapped, whatever name we asked for. */
static void record_path(struct cudrv *d, const char *fallback)
{
	Dl_info info;
	void *sym = dlsym(d->handle, "cuInit");
	char real[PATH_MAX];

	if (sym && dladdr(sym, &info) && info.dli_fname && info.dli_fname[0] == '/')
		fallback = info.dli_fname;
	if (realpath(fallback, real))
		fallback = real;
	snprintf(d->path, sizeof(d->path), "%s", fallback);
}

int cudrv_load(struct cudrv *d, char *err)
{
	const char *override = getenv("CUDOCTOR_LIBCUDA");
	char path[PATH_MAX];
	char first_error[CD_ERRMSG] = "";

	memset(d, 0, sizeof(*d));
	if (override && *override) {
		d->handle = dlopen(override, RTLD_NOW | RTLD_LOCAL);
		if (!d->handle)
			return cd_fail(err, CD_ENOTFOUND, "CUDOCTOR_LIBCUDA=%s: %s", override, dlerror());
		snprintf(d->how, sizeof(d->how), "CUDOCTOR_LIBCUDA");
		record_path(d, override);
		goto loaded;
	}
	d->handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (d->handle) {
		snprintf(d->how, sizeof(d->how), "loader search");
		record_path(d, "libcuda.so.1");
		goto loaded;
	}
	snprintf(first_error, sizeof(first_error), "%s", dlerror());
	for (size_t i = 0; known_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/libcuda.so.1", known_dirs[i]);
		d->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (d->handle) {
			snprintf(d->how, sizeof(d->how), "known path");
			record_path(d, path);
			goto loaded;
		}
	}
	/* dlerror() already names the file: "libcuda.so.1: cannot open shared object file: ..." */
	return cd_fail(err, CD_ENOTFOUND, "%s", first_error);
loaded:
	resolve_symbols(d);
	return CD_OK;
}

void cudrv_unload(struct cudrv *d)
{
	if (d->handle)
		dlclose(d->handle);
	memset(d, 0, sizeof(*d));
}

static const struct {
	CUresult code;
	const char *name;
} fallback_names[] = {
	{ CUDA_SUCCESS, "CUDA_SUCCESS" },
	{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" },
	{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED" },
	{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
	{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
	{ CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE" },
	{ CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
	{ CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
	{ CUDA_ERROR_JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED" },
	{ CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND" },
	{ CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY" },
	{ CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
	{ CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
	{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN" },
};

const char *cudrv_result_name(const struct cudrv *d, CUresult r)
{
	const char *name = NULL;

	if (d && d->GetErrorName && d->GetErrorName(r, &name) == CUDA_SUCCESS && name)
		return name;
	for (size_t i = 0; i < sizeof(fallback_names) / sizeof(fallback_names[0]); i++)
		if (fallback_names[i].code == r)
			return fallback_names[i].name;
	return "CUDA_ERROR_(unnamed)";
}

int cudrv_fail(const struct cudrv *d, char *err, const char *call, CUresult r)
{
	return cd_fail(err, CD_EDRIVER, "%s: %s (%d)", call, cudrv_result_name(d, r), r);
}
