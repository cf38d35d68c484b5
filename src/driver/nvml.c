/* Loading libnvidia-ml.so.1 with dlopen and binding each entry point to its newest
 * versioned name, falling back to older ones where the ABI allows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/loader.h"
#include "driver/nvml.h"
#include "os/env.h"
#include "util/inflight.h"

#define SYM(field, ...) { offsetof(struct nvml, field), { __VA_ARGS__ } }

static const struct dl_symbol symbols[] = {
	SYM(Init, "nvmlInit_v2", "nvmlInit"),
	SYM(Shutdown, "nvmlShutdown"),
	SYM(ErrorString, "nvmlErrorString"),
	SYM(SystemGetDriverVersion, "nvmlSystemGetDriverVersion"),
	SYM(SystemGetNVMLVersion, "nvmlSystemGetNVMLVersion"),
	SYM(SystemGetCudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
	SYM(DeviceGetCount, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
	SYM(DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
	SYM(DeviceGetName, "nvmlDeviceGetName"),
	SYM(DeviceGetUUID, "nvmlDeviceGetUUID"),
	SYM(DeviceGetIndex, "nvmlDeviceGetIndex"),
	SYM(DeviceGetMinorNumber, "nvmlDeviceGetMinorNumber"),
	SYM(DeviceGetPciInfo, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"),
	SYM(DeviceGetCudaComputeCapability, "nvmlDeviceGetCudaComputeCapability"),
	SYM(DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo"),
	SYM(DeviceGetMemoryInfo_v2, "nvmlDeviceGetMemoryInfo_v2"),
	SYM(DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration"),
	SYM(DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth"),
	SYM(DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration"),
	SYM(DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth"),
	SYM(DeviceGetGpuMaxPcieLinkGeneration, "nvmlDeviceGetGpuMaxPcieLinkGeneration"),
	SYM(DeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode"),
	SYM(DeviceGetMigMode, "nvmlDeviceGetMigMode"),
	SYM(DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage"),
	SYM(DeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit"),
	SYM(DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit"),
	SYM(DeviceGetTemperature, "nvmlDeviceGetTemperature"),
	SYM(DeviceGetClockInfo, "nvmlDeviceGetClockInfo"),
	SYM(DeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo"),
	SYM(DeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons"),
	SYM(DeviceGetEccMode, "nvmlDeviceGetEccMode"),
	SYM(DeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors"),
	SYM(DeviceGetRetiredPages, "nvmlDeviceGetRetiredPages"),
	SYM(DeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus"),
	SYM(DeviceGetRemappedRows, "nvmlDeviceGetRemappedRows"),
	SYM(DeviceGetComputeMode, "nvmlDeviceGetComputeMode"),
	SYM(DeviceGetPerformanceState, "nvmlDeviceGetPerformanceState"),
	SYM(DeviceGetDriverModel, "nvmlDeviceGetDriverModel_v2", "nvmlDeviceGetDriverModel"),
	SYM(DeviceGetDisplayActive, "nvmlDeviceGetDisplayActive"),
	SYM(DeviceGetNvLinkState, "nvmlDeviceGetNvLinkState"),
	SYM(DeviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount"),
	SYM(DeviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex"),
	SYM(DeviceIsMigDeviceHandle, "nvmlDeviceIsMigDeviceHandle"),
	SYM(DeviceGetGpuInstanceId, "nvmlDeviceGetGpuInstanceId"),
	SYM(DeviceGetComputeInstanceId, "nvmlDeviceGetComputeInstanceId"),
	SYM(DeviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor"),
	SYM(DeviceGetP2PStatus, "nvmlDeviceGetP2PStatus"),
	SYM(DeviceGetNvLinkVersion, "nvmlDeviceGetNvLinkVersion"),
	SYM(DeviceGetNvLinkRemotePciInfo, "nvmlDeviceGetNvLinkRemotePciInfo_v2"),
	SYM(DeviceGetNvLinkRemoteDeviceType, "nvmlDeviceGetNvLinkRemoteDeviceType"),
	SYM(DeviceGetCpuAffinity, "nvmlDeviceGetCpuAffinity"),
	SYM(DeviceGetMemoryAffinity, "nvmlDeviceGetMemoryAffinity"),
	SYM(DeviceGetFieldValues, "nvmlDeviceGetFieldValues"),
	SYM(DeviceQueryDrainState, "nvmlDeviceQueryDrainState"),
};

static void append_word(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(buf);

	if (len + 1 >= size)
		return;
	if (len)
		buf[len++] = ' ';
	snprintf(buf + len, size - len, fmt, a, b);
}

/* Process lists come in two struct layouts: _v3 and _v2 fill nvmlProcessInfo_v2_t,
 * the unversioned call the smaller nvmlProcessInfo_v1_t, so it gets its own pointer. */
static void bind_processes(struct nvml *n)
{
	static const char *const v3 = "nvmlDeviceGetComputeRunningProcesses_v3";
	static const char *const v2 = "nvmlDeviceGetComputeRunningProcesses_v2";
	static const char *const v1 = "nvmlDeviceGetComputeRunningProcesses";
	struct dl_lib lib = { .handle = n->handle };
	void *p = dl_sym(&lib, v3);

	n->processes_version = 3;
	if (!p) {
		p = dl_sym(&lib, v2);
		n->processes_version = 2;
	}
	memcpy(&n->DeviceGetComputeRunningProcesses, &p, sizeof(p));
	if (p) {
		if (n->processes_version == 2)
			append_word(n->fallbacks, sizeof(n->fallbacks), "%s (not %s)", v2, v3);
		return;
	}
	p = dl_sym(&lib, v1);
	memcpy(&n->DeviceGetComputeRunningProcesses_v1, &p, sizeof(p));
	n->processes_version = p ? 1 : 0;
	if (p)
		append_word(n->fallbacks, sizeof(n->fallbacks), "%s (not %s)", v1, v3);
	else
		append_word(n->missing, sizeof(n->missing), "%s%s", v3, "");
}

static void resolve_symbols(struct nvml *n, struct dl_lib *lib)
{
	enum { N = sizeof(symbols) / sizeof(symbols[0]) };
	int which[N];

	dl_bind(lib, symbols, N, n, which);
	for (size_t i = 0; i < N; i++) {
		if (which[i] > 0)
			append_word(n->fallbacks, sizeof(n->fallbacks), "%s (not %s)", symbols[i].names[which[i]],
				    symbols[i].names[0]);
		if (symbols[i].offset == offsetof(struct nvml, DeviceGetPciInfo))
			n->pci_info_version = which[i] < 0 ? 0 : 3 - which[i];
	}
	snprintf(n->missing, sizeof(n->missing), "%s", lib->missing);
	bind_processes(n);
}

int nvml_load(struct nvml *n, char *err)
{
	static const struct dl_spec base = { NVML_SONAME, "CUDOCTOR_LIBNVML", "nvmlErrorString", NULL, true };
	struct dl_spec spec = base;
	struct dl_lib lib;
	int rc;
#ifdef _WIN32
	/* drivers before R470 put nvml.dll beside nvidia-smi.exe, not in System32 */
	const char *pf = os_getenv("ProgramFiles");
	char nvsmi[DL_PATH];
	const char *dirs[2] = { nvsmi, NULL };

	if (pf && *pf && (size_t)snprintf(nvsmi, sizeof nvsmi, "%s\\NVIDIA Corporation\\NVSMI", pf) < sizeof nvsmi)
		spec.dirs = dirs;
#endif

	memset(n, 0, sizeof(*n));
	if ((rc = dl_open(&spec, &lib, err)) != CD_OK)
		return rc;
	n->handle = lib.handle;
	snprintf(n->path, sizeof(n->path), "%s", lib.path);
	snprintf(n->how, sizeof(n->how), "%s", lib.how);
	resolve_symbols(n, &lib);
	nvml_trace(n);
	return CD_OK;
}

void nvml_unload(struct nvml *n)
{
	struct dl_lib lib = { .handle = n->handle };

	dl_close(&lib);
	memset(n, 0, sizeof(*n));
}


typedef nvmlDevice_t D;
typedef unsigned int U;
typedef unsigned long long ULL;

/* Every entry point that may block in the driver: its field, parameters and arguments. */
#define TRACED(X)                                                                                  \
	X(Init, (void), ())                                                                          \
	X(Shutdown, (void), ())                                                                      \
	X(SystemGetDriverVersion, (char *a, U b), (a, b))                                            \
	X(SystemGetNVMLVersion, (char *a, U b), (a, b))                                              \
	X(SystemGetCudaDriverVersion, (int *a), (a))                                                 \
	X(DeviceGetCount, (U *a), (a))                                                               \
	X(DeviceGetHandleByIndex, (U a, D *b), (a, b))                                               \
	X(DeviceGetName, (D a, char *b, U c), (a, b, c))                                             \
	X(DeviceGetUUID, (D a, char *b, U c), (a, b, c))                                             \
	X(DeviceGetIndex, (D a, U *b), (a, b))                                                       \
	X(DeviceGetMinorNumber, (D a, U *b), (a, b))                                                 \
	X(DeviceGetPciInfo, (D a, nvmlPciInfo_t *b), (a, b))                                         \
	X(DeviceGetCudaComputeCapability, (D a, int *b, int *c), (a, b, c))                          \
	X(DeviceGetMemoryInfo, (D a, nvmlMemory_t *b), (a, b))                                       \
	X(DeviceGetMemoryInfo_v2, (D a, nvmlMemory_v2_t *b), (a, b))                                 \
	X(DeviceGetCurrPcieLinkGeneration, (D a, U *b), (a, b))                                      \
	X(DeviceGetCurrPcieLinkWidth, (D a, U *b), (a, b))                                           \
	X(DeviceGetMaxPcieLinkGeneration, (D a, U *b), (a, b))                                       \
	X(DeviceGetMaxPcieLinkWidth, (D a, U *b), (a, b))                                            \
	X(DeviceGetGpuMaxPcieLinkGeneration, (D a, U *b), (a, b))                                    \
	X(DeviceGetPersistenceMode, (D a, int *b), (a, b))                                           \
	X(DeviceGetMigMode, (D a, U *b, U *c), (a, b, c))                                            \
	X(DeviceGetPowerUsage, (D a, U *b), (a, b))                                                  \
	X(DeviceGetPowerManagementLimit, (D a, U *b), (a, b))                                        \
	X(DeviceGetEnforcedPowerLimit, (D a, U *b), (a, b))                                          \
	X(DeviceGetTemperature, (D a, int b, U *c), (a, b, c))                                       \
	X(DeviceGetClockInfo, (D a, int b, U *c), (a, b, c))                                         \
	X(DeviceGetMaxClockInfo, (D a, int b, U *c), (a, b, c))                                      \
	X(DeviceGetCurrentClocksEventReasons, (D a, ULL *b), (a, b))                                 \
	X(DeviceGetEccMode, (D a, int *b, int *c), (a, b, c))                                        \
	X(DeviceGetTotalEccErrors, (D a, int b, int c, ULL *d), (a, b, c, d))                        \
	X(DeviceGetRetiredPages, (D a, int b, U *c, ULL *d), (a, b, c, d))                           \
	X(DeviceGetRetiredPagesPendingStatus, (D a, int *b), (a, b))                                 \
	X(DeviceGetRemappedRows, (D a, U *b, U *c, U *d, U *e), (a, b, c, d, e))                     \
	X(DeviceGetComputeRunningProcesses, (D a, U *b, nvmlProcessInfo_v2_t *c), (a, b, c))         \
	X(DeviceGetComputeRunningProcesses_v1, (D a, U *b, nvmlProcessInfo_v1_t *c), (a, b, c))      \
	X(DeviceGetComputeMode, (D a, int *b), (a, b))                                               \
	X(DeviceGetPerformanceState, (D a, int *b), (a, b))                                          \
	X(DeviceGetDriverModel, (D a, int *b, int *c), (a, b, c))                                    \
	X(DeviceGetDisplayActive, (D a, int *b), (a, b))                                             \
	X(DeviceGetNvLinkState, (D a, U b, int *c), (a, b, c))                                       \
	X(DeviceGetMaxMigDeviceCount, (D a, U *b), (a, b))                                           \
	X(DeviceGetMigDeviceHandleByIndex, (D a, U b, D *c), (a, b, c))                              \
	X(DeviceIsMigDeviceHandle, (D a, U *b), (a, b))                                              \
	X(DeviceGetGpuInstanceId, (D a, U *b), (a, b))                                               \
	X(DeviceGetComputeInstanceId, (D a, U *b), (a, b))                                           \
	X(DeviceGetTopologyCommonAncestor, (D a, D b, int *c), (a, b, c))                            \
	X(DeviceGetP2PStatus, (D a, D b, int c, int *d), (a, b, c, d))                               \
	X(DeviceGetNvLinkVersion, (D a, U b, U *c), (a, b, c))                                       \
	X(DeviceGetNvLinkRemotePciInfo, (D a, U b, nvmlPciInfo_t *c), (a, b, c))                     \
	X(DeviceGetNvLinkRemoteDeviceType, (D a, U b, int *c), (a, b, c))                            \
	X(DeviceGetCpuAffinity, (D a, U b, unsigned long *c), (a, b, c))                             \
	X(DeviceGetMemoryAffinity, (D a, U b, unsigned long *c, U d), (a, b, c, d))                  \
	X(DeviceGetFieldValues, (D a, int b, nvmlFieldValue_t *c), (a, b, c))                        \
	X(DeviceQueryDrainState, (nvmlPciInfo_t *a, int *b), (a, b))

#define WRAPPER(F, P, A)                                                                             \
	static nvmlReturn_t(*real_##F) P;                                                            \
	static nvmlReturn_t traced_##F P                                                             \
	{                                                                                            \
		int slot = inflight_enter("nvml" #F);                                                \
		nvmlReturn_t r = real_##F A;                                                         \
		inflight_leave(slot);                                                                \
		return r;                                                                            \
	}
TRACED(WRAPPER)

#define INSTALL(F, P, A)                                                                             \
	if (n->F && n->F != traced_##F && (!real_##F || real_##F == n->F)) {                         \
		real_##F = n->F;                                                                     \
		n->F = traced_##F;                                                                   \
	}

void nvml_trace(struct nvml *n)
{
	TRACED(INSTALL)
}

static const struct {
	nvmlReturn_t code;
	const char *name;
} names[] = {
	{ NVML_SUCCESS, "NVML_SUCCESS" },
	{ NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED" },
	{ NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT" },
	{ NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED" },
	{ NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION" },
	{ NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED" },
	{ NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND" },
	{ NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE" },
	{ NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER" },
	{ NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED" },
	{ NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT" },
	{ NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE" },
	{ NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND" },
	{ NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND" },
	{ NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM" },
	{ NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST" },
	{ NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED" },
	{ NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM" },
	{ NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH" },
	{ NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE" },
	{ NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY" },
	{ NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA" },
	{ NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH" },
	{ NVML_ERROR_DEPRECATED, "NVML_ERROR_DEPRECATED" },
	{ NVML_ERROR_NOT_READY, "NVML_ERROR_NOT_READY" },
	{ NVML_ERROR_GPU_NOT_FOUND, "NVML_ERROR_GPU_NOT_FOUND" },
	{ NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN" },
};

const char *nvml_result_name(nvmlReturn_t r)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == r)
			return names[i].name;
	return "NVML_ERROR_(unnamed)";
}

const char *nvml_result_text(const struct nvml *n, nvmlReturn_t r)
{
	const char *s = n && n->ErrorString ? n->ErrorString(r) : NULL;

	return s && *s ? s : nvml_result_name(r);
}

int nvml_fail(const struct nvml *n, char *err, const char *call, nvmlReturn_t r)
{
	return cd_fail(err, CD_EDRIVER, "%s: %s (%d, \"%s\")", call, nvml_result_name(r), r,
		       nvml_result_text(n, r));
}
