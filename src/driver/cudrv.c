/* Loading libcuda.so.1 with dlopen and resolving each entry point by its versioned name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cudrv.h"
#include "driver/loader.h"

#define SYM(field, ...) { offsetof(struct cudrv, field), { __VA_ARGS__ } }

static const struct dl_symbol symbols[] = {
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
	SYM(ArrayCreate, "cuArrayCreate_v2"),
	SYM(ArrayDestroy, "cuArrayDestroy"),
	SYM(Memcpy2D, "cuMemcpy2D_v2"),
	SYM(TexObjectCreate, "cuTexObjectCreate"),
	SYM(TexObjectDestroy, "cuTexObjectDestroy"),
	SYM(CtxSetLimit, "cuCtxSetLimit"),
	SYM(CtxGetLimit, "cuCtxGetLimit"),
	SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
	SYM(StreamQuery, "cuStreamQuery"),
	SYM(DeviceCanAccessPeer, "cuDeviceCanAccessPeer"),
	SYM(DeviceGetP2PAttribute, "cuDeviceGetP2PAttribute"),
	SYM(CtxEnablePeerAccess, "cuCtxEnablePeerAccess"),
	SYM(CtxDisablePeerAccess, "cuCtxDisablePeerAccess"),
	SYM(MemcpyPeerAsync, "cuMemcpyPeerAsync"),
	SYM(StreamWaitEvent, "cuStreamWaitEvent"),
};

int cudrv_load(struct cudrv *d, char *err)
{
	static const struct dl_spec spec = { CUDRV_SONAME, "CUDOCTOR_LIBCUDA", "cuInit", NULL, true };
	struct dl_lib lib;
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = dl_open(&spec, &lib, err)) != CD_OK)
		return rc;
	dl_bind(&lib, symbols, sizeof(symbols) / sizeof(symbols[0]), d, NULL);
	d->handle = lib.handle;
	snprintf(d->path, sizeof(d->path), "%s", lib.path);
	snprintf(d->how, sizeof(d->how), "%s", lib.how);
	snprintf(d->missing, sizeof(d->missing), "%s", lib.missing);
	return CD_OK;
}

void cudrv_unload(struct cudrv *d)
{
	struct dl_lib lib = { .handle = d->handle };

	dl_close(&lib);
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
