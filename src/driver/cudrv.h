/* libcuda.so.1 loaded with dlopen: one function pointer per entry point, each
 * optional. A missing symbol leaves its pointer NULL and is listed in `missing`. */
#ifndef CUDOCTOR_CUDRV_H
#define CUDOCTOR_CUDRV_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/cuda_types.h"
#include "util/err.h"

struct cudrv {
	void *handle;
	char path[4096];            /* the file actually loaded (resolved) */
	char how[64];               /* "CUDOCTOR_LIBCUDA", "loader search", "known path" */
	char missing[1024];         /* space-separated symbols that were not found */

	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*GetErrorName)(CUresult e, const char **name);
	CUresult (*GetErrorString)(CUresult e, const char **str);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *value, int attrib, CUdevice dev);
	CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);              /* _v2 */
	CUresult (*DeviceGetUuid)(CUuuid *uuid, CUdevice dev);                /* _v2, else v1 */
	CUresult (*DeviceGetPCIBusId)(char *bus_id, int len, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);                    /* _v2 */
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);      /* _v2 */
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytes);                /* _v2 */
	CUresult (*MemFree)(CUdeviceptr dptr);                                /* _v2 */
	CUresult (*MemAllocHost)(void **pp, size_t bytes);                    /* _v2 */
	CUresult (*MemHostAlloc)(void **pp, size_t bytes, unsigned int flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);   /* _v2 */
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);         /* _v2 */
	CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);   /* _v2 */
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s); /* _v2 */
	CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);       /* _v2 */
	CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char v, size_t n);         /* _v2 */
	CUresult (*MemsetD32)(CUdeviceptr dst, unsigned int v, size_t n);         /* _v2 */
	CUresult (*ModuleLoadData)(CUmodule *mod, const void *image);
	CUresult (*ModuleUnload)(CUmodule mod);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*ModuleGetGlobal)(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name); /* _v2 */
	CUresult (*FuncGetAttribute)(int *value, int attrib, CUfunction fn);
	CUresult (*FuncSetAttribute)(CUfunction fn, int attrib, int value);
	CUresult (*LaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
				 unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
				 CUstream s, void **params, void **extra);
	CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn,
							      int block_size, size_t dyn_smem);
	CUresult (*StreamCreate)(CUstream *s, unsigned int flags);
	CUresult (*StreamDestroy)(CUstream s);                                /* _v2 */
	CUresult (*StreamSynchronize)(CUstream s);
	CUresult (*StreamBeginCapture)(CUstream s, int mode);                 /* _v2 */
	CUresult (*StreamEndCapture)(CUstream s, CUgraph *g);
	CUresult (*GraphInstantiate)(CUgraphExec *e, CUgraph g, unsigned long long flags); /* WithFlags */
	CUresult (*GraphLaunch)(CUgraphExec e, CUstream s);
	CUresult (*GraphExecDestroy)(CUgraphExec e);
	CUresult (*GraphDestroy)(CUgraph g);
	CUresult (*EventCreate)(CUevent *e, unsigned int flags);
	CUresult (*EventRecord)(CUevent e, CUstream s);
	CUresult (*EventSynchronize)(CUevent e);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);  /* _v2, else v1 */
	CUresult (*EventDestroy)(CUevent e);                                  /* _v2 */
	CUresult (*MemAddressReserve)(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
				      unsigned long long flags);
	CUresult (*MemAddressFree)(CUdeviceptr ptr, size_t size);
	CUresult (*MemCreate)(CUmemGenericAllocationHandle *h, size_t size,
			      const CUmemAllocationProp *prop, unsigned long long flags);
	CUresult (*MemRelease)(CUmemGenericAllocationHandle h);
	CUresult (*MemMap)(CUdeviceptr ptr, size_t size, size_t offset,
			   CUmemGenericAllocationHandle h, unsigned long long flags);
	CUresult (*MemUnmap)(CUdeviceptr ptr, size_t size);
	CUresult (*MemSetAccess)(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
	CUresult (*MemGetAllocationGranularity)(size_t *granularity, const CUmemAllocationProp *prop,
						int option);
	CUresult (*ArrayCreate)(CUarray *array, const CUDA_ARRAY_DESCRIPTOR *desc);  /* _v2 */
	CUresult (*ArrayDestroy)(CUarray array);
	CUresult (*Memcpy2D)(const CUDA_MEMCPY2D *copy);                              /* _v2 */
	CUresult (*TexObjectCreate)(CUtexObject *tex, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *td,
				    const void *view); /* view: CUDA_RESOURCE_VIEW_DESC, NULL here */
	CUresult (*TexObjectDestroy)(CUtexObject tex);
	CUresult (*CtxSetLimit)(int limit, size_t value);
	CUresult (*CtxGetLimit)(size_t *value, int limit);
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *dptr, void *p, unsigned int flags); /* _v2 */
	CUresult (*StreamQuery)(CUstream s);
	/* peer to peer */
	CUresult (*DeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
	CUresult (*DeviceGetP2PAttribute)(int *value, int attrib, CUdevice src, CUdevice dst);
	CUresult (*CtxEnablePeerAccess)(CUcontext peer, unsigned int flags);
	CUresult (*CtxDisablePeerAccess)(CUcontext peer);
	CUresult (*MemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
				    size_t bytes, CUstream s);
	CUresult (*StreamWaitEvent)(CUstream s, CUevent e, unsigned int flags);
};

/* Loads libcuda: $CUDOCTOR_LIBCUDA if set (only that file), else dlopen("libcuda.so.1")
 * as the CUDA runtime does (so LD_LIBRARY_PATH applies), else the known places
 * (WSL /usr/lib/wsl/lib, container driver mounts). CD_ENOTFOUND with err naming
 * what was tried when nothing loads. Does not call cuInit. */
int cudrv_load(struct cudrv *d, char *err);
void cudrv_unload(struct cudrv *d);

/* "CUDA_ERROR_NO_DEVICE" via cuGetErrorName, else our own short table, else
 * "CUDA_ERROR_(unnamed)"; cudrv_fail adds the number. */
const char *cudrv_result_name(const struct cudrv *d, CUresult r);

/* A failed call as one line: "cuInit: CUDA_ERROR_NO_DEVICE (100)". Returns CD_EDRIVER. */
int cudrv_fail(const struct cudrv *d, char *err, const char *call, CUresult r);

#endif
