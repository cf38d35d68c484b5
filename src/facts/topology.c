/* The topology facts' read-only accessors (CPU sets, level names, pairs, the PCIe relation of
 * two sysfs paths) and their field tables. */
#include "facts/topology.h"

#include <stdio.h>
#include <string.h>

#include "facts/gpu.h"

void topo_cpuset_add(struct topo_cpuset *s, long cpu)
{
	if (cpu >= 0 && cpu < TOPO_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static bool cpu_has(const struct topo_cpuset *s, long cpu)
{
	return cpu >= 0 && cpu < TOPO_MAX_CPUS && ((s->bits[cpu / 64] >> (cpu % 64)) & 1ULL);
}

void topo_cpuset_format(const struct topo_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (long c = 0; c < TOPO_MAX_CPUS; c++) {
		if (!cpu_has(s, c))
			continue;
		long e = c;
		while (e + 1 < TOPO_MAX_CPUS && cpu_has(s, e + 1))
			e++;
		int n = e > c ? snprintf(buf + used, len - used, "%s%ld-%ld", used ? "," : "", c, e)
			      : snprintf(buf + used, len - used, "%s%ld", used ? "," : "", c);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
		c = e;
	}
}

bool topo_cpuset_empty(const struct topo_cpuset *s)
{
	for (size_t i = 0; i < TOPO_CPU_WORDS; i++)
		if (s->bits[i])
			return false;
	return true;
}

bool topo_cpuset_intersects(const struct topo_cpuset *a, const struct topo_cpuset *b)
{
	for (size_t i = 0; i < TOPO_CPU_WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

const char *topo_level_name(int level)
{
	switch (level) {
	case NVML_TOPOLOGY_INTERNAL: return "X";
	case NVML_TOPOLOGY_SINGLE: return "PIX";
	case NVML_TOPOLOGY_MULTIPLE: return "PXB";
	case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
	case NVML_TOPOLOGY_NODE: return "NODE";
	case NVML_TOPOLOGY_SYSTEM: return "SYS";
	default: return "?";
	}
}

const char *topo_p2p_status_text(int status)
{
	switch (status) {
	case NVML_P2P_STATUS_OK: return "OK";
	case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED: return "chipset not supported";
	case NVML_P2P_STATUS_GPU_NOT_SUPPORTED: return "GPU not supported";
	case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED: return "IOH topology not supported";
	case NVML_P2P_STATUS_DISABLED_BY_REGKEY: return "disabled by registry key";
	case NVML_P2P_STATUS_NOT_SUPPORTED: return "not supported";
	default: return "unknown";
	}
}

const struct topo_pair *topo_pair_of(const struct topo_probe *t, size_t a, size_t b)
{
	if (a == b || a >= t->n_gpus || b >= t->n_gpus || !t->pairs)
		return NULL;
	return &t->pairs[a * (t->n_gpus - 1) + (b < a ? b : b - 1)];
}

const char *topo_remote_type_name(int type)
{
	switch (type) {
	case NVML_NVLINK_DEVICE_TYPE_GPU: return "gpu";
	case NVML_NVLINK_DEVICE_TYPE_IBMNPU: return "ibmnpu";
	case NVML_NVLINK_DEVICE_TYPE_SWITCH: return "nvswitch";
	default: return type < 0 ? NULL : "unknown";
	}
}

static const char *link_state_name(int state)
{
	return state == TOPO_LINK_UP ? "up" : "down";
}

static const char *topo_gpu_name(const void *obj, char *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return ((const struct topo_gpu *)obj)->info->name;
}

static const char *gpu_bus_id(const void *obj, char *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return ((const struct topo_gpu *)obj)->info->pci_bus_id;
}

static const char *gpu_cpu_affinity(const void *obj, char *buf, size_t cap)
{
	topo_cpuset_format(&((const struct topo_gpu *)obj)->cpu_affinity, buf, cap);
	return buf;
}

static const char *gpu_local_cpus(const void *obj, char *buf, size_t cap)
{
	topo_cpuset_format(&((const struct topo_gpu *)obj)->local_cpus, buf, cap);
	return buf;
}

static const char *process_cpus(const void *obj, char *buf, size_t cap)
{
	topo_cpuset_format(&((const struct topo_probe *)obj)->process_cpus, buf, cap);
	return buf;
}

#define GPU(m) offsetof(struct topo_gpu, m)
static const struct field topo_gpu_fields[TOPO_GPU_FIELDS] = {
	[TOPO_GPU_NAME] = { "name", "name", FK_TEXT, .views = FIELD_ALL, .string = topo_gpu_name, .unknown = "?" },
	[TOPO_GPU_PCI_BUS_ID] = { "pci_bus_id", "bus id", FK_TEXT, .views = FIELD_ALL, .string = gpu_bus_id,
			.unknown = "?" },
	[TOPO_GPU_CUDA_ORDINAL] = { "cuda_ordinal", NULL, FK_INT, .off = GPU(cuda_ordinal),
			.flags = FIELD_NEG_UNKNOWN },
	[TOPO_GPU_NVML_INDEX] = { "nvml_index", NULL, FK_INT, .off = GPU(nvml_index), .flags = FIELD_NEG_UNKNOWN },
	[TOPO_GPU_NUMA_NODE] = { "numa_node", "NUMA", FK_INT, .off = GPU(numa_node), .flag = GPU(has_numa_node),
			.views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "N/A" },
	[TOPO_GPU_CPU_AFFINITY] = { "cpu_affinity", NULL, FK_TEXT, .flag = GPU(has_cpu_affinity),
			.flags = FIELD_IF_FLAG, .string = gpu_cpu_affinity },
	[TOPO_GPU_LOCAL_CPUS] = { "local_cpus", "local CPUs", FK_TEXT, .flag = GPU(has_local_cpus),
			.views = FIELD_ALL, .flags = FIELD_IF_FLAG, .string = gpu_local_cpus, .unknown = "N/A" },
	[TOPO_GPU_NVLINKS_PRESENT] = { "nvlinks_present", NULL, FK_INT, .off = GPU(links_present) },
	[TOPO_GPU_NVLINKS_ACTIVE] = { "nvlinks_active", NULL, FK_INT, .off = GPU(links_up) },
	[TOPO_GPU_NVLINKS_TO_NVSWITCH] = { "nvlinks_to_nvswitch", NULL, FK_INT, .off = GPU(links_to_switch) },
};
const struct field_table topo_gpu_field_table = {
	.name = "topology.gpus[]", .fields = topo_gpu_fields, .n = TOPO_GPU_FIELDS, .valid_off = -1,
};
#undef GPU

#define LINK(m) offsetof(struct topo_nvlink, m)
static const struct field topo_nvlink_fields[TOPO_NVLINK_FIELDS] = {
	[TOPO_NVLINK_STATE] = { "state", NULL, FK_NAMED, .off = LINK(state), .name = link_state_name },
	[TOPO_NVLINK_VERSION] = { "version", NULL, FK_UINT, .off = LINK(version), .flag = LINK(has_version),
			.flags = FIELD_IF_FLAG },
	[TOPO_NVLINK_REMOTE_BUS_ID] = { "remote_pci_bus_id", NULL, FK_CHARS, .off = LINK(remote_bus_id),
			.flag = LINK(has_remote), .flags = FIELD_IF_FLAG | FIELD_EMPTY_KNOWN },
	[TOPO_NVLINK_REMOTE_TYPE] = { "remote_type", NULL, FK_NAMED, .off = LINK(remote_type),
			.name = topo_remote_type_name },
};
const struct field_table topo_nvlink_field_table = {
	.name = "topology.gpus[].nvlinks[]", .fields = topo_nvlink_fields, .n = TOPO_NVLINK_FIELDS, .valid_off = -1,
};
#undef LINK

#define PAIR(m) offsetof(struct topo_pair, m)
static const struct field topo_pair_fields[TOPO_PAIR_FIELDS] = {
	[TOPO_PAIR_A] = { "a", NULL, FK_INT, .off = PAIR(a) },
	[TOPO_PAIR_B] = { "b", NULL, FK_INT, .off = PAIR(b) },
	[TOPO_PAIR_NVLINKS] = { "nvlinks", NULL, FK_INT, .off = PAIR(nvlinks) },
	[TOPO_PAIR_VIA_NVSWITCH] = { "via_nvswitch", NULL, FK_BOOL, .off = PAIR(via_switch) },
	[TOPO_PAIR_PCIE_PATH] = { "pcie_path", NULL, FK_NAMED, .off = PAIR(level), .flag = PAIR(has_level),
			.flags = FIELD_IF_FLAG, .name = topo_level_name },
};
const struct field_table topo_pair_field_table = {
	.name = "topology.pairs[]", .fields = topo_pair_fields, .n = TOPO_PAIR_FIELDS, .valid_off = -1,
};

static const struct field topo_pair_cuda_fields[TOPO_PAIR_CUDA_FIELDS] = {
	[TOPO_CUDA_CAN_ACCESS] = { "can_access_peer", "CUDA P2P", FK_BOOL, .off = PAIR(can_access),
			.flag = PAIR(has_can_access), .views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "?" },
	[TOPO_CUDA_RANK] = { "performance_rank", "rank", FK_INT, .off = PAIR(attr[0]), .flag = PAIR(has_attr[0]),
			.views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "?" },
	[TOPO_CUDA_ACCESS] = { "access_supported", NULL, FK_INT, .off = PAIR(attr[1]), .flag = PAIR(has_attr[1]),
			.flags = FIELD_IF_FLAG },
	[TOPO_CUDA_ATOMICS] = { "native_atomic_supported", "atomics", FK_INT, .unit = FU_YESNO, .off = PAIR(attr[2]),
			.flag = PAIR(has_attr[2]), .views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "?" },
	[TOPO_CUDA_ARRAYS] = { "cuda_array_access_supported", "arrays", FK_INT, .unit = FU_YESNO,
			.off = PAIR(attr[3]), .flag = PAIR(has_attr[3]), .views = FIELD_ALL, .flags = FIELD_IF_FLAG,
			.unknown = "?" },
};
const struct field_table topo_pair_cuda_field_table = {
	.name = "topology.pairs[].cuda", .fields = topo_pair_cuda_fields, .n = TOPO_PAIR_CUDA_FIELDS, .valid_off = -1,
};

#define CAP(key, i)                                                                                    \
	{ key, NULL, FK_NAMED, .off = PAIR(p2p[i]), .flag = PAIR(has_p2p[i]), .flags = FIELD_IF_FLAG,   \
	  .name = topo_p2p_status_text }
static const struct field topo_pair_nvml_fields[5] = {
	CAP("read", NVML_P2P_CAPS_INDEX_READ), CAP("write", NVML_P2P_CAPS_INDEX_WRITE),
	CAP("nvlink", NVML_P2P_CAPS_INDEX_NVLINK), CAP("atomics", NVML_P2P_CAPS_INDEX_ATOMICS),
	CAP("prop", NVML_P2P_CAPS_INDEX_PROP),
};
const struct field_table topo_pair_nvml_field_table = {
	.name = "topology.pairs[].nvml_p2p", .fields = topo_pair_nvml_fields, .n = 5, .valid_off = -1,
};
#undef CAP
#undef PAIR

#define NIC(m) offsetof(struct topo_nic, m)
static const struct field topo_nic_fields[TOPO_NIC_FIELDS] = {
	[TOPO_NIC_NAME] = { "name", NULL, FK_CHARS, .off = NIC(name), .flags = FIELD_EMPTY_KNOWN },
	[TOPO_NIC_PCI_BUS_ID] = { "pci_bus_id", NULL, FK_CHARS, .off = NIC(bus_id), .flags = FIELD_EMPTY_KNOWN },
	[TOPO_NIC_NUMA_NODE] = { "numa_node", NULL, FK_INT, .off = NIC(numa_node), .flag = NIC(has_numa_node),
			.flags = FIELD_IF_FLAG },
};
const struct field_table topo_nic_field_table = {
	.name = "topology.nics[]", .fields = topo_nic_fields, .n = TOPO_NIC_FIELDS, .valid_off = -1,
};
#undef NIC

#define PROBE(m) offsetof(struct topo_probe, m)
static const struct field topo_probe_fields[TOPO_PROBE_FIELDS] = {
	[TOPO_PROCESS_CPUS] = { "process_cpu_affinity", "this process may run on CPUs", FK_TEXT,
			.flag = PROBE(has_process_cpus), .views = FIELD_ALL, .flags = FIELD_IF_FLAG,
			.string = process_cpus },
	[TOPO_NVML_OK] = { "nvml_topology", NULL, FK_BOOL, .off = PROBE(nvml_ok) },
	[TOPO_CUDA_OK] = { "cuda", NULL, FK_BOOL, .off = PROBE(cuda_ok) },
	[TOPO_ERRORS] = { "errors", "failed queries", FK_CHARS, .off = PROBE(errors), .views = FIELD_ALL,
			.flags = FIELD_EMPTY_KNOWN },
};
const struct field_table topo_probe_field_table = {
	.name = "topology", .fields = topo_probe_fields, .n = TOPO_PROBE_FIELDS, .valid_off = -1,
};
#undef PROBE

/* Path components below "/devices/": "pci0000:00", "0000:00:01.0", ... */
static size_t components(const char *path, const char *out[32], size_t lens[32])
{
	const char *p = strstr(path, "/devices/");
	size_t n = 0;

	if (!p)
		return 0;
	p += strlen("/devices/");
	while (*p && n < 32) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		out[n] = p;
		lens[n++] = l;
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

int topo_sysfs_level(const char *pa, const char *pb, bool same_numa)
{
	const char *ca[32], *cb[32];
	size_t la[32], lb[32], na, nb, common = 0;

	if (!pa || !pb || !pa[0] || !pb[0])
		return -1;
	na = components(pa, ca, la);
	nb = components(pb, cb, lb);
	if (na < 2 || nb < 2)
		return -1;
	while (common < na && common < nb && la[common] == lb[common] && memcmp(ca[common], cb[common], la[common]) == 0)
		common++;
	if (common == 0)
		return same_numa ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
	if (common == 1)
		return NVML_TOPOLOGY_HOSTBRIDGE;
	size_t depth = (na > nb ? na : nb) - common;
	return depth <= 2 ? NVML_TOPOLOGY_SINGLE : NVML_TOPOLOGY_MULTIPLE;
}
