/* libnvidia-ml.so.1 loaded with dlopen: our own declarations of the NVML subset we use
 * (layouts from NVIDIA's nvml.h, API 12/13) and one function pointer per entry point,
 * each optional. A missing symbol leaves its pointer NULL and is listed in `missing`. */
#ifndef CUDOCTOR_NVML_H
#define CUDOCTOR_NVML_H

#include <stdbool.h>

#include "util/err.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_ALREADY_INITIALIZED = 5,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_INSUFFICIENT_POWER = 8,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_IRQ_ISSUE = 11,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_CORRUPTED_INFOROM = 14,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_OPERATING_SYSTEM = 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_NO_DATA = 21,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_DEPRECATED = 26,
	NVML_ERROR_NOT_READY = 27,
	NVML_ERROR_GPU_NOT_FOUND = 28,
	NVML_ERROR_UNKNOWN = 999,
};

/* buffer sizes (nvml.h NVML_*_BUFFER_SIZE) */
enum {
	NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32,
	NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16,
	NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96,
	NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96,
	NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80,
	NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80,
};

/* nvmlEnableState_t, nvmlTemperatureSensors_t, nvmlClockType_t, nvmlMemoryErrorType_t,
 * nvmlEccCounterType_t, nvmlPageRetirementCause_t values */
enum {
	NVML_FEATURE_DISABLED = 0,
	NVML_FEATURE_ENABLED = 1,
	NVML_TEMPERATURE_GPU = 0,
	NVML_CLOCK_GRAPHICS = 0,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_CLOCK_VIDEO = 3,
	NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
	NVML_VOLATILE_ECC = 0,
	NVML_AGGREGATE_ECC = 1,
	NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
	NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
	NVML_DEVICE_MIG_DISABLE = 0,
	NVML_DEVICE_MIG_ENABLE = 1,
};

/* nvmlClocksEventReason* bits (formerly nvmlClocksThrottleReason*) */
#define NVML_CLOCKS_EVENT_GPU_IDLE              0x0000000000000001ULL
#define NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS   0x0000000000000002ULL
#define NVML_CLOCKS_EVENT_SW_POWER_CAP          0x0000000000000004ULL
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN           0x0000000000000008ULL
#define NVML_CLOCKS_EVENT_SYNC_BOOST            0x0000000000000010ULL
#define NVML_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN   0x0000000000000020ULL
#define NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN   0x0000000000000040ULL
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE        0x0000000000000080ULL
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCK_SETTING 0x0000000000000100ULL

/* usedGpuMemory when the driver cannot say (WDDM, other containers) */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3. The _v2 and unversioned calls
 * predate busId[32] (the bytes were reserved) and fill busIdLegacy only. */
typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;    /* device id << 16 | vendor id */
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {
	unsigned long long total, free, used; /* used includes the driver's reservation */
} nvmlMemory_t;

typedef struct {
	unsigned int version;        /* NVML_MEMORY_V2_VERSION */
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

/* NVML_STRUCT_VERSION(Memory, 2): the size in the low bits, the version in the top byte */
#define NVML_MEMORY_V2_VERSION ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2U << 24)))

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/* what nvmlDeviceGetComputeRunningProcesses_v2 and _v3 fill */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;     /* 0xFFFFFFFF without MIG */
	unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

/* nvmlFieldValue_t: one value nvmlDeviceGetFieldValues fills (fieldId in, the rest out) */
typedef struct {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	int valueType;               /* nvmlValueType_t */
	nvmlReturn_t nvmlReturn;
	union {
		double dVal;
		unsigned int uiVal;
		unsigned long ulVal;
		unsigned long long ullVal;
		long long sllVal;
		int siVal;
		unsigned short usVal;
	} value;
} nvmlFieldValue_t;

/* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (R575+; it replaces the reset-status fields 226/227):
 * an nvmlDeviceGpuRecoveryAction_t in value.uiVal */
#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230
enum {
	NVML_GPU_RECOVERY_ACTION_NONE = 0,
	NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
	NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2,
	NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
	NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4,
};

struct nvml {
	void *handle;
	char path[4096];            /* the file actually loaded (resolved) */
	char how[64];               /* "CUDOCTOR_LIBNVML", "loader search", "known path" */
	char missing[1024];         /* space-separated symbols not found (newest name of each) */
	char fallbacks[512];        /* older variants bound instead: "nvmlInit (not nvmlInit_v2)" */
	int pci_info_version;       /* 3, 2 or 1: which nvmlDeviceGetPciInfo was bound */
	int processes_version;      /* 3, 2 or 1: which ...ComputeRunningProcesses was bound */

	nvmlReturn_t (*Init)(void);                                            /* _v2, else v1 */
	nvmlReturn_t (*Shutdown)(void);
	const char *(*ErrorString)(nvmlReturn_t r);
	nvmlReturn_t (*SystemGetDriverVersion)(char *version, unsigned int len);
	nvmlReturn_t (*SystemGetNVMLVersion)(char *version, unsigned int len);
	nvmlReturn_t (*SystemGetCudaDriverVersion)(int *version);              /* _v2, else v1 */
	nvmlReturn_t (*DeviceGetCount)(unsigned int *count);                   /* _v2, else v1 */
	nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned int index, nvmlDevice_t *dev); /* _v2, else v1 */
	nvmlReturn_t (*DeviceGetName)(nvmlDevice_t dev, char *name, unsigned int len);
	nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t dev, char *uuid, unsigned int len);
	nvmlReturn_t (*DeviceGetIndex)(nvmlDevice_t dev, unsigned int *index);
	nvmlReturn_t (*DeviceGetMinorNumber)(nvmlDevice_t dev, unsigned int *minor);
	nvmlReturn_t (*DeviceGetPciInfo)(nvmlDevice_t dev, nvmlPciInfo_t *pci); /* _v3, else _v2, else v1 */
	nvmlReturn_t (*DeviceGetCudaComputeCapability)(nvmlDevice_t dev, int *major, int *minor);
	nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t dev, nvmlMemory_t *mem);
	nvmlReturn_t (*DeviceGetMemoryInfo_v2)(nvmlDevice_t dev, nvmlMemory_v2_t *mem);
	nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(nvmlDevice_t dev, unsigned int *gen);
	nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(nvmlDevice_t dev, unsigned int *width);
	nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t dev, unsigned int *gen);
	nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t dev, unsigned int *width);
	nvmlReturn_t (*DeviceGetGpuMaxPcieLinkGeneration)(nvmlDevice_t dev, unsigned int *gen);
	nvmlReturn_t (*DeviceGetPersistenceMode)(nvmlDevice_t dev, int *mode); /* nvmlEnableState_t */
	nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t dev, unsigned int *current, unsigned int *pending);
	nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t dev, unsigned int *milliwatts);
	nvmlReturn_t (*DeviceGetPowerManagementLimit)(nvmlDevice_t dev, unsigned int *milliwatts);
	nvmlReturn_t (*DeviceGetEnforcedPowerLimit)(nvmlDevice_t dev, unsigned int *milliwatts);
	nvmlReturn_t (*DeviceGetTemperature)(nvmlDevice_t dev, int sensor, unsigned int *celsius);
	nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t dev, int type, unsigned int *mhz);
	nvmlReturn_t (*DeviceGetMaxClockInfo)(nvmlDevice_t dev, int type, unsigned int *mhz);
	/* nvmlDeviceGetCurrentClocksEventReasons, else ...ThrottleReasons (same signature) */
	nvmlReturn_t (*DeviceGetCurrentClocksEventReasons)(nvmlDevice_t dev, unsigned long long *reasons);
	nvmlReturn_t (*DeviceGetEccMode)(nvmlDevice_t dev, int *current, int *pending);
	nvmlReturn_t (*DeviceGetTotalEccErrors)(nvmlDevice_t dev, int error_type, int counter_type,
						unsigned long long *count);
	nvmlReturn_t (*DeviceGetRetiredPages)(nvmlDevice_t dev, int cause, unsigned int *count,
					      unsigned long long *addresses);
	nvmlReturn_t (*DeviceGetRetiredPagesPendingStatus)(nvmlDevice_t dev, int *pending);
	nvmlReturn_t (*DeviceGetRemappedRows)(nvmlDevice_t dev, unsigned int *correctable,
					      unsigned int *uncorrectable, unsigned int *pending,
					      unsigned int *failure);
	/* _v3 or _v2 (both fill nvmlProcessInfo_v2_t), see processes_version */
	nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t dev, unsigned int *count,
							 nvmlProcessInfo_v2_t *infos);
	/* the unversioned call (nvmlProcessInfo_v1_t), bound only when neither _v3 nor _v2 exists */
	nvmlReturn_t (*DeviceGetComputeRunningProcesses_v1)(nvmlDevice_t dev, unsigned int *count,
							    nvmlProcessInfo_v1_t *infos);
	nvmlReturn_t (*DeviceGetComputeMode)(nvmlDevice_t dev, int *mode);
	nvmlReturn_t (*DeviceGetPerformanceState)(nvmlDevice_t dev, int *pstate);
	/* Windows only (NOT_SUPPORTED elsewhere): nvmlDriverModel_t 0 WDDM, 1 WDM (TCC), 2 MCDM; _v2 is
	 * the one that knows MCDM */
	nvmlReturn_t (*DeviceGetDriverModel)(nvmlDevice_t dev, int *current, int *pending);
	nvmlReturn_t (*DeviceGetDisplayActive)(nvmlDevice_t dev, int *active); /* nvmlEnableState_t */
	nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t dev, unsigned int link, int *active); /* nvmlEnableState_t */
	/* MIG devices (R450+): a MIG device handle answers the name, UUID and memory calls
	 * above for its own slice */
	nvmlReturn_t (*DeviceGetMaxMigDeviceCount)(nvmlDevice_t dev, unsigned int *count);
	nvmlReturn_t (*DeviceGetMigDeviceHandleByIndex)(nvmlDevice_t dev, unsigned int index, nvmlDevice_t *mig);
	nvmlReturn_t (*DeviceIsMigDeviceHandle)(nvmlDevice_t dev, unsigned int *is_mig);
	nvmlReturn_t (*DeviceGetGpuInstanceId)(nvmlDevice_t mig, unsigned int *id);
	nvmlReturn_t (*DeviceGetComputeInstanceId)(nvmlDevice_t mig, unsigned int *id);
	/* topology (nvidia-smi topo -m): PCIe common ancestor, P2P status, NVLinks, CPU affinity */
	nvmlReturn_t (*DeviceGetTopologyCommonAncestor)(nvmlDevice_t a, nvmlDevice_t b, int *level);
	nvmlReturn_t (*DeviceGetP2PStatus)(nvmlDevice_t a, nvmlDevice_t b, int caps_index, int *status);
	nvmlReturn_t (*DeviceGetNvLinkVersion)(nvmlDevice_t dev, unsigned int link, unsigned int *version);
	nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo)(nvmlDevice_t dev, unsigned int link, nvmlPciInfo_t *pci); /* _v2 */
	nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t dev, unsigned int link, int *type);
	nvmlReturn_t (*DeviceGetCpuAffinity)(nvmlDevice_t dev, unsigned int words, unsigned long *cpu_set);
	/* scope 0: NVML_AFFINITY_SCOPE_NODE; node_set one bit per NUMA node (R470+) */
	nvmlReturn_t (*DeviceGetMemoryAffinity)(nvmlDevice_t dev, unsigned int words, unsigned long *node_set, unsigned int scope);
	/* what the driver itself says of a GPU: field values (the recovery action), and whether
	 * the GPU is drained (nvidia-smi drain; nvmlEnableState_t) */
	nvmlReturn_t (*DeviceGetFieldValues)(nvmlDevice_t dev, int count, nvmlFieldValue_t *values);
	nvmlReturn_t (*DeviceQueryDrainState)(nvmlPciInfo_t *pci, int *state);
};

/* nvmlGpuTopologyLevel_t, nvmlGpuP2PCapsIndex_t, nvmlGpuP2PStatus_t,
 * nvmlIntNvLinkDeviceType_t (nvml.h) */
enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50,
	NVML_P2P_CAPS_INDEX_READ = 0,
	NVML_P2P_CAPS_INDEX_WRITE = 1,
	NVML_P2P_CAPS_INDEX_NVLINK = 2,
	NVML_P2P_CAPS_INDEX_ATOMICS = 3,
	NVML_P2P_CAPS_INDEX_PROP = 4,
	NVML_P2P_STATUS_OK = 0,
	NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
	NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
	NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
	NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
	NVML_P2P_STATUS_NOT_SUPPORTED = 5,
	NVML_P2P_STATUS_UNKNOWN = 6,
	NVML_NVLINK_DEVICE_TYPE_GPU = 0,
	NVML_NVLINK_DEVICE_TYPE_IBMNPU = 1,
	NVML_NVLINK_DEVICE_TYPE_SWITCH = 2,
	NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xff,
	NVML_NVLINK_MAX_LINKS = 18,
};

/* Loads NVML: $CUDOCTOR_LIBNVML if set (only that file), else dlopen("libnvidia-ml.so.1")
 * (so LD_LIBRARY_PATH applies), else the known places (WSL /usr/lib/wsl/lib, container
 * driver mounts, distribution paths). CD_ENOTFOUND with err naming what was tried
 * when nothing loads. Does not call nvmlInit. */
int nvml_load(struct nvml *n, char *err);
void nvml_unload(struct nvml *n);

/* Puts a wrapper before every bound entry point that names the call in flight
 * (util/inflight.h) while it runs, so a watchdog can say which call hung. One library per
 * process is traced; a second keeps its entry points as they are. */
void nvml_trace(struct nvml *n);

/* "NVML_ERROR_LIB_RM_VERSION_MISMATCH" from our table, else "NVML_ERROR_(unnamed)". */
const char *nvml_result_name(nvmlReturn_t r);
/* nvmlErrorString's text ("Driver/library version mismatch") when available, else the name. */
const char *nvml_result_text(const struct nvml *n, nvmlReturn_t r);

/* A failed call as one line: "nvmlInit_v2: NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)". Returns CD_EDRIVER. */
int nvml_fail(const struct nvml *n, char *err, const char *call, nvmlReturn_t r);

#endif
