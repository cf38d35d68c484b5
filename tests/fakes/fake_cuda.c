/* A fake libcuda.so.1 for tests: the driver API subset cudoctor calls, answering from
 * FAKE_* environment variables (see tests/fakes/README.md). Built twice: the normal
 * library and, with FAKE_OLD_ABI, one that lacks the _v2 entry points of old drivers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpus.h"
#include "fake_topo.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct { char bytes[16]; } CUuuid;
typedef void *CUcontext;

#ifdef _WIN32
#define EXPORT __declspec(dllexport) /* a DLL exports only these */
#else
#define EXPORT __attribute__((visibility("default")))
#endif

enum {
	OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, NO_DEVICE = 100,
	INVALID_DEVICE = 101, INVALID_CONTEXT = 201,
};

static const struct { CUresult code; const char *name, *text; } errors[] = {
	{ 0, "CUDA_SUCCESS", "no error" },
	{ 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ 34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library" },
	{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device" },
	{ 217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported across the given devices" },
	{ 704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled" },
	{ 705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled" },
	{ 711, "CUDA_ERROR_TOO_MANY_PEERS", "peer mapping resources exhausted" },
	{ 802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized" },
	{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW" },
	{ 999, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static int initialized;
static int current_dev = -1;
/* allocations (unused in the FAKE_OLD_ABI build, which has no cuMemAlloc_v2) */
#define UNUSED_OK __attribute__((unused))
static UNUSED_OK unsigned long long allocated[FAKE_MAX_GPUS];
static UNUSED_OK struct { CUdeviceptr ptr; unsigned long long size; int dev; } allocs[256];
static UNUSED_OK CUdeviceptr next_ptr = 0x7f0000000000ULL;
static char contexts[FAKE_MAX_GPUS];

/* CUDA ordinal -> PCI-order index under CUDA_DEVICE_ORDER, FAKE_CUDA_ORDER and
 * CUDA_VISIBLE_DEVICES, as the real driver enumerates. Returns the count. */
static int visible_devices(struct fake_gpu g[FAKE_MAX_GPUS], int map[FAKE_MAX_GPUS])
{
	int n = fake_gpus_parse(g);
	int order[FAKE_MAX_GPUS];
	const char *dev_order = getenv("CUDA_DEVICE_ORDER");
	const char *custom = getenv("FAKE_CUDA_ORDER");
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	int count = 0;

	for (int i = 0; i < n; i++)
		order[i] = i;
	if (custom && !(dev_order && strcmp(dev_order, "PCI_BUS_ID") == 0)) {
		int k = 0, used = 0;
		for (const char *p = custom; *p && k < n;) {
			char *end;
			long v = strtol(p, &end, 10);
			if (end == p || v < 0 || v >= n || (used & (1 << v)))
				break;
			used |= 1 << v;
			order[k++] = (int)v;
			p = *end == ',' ? end + 1 : end;
		}
		if (k != n)
			for (int i = 0; i < n; i++)
				order[i] = i;
	}
	if (!vis) {
		memcpy(map, order, sizeof(int) * (size_t)n);
		return n;
	}
	int used = 0;
	for (const char *p = vis; *p && count < n;) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int pick = -1;
		char *num_end;
		long v = strtol(p, &num_end, 10);

		if (num_end != p && (size_t)(num_end - p) == len) {
			if (v >= 0 && v < n)
				pick = order[v];
		} else if (len > 4 && strncmp(p, "GPU-", 4) == 0) {
			for (int i = 0; i < n; i++) {
				char text[64];
				fake_uuid_text(g[i].uuid, text, sizeof(text));
				if (strncmp(text, p, len) == 0) {
					if (pick >= 0) { pick = -1; break; } /* ambiguous prefix */
					pick = i;
				}
			}
		}
		if (pick < 0 || (used & (1 << pick)))
			break; /* the driver stops at the first invalid token */
		used |= 1 << pick;
		map[count++] = pick;
		if (!end)
			break;
		p = end + 1;
	}
	return count;
}

static CUresult device(CUdevice dev, struct fake_gpu *out)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int map[FAKE_MAX_GPUS];

	if (!initialized)
		return NOT_INITIALIZED;
	int n = visible_devices(g, map);
	if (dev < 0 || dev >= n)
		return INVALID_DEVICE;
	*out = g[map[dev]];
	return OK;
}

/* FAKE_CUDA_CALL_LOG=FILE: each call named here appends its name and a newline, so a
 * test can tell whether it was made at all (e.g. that cuInit was skipped), and how often the
 * library was loaded ("load libcuda", each time the loader maps it in). */
static void log_call(const char *name)
{
	fake_call_log("FAKE_CUDA_CALL_LOG", name);
}

__attribute__((constructor)) static void on_load(void)
{
	log_call("load libcuda");
}

EXPORT CUresult cuInit(unsigned int flags)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int map[FAKE_MAX_GPUS];
	CUresult r = (CUresult)fake_env_int("FAKE_CUDA_INIT_RESULT", 0);

	log_call("cuInit");
	/* FAKE_CUDA_INIT_MS=N: cuInit takes N ms, as a real driver's takes 0.1-0.3 s */
	fake_sleep_ms(fake_env_int("FAKE_CUDA_INIT_MS", 0));
	if (flags != 0)
		return INVALID_VALUE;
	if (r == OK && visible_devices(g, map) == 0)
		r = NO_DEVICE;
	initialized = r == OK;
	return r;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
	if (!v)
		return INVALID_VALUE;
	*v = (int)fake_env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
	return OK;
}

EXPORT CUresult cuGetErrorName(CUresult e, const char **name)
{
	if (!name)
		return INVALID_VALUE;
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == e) {
			*name = errors[i].name;
			return OK;
		}
	*name = NULL;
	return INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult e, const char **str)
{
	if (!str)
		return INVALID_VALUE;
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == e) {
			*str = errors[i].text;
			return OK;
		}
	*str = NULL;
	return INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int map[FAKE_MAX_GPUS];

	if (!count)
		return INVALID_VALUE;
	if (!initialized)
		return NOT_INITIALIZED;
	*count = visible_devices(g, map);
	return OK;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	struct fake_gpu g;
	CUresult r;

	if (!dev)
		return INVALID_VALUE;
	r = device(ordinal, &g);
	if (r == OK)
		*dev = ordinal;
	return r;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!name || len <= 0)
		return INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", g.name);
	return OK;
}

static int attribute(const struct fake_gpu *g, int attrib, int *ok)
{
	struct fake_cc_defaults d;

	fake_cc_defaults(g->cc_major, g->cc_minor, &d);
	*ok = 1;
	switch (attrib) {
	case 1: return 1024;                   /* MAX_THREADS_PER_BLOCK */
	case 2: return 1024;
	case 3: return 1024;
	case 4: return 64;
	case 5: return 2147483647;
	case 6: return 65535;
	case 7: return 65535;
	case 8: return 49152;                  /* MAX_SHARED_MEMORY_PER_BLOCK */
	case 9: return 65536;                  /* TOTAL_CONSTANT_MEMORY */
	case 10: return 32;                    /* WARP_SIZE */
	case 11: return 2147483647;            /* MAX_PITCH */
	case 12: return 65536;                 /* MAX_REGISTERS_PER_BLOCK */
	case 13: return d.clock_khz;           /* CLOCK_RATE */
	case 14: return 512;                   /* TEXTURE_ALIGNMENT */
	case 15: return 1;                     /* GPU_OVERLAP */
	case 16: return g->sm_count;           /* MULTIPROCESSOR_COUNT */
	case 17: return 0;                     /* KERNEL_EXEC_TIMEOUT */
	case 18: return 0;                     /* INTEGRATED */
	case 19: return 1;                     /* CAN_MAP_HOST_MEMORY */
	case 20: return (int)fake_env_gpu_int("FAKE_CUDA_COMPUTE_MODE", g->index, 0);
	case 31: return 1;                     /* CONCURRENT_KERNELS */
	case 32: return g->cc_major >= 7 && g->cc_major < 10 && g->cc_minor == 0; /* ECC_ENABLED */
	case 33: return g->pci_bus;
	case 34: return g->pci_device;
	case 35: return 0;                     /* TCC_DRIVER */
	case 36: return d.mem_clock_khz;
	case 37: return d.bus_width_bits;
	case 38: return d.l2_bytes;
	case 39: return d.threads_per_sm;
	case 40: return g->cc_major >= 8 ? 3 : 2; /* ASYNC_ENGINE_COUNT */
	case 41: return 1;                     /* UNIFIED_ADDRESSING */
	case 50: return g->pci_domain;
	case 75: return g->cc_major;
	case 76: return g->cc_minor;
	case 79: return 1;
	case 80: return 1;
	case 81: return d.smem_per_sm;
	case 82: return 65536;
	case 83: return 1;                     /* MANAGED_MEMORY */
	case 84: return 0;                     /* MULTI_GPU_BOARD */
	case 85: return 0;
	case 95: return 1;                     /* COOPERATIVE_LAUNCH */
	case 97: return d.smem_optin;
	case 102: return 1;
	case 106: return d.blocks_per_sm;
	case 108: return d.l2_bytes * 3 / 4;   /* MAX_PERSISTING_L2_CACHE_SIZE */
	case 111: return 1024;                 /* RESERVED_SHARED_MEMORY_PER_BLOCK */
	default: *ok = 0; return 0;
	}
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attrib, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);
	char word[16];
	int ok;

	if (r != OK)
		return r;
	if (!value)
		return INVALID_VALUE;
	snprintf(word, sizeof(word), "%d", attrib);
	if (fake_env_has_word("FAKE_CUDA_ATTR_UNSUPPORTED", word))
		return INVALID_VALUE; /* as an old driver answers an attribute it does not know */
	int v = attribute(&g, attrib, &ok);
	if (!ok)
		return INVALID_VALUE;
	*value = v;
	return OK;
}

#ifndef FAKE_OLD_ABI
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!bytes)
		return INVALID_VALUE;
	*bytes = (size_t)g.memory_bytes;
	return OK;
}
#endif

/* The CUDA 3.x ABI: 32-bit sizes. Present in every driver, also the new ones. */
EXPORT CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!bytes)
		return INVALID_VALUE;
	*bytes = g.memory_bytes > 0xffffffffULL ? 0xffffffffU : (unsigned int)g.memory_bytes;
	return OK;
}

EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!uuid)
		return INVALID_VALUE;
	memcpy(uuid->bytes, g.uuid, 16);
	return OK;
}

#ifndef FAKE_OLD_ABI
EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	return cuDeviceGetUuid(uuid, dev);
}
#endif

EXPORT CUresult cuDeviceGetPCIBusId(char *bus_id, int len, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!bus_id || len <= 0)
		return INVALID_VALUE;
	snprintf(bus_id, (size_t)len, "%04x:%02x:%02x.0", g.pci_domain, g.pci_bus, g.pci_device);
	return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	struct fake_gpu g;
	CUresult r = device(dev, &g);

	if (r != OK)
		return r;
	if (!ctx)
		return INVALID_VALUE;
	*ctx = &contexts[dev];
	return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	struct fake_gpu g;
	return device(dev, &g);
}

#ifndef FAKE_OLD_ABI
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	return cuDevicePrimaryCtxRelease(dev);
}
#endif

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	if (!initialized)
		return NOT_INITIALIZED;
	if (!ctx) {
		current_dev = -1;
		return OK;
	}
	if ((char *)ctx < contexts || (char *)ctx >= contexts + FAKE_MAX_GPUS)
		return INVALID_CONTEXT;
	current_dev = (int)((char *)ctx - contexts);
	return OK;
}

EXPORT CUresult cuCtxSynchronize(void)
{
	return current_dev < 0 ? INVALID_CONTEXT : OK;
}

#ifndef FAKE_OLD_ABI
/* Free memory: total minus FAKE_CUDA_MEM_USED="GPU:BYTES;..." (PCI order) minus our allocations. */
EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int map[FAKE_MAX_GPUS];
	unsigned long long used = 0;

	if (!initialized)
		return NOT_INITIALIZED;
	if (current_dev < 0 || current_dev >= visible_devices(g, map))
		return INVALID_CONTEXT;
	if (!free_bytes || !total_bytes)
		return INVALID_VALUE;
	int pci = map[current_dev];
	fake_env_gpu_values("FAKE_CUDA_MEM_USED", pci, &used, 1);
	unsigned long long taken = used + allocated[current_dev];
	*total_bytes = (size_t)g[pci].memory_bytes;
	*free_bytes = taken >= g[pci].memory_bytes ? 0 : (size_t)(g[pci].memory_bytes - taken);
	return OK;
}

/* FAKE_CUDA_MEMORY=1: allocations are host memory, and the synchronous copies and
 * cuStreamSynchronize work (streams need FAKE_CUDA_MODULES=1 too). */
static int memory_on(void)
{
	return fake_env_int("FAKE_CUDA_MEMORY", 0) == 1;
}

/* 1 when [p, p+n) lies inside one allocation. */
static int backed(CUdeviceptr p, size_t n)
{
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (allocs[i].ptr && p >= allocs[i].ptr && p - allocs[i].ptr + n <= allocs[i].size)
			return 1;
	return 0;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	if (!memory_on())
		return 801;
	if (!src || !backed(dst, n))
		return INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, n);
	return OK;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	if (!memory_on())
		return 801;
	if (!dst || !backed(src, n))
		return INVALID_VALUE;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return OK;
}

EXPORT CUresult cuStreamSynchronize(void *stream)
{
	(void)stream;
	return memory_on() ? OK : 801;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
	size_t free_bytes, total;
	CUresult r = cuMemGetInfo_v2(&free_bytes, &total);

	if (r != OK)
		return r;
	if (!dptr || bytes == 0)
		return INVALID_VALUE;
	if (bytes > free_bytes)
		return OUT_OF_MEMORY;
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (!allocs[i].ptr) {
			if (memory_on()) { /* real bytes behind the pointer, for copies and fake collectives */
				void *m = malloc(bytes);
				if (!m)
					return OUT_OF_MEMORY;
				allocs[i].ptr = (CUdeviceptr)(uintptr_t)m;
				allocs[i].size = bytes;
				allocs[i].dev = current_dev;
				allocated[current_dev] += bytes;
				*dptr = allocs[i].ptr;
				return OK;
			}
			allocs[i].ptr = next_ptr;
			allocs[i].size = bytes;
			allocs[i].dev = current_dev;
			allocated[current_dev] += bytes;
			*dptr = next_ptr;
			next_ptr += (bytes + 0xfffff) & ~0xfffffULL;
			return OK;
		}
	return OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (allocs[i].ptr && allocs[i].ptr == dptr) {
			allocated[allocs[i].dev] -= allocs[i].size;
			if (memory_on())
				free((void *)(uintptr_t)allocs[i].ptr);
			allocs[i].ptr = 0;
			return OK;
		}
	return INVALID_VALUE;
}
#endif

/* The rest of what cudrv binds exists in every real driver of CUDA 12 and later: present
 * here too (answering CUDA_ERROR_NOT_SUPPORTED, 801), so only the old/ build has gaps. */
#ifndef FAKE_OLD_ABI
#define UNSUPPORTED(name) EXPORT CUresult name(void) { return 801; }
UNSUPPORTED(cuCtxGetCurrent)
UNSUPPORTED(cuMemAllocHost_v2)
UNSUPPORTED(cuMemHostAlloc)
UNSUPPORTED(cuMemFreeHost)
UNSUPPORTED(cuMemcpyDtoD_v2)
UNSUPPORTED(cuMemcpyHtoDAsync_v2)
UNSUPPORTED(cuMemcpyDtoHAsync_v2)
UNSUPPORTED(cuMemsetD8_v2)
UNSUPPORTED(cuMemsetD32_v2)
UNSUPPORTED(cuModuleGetFunction)
UNSUPPORTED(cuModuleGetGlobal_v2)
UNSUPPORTED(cuFuncGetAttribute)
UNSUPPORTED(cuFuncSetAttribute)
UNSUPPORTED(cuLaunchKernel)
UNSUPPORTED(cuOccupancyMaxActiveBlocksPerMultiprocessor)
UNSUPPORTED(cuStreamBeginCapture_v2)
UNSUPPORTED(cuStreamEndCapture)
UNSUPPORTED(cuGraphInstantiateWithFlags)
UNSUPPORTED(cuGraphLaunch)
UNSUPPORTED(cuGraphExecDestroy)
UNSUPPORTED(cuGraphDestroy)
UNSUPPORTED(cuEventCreate)
UNSUPPORTED(cuEventRecord)
UNSUPPORTED(cuEventSynchronize)
UNSUPPORTED(cuEventElapsedTime_v2)
UNSUPPORTED(cuEventDestroy_v2)
UNSUPPORTED(cuMemAddressReserve)
UNSUPPORTED(cuMemAddressFree)
UNSUPPORTED(cuMemCreate)
UNSUPPORTED(cuMemRelease)
UNSUPPORTED(cuMemMap)
UNSUPPORTED(cuMemUnmap)
UNSUPPORTED(cuMemSetAccess)
UNSUPPORTED(cuMemGetAllocationGranularity)
UNSUPPORTED(cuArrayCreate_v2)
UNSUPPORTED(cuArrayDestroy)
UNSUPPORTED(cuMemcpy2D_v2)
UNSUPPORTED(cuTexObjectCreate)
UNSUPPORTED(cuTexObjectDestroy)
UNSUPPORTED(cuCtxSetLimit)
UNSUPPORTED(cuCtxGetLimit)
UNSUPPORTED(cuMemHostGetDevicePointer_v2)
UNSUPPORTED(cuStreamQuery)
UNSUPPORTED(cuMemcpyPeerAsync)
UNSUPPORTED(cuStreamWaitEvent)
#endif

/* Peer queries answer from the simulated topology (fake_topo.h): access where NVML's read
 * status is OK, atomics and CUDA arrays over NVLink only, rank 0 over NVLink, else 1. */
static CUresult peer_pair(CUdevice dev, CUdevice peer, struct fake_gpu *all, int *n, int *a, int *b)
{
	struct fake_gpu one, two;
	CUresult r = device(dev, &one);

	if (r != OK || (r = device(peer, &two)) != OK)
		return r;
	if (dev == peer)
		return INVALID_DEVICE;
	*n = fake_gpus_parse(all);
	*a = one.index;
	*b = two.index;
	return OK;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n, a, b;
	CUresult r = can ? peer_pair(dev, peer, g, &n, &a, &b) : INVALID_VALUE;

	if (r == INVALID_DEVICE && dev == peer && can) {
		*can = 0;
		return OK;
	}
	if (r != OK)
		return r;
	*can = fake_topo_p2p_status(g, n, a, b, 0) == 0;
	return OK;
}

EXPORT CUresult cuDeviceGetP2PAttribute(int *value, int attrib, CUdevice src, CUdevice dst)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n, a, b;
	CUresult r = value ? peer_pair(src, dst, g, &n, &a, &b) : INVALID_VALUE;

	if (r != OK)
		return r;
	bool access = fake_topo_p2p_status(g, n, a, b, 0) == 0;
	bool nvlink = fake_topo_nvlinks_between(g, n, a, b) > 0;
	switch (attrib) {
	case 1: *value = !access ? 0 : nvlink ? 0 : 1; break;   /* performance rank */
	case 2: *value = access; break;
	case 3: *value = access && nvlink; break;               /* native atomics */
	case 4: *value = access && nvlink; break;               /* CUDA arrays */
	default: return INVALID_VALUE;
	}
	return OK;
}

/* FAKE_CUDA_MODULES=1: modules load and streams exist (no code runs: launches and
 * function lookups still answer 801), so a lab gets past lab_open to its own calls. */
#ifndef FAKE_OLD_ABI
static char fake_module, fake_stream;

static int modules_on(void)
{
	return fake_env_int("FAKE_CUDA_MODULES", 0) == 1;
}

EXPORT CUresult cuModuleLoadData(void **mod, const void *image)
{
	if (!modules_on())
		return 801;
	if (!mod || !image)
		return INVALID_VALUE;
	if (current_dev < 0)
		return INVALID_CONTEXT;
	*mod = &fake_module;
	return OK;
}

EXPORT CUresult cuModuleUnload(void *mod)
{
	return !modules_on() ? 801 : mod == &fake_module ? OK : INVALID_VALUE;
}

EXPORT CUresult cuStreamCreate(void **stream, unsigned int flags)
{
	(void)flags;
	if (!modules_on())
		return 801;
	if (!stream)
		return INVALID_VALUE;
	if (current_dev < 0)
		return INVALID_CONTEXT;
	*stream = &fake_stream;
	return OK;
}

EXPORT CUresult cuStreamDestroy_v2(void *stream)
{
	return !modules_on() ? 801 : stream == &fake_stream ? OK : INVALID_VALUE;
}

/* Peer access from the current context to peer's, as the driver answers it: 217 where
 * cuDeviceCanAccessPeer says no, 704 when already enabled, 705 disabling what is not;
 * FAKE_CUDA_PEER_RESULT=N is what enabling an allowed pair returns (0 by default). */
static char peer_on[FAKE_MAX_GPUS][FAKE_MAX_GPUS];

static CUresult peer_context(CUcontext peer, int *to)
{
	if (!initialized)
		return NOT_INITIALIZED;
	if (current_dev < 0 || !peer || (char *)peer < contexts || (char *)peer >= contexts + FAKE_MAX_GPUS)
		return INVALID_CONTEXT;
	*to = (int)((char *)peer - contexts);
	return *to == current_dev ? INVALID_DEVICE : OK;
}

EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
	int to, can = 0;
	CUresult r = peer_context(peer, &to);

	if (r != OK)
		return r;
	if (flags != 0)
		return INVALID_VALUE;
	if ((r = cuDeviceCanAccessPeer(&can, current_dev, to)) != OK)
		return r;
	if (!can)
		return 217;
	if (peer_on[current_dev][to])
		return 704;
	r = (CUresult)fake_env_int("FAKE_CUDA_PEER_RESULT", 0);
	if (r == OK)
		peer_on[current_dev][to] = 1;
	return r;
}

EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peer)
{
	int to;
	CUresult r = peer_context(peer, &to);

	if (r != OK)
		return r;
	if (!peer_on[current_dev][to])
		return 705;
	peer_on[current_dev][to] = 0;
	return OK;
}
#endif
