/* A fake libnvidia-ml.so.1 for tests: the NVML subset cudoctor calls, answering from
 * FAKE_GPUS and FAKE_NVML_* environment variables (see tests/fakes/README.md). Built
 * twice: the normal library and, with FAKE_OLD_ABI, one with only the unversioned
 * entry points of an old driver (nvmlInit, nvmlDeviceGetPciInfo, ...ThrottleReasons),
 * and, with FAKE_NO_MIG_DEVICES, one that knows MIG mode but not MIG device handles. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpus.h"
#include "fake_topo.h"

#ifdef _WIN32
#define EXPORT __declspec(dllexport) /* a DLL exports only these */
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef int nvmlReturn_t;
typedef struct fake_handle *nvmlDevice_t;
struct fake_handle { int index; int mig; };  /* mig: position in FAKE_NVML_MIG_DEVICES, -1 for a GPU */

#define FAKE_MAX_MIG 8

enum {
	SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3,
	NOT_FOUND = 6, INSUFFICIENT_SIZE = 7, GPU_IS_LOST = 15, ARGUMENT_VERSION_MISMATCH = 25,
};

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

typedef struct {
	unsigned int fieldId, scopeId;
	long long timestamp, latencyUsec;
	int valueType;
	nvmlReturn_t nvmlReturn;
	union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal; } value;
} nvmlFieldValue_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;

static int init_count;
static struct fake_handle handles[FAKE_MAX_GPUS];
static struct fake_handle mig_handles[FAKE_MAX_GPUS][FAKE_MAX_MIG];

/* One MIG device of FAKE_NVML_MIG_DEVICES="GPU:PROFILE:TOTAL[:USED];..." (sizes as in
 * FAKE_NVML_PROCS); the n-th device of a GPU has GPU instance n+1, compute instance 0. */
struct fake_mig {
	char profile[32];
	unsigned long long total, used;
};

static unsigned long long mig_size(const char *s, bool *ok)
{
	char *unit;
	unsigned long long v = strtoull(s, &unit, 10);

	*ok = unit != s;
	if (strcmp(unit, "GiB") == 0)
		return v << 30;
	if (strcmp(unit, "MiB") == 0)
		return v << 20;
	*ok = *ok && *unit == '\0';
	return v;
}

static int mig_devices(int gpu_index, struct fake_mig *out, int max)
{
	const char *s = getenv("FAKE_NVML_MIG_DEVICES");
	int n = 0;

	while (s && *s && n < max) {
		const char *end = strchr(s, ';');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char one[128], profile[32], total[32], used[32] = "0";
		int idx, got;

		if (len < sizeof(one)) {
			memcpy(one, s, len);
			one[len] = 0;
			got = sscanf(one, "%d:%31[^:]:%31[^:]:%31s", &idx, profile, total, used);
			if (got >= 3 && idx == gpu_index) {
				bool ok1, ok2;
				out[n].total = mig_size(total, &ok1);
				out[n].used = mig_size(used, &ok2);
				snprintf(out[n].profile, sizeof(out[n].profile), "%s", profile);
				if (ok1 && ok2 && out[n].used <= out[n].total)
					n++;
			}
		}
		s = end ? end + 1 : NULL;
	}
	return n;
}

static const struct { nvmlReturn_t code; const char *text; } error_texts[] = {
	{ 0, "Success" }, { 1, "Uninitialized" }, { 2, "Invalid Argument" },
	{ 3, "Not Supported" }, { 4, "Insufficient Permissions" }, { 6, "Not Found" },
	{ 7, "Insufficient Size" }, { 9, "Driver Not Loaded" }, { 12, "NVML Shared Library Not Found" },
	{ 13, "Function Not Found" }, { 15, "GPU is lost" },
	{ 17, "The operating system has blocked the request." },
	{ 18, "Driver/library version mismatch" }, { 999, "Unknown Error" },
};

EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{
	for (size_t i = 0; i < sizeof(error_texts) / sizeof(error_texts[0]); i++)
		if (error_texts[i].code == r)
			return error_texts[i].text;
	return "Unknown Error";
}

/* FAKE_NVML_CALL_LOG=FILE: "load libnvidia-ml" each time the loader maps the library in,
 * "nvmlInit" at each init, so a test can count them. */
__attribute__((constructor)) static void on_load(void)
{
	fake_call_log("FAKE_NVML_CALL_LOG", "load libnvidia-ml");
}

/* FAKE_NVML_HANG="CALL[:SECONDS]": CALL sleeps SECONDS (default an hour) before it answers,
 * a driver that hangs, for the watchdog of check --timeout */
static void maybe_hang(const char *call)
{
	const char *h = getenv("FAKE_NVML_HANG");
	size_t n = strlen(call);

	if (h && strncmp(h, call, n) == 0 && (h[n] == '\0' || h[n] == ':'))
		fake_sleep_ms((h[n] == ':' ? atoll(h + n + 1) : 3600) * 1000);
}

static nvmlReturn_t do_init(void)
{
	nvmlReturn_t r = (nvmlReturn_t)fake_env_int("FAKE_NVML_INIT_RESULT", 0);

	maybe_hang("nvmlInit");
	fake_call_log("FAKE_NVML_CALL_LOG", "nvmlInit");
	if (r == SUCCESS)
		init_count++;
	return r;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlInit_v2(void) { return do_init(); }
#endif
EXPORT nvmlReturn_t nvmlInit(void) { return do_init(); }

EXPORT nvmlReturn_t nvmlShutdown(void)
{
	if (init_count == 0)
		return UNINITIALIZED;
	init_count--;
	return SUCCESS;
}

static nvmlReturn_t put_string(char *buf, unsigned int len, const char *s)
{
	if (!buf)
		return INVALID_ARGUMENT;
	if (strlen(s) + 1 > len)
		return INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
	const char *v = getenv("FAKE_NVML_DRIVER_VERSION");

	if (!init_count)
		return UNINITIALIZED;
	return put_string(version, len, v ? v : "580.159.04");
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int len)
{
	if (!init_count)
		return UNINITIALIZED;
	return put_string(version, len, "13.580.159.04");
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
	if (!v)
		return INVALID_ARGUMENT;
	*v = (int)fake_env_int("FAKE_NVML_CUDA_VERSION", fake_env_int("FAKE_CUDA_DRIVER_VERSION", 13000));
	return SUCCESS;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return nvmlSystemGetCudaDriverVersion(v); }
#endif

EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
	struct fake_gpu g[FAKE_MAX_GPUS];

	if (!init_count)
		return UNINITIALIZED;
	if (!count)
		return INVALID_ARGUMENT;
	*count = (unsigned int)fake_gpus_parse(g);
	return SUCCESS;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) { return nvmlDeviceGetCount(count); }
#endif

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *dev)
{
	struct fake_gpu g[FAKE_MAX_GPUS];

	if (!init_count)
		return UNINITIALIZED;
	if (!dev || index >= (unsigned int)fake_gpus_parse(g))
		return INVALID_ARGUMENT;
	handles[index].index = (int)index;
	handles[index].mig = -1;
	*dev = &handles[index];
	return SUCCESS;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
	return nvmlDeviceGetHandleByIndex(index, dev);
}
#endif

/* The GPU behind a handle, GPU_IS_LOST for the index named by FAKE_NVML_LOST. */
static nvmlReturn_t gpu(nvmlDevice_t dev, struct fake_gpu *out, bool lost_ok)
{
	struct fake_gpu g[FAKE_MAX_GPUS];

	if (!init_count)
		return UNINITIALIZED;
	if (!dev || dev < handles || dev >= handles + FAKE_MAX_GPUS)
		return INVALID_ARGUMENT;
	int n = fake_gpus_parse(g);
	if (dev->index >= n)
		return INVALID_ARGUMENT;
	if (!lost_ok && fake_env_int("FAKE_NVML_LOST", -1) == dev->index)
		return GPU_IS_LOST;
	*out = g[dev->index];
	return SUCCESS;
}

/* The MIG device behind a MIG handle (and its parent GPU); false for anything else. */
static bool mig_of(nvmlDevice_t dev, struct fake_gpu *parent, struct fake_mig *out)
{
	struct fake_mig m[FAKE_MAX_MIG];
	const struct fake_handle *first = &mig_handles[0][0];

	if (!init_count || !dev || dev < first || dev >= first + FAKE_MAX_GPUS * FAKE_MAX_MIG)
		return false;
	if (gpu(&handles[dev->index], parent, true) != SUCCESS)
		return false;
	if (dev->mig >= mig_devices(dev->index, m, FAKE_MAX_MIG))
		return false;
	*out = m[dev->mig];
	return true;
}

/* FAKE_NVML_NOT_SUPPORTED: a query for every GPU ("ecc") or for one ("1:ecc") */
/* The PCI index of the GPU behind one of our handles (a MIG device's: its GPU's), else -1. */
static int gpu_index(nvmlDevice_t dev)
{
	const struct fake_handle *mig0 = &mig_handles[0][0];
	bool ours = dev && ((dev >= handles && dev < handles + FAKE_MAX_GPUS) ||
			    (dev >= mig0 && dev < mig0 + FAKE_MAX_GPUS * FAKE_MAX_MIG));

	return ours ? dev->index : -1;
}

static bool unsupported(nvmlDevice_t dev, const char *what)
{
	return fake_env_has_gpu_word("FAKE_NVML_NOT_SUPPORTED", gpu_index(dev), what);
}

static bool datacenter(const struct fake_gpu *g)
{
	return g->cc_major >= 7 && g->cc_major <= 10 && g->cc_minor == 0;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int len)
{
	struct fake_gpu g;
	struct fake_mig m;
	char text[160];

	if (mig_of(dev, &g, &m)) {
		snprintf(text, sizeof(text), "%s MIG %s", g.name, m.profile);
		return put_string(name, len, text);
	}
	nvmlReturn_t r = gpu(dev, &g, true);

	return r ? r : put_string(name, len, g.name);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int len)
{
	struct fake_gpu g;
	struct fake_mig m;
	char text[64];

	if (mig_of(dev, &g, &m)) {
		/* R470+ form: MIG- and a UUID of its own (here the parent's, last byte changed) */
		g.uuid[15] = (unsigned char)(g.uuid[15] ^ (0x80 | dev->mig));
		fake_uuid_text(g.uuid, text, sizeof(text));
		memcpy(text, "MIG", 3);
		return put_string(uuid, len, text);
	}
	nvmlReturn_t r = gpu(dev, &g, true);

	if (r)
		return r;
	fake_uuid_text(g.uuid, text, sizeof(text));
	return put_string(uuid, len, text);
}

EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t dev, unsigned int *index)
{
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, true);

	if (r)
		return r;
	if (!index)
		return INVALID_ARGUMENT;
	*index = (unsigned int)dev->index;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t dev, unsigned int *minor)
{
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, true);

	if (r)
		return r;
	if (!minor)
		return INVALID_ARGUMENT;
	*minor = (unsigned int)dev->index;
	return SUCCESS;
}

/* legacy: fills the 16-byte bus id only, as nvmlDeviceGetPciInfo(_v2) do */
static nvmlReturn_t pci_info(nvmlDevice_t dev, nvmlPciInfo_t *pci, bool full)
{
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, true);

	if (r)
		return r;
	if (!pci)
		return INVALID_ARGUMENT;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04x:%02x:%02x.0", g.pci_domain,
		 g.pci_bus, g.pci_device);
	pci->domain = (unsigned int)g.pci_domain;
	pci->bus = (unsigned int)g.pci_bus;
	pci->device = (unsigned int)g.pci_device;
	pci->pciDeviceId = 0x233510deu;
	pci->pciSubSystemId = 0x18d810deu;
	if (full)
		snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", g.pci_domain, g.pci_bus,
			 g.pci_device);
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t dev, nvmlPciInfo_t *pci) { return pci_info(dev, pci, false); }
#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t dev, nvmlPciInfo_t *pci) { return pci_info(dev, pci, false); }
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci) { return pci_info(dev, pci, true); }
#endif

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t dev, int *major, int *minor)
{
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!major || !minor)
		return INVALID_ARGUMENT;
	*major = g.cc_major;
	*minor = g.cc_minor;
	return SUCCESS;
}

/* Process list of one GPU from FAKE_NVML_PROCS="GPU:PID:MEM;..." (MEM "na" = not available) */
static int procs(int index, nvmlProcessInfo_v2_t *out, int max)
{
	const char *s = getenv("FAKE_NVML_PROCS");
	int n = 0;

	while (s && *s && n < max) {
		unsigned long long v[2];
		char one[64];
		const char *end = strchr(s, ';');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		int gpu_index;
		unsigned int pid;

		if (len < sizeof(one)) {
			memcpy(one, s, len);
			one[len] = 0;
			char mem[32];
			if (sscanf(one, "%d:%u:%31s", &gpu_index, &pid, mem) == 3 && gpu_index == index) {
				char *unit;
				v[0] = pid;
				v[1] = strcmp(mem, "na") == 0 ? ~0ULL : strtoull(mem, &unit, 10);
				if (v[1] != ~0ULL && strcmp(unit, "GiB") == 0)
					v[1] <<= 30;
				else if (v[1] != ~0ULL && strcmp(unit, "MiB") == 0)
					v[1] <<= 20;
				out[n].pid = pid;
				out[n].usedGpuMemory = v[1];
				out[n].gpuInstanceId = 0xffffffffu;
				out[n].computeInstanceId = 0xffffffffu;
				n++;
			}
		}
		s = end ? end + 1 : NULL;
	}
	return n;
}

static nvmlReturn_t memory(nvmlDevice_t dev, unsigned long long *total, unsigned long long *reserved,
			   unsigned long long *used)
{
	struct fake_gpu g;
	struct fake_mig m;
	nvmlProcessInfo_v2_t p[64];

	if (mig_of(dev, &g, &m)) {
		*total = m.total;
		*reserved = 0;
		*used = m.used;
		return unsupported(dev, "memory") ? NOT_SUPPORTED : SUCCESS;
	}
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (unsupported(dev, "memory"))
		return NOT_SUPPORTED;
	int n = procs(dev->index, p, 64);
	*total = g.memory_bytes;
	*reserved = g.memory_bytes / 200;
	*used = 0;
	for (int i = 0; i < n; i++)
		if (p[i].usedGpuMemory != ~0ULL)
			*used += p[i].usedGpuMemory;
	fake_env_gpu_values("FAKE_NVML_MEM_USED", dev->index, used, 1);
	if (*used + *reserved > *total)
		*used = *total - *reserved;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m)
{
	unsigned long long total, reserved, used;
	nvmlReturn_t r = m ? memory(dev, &total, &reserved, &used) : INVALID_ARGUMENT;

	if (r)
		return r;
	m->total = total;
	m->used = used + reserved; /* v1 counts the reservation as used */
	m->free = total - m->used;
	return SUCCESS;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *m)
{
	unsigned long long total, reserved, used;
	nvmlReturn_t r;

	if (!m)
		return INVALID_ARGUMENT;
	if (m->version != ((unsigned int)sizeof(nvmlMemory_v2_t) | (2u << 24)))
		return ARGUMENT_VERSION_MISMATCH;
	r = memory(dev, &total, &reserved, &used);
	if (r)
		return r;
	m->total = total;
	m->reserved = reserved;
	m->used = used;
	m->free = total - used - reserved;
	return SUCCESS;
}
#endif

static nvmlReturn_t uint_value(nvmlDevice_t dev, const char *category, const char *env, int slot,
			       unsigned int dflt, unsigned int *out)
{
	struct fake_gpu g;
	unsigned long long v[8];
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!out)
		return INVALID_ARGUMENT;
	if (unsupported(dev, category))
		return NOT_SUPPORTED;
	*out = dflt;
	if (env && fake_env_gpu_values(env, dev->index, v, 8) > slot)
		*out = (unsigned int)v[slot];
	return SUCCESS;
}

static struct fake_cc_defaults defaults_of(nvmlDevice_t dev)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	struct fake_cc_defaults d;
	int n = fake_gpus_parse(g);

	if (dev && dev >= handles && dev < handles + FAKE_MAX_GPUS && dev->index < n)
		fake_cc_defaults(g[dev->index].cc_major, g[dev->index].cc_minor, &d);
	else
		fake_cc_defaults(0, 0, &d);
	return d;
}

/* FAKE_NVML_PCIE="GPU:CURGEN:CURWIDTH:MAXGEN:MAXWIDTH" */
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t dev, unsigned int *v)
{
	return uint_value(dev, "pcie", "FAKE_NVML_PCIE", 0, (unsigned int)defaults_of(dev).pcie_gen, v);
}
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t dev, unsigned int *v)
{
	return uint_value(dev, "pcie", "FAKE_NVML_PCIE", 1, 16, v);
}
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t dev, unsigned int *v)
{
	return uint_value(dev, "pcie", "FAKE_NVML_PCIE", 2, (unsigned int)defaults_of(dev).pcie_gen, v);
}
EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t dev, unsigned int *v)
{
	return uint_value(dev, "pcie", "FAKE_NVML_PCIE", 3, 16, v);
}
#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t dev, unsigned int *v)
{
	return uint_value(dev, "pcie", "FAKE_NVML_PCIE", 2, (unsigned int)defaults_of(dev).pcie_gen, v);
}
#endif

/* FAKE_NVML_PERSISTENCE="GPU:0|1" (default enabled) */
EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t dev, int *mode)
{
	unsigned int v;
	nvmlReturn_t r = uint_value(dev, "persistence", "FAKE_NVML_PERSISTENCE", 0, 1, &v);

	if (r == SUCCESS) {
		if (!mode)
			return INVALID_ARGUMENT;
		*mode = (int)v;
	}
	return r;
}

#ifndef FAKE_OLD_ABI
/* FAKE_NVML_DRIVER_MODEL="GPU:CURRENT[:PENDING]" (0 WDDM, 1 TCC, 2 MCDM): Windows' driver model.
 * A GPU it does not name answers NOT_SUPPORTED, as NVML does on Linux. The unversioned call
 * predates MCDM. */
static nvmlReturn_t driver_model(nvmlDevice_t dev, int *current, int *pending, bool v2)
{
	unsigned long long v[2];
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, false);
	int n;

	if (r)
		return r;
	if (!current || !pending)
		return INVALID_ARGUMENT;
	if (unsupported(dev, "drivermodel") || (n = fake_env_gpu_values("FAKE_NVML_DRIVER_MODEL", dev->index, v, 2)) < 1)
		return NOT_SUPPORTED;
	*current = (int)v[0];
	*pending = n > 1 ? (int)v[1] : (int)v[0];
	if (!v2 && *current == 2)
		return NOT_SUPPORTED;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t dev, int *current, int *pending)
{
	return driver_model(dev, current, pending, true);
}

EXPORT nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t dev, int *current, int *pending)
{
	return driver_model(dev, current, pending, false);
}

/* FAKE_NVML_DISPLAY_ACTIVE="GPU:0|1" (default 0) */
EXPORT nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t dev, int *active)
{
	unsigned int v;
	nvmlReturn_t r = uint_value(dev, "display", "FAKE_NVML_DISPLAY_ACTIVE", 0, 0, &v);

	if (r == SUCCESS) {
		if (!active)
			return INVALID_ARGUMENT;
		*active = (int)v;
	}
	return r;
}
#endif

/* FAKE_NVML_MIG="GPU:CURRENT:PENDING"; only datacenter parts of CC >= 8.0 know MIG.
 * A GPU named in FAKE_NVML_MIG_DEVICES is in MIG mode unless FAKE_NVML_MIG says otherwise. */
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev, unsigned int *current, unsigned int *pending)
{
	struct fake_gpu g;
	struct fake_mig m[FAKE_MAX_MIG];
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!current || !pending)
		return INVALID_ARGUMENT;
	if (!datacenter(&g) || g.cc_major < 8 || unsupported(dev, "mig"))
		return NOT_SUPPORTED;
	r = uint_value(dev, "mig", "FAKE_NVML_MIG", 0, mig_devices(dev->index, m, FAKE_MAX_MIG) > 0, current);
	return r ? r : uint_value(dev, "mig", "FAKE_NVML_MIG", 1, *current, pending);
}

#ifndef FAKE_NO_MIG_DEVICES
static bool mig_on(nvmlDevice_t dev)
{
	unsigned int cur = 0, pending = 0;

	return nvmlDeviceGetMigMode(dev, &cur, &pending) == SUCCESS && cur == 1;
}

/* 7 slots, as an H100/H200 has, while MIG mode is on; 0 otherwise (as NVML answers) */
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t dev, unsigned int *count)
{
	struct fake_gpu g;
	struct fake_mig m[FAKE_MAX_MIG];
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!count)
		return INVALID_ARGUMENT;
	int n = mig_devices(dev->index, m, FAKE_MAX_MIG);
	*count = mig_on(dev) ? (unsigned int)(n > 7 ? n : 7) : 0;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t dev, unsigned int index, nvmlDevice_t *mig)
{
	struct fake_gpu g;
	struct fake_mig m[FAKE_MAX_MIG];
	unsigned int max = 0;
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!mig)
		return INVALID_ARGUMENT;
	if (!mig_on(dev))
		return NOT_SUPPORTED;
	nvmlDeviceGetMaxMigDeviceCount(dev, &max);
	if (index >= max)
		return INVALID_ARGUMENT;
	if (index >= (unsigned int)mig_devices(dev->index, m, FAKE_MAX_MIG))
		return NOT_FOUND;
	mig_handles[dev->index][index].index = dev->index;
	mig_handles[dev->index][index].mig = (int)index;
	*mig = &mig_handles[dev->index][index];
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t dev, unsigned int *is_mig)
{
	struct fake_gpu g;
	struct fake_mig m;

	if (!is_mig)
		return INVALID_ARGUMENT;
	if (mig_of(dev, &g, &m)) {
		*is_mig = 1;
		return SUCCESS;
	}
	nvmlReturn_t r = gpu(dev, &g, true);
	if (r == SUCCESS)
		*is_mig = 0;
	return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t dev, unsigned int *id)
{
	struct fake_gpu g;
	struct fake_mig m;

	if (!id)
		return INVALID_ARGUMENT;
	if (!mig_of(dev, &g, &m))
		return gpu(dev, &g, true) == SUCCESS ? NOT_SUPPORTED : INVALID_ARGUMENT;
	*id = (unsigned int)dev->mig + 1;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t dev, unsigned int *id)
{
	struct fake_gpu g;
	struct fake_mig m;

	if (!id)
		return INVALID_ARGUMENT;
	if (!mig_of(dev, &g, &m))
		return gpu(dev, &g, true) == SUCCESS ? NOT_SUPPORTED : INVALID_ARGUMENT;
	*id = 0;
	return SUCCESS;
}
#endif

/* FAKE_NVML_POWER="GPU:USAGE_MW:LIMIT_MW" */
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *mw)
{
	return uint_value(dev, "power", "FAKE_NVML_POWER", 0, 75000, mw);
}
EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t dev, unsigned int *mw)
{
	return uint_value(dev, "power", "FAKE_NVML_POWER", 1, 700000, mw);
}
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t dev, unsigned int *mw)
{
	return uint_value(dev, "power", "FAKE_NVML_POWER", 1, 700000, mw);
}

/* FAKE_NVML_TEMP="GPU:CELSIUS" */
EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *c)
{
	if (sensor != 0)
		return INVALID_ARGUMENT;
	return uint_value(dev, "temperature", "FAKE_NVML_TEMP", 0, 34, c);
}

/* FAKE_NVML_CLOCKS="GPU:SM_MHZ:MEM_MHZ"; idle clocks by default */
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	struct fake_cc_defaults d = defaults_of(dev);

	if (type == 0 || type == 1)
		return uint_value(dev, "clocks", "FAKE_NVML_CLOCKS", 0, 345, mhz);
	if (type == 2)
		return uint_value(dev, "clocks", "FAKE_NVML_CLOCKS", 1, (unsigned int)d.mem_clock_khz / 1000, mhz);
	return type == 3 ? uint_value(dev, "clocks", NULL, 0, 765, mhz) : INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
	struct fake_cc_defaults d = defaults_of(dev);

	if (type == 0 || type == 1)
		return uint_value(dev, "clocks", NULL, 0, (unsigned int)d.clock_khz / 1000, mhz);
	if (type == 2)
		return uint_value(dev, "clocks", NULL, 0, (unsigned int)d.mem_clock_khz / 1000, mhz);
	return type == 3 ? uint_value(dev, "clocks", NULL, 0, 1755, mhz) : INVALID_ARGUMENT;
}

/* FAKE_NVML_CLOCK_REASONS="GPU:MASK" (default 0x1, GPU idle) */
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev, unsigned long long *mask)
{
	struct fake_gpu g;
	unsigned long long v = 1;
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!mask)
		return INVALID_ARGUMENT;
	if (unsupported(dev, "reasons"))
		return NOT_SUPPORTED;
	fake_env_gpu_values("FAKE_NVML_CLOCK_REASONS", dev->index, &v, 1);
	*mask = v;
	return SUCCESS;
}

#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t dev, unsigned long long *mask)
{
	return nvmlDeviceGetCurrentClocksThrottleReasons(dev, mask);
}
#endif

/* ECC on datacenter parts (or where FAKE_NVML_ECC names the GPU):
 * FAKE_NVML_ECC="GPU:CORR_VOLATILE:UNCORR_VOLATILE:CORR_AGGREGATE:UNCORR_AGGREGATE" */
static bool ecc_capable(nvmlDevice_t dev, const struct fake_gpu *g)
{
	unsigned long long v[4];

	return !unsupported(dev, "ecc") &&
	       (datacenter(g) || fake_env_gpu_values("FAKE_NVML_ECC", dev->index, v, 4) > 0);
}

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t dev, int *current, int *pending)
{
	struct fake_gpu g;
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!current || !pending)
		return INVALID_ARGUMENT;
	if (!ecc_capable(dev, &g))
		return NOT_SUPPORTED;
	*current = *pending = 1;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev, int error_type, int counter_type,
						unsigned long long *count)
{
	maybe_hang("nvmlDeviceGetTotalEccErrors");
	struct fake_gpu g;
	unsigned long long v[4] = { 0, 0, 0, 0 };
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!count || error_type < 0 || error_type > 1 || counter_type < 0 || counter_type > 1)
		return INVALID_ARGUMENT;
	if (!ecc_capable(dev, &g))
		return NOT_SUPPORTED;
	fake_env_gpu_values("FAKE_NVML_ECC", dev->index, v, 4);
	*count = v[counter_type * 2 + error_type];
	return SUCCESS;
}

/* Page retirement is Volta-era; Ampere and later datacenter parts remap rows instead.
 * FAKE_NVML_RETIRED="GPU:SBE_PAGES:DBE_PAGES:PENDING" forces support. */
static bool retirement_supported(nvmlDevice_t dev, const struct fake_gpu *g)
{
	unsigned long long v[3];

	if (unsupported(dev, "retired"))
		return false;
	return fake_env_gpu_values("FAKE_NVML_RETIRED", dev->index, v, 3) > 0 ||
	       (datacenter(g) && g->cc_major == 7);
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t dev, int cause, unsigned int *count,
					      unsigned long long *addresses)
{
	struct fake_gpu g;
	unsigned long long v[3] = { 0, 0, 0 };
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!count || cause < 0 || cause > 1)
		return INVALID_ARGUMENT;
	if (!retirement_supported(dev, &g))
		return NOT_SUPPORTED;
	fake_env_gpu_values("FAKE_NVML_RETIRED", dev->index, v, 3);
	unsigned int have = (unsigned int)v[cause];
	if (*count < have) {
		*count = have;
		return INSUFFICIENT_SIZE;
	}
	if (have && !addresses)
		return INVALID_ARGUMENT;
	for (unsigned int i = 0; i < have; i++)
		addresses[i] = 0x1000ULL * (i + 1);
	*count = have;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t dev, int *pending)
{
	struct fake_gpu g;
	unsigned long long v[3] = { 0, 0, 0 };
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!pending)
		return INVALID_ARGUMENT;
	if (!retirement_supported(dev, &g))
		return NOT_SUPPORTED;
	fake_env_gpu_values("FAKE_NVML_RETIRED", dev->index, v, 3);
	*pending = v[2] != 0;
	return SUCCESS;
}

/* FAKE_NVML_REMAPPED="GPU:CORRECTABLE:UNCORRECTABLE:PENDING:FAILURE" */
EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t dev, unsigned int *corr, unsigned int *unc,
					      unsigned int *pending, unsigned int *failure)
{
	struct fake_gpu g;
	unsigned long long v[4] = { 0, 0, 0, 0 };
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!corr || !unc || !pending || !failure)
		return INVALID_ARGUMENT;
	int n = fake_env_gpu_values("FAKE_NVML_REMAPPED", dev->index, v, 4);
	if (unsupported(dev, "remapped") || (n == 0 && !(datacenter(&g) && g.cc_major >= 8)))
		return NOT_SUPPORTED;
	*corr = (unsigned int)v[0];
	*unc = (unsigned int)v[1];
	*pending = (unsigned int)v[2];
	*failure = (unsigned int)v[3];
	return SUCCESS;
}

static nvmlReturn_t running(nvmlDevice_t dev, unsigned int *count, void *infos, int version)
{
	struct fake_gpu g;
	nvmlProcessInfo_v2_t p[64];
	nvmlReturn_t r = gpu(dev, &g, false);

	if (r)
		return r;
	if (!count)
		return INVALID_ARGUMENT;
	if (unsupported(dev, "procs"))
		return NOT_SUPPORTED;
	int n = procs(dev->index, p, 64);
	if (*count < (unsigned int)n) {
		*count = (unsigned int)n;
		return INSUFFICIENT_SIZE;
	}
	if (n && !infos)
		return INVALID_ARGUMENT;
	for (int i = 0; i < n; i++) {
		if (version == 1) {
			nvmlProcessInfo_v1_t *o = (nvmlProcessInfo_v1_t *)infos + i;
			o->pid = p[i].pid;
			o->usedGpuMemory = p[i].usedGpuMemory;
		} else {
			((nvmlProcessInfo_v2_t *)infos)[i] = p[i];
		}
	}
	*count = (unsigned int)n;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t dev, unsigned int *count, void *infos)
{
	return running(dev, count, infos, 1);
}
#ifndef FAKE_OLD_ABI
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t dev, unsigned int *count, void *infos)
{
	return running(dev, count, infos, 2);
}
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count, void *infos)
{
	return running(dev, count, infos, 3);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t dev, int *mode)
{
	unsigned int v;
	nvmlReturn_t r = uint_value(dev, "computemode", NULL, 0,
				    (unsigned int)fake_env_gpu_int("FAKE_CUDA_COMPUTE_MODE", gpu_index(dev), 0), &v);

	if (r == SUCCESS) {
		if (!mode)
			return INVALID_ARGUMENT;
		*mode = (int)v;
	}
	return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t dev, int *pstate)
{
	unsigned int v;
	nvmlReturn_t r = uint_value(dev, "pstate", NULL, 0, 0, &v);

	if (r == SUCCESS) {
		if (!pstate)
			return INVALID_ARGUMENT;
		*pstate = (int)v;
	}
	return r;
}

#ifndef FAKE_OLD_ABI
/* Topology (fake_topo.h): FAKE_TOPO picks the layout; "topology" in FAKE_NVML_NOT_SUPPORTED
 * makes every topology query answer NOT_SUPPORTED. */
static nvmlReturn_t topo_gpus(nvmlDevice_t dev, struct fake_gpu *all, int *n)
{
	struct fake_gpu one;
	nvmlReturn_t r = gpu(dev, &one, false);

	if (r)
		return r;
	if (unsupported(dev, "topology"))
		return NOT_SUPPORTED;
	*n = fake_gpus_parse(all);
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = topo_gpus(a, g, &n);

	if (r || (r = topo_gpus(b, g, &n)))
		return r;
	if (!level)
		return INVALID_ARGUMENT;
	*level = fake_topo_level(a->index, b->index);
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int cap, int *status)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = topo_gpus(a, g, &n);

	if (r || (r = topo_gpus(b, g, &n)))
		return r;
	if (!status || cap < 0 || cap > 4)
		return INVALID_ARGUMENT;
	*status = a->index == b->index ? 5 : fake_topo_p2p_status(g, n, a->index, b->index, cap);
	return SUCCESS;
}

static nvmlReturn_t link_of(nvmlDevice_t dev, unsigned int link, struct fake_gpu *g, int *n)
{
	nvmlReturn_t r = topo_gpus(dev, g, n);

	if (r)
		return r;
	if (fake_topo_links(&g[dev->index]) == 0)
		return NOT_SUPPORTED;
	return link < (unsigned int)fake_topo_links(&g[dev->index]) ? SUCCESS : INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t dev, unsigned int link, int *active)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = link_of(dev, link, g, &n);

	if (r)
		return r;
	if (!active)
		return INVALID_ARGUMENT;
	*active = fake_topo_link_up(dev->index, (int)link);
	return SUCCESS;
}

/* nvmlNvlinkVersion_t: 4 (NVML_NVLINK_VERSION_3_0) on 8.0, 6 (4_0) on 9.0, 7 (5_0) on 10.x */
EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t dev, unsigned int link, unsigned int *version)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = link_of(dev, link, g, &n);

	if (r)
		return r;
	if (!version)
		return INVALID_ARGUMENT;
	switch (g[dev->index].cc_major) {
	case 6: *version = 1; break;
	case 7: *version = 2; break;
	case 8: *version = 4; break;
	case 9: *version = 6; break;
	default: *version = 7; break;
	}
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t dev, unsigned int link, nvmlPciInfo_t *pci)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = link_of(dev, link, g, &n);

	if (r)
		return r;
	if (!pci)
		return INVALID_ARGUMENT;
	int peer = fake_topo_link_peer(&g[dev->index], n, (int)link);
	memset(pci, 0, sizeof(*pci));
	/* NVSwitches at buses 0xc0.. (one per 9 links), as on an HGX baseboard */
	unsigned int bus = peer >= 0 ? (unsigned int)g[peer].pci_bus : 0xc0u + link / 9u;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "0000:%02x:00.0", bus & 0xffu);
	snprintf(pci->busId, sizeof(pci->busId), "00000000:%02X:00.0", bus & 0xffu);
	pci->bus = bus;
	pci->pciDeviceId = peer >= 0 ? 0x233510deu : 0x22a310deu;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t dev, unsigned int link, int *type)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	nvmlReturn_t r = link_of(dev, link, g, &n);

	if (r)
		return r;
	if (!type)
		return INVALID_ARGUMENT;
	*type = fake_topo_link_peer(&g[dev->index], n, (int)link) >= 0 ? 0 : 2;
	return SUCCESS;
}

/* FAKE_NVML_NUMA=NODE: every GPU's memory is on NUMA node NODE (one bit), or "GPU:NODE;..." per
 * GPU; unset (or a GPU not named): not supported */
EXPORT nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t dev, unsigned int words, unsigned long *set, unsigned int scope)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n;
	long long node = fake_env_gpu_int("FAKE_NVML_NUMA", gpu_index(dev), -1);
	nvmlReturn_t r = topo_gpus(dev, g, &n);

	if (r)
		return r;
	if (node < 0 || node > 63)
		return NOT_SUPPORTED;
	if (!set || words == 0 || scope != 0)
		return INVALID_ARGUMENT;
	memset(set, 0, words * sizeof(unsigned long));
	set[0] = 1UL << node;
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t dev, unsigned int words, unsigned long *set)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n, first, last;
	nvmlReturn_t r = topo_gpus(dev, g, &n);
	const unsigned bits = 8 * sizeof(unsigned long);

	if (r)
		return r;
	if (!set || words == 0)
		return INVALID_ARGUMENT;
	memset(set, 0, words * sizeof(unsigned long));
	fake_topo_cpus(dev->index, &first, &last);
	for (int c = first; c <= last && c >= 0 && (unsigned)c < words * bits; c++)
		set[(unsigned)c / bits] |= 1UL << ((unsigned)c % bits);
	return SUCCESS;
}
#endif

#ifndef FAKE_OLD_ABI
/* NVML's own verdicts (R575+): field 230, the recovery action (FAKE_NVML_RECOVERY="GPU:ACTION;..."
 * or one ACTION for every GPU, 0 default), and the drain state (FAKE_NVML_DRAIN="GPU:1");
 * FAKE_NVML_NOT_SUPPORTED "recovery" answers the field as a driver before R575 does,
 * "drain" the drain query. */
EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t dev, int count, nvmlFieldValue_t *values)
{
	struct fake_gpu g;
	nvmlReturn_t r;

	maybe_hang("nvmlDeviceGetFieldValues");
	if ((r = gpu(dev, &g, false)) != SUCCESS)
		return r;
	if (count <= 0 || !values)
		return INVALID_ARGUMENT;
	for (int i = 0; i < count; i++) {
		nvmlFieldValue_t *v = &values[i];

		memset(&v->value, 0, sizeof v->value);
		v->valueType = 1; /* NVML_VALUE_TYPE_UNSIGNED_INT */
		if (v->fieldId != 230 || unsupported(dev, "recovery")) {
			v->nvmlReturn = NOT_SUPPORTED;
			continue;
		}
		v->nvmlReturn = SUCCESS;
		v->value.uiVal = (unsigned int)fake_env_gpu_int("FAKE_NVML_RECOVERY", dev->index, 0);
	}
	return SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceQueryDrainState(nvmlPciInfo_t *pci, int *state)
{
	struct fake_gpu g[FAKE_MAX_GPUS];
	int n = fake_gpus_parse(g);

	maybe_hang("nvmlDeviceQueryDrainState");
	if (!init_count)
		return UNINITIALIZED;
	if (!pci || !state)
		return INVALID_ARGUMENT;
	for (int i = 0; i < n; i++)
		if ((unsigned int)g[i].pci_bus == pci->bus && (unsigned int)g[i].pci_domain == pci->domain) {
			if (fake_env_has_gpu_word("FAKE_NVML_NOT_SUPPORTED", i, "drain"))
				return NOT_SUPPORTED;
			*state = (int)fake_env_gpu_int("FAKE_NVML_DRAIN", i, 0) != 0;
			return SUCCESS;
		}
	return NOT_FOUND;
}
#endif
