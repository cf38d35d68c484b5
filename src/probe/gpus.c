/* Collecting per-GPU facts through libcuda (device attributes, no context) and NVML,
 * and matching CUDA ordinals to NVML devices by UUID, else by PCI bus id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/gpus.h"

#include "probe/driver_info.h"
#include "util/inflight.h"
#include "util/str.h"
#include "util/task.h"

/* Appends "call: what" to g->errors when the whole entry fits, else marks the list cut. */
static void note_error(struct gpu_info *g, const char *call, const char *what)
{
	size_t len = strlen(g->errors);
	size_t need = strlen(call) + strlen(what) + 4;

	if (len + need + 5 >= sizeof(g->errors)) {
		if (len + 5 < sizeof(g->errors) && !str_ends_with(g->errors, "; ..."))
			snprintf(g->errors + len, sizeof(g->errors) - len, "; ...");
		return;
	}
	snprintf(g->errors + len, sizeof(g->errors) - len, "%s%s: %s", len ? "; " : "", call, what);
}

void gpu_format_uuid(const unsigned char u[16], char *out, size_t len)
{
	snprintf(out, len,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

static bool parse_hex(const char **s, unsigned long long max, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long x = 0;
	int digits = 0;

	for (; *p; p++, digits++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (digits >= 8)
			return false;
		x = x * 16 + (unsigned long long)d;
	}
	if (digits == 0 || x > max)
		return false;
	*s = p;
	*v = x;
	return true;
}

bool gpu_normalize_pci_bus_id(const char *s, char *out, size_t len)
{
	unsigned long long a, b, c, fn, domain = 0, bus, dev;
	const char *p = s;

	if (!s || !parse_hex(&p, 0xffffffffULL, &a) || *p++ != ':' || !parse_hex(&p, 0xffffffffULL, &b))
		return false;
	if (*p == ':') {
		p++;
		if (!parse_hex(&p, 0x1f, &c))
			return false;
		domain = a;
		bus = b;
		dev = c;
	} else {
		bus = a;
		dev = b;
	}
	if (*p++ != '.' || !parse_hex(&p, 7, &fn) || *p != '\0' || bus > 0xff || dev > 0x1f)
		return false;
	snprintf(out, len, domain > 0xffff ? "%08llx:%02llx:%02llx.%llx" : "%04llx:%02llx:%02llx.%llx",
		 domain, bus, dev, fn);
	return true;
}

/* ---- CUDA ---- */

static bool cu_attr(const struct cudrv *cu, struct gpu_info *g, CUdevice dev, int attrib, long long *out)
{
	int v = 0;
	CUresult r;

	if (!cu->DeviceGetAttribute)
		return false;
	r = cu->DeviceGetAttribute(&v, attrib, dev);
	if (r == CUDA_SUCCESS) {
		*out = v;
		return true;
	}
	/* an older driver answers INVALID_VALUE for an attribute it does not know */
	if (r != CUDA_ERROR_INVALID_VALUE) {
		char call[64];
		snprintf(call, sizeof(call), "cuDeviceGetAttribute(%d)", attrib);
		note_error(g, call, cudrv_result_name(cu, r));
	}
	return false;
}

static void cu_num(const struct cudrv *cu, struct gpu_info *g, CUdevice dev, int attrib,
		   enum gpu_field f, long long *out)
{
	if (cu_attr(cu, g, dev, attrib, out))
		gpu_mark(g, f);
}

static void cu_flag(const struct cudrv *cu, struct gpu_info *g, CUdevice dev, int attrib,
		    enum gpu_field f, bool *out)
{
	long long v;

	if (cu_attr(cu, g, dev, attrib, &v)) {
		*out = v != 0;
		gpu_mark(g, f);
	}
}

static void cu_dims(const struct cudrv *cu, struct gpu_info *g, CUdevice dev, int first,
		    enum gpu_field f, long long out[3])
{
	if (cu_attr(cu, g, dev, first, &out[0]) && cu_attr(cu, g, dev, first + 1, &out[1]) &&
	    cu_attr(cu, g, dev, first + 2, &out[2]))
		gpu_mark(g, f);
}

/* CUDA ordinal's device handle, name, UUID and PCI address into g; false when
 * cuDeviceGet fails (noted in g). */
static bool collect_cuda_identity(const struct cudrv *cu, int ordinal, struct gpu_info *g, CUdevice *handle)
{
	CUdevice dev = ordinal;
	CUresult r;

	if (cu->DeviceGet && (r = cu->DeviceGet(&dev, ordinal)) != CUDA_SUCCESS) {
		note_error(g, "cuDeviceGet", cudrv_result_name(cu, r));
		return false;
	}
	if (cu->DeviceGetName) {
		char name[256] = "";
		if ((r = cu->DeviceGetName(name, (int)sizeof(name) - 1, dev)) == CUDA_SUCCESS) {
			snprintf(g->name, sizeof(g->name), "%s", name);
			gpu_mark(g, GF_NAME);
		} else {
			note_error(g, "cuDeviceGetName", cudrv_result_name(cu, r));
		}
	}
	if (cu->DeviceGetUuid) {
		CUuuid u;
		if ((r = cu->DeviceGetUuid(&u, dev)) == CUDA_SUCCESS) {
			gpu_format_uuid((const unsigned char *)u.bytes, g->uuid, sizeof(g->uuid));
			gpu_mark(g, GF_UUID);
		} else {
			note_error(g, "cuDeviceGetUuid", cudrv_result_name(cu, r));
		}
	}
	if (cu->DeviceGetPCIBusId) {
		char bus[64] = "";
		if ((r = cu->DeviceGetPCIBusId(bus, (int)sizeof(bus) - 1, dev)) == CUDA_SUCCESS &&
		    gpu_normalize_pci_bus_id(bus, g->pci_bus_id, sizeof(g->pci_bus_id)))
			gpu_mark(g, GF_PCI_BUS_ID);
		else if (r != CUDA_SUCCESS)
			note_error(g, "cuDeviceGetPCIBusId", cudrv_result_name(cu, r));
	}
	if (handle)
		*handle = dev;
	return true;
}

static void collect_cuda_device(const struct cudrv *cu, int ordinal, struct gpu_info *g)
{
	CUdevice dev = ordinal;
	CUresult r;

	if (!collect_cuda_identity(cu, ordinal, g, &dev))
		return;
	if (cu->DeviceTotalMem) {
		size_t bytes = 0;
		if ((r = cu->DeviceTotalMem(&bytes, dev)) == CUDA_SUCCESS) {
			g->memory_total_bytes = (long long)bytes;
			gpu_mark(g, GF_MEMORY_TOTAL);
		} else {
			note_error(g, "cuDeviceTotalMem_v2", cudrv_result_name(cu, r));
		}
	}
	if (cu_attr(cu, g, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &g->cc_major) &&
	    cu_attr(cu, g, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &g->cc_minor))
		gpu_mark(g, GF_CC);
	if (cu_attr(cu, g, dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &g->pci_domain) &&
	    cu_attr(cu, g, dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &g->pci_bus) &&
	    cu_attr(cu, g, dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &g->pci_device)) {
		gpu_mark(g, GF_PCI_DOMAIN);
		gpu_mark(g, GF_PCI_BUS);
		gpu_mark(g, GF_PCI_DEVICE);
	}
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, GF_SM_COUNT, &g->sm_count);
	/* CUDA 13 removed these from cudaDeviceProp; the attributes remain */
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, GF_CLOCK_RATE, &g->clock_rate_khz);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, GF_MEMORY_CLOCK_RATE, &g->memory_clock_rate_khz);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, GF_MEMORY_BUS_WIDTH, &g->memory_bus_width_bits);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, GF_L2_CACHE, &g->l2_cache_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, GF_PERSISTING_L2_MAX, &g->persisting_l2_max_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, GF_WARP_SIZE, &g->warp_size);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, GF_MAX_THREADS_PER_BLOCK, &g->max_threads_per_block);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, GF_MAX_THREADS_PER_SM, &g->max_threads_per_sm);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, GF_MAX_BLOCKS_PER_SM, &g->max_blocks_per_sm);
	cu_dims(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, GF_MAX_BLOCK_DIM, g->max_block_dim);
	cu_dims(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, GF_MAX_GRID_DIM, g->max_grid_dim);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, GF_SMEM_PER_BLOCK, &g->smem_per_block_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, GF_SMEM_PER_BLOCK_OPTIN, &g->smem_per_block_optin_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, GF_SMEM_PER_SM, &g->smem_per_sm_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, GF_SMEM_RESERVED_PER_BLOCK, &g->smem_reserved_per_block_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, GF_REGS_PER_BLOCK, &g->regs_per_block);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, GF_REGS_PER_SM, &g->regs_per_sm);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, GF_CONST_MEMORY, &g->const_memory_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_MAX_PITCH, GF_MAX_PITCH, &g->max_pitch_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, GF_TEXTURE_ALIGNMENT, &g->texture_alignment_bytes);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, GF_COPY_ENGINES, &g->copy_engines);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, GF_CONCURRENT_KERNELS, &g->concurrent_kernels);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, GF_ECC_ENABLED, &g->ecc_enabled);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, GF_UNIFIED_ADDRESSING, &g->unified_addressing);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, GF_MANAGED_MEMORY, &g->managed_memory);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_INTEGRATED, GF_INTEGRATED, &g->integrated);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, GF_KERNEL_EXEC_TIMEOUT, &g->kernel_exec_timeout);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, GF_CAN_MAP_HOST_MEMORY, &g->can_map_host_memory);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, GF_COOPERATIVE_LAUNCH, &g->cooperative_launch);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_TCC_DRIVER, GF_TCC_DRIVER, &g->tcc_driver);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, GF_MULTI_GPU_BOARD, &g->multi_gpu_board);
	cu_flag(cu, g, dev, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, GF_VMM_SUPPORTED, &g->vmm_supported);
	cu_num(cu, g, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, GF_COMPUTE_MODE, &g->compute_mode);
}

static struct gpu_info *add_gpu(struct gpu_probe *p)
{
	struct gpu_info *grown;

	if (p->n_gpus >= GPU_PROBE_MAX_GPUS)
		return NULL;
	grown = realloc(p->gpus, (p->n_gpus + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	p->gpus = grown;
	memset(&grown[p->n_gpus], 0, sizeof(*grown));
	grown[p->n_gpus].cuda_ordinal = -1;
	grown[p->n_gpus].nvml_index = -1;
	return &grown[p->n_gpus++];
}

/* cuInit on its own thread: the driver's slowest call, while NVML is asked in the caller's */
struct cuda_init {
	const struct cudrv *cu;
	CUresult result;
};

static void cuda_init_run(void *arg)
{
	struct cuda_init *ci = arg;
	int slot = inflight_enter("cuInit");

	ci->result = ci->cu->Init(0);
	inflight_leave(slot);
}

/* The NVML entry (of the first n, none taken yet) that is CUDA ordinal i: same UUID, else
 * same PCI address; -1 when none is. */
static int match_nvml(const struct gpu_probe *p, size_t n, const bool *taken, const struct cudrv *cu, int i)
{
	struct gpu_info id;

	memset(&id, 0, sizeof id);
	collect_cuda_identity(cu, i, &id, NULL);
	for (size_t k = 0; k < n; k++)
		if (!taken[k] && gpu_has(&id, GF_UUID) && gpu_has(&p->gpus[k], GF_UUID) && strcmp(p->gpus[k].uuid, id.uuid) == 0)
			return (int)k;
	for (size_t k = 0; k < n; k++)
		if (!taken[k] && gpu_has(&id, GF_PCI_BUS_ID) && gpu_has(&p->gpus[k], GF_PCI_BUS_ID) &&
		    strcmp(p->gpus[k].pci_bus_id, id.pci_bus_id) == 0)
			return (int)k;
	return -1;
}

static void free_gpu(struct gpu_info *g)
{
	free(g->processes);
	free(g->mig_devices);
}

/* CUDA's devices after cuInit answered init: each is the NVML entry of the same GPU (CUDA's
 * values over NVML's where both answer, as NVML only fills what CUDA left), in CUDA's
 * order, then the GPUs CUDA does not see in NVML's order. */
static int collect_cuda(struct gpu_probe *p, const struct cudrv *cu, CUresult init, char *err)
{
	size_t n_nvml = p->n_gpus, n_out = 0;
	struct gpu_info *out = NULL;
	bool *taken = NULL;
	int count = 0, rc = CD_OK;

	p->cuda_init_result = init;
	snprintf(p->cuda_init_result_name, sizeof(p->cuda_init_result_name), "%s", cudrv_result_name(cu, init));
	if (init != CUDA_SUCCESS || !cu->DeviceGetCount || cu->DeviceGetCount(&count) != CUDA_SUCCESS || count < 0)
		return CD_OK;
	driver_mark(p, DF_CUDA_DEVICE_COUNT);
	p->cuda_device_count = count;
	if (count > GPU_PROBE_MAX_GPUS)
		count = GPU_PROBE_MAX_GPUS;
	out = calloc(n_nvml + (size_t)count + 1, sizeof(*out));
	taken = calloc(n_nvml + 1, sizeof(*taken));
	if (!out || !taken) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory collecting %d GPUs", count);
		goto out;
	}
	for (int i = 0; i < count; i++) {
		int k = match_nvml(p, n_nvml, taken, cu, i);
		struct gpu_info *g = &out[n_out++];

		if (k >= 0) {
			*g = p->gpus[k];
			taken[k] = true;
		} else {
			g->nvml_index = -1;
		}
		g->cuda_ordinal = i;
		collect_cuda_device(cu, i, g);
	}
	for (size_t k = 0; k < n_nvml; k++) {
		if (taken[k])
			continue;
		if (n_out < GPU_PROBE_MAX_GPUS)
			out[n_out++] = p->gpus[k];
		else
			free_gpu(&p->gpus[k]);
	}
	free(p->gpus);
	p->gpus = out;
	p->n_gpus = n_out;
	out = NULL;
out:
	free(out);
	free(taken);
	return rc;
}

/* ---- NVML ---- */

/* true when the call answered; NOT_SUPPORTED stays silent, other failures are noted */
static bool nv_ok(const struct nvml *nv, struct gpu_info *g, const char *call, nvmlReturn_t r)
{
	if (r == NVML_SUCCESS)
		return true;
	/* a lost GPU fails every later query the same way: say it once */
	if (g->nvml_gpu_lost)
		return false;
	if (r == NVML_ERROR_GPU_IS_LOST)
		g->nvml_gpu_lost = true;
	if (r != NVML_ERROR_NOT_SUPPORTED && r != NVML_ERROR_FUNCTION_NOT_FOUND)
		note_error(g, call, nvml_result_name(r));
	(void)nv;
	return false;
}

/* One NVML call that answers an unsigned int into dst, marking field when it did. */
static void nv_uint(const struct nvml *nv, struct gpu_info *g, nvmlDevice_t dev,
		    nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *), const char *call,
		    enum gpu_field field, long long *dst)
{
	unsigned int v;

	if (fn && nv_ok(nv, g, call, fn(dev, &v))) {
		*dst = v;
		gpu_mark(g, field);
	}
}

static int collect_processes(const struct nvml *nv, nvmlDevice_t dev, struct gpu_info *g, char *err)
{
	unsigned int count = 0;
	nvmlReturn_t r = NVML_ERROR_UNKNOWN;
	size_t elem = nv->DeviceGetComputeRunningProcesses ? sizeof(nvmlProcessInfo_v2_t) : sizeof(nvmlProcessInfo_v1_t);
	void *buf = NULL;

	if (!nv->DeviceGetComputeRunningProcesses && !nv->DeviceGetComputeRunningProcesses_v1)
		return CD_OK;
	/* the list can grow between the size query and the read: retry a few times */
	for (int attempt = 0; attempt < 4; attempt++) {
		unsigned int cap = count + 8;
		void *grown;

		if (cap > GPU_PROBE_MAX_PROCESSES)
			cap = GPU_PROBE_MAX_PROCESSES;
		grown = realloc(buf, cap * elem);
		if (!grown) {
			free(buf);
			return cd_fail(err, CD_ENOMEM, "out of memory reading the process list");
		}
		buf = grown;
		count = cap;
		if (nv->DeviceGetComputeRunningProcesses)
			r = nv->DeviceGetComputeRunningProcesses(dev, &count, buf);
		else
			r = nv->DeviceGetComputeRunningProcesses_v1(dev, &count, buf);
		if (r != NVML_ERROR_INSUFFICIENT_SIZE || cap == GPU_PROBE_MAX_PROCESSES)
			break;
	}
	if (!nv_ok(nv, g, "nvmlDeviceGetComputeRunningProcesses", r) || count > GPU_PROBE_MAX_PROCESSES) {
		free(buf);
		return CD_OK;
	}
	g->processes = count ? calloc(count, sizeof(*g->processes)) : NULL;
	if (count && !g->processes) {
		free(buf);
		return cd_fail(err, CD_ENOMEM, "out of memory reading the process list");
	}
	for (unsigned int i = 0; i < count; i++) {
		struct gpu_process *out = &g->processes[i];
		unsigned long long mem;

		if (nv->DeviceGetComputeRunningProcesses) {
			const nvmlProcessInfo_v2_t *in = (const nvmlProcessInfo_v2_t *)buf + i;
			out->pid = in->pid;
			mem = in->usedGpuMemory;
			out->gpu_instance_id = in->gpuInstanceId == 0xffffffffu ? -1 : (long long)in->gpuInstanceId;
			out->compute_instance_id = in->computeInstanceId == 0xffffffffu ? -1 : (long long)in->computeInstanceId;
		} else {
			const nvmlProcessInfo_v1_t *in = (const nvmlProcessInfo_v1_t *)buf + i;
			out->pid = in->pid;
			mem = in->usedGpuMemory;
			out->gpu_instance_id = out->compute_instance_id = -1;
		}
		out->used_memory_bytes = mem == NVML_VALUE_NOT_AVAILABLE || mem > (unsigned long long)0x7fffffffffffffffLL
						 ? -1 : (long long)mem;
	}
	g->n_processes = count;
	gpu_mark(g, GF_PROCESSES);
	free(buf);
	return CD_OK;
}

/* One MIG device's identity and memory; a query that fails leaves its value unknown. */
static void collect_mig_device(const struct nvml *nv, nvmlDevice_t mig, struct gpu_info *g, struct gpu_mig_device *m)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE + 160];
	unsigned int id;

	m->gpu_instance_id = m->compute_instance_id = -1;
	if (nv->DeviceGetGpuInstanceId && nv_ok(nv, g, "nvmlDeviceGetGpuInstanceId", nv->DeviceGetGpuInstanceId(mig, &id)))
		m->gpu_instance_id = id;
	if (nv->DeviceGetComputeInstanceId &&
	    nv_ok(nv, g, "nvmlDeviceGetComputeInstanceId", nv->DeviceGetComputeInstanceId(mig, &id)))
		m->compute_instance_id = id;
	memset(buf, 0, sizeof(buf));
	if (nv->DeviceGetUUID &&
	    nv_ok(nv, g, "nvmlDeviceGetUUID", nv->DeviceGetUUID(mig, buf, NVML_DEVICE_UUID_V2_BUFFER_SIZE)))
		snprintf(m->uuid, sizeof(m->uuid), "%.*s", (int)sizeof(m->uuid) - 1, buf);
	memset(buf, 0, sizeof(buf));
	if (nv->DeviceGetName &&
	    nv_ok(nv, g, "nvmlDeviceGetName", nv->DeviceGetName(mig, buf, NVML_DEVICE_NAME_V2_BUFFER_SIZE)))
		snprintf(m->name, sizeof(m->name), "%.*s", (int)sizeof(m->name) - 1, buf);
	/* the unversioned call is the one NVML documents for MIG device handles */
	if (nv->DeviceGetMemoryInfo) {
		nvmlMemory_t mem;
		if (nv_ok(nv, g, "nvmlDeviceGetMemoryInfo", nv->DeviceGetMemoryInfo(mig, &mem))) {
			m->memory_total_bytes = (long long)mem.total;
			m->memory_used_bytes = (long long)mem.used;
			m->memory_free_bytes = (long long)mem.free;
			m->has_memory = true;
		}
	} else if (nv->DeviceGetMemoryInfo_v2) {
		nvmlMemory_v2_t mem;
		memset(&mem, 0, sizeof(mem));
		mem.version = NVML_MEMORY_V2_VERSION;
		if (nv_ok(nv, g, "nvmlDeviceGetMemoryInfo_v2", nv->DeviceGetMemoryInfo_v2(mig, &mem))) {
			m->memory_total_bytes = (long long)mem.total;
			m->memory_used_bytes = (long long)mem.used;
			m->memory_free_bytes = (long long)mem.free;
			m->has_memory = true;
		}
	}
}

/* The MIG devices of a GPU in MIG mode. Indices may be sparse (NOT_FOUND for a slot
 * without a compute instance), so every index up to the maximum is asked. */
static int collect_mig_devices(const struct nvml *nv, nvmlDevice_t dev, struct gpu_info *g, char *err)
{
	unsigned int max = 0;

	if (!gpu_has(g, GF_MIG_MODE) || !g->mig_mode_current || !nv->DeviceGetMaxMigDeviceCount ||
	    !nv->DeviceGetMigDeviceHandleByIndex)
		return CD_OK;
	if (!nv_ok(nv, g, "nvmlDeviceGetMaxMigDeviceCount", nv->DeviceGetMaxMigDeviceCount(dev, &max)))
		return CD_OK;
	if (max > GPU_PROBE_MAX_MIG_DEVICES)
		max = GPU_PROBE_MAX_MIG_DEVICES;
	g->mig_devices = max ? calloc(max, sizeof(*g->mig_devices)) : NULL;
	if (max && !g->mig_devices)
		return cd_fail(err, CD_ENOMEM, "out of memory listing MIG devices");
	for (unsigned int i = 0; i < max; i++) {
		nvmlDevice_t mig = NULL;
		nvmlReturn_t r = nv->DeviceGetMigDeviceHandleByIndex(dev, i, &mig);

		if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT)
			continue;
		if (!nv_ok(nv, g, "nvmlDeviceGetMigDeviceHandleByIndex", r) || !mig) {
			free(g->mig_devices);
			g->mig_devices = NULL;
			g->n_mig_devices = 0;
			return CD_OK;
		}
		struct gpu_mig_device *m = &g->mig_devices[g->n_mig_devices++];
		m->index = i;
		collect_mig_device(nv, mig, g, m);
	}
	gpu_mark(g, GF_MIG_DEVICES);
	return CD_OK;
}

static void collect_nvml_identity(const struct nvml *nv, nvmlDevice_t dev, struct gpu_info *g)
{
	char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE + 160];

	if (!gpu_has(g, GF_NAME) && nv->DeviceGetName &&
	    nv_ok(nv, g, "nvmlDeviceGetName", nv->DeviceGetName(dev, buf, NVML_DEVICE_NAME_V2_BUFFER_SIZE))) {
		buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE - 1] = '\0'; /* never trust the terminator */
		snprintf(g->name, sizeof(g->name), "%s", buf);
		gpu_mark(g, GF_NAME);
	}
	if (!gpu_has(g, GF_UUID) && nv->DeviceGetUUID &&
	    nv_ok(nv, g, "nvmlDeviceGetUUID", nv->DeviceGetUUID(dev, buf, NVML_DEVICE_UUID_V2_BUFFER_SIZE))) {
		snprintf(g->uuid, sizeof(g->uuid), "%.*s", (int)sizeof(g->uuid) - 1, buf);
		gpu_mark(g, GF_UUID);
	}
	if (nv->DeviceGetPciInfo) {
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof(pci));
		if (nv_ok(nv, g, "nvmlDeviceGetPciInfo", nv->DeviceGetPciInfo(dev, &pci))) {
			g->pci_device_id = pci.pciDeviceId;
			g->pci_subsystem_id = pci.pciSubSystemId;
			gpu_mark(g, GF_NVML_PCI_IDS);
			if (!gpu_has(g, GF_PCI_BUS_ID)) {
				/* _v3 fills busId; older calls only the legacy 16 bytes */
				char id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE + 1];
				if (pci.busId[0])
					snprintf(id, sizeof(id), "%.*s", NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, pci.busId);
				else
					snprintf(id, sizeof(id), "%.*s", NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE, pci.busIdLegacy);
				if (gpu_normalize_pci_bus_id(id, g->pci_bus_id, sizeof(g->pci_bus_id)))
					gpu_mark(g, GF_PCI_BUS_ID);
			}
			if (!gpu_has(g, GF_PCI_BUS)) {
				g->pci_domain = pci.domain;
				g->pci_bus = pci.bus;
				g->pci_device = pci.device;
				gpu_mark(g, GF_PCI_DOMAIN);
				gpu_mark(g, GF_PCI_BUS);
				gpu_mark(g, GF_PCI_DEVICE);
			}
		}
	}
	if (!gpu_has(g, GF_CC) && nv->DeviceGetCudaComputeCapability) {
		int major, minor;
		if (nv_ok(nv, g, "nvmlDeviceGetCudaComputeCapability",
			  nv->DeviceGetCudaComputeCapability(dev, &major, &minor))) {
			g->cc_major = major;
			g->cc_minor = minor;
			gpu_mark(g, GF_CC);
		}
	}
}

/* What the driver itself says to do with the GPU (R575+) and whether it is drained; a driver
 * that does not know the field or the call leaves both unknown without an error. */
static void collect_recovery(const struct nvml *nv, nvmlDevice_t dev, struct gpu_info *g)
{
	if (nv->DeviceGetFieldValues) {
		nvmlFieldValue_t fv;

		memset(&fv, 0, sizeof fv);
		fv.fieldId = NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
		if (nv_ok(nv, g, "nvmlDeviceGetFieldValues", nv->DeviceGetFieldValues(dev, 1, &fv)) &&
		    fv.nvmlReturn == NVML_SUCCESS && fv.value.uiVal <= NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET) {
			g->recovery_action = (int)fv.value.uiVal;
			gpu_mark(g, GF_RECOVERY_ACTION);
		}
	}
	if (nv->DeviceQueryDrainState && nv->DeviceGetPciInfo) {
		nvmlPciInfo_t pci;
		int state;

		memset(&pci, 0, sizeof pci);
		/* root only on most drivers: NO_PERMISSION leaves it unknown, not an error */
		if (nv->DeviceGetPciInfo(dev, &pci) == NVML_SUCCESS && nv->DeviceQueryDrainState(&pci, &state) == NVML_SUCCESS) {
			g->drained = state == NVML_FEATURE_ENABLED;
			gpu_mark(g, GF_DRAIN_STATE);
		}
	}
}

static int collect_nvml_device(const struct nvml *nv, nvmlDevice_t dev, struct gpu_info *g, char *err)
{
	nv_uint(nv, g, dev, nv->DeviceGetMinorNumber, "nvmlDeviceGetMinorNumber", GF_NVML_MINOR, &g->nvml_minor);
	if (nv->DeviceGetMemoryInfo_v2) {
		nvmlMemory_v2_t m;
		memset(&m, 0, sizeof(m));
		m.version = NVML_MEMORY_V2_VERSION;
		if (nv_ok(nv, g, "nvmlDeviceGetMemoryInfo_v2", nv->DeviceGetMemoryInfo_v2(dev, &m))) {
			g->nvml_memory_total_bytes = (long long)m.total;
			g->memory_used_bytes = (long long)m.used;
			g->memory_free_bytes = (long long)m.free;
			g->memory_reserved_bytes = (long long)m.reserved;
			gpu_mark(g, GF_NVML_MEMORY);
			gpu_mark(g, GF_NVML_MEMORY_RESERVED);
		}
	}
	if (!gpu_has(g, GF_NVML_MEMORY) && nv->DeviceGetMemoryInfo) {
		nvmlMemory_t m;
		if (nv_ok(nv, g, "nvmlDeviceGetMemoryInfo", nv->DeviceGetMemoryInfo(dev, &m))) {
			g->nvml_memory_total_bytes = (long long)m.total;
			g->memory_used_bytes = (long long)m.used;
			g->memory_free_bytes = (long long)m.free;
			gpu_mark(g, GF_NVML_MEMORY);
		}
	}
	if (!gpu_has(g, GF_MEMORY_TOTAL) && gpu_has(g, GF_NVML_MEMORY)) {
		g->memory_total_bytes = g->nvml_memory_total_bytes;
		gpu_mark(g, GF_MEMORY_TOTAL);
	}
	nv_uint(nv, g, dev, nv->DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration", GF_PCIE_GEN_CURRENT, &g->pcie_gen_current);
	nv_uint(nv, g, dev, nv->DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth", GF_PCIE_WIDTH_CURRENT, &g->pcie_width_current);
	nv_uint(nv, g, dev, nv->DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration", GF_PCIE_GEN_MAX, &g->pcie_gen_max);
	nv_uint(nv, g, dev, nv->DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth", GF_PCIE_WIDTH_MAX, &g->pcie_width_max);
	nv_uint(nv, g, dev, nv->DeviceGetGpuMaxPcieLinkGeneration, "nvmlDeviceGetGpuMaxPcieLinkGeneration", GF_PCIE_GEN_GPU_MAX, &g->pcie_gen_gpu_max);
	if (nv->DeviceGetPersistenceMode) {
		int mode;
		if (nv_ok(nv, g, "nvmlDeviceGetPersistenceMode", nv->DeviceGetPersistenceMode(dev, &mode))) {
			g->persistence_mode = mode == NVML_FEATURE_ENABLED;
			gpu_mark(g, GF_PERSISTENCE);
		}
	}
	if (nv->DeviceGetMigMode) {
		unsigned int cur, pending;
		if (nv_ok(nv, g, "nvmlDeviceGetMigMode", nv->DeviceGetMigMode(dev, &cur, &pending))) {
			g->mig_mode_current = cur == NVML_DEVICE_MIG_ENABLE;
			g->mig_mode_pending = pending == NVML_DEVICE_MIG_ENABLE;
			gpu_mark(g, GF_MIG_MODE);
		}
	}
	nv_uint(nv, g, dev, nv->DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage", GF_POWER_DRAW, &g->power_draw_mw);
	nv_uint(nv, g, dev, nv->DeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit", GF_POWER_LIMIT, &g->power_limit_mw);
	nv_uint(nv, g, dev, nv->DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", GF_POWER_ENFORCED_LIMIT, &g->power_enforced_limit_mw);
	if (nv->DeviceGetTemperature) {
		unsigned int c;
		if (nv_ok(nv, g, "nvmlDeviceGetTemperature", nv->DeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &c))) {
			g->temperature_c = c;
			gpu_mark(g, GF_TEMPERATURE);
		}
	}
	static const struct {
		int type;
		bool max;
		enum gpu_field f;
		size_t off;
	} clocks[] = {
		{ NVML_CLOCK_GRAPHICS, false, GF_CLOCK_GRAPHICS, offsetof(struct gpu_info, clock_graphics_mhz) },
		{ NVML_CLOCK_SM, false, GF_CLOCK_SM, offsetof(struct gpu_info, clock_sm_mhz) },
		{ NVML_CLOCK_MEM, false, GF_CLOCK_MEMORY, offsetof(struct gpu_info, clock_memory_mhz) },
		{ NVML_CLOCK_GRAPHICS, true, GF_CLOCK_MAX_GRAPHICS, offsetof(struct gpu_info, clock_max_graphics_mhz) },
		{ NVML_CLOCK_SM, true, GF_CLOCK_MAX_SM, offsetof(struct gpu_info, clock_max_sm_mhz) },
		{ NVML_CLOCK_MEM, true, GF_CLOCK_MAX_MEMORY, offsetof(struct gpu_info, clock_max_memory_mhz) },
	};
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		nvmlReturn_t (*fn)(nvmlDevice_t, int, unsigned int *) =
			clocks[i].max ? nv->DeviceGetMaxClockInfo : nv->DeviceGetClockInfo;
		unsigned int mhz;
		if (fn && nv_ok(nv, g, clocks[i].max ? "nvmlDeviceGetMaxClockInfo" : "nvmlDeviceGetClockInfo",
				fn(dev, clocks[i].type, &mhz))) {
			long long v = mhz;
			memcpy((char *)g + clocks[i].off, &v, sizeof(v));
			gpu_mark(g, clocks[i].f);
		}
	}
	if (nv->DeviceGetCurrentClocksEventReasons &&
	    nv_ok(nv, g, "nvmlDeviceGetCurrentClocksEventReasons",
		  nv->DeviceGetCurrentClocksEventReasons(dev, &g->clock_event_reasons)))
		gpu_mark(g, GF_CLOCK_EVENT_REASONS);
	if (nv->DeviceGetEccMode) {
		int cur, pending;
		if (nv_ok(nv, g, "nvmlDeviceGetEccMode", nv->DeviceGetEccMode(dev, &cur, &pending))) {
			g->ecc_mode_current = cur == NVML_FEATURE_ENABLED;
			g->ecc_mode_pending = pending == NVML_FEATURE_ENABLED;
			gpu_mark(g, GF_ECC_MODE);
		}
	}
	if (nv->DeviceGetTotalEccErrors && (!gpu_has(g, GF_ECC_MODE) || g->ecc_mode_current)) {
		unsigned long long c, u;
		if (nv_ok(nv, g, "nvmlDeviceGetTotalEccErrors",
			  nv->DeviceGetTotalEccErrors(dev, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &c)) &&
		    nv_ok(nv, g, "nvmlDeviceGetTotalEccErrors",
			  nv->DeviceGetTotalEccErrors(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &u))) {
			g->ecc_corrected_volatile = (long long)c;
			g->ecc_uncorrected_volatile = (long long)u;
			gpu_mark(g, GF_ECC_VOLATILE);
		}
		if (nv_ok(nv, g, "nvmlDeviceGetTotalEccErrors",
			  nv->DeviceGetTotalEccErrors(dev, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &c)) &&
		    nv_ok(nv, g, "nvmlDeviceGetTotalEccErrors",
			  nv->DeviceGetTotalEccErrors(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &u))) {
			g->ecc_corrected_aggregate = (long long)c;
			g->ecc_uncorrected_aggregate = (long long)u;
			gpu_mark(g, GF_ECC_AGGREGATE);
		}
	}
	if (nv->DeviceGetRetiredPages) {
		unsigned int sbe = 0, dbe = 0;
		nvmlReturn_t r1 = nv->DeviceGetRetiredPages(dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &sbe, NULL);
		nvmlReturn_t r2 = nv->DeviceGetRetiredPages(dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &dbe, NULL);
		/* asked with a zero-sized buffer: INSUFFICIENT_SIZE carries the count */
		if (r1 == NVML_ERROR_INSUFFICIENT_SIZE)
			r1 = NVML_SUCCESS;
		if (r2 == NVML_ERROR_INSUFFICIENT_SIZE)
			r2 = NVML_SUCCESS;
		if (nv_ok(nv, g, "nvmlDeviceGetRetiredPages", r1) && nv_ok(nv, g, "nvmlDeviceGetRetiredPages", r2)) {
			g->retired_pages_sbe = sbe;
			g->retired_pages_dbe = dbe;
			gpu_mark(g, GF_RETIRED_PAGES);
		}
	}
	if (nv->DeviceGetRetiredPagesPendingStatus) {
		int pending;
		if (nv_ok(nv, g, "nvmlDeviceGetRetiredPagesPendingStatus",
			  nv->DeviceGetRetiredPagesPendingStatus(dev, &pending))) {
			g->retired_pages_pending = pending == NVML_FEATURE_ENABLED;
			gpu_mark(g, GF_RETIRED_PENDING);
		}
	}
	if (nv->DeviceGetRemappedRows) {
		unsigned int corr, unc, pending, failure;
		if (nv_ok(nv, g, "nvmlDeviceGetRemappedRows",
			  nv->DeviceGetRemappedRows(dev, &corr, &unc, &pending, &failure))) {
			g->remapped_rows_correctable = corr;
			g->remapped_rows_uncorrectable = unc;
			g->remapped_rows_pending = pending != 0;
			g->remapped_rows_failure = failure != 0;
			gpu_mark(g, GF_REMAPPED_ROWS);
		}
	}
	collect_recovery(nv, dev, g);
	if (!gpu_has(g, GF_COMPUTE_MODE) && nv->DeviceGetComputeMode) {
		int mode;
		if (nv_ok(nv, g, "nvmlDeviceGetComputeMode", nv->DeviceGetComputeMode(dev, &mode))) {
			g->compute_mode = mode;
			gpu_mark(g, GF_COMPUTE_MODE);
		}
	}
	if (nv->DeviceGetDriverModel) {
		int cur, pend;
		if (nv_ok(nv, g, "nvmlDeviceGetDriverModel", nv->DeviceGetDriverModel(dev, &cur, &pend)) &&
		    gpu_driver_model_name(cur)) {
			g->driver_model_current = cur;
			g->driver_model_pending = pend;
			gpu_mark(g, GF_DRIVER_MODEL);
		}
	}
	if (nv->DeviceGetDisplayActive) {
		int on;
		if (nv_ok(nv, g, "nvmlDeviceGetDisplayActive", nv->DeviceGetDisplayActive(dev, &on))) {
			g->display_active = on != 0;
			gpu_mark(g, GF_DISPLAY_ACTIVE);
		}
	}
	if (nv->DeviceGetPerformanceState) {
		int ps;
		if (nv_ok(nv, g, "nvmlDeviceGetPerformanceState", nv->DeviceGetPerformanceState(dev, &ps)) &&
		    ps >= 0 && ps <= 15) {
			g->pstate = ps;
			gpu_mark(g, GF_PSTATE);
		}
	}
	int rc = collect_processes(nv, dev, g, err);
	return rc == CD_OK ? collect_mig_devices(nv, dev, g, err) : rc;
}

static int collect_nvml(struct gpu_probe *p, const struct nvml *nv, char *err)
{
	unsigned int count = 0;
	int rc = CD_OK;

	if (!nv->Init)
		return CD_OK;
	driver_mark(p, DF_NVML_INIT);
	p->nvml_init_result = nv->Init();
	snprintf(p->nvml_init_result_name, sizeof(p->nvml_init_result_name), "%s",
		 nvml_result_name(p->nvml_init_result));
	snprintf(p->nvml_init_result_text, sizeof(p->nvml_init_result_text), "%s",
		 nvml_result_text(nv, p->nvml_init_result));
	if (p->nvml_init_result != NVML_SUCCESS)
		return CD_OK;
	/* NVML's driver version is the one nvidia-smi prints: it goes first (driver_info.c) */
	if (nv->SystemGetDriverVersion &&
	    nv->SystemGetDriverVersion(p->user_driver_version, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE) == NVML_SUCCESS &&
	    p->user_driver_version[0]) {
		p->user_driver_version_source = DRIVER_FROM_NVML;
		driver_mark(p, DF_VERSION);
	} else {
		p->user_driver_version[0] = '\0';
	}
	if (nv->SystemGetNVMLVersion &&
	    nv->SystemGetNVMLVersion(p->nvml_version, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE) == NVML_SUCCESS)
		driver_mark(p, DF_NVML_VERSION);
	if (nv->SystemGetCudaDriverVersion &&
	    nv->SystemGetCudaDriverVersion(&p->nvml_cuda_driver_version) == NVML_SUCCESS)
		driver_mark(p, DF_NVML_CUDA_VERSION);
	if (!nv->DeviceGetCount || nv->DeviceGetCount(&count) != NVML_SUCCESS)
		goto out;
	driver_mark(p, DF_NVML_DEVICE_COUNT);
	p->nvml_device_count = count > GPU_PROBE_MAX_GPUS ? GPU_PROBE_MAX_GPUS : (int)count;
	for (int i = 0; i < p->nvml_device_count && nv->DeviceGetHandleByIndex; i++) {
		nvmlDevice_t dev;
		struct gpu_info *g;

		if (nv->DeviceGetHandleByIndex((unsigned int)i, &dev) != NVML_SUCCESS)
			continue;
		if (!(g = add_gpu(p))) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory collecting NVML device %d", i);
			goto out;
		}
		g->nvml_index = i;
		collect_nvml_identity(nv, dev, g);
		rc = collect_nvml_device(nv, dev, g, err);
		if (rc != CD_OK)
			goto out;
	}
out:
	return rc;
}

int gpu_probe_collect(struct gpu_probe *p, const struct cudrv *cu, const struct nvml *nv, char *err)
{
	struct cuda_init init = { .cu = cu, .result = CUDA_ERROR_NOT_INITIALIZED };
	struct task t;
	bool started = false;
	int rc = CD_OK;

	if (cu) {
		p->cuda_loaded = true;
		snprintf(p->cuda_path, sizeof(p->cuda_path), "%s", cu->path);
		snprintf(p->cuda_how, sizeof(p->cuda_how), "%s", cu->how);
		snprintf(p->cuda_missing, sizeof(p->cuda_missing), "%s", cu->missing);
		if (cu->DriverGetVersion && cu->DriverGetVersion(&p->cuda_driver_version) == CUDA_SUCCESS)
			driver_mark(p, DF_CUDA_VERSION);
		if (cu->Init) {
			driver_mark(p, DF_CUDA_INIT);
			started = task_start(&t, cuda_init_run, &init) == CD_OK;
		}
	}
	/* NVML's devices while cuInit runs; CUDA's join them after */
	if (nv) {
		p->nvml_loaded = true;
		snprintf(p->nvml_path, sizeof(p->nvml_path), "%s", nv->path);
		snprintf(p->nvml_how, sizeof(p->nvml_how), "%s", nv->how);
		snprintf(p->nvml_missing, sizeof(p->nvml_missing), "%s", nv->missing);
		snprintf(p->nvml_fallbacks, sizeof(p->nvml_fallbacks), "%s", nv->fallbacks);
		rc = collect_nvml(p, nv, err);
	}
	if (started)
		task_wait(&t);
	if (rc == CD_OK && started)
		rc = collect_cuda(p, cu, init.result, err);
	if (rc != CD_OK)
		return rc;
	driver_info_collect(p, NULL);
	return CD_OK;
}

void gpu_probe_free(struct gpu_probe *p)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		free_gpu(&p->gpus[i]);
	free(p->gpus);
	p->gpus = NULL;
	p->n_gpus = 0;
}
