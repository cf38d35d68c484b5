/* How the GPUs connect, as collected: per GPU its NVLinks, CPU and NUMA affinity; per ordered
 * pair the PCIe path, NVLinks, what CUDA and NVML say about P2P; the NICs. Plain data and
 * the accessors that only read it; the probe (probe/topology.c) fills it. */
#ifndef CUDOCTOR_FACTS_TOPOLOGY_H
#define CUDOCTOR_FACTS_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver/nvml.h"
#include "util/field.h"

#define TOPO_MAX_GPUS 16
#define TOPO_MAX_NICS 16
#define TOPO_MAX_CPUS 4096
#define TOPO_CPU_WORDS (TOPO_MAX_CPUS / 64)

struct topo_cpuset {
	unsigned long long bits[TOPO_CPU_WORDS];
};

enum topo_link_state { TOPO_LINK_ABSENT = 0, TOPO_LINK_DOWN, TOPO_LINK_UP };

struct topo_nvlink {
	enum topo_link_state state;
	bool has_version;
	unsigned int version;        /* nvmlNvlinkVersion_t as NVML answers */
	bool has_remote;
	char remote_bus_id[32];      /* "0000:28:00.0" */
	int remote_type;             /* NVML_NVLINK_DEVICE_TYPE_*, -1 unknown */
};

struct topo_gpu {
	const struct gpu_info *info; /* the GPU probe's facts (name, CC, PCIe link, ordinals) */
	int nvml_index;              /* -1 when NVML does not see it */
	int cuda_ordinal;            /* -1 when hidden from CUDA */
	struct topo_nvlink links[NVML_NVLINK_MAX_LINKS];
	int links_present, links_up, links_to_switch;
	bool has_cpu_affinity;       /* NVML's ideal CPU set */
	struct topo_cpuset cpu_affinity;
	bool has_numa_node;          /* sysfs numa_node (>= 0) */
	int numa_node;
	bool has_local_cpus;         /* sysfs local_cpulist */
	struct topo_cpuset local_cpus;
	char pci_path[512];          /* sysfs device path, "" when unknown */
	/* the PCIe link as sysfs has it when the topology is read (current_link_speed as a
	 * generation, current_link_width); 0 when unknown. Not shown: NVML's link (gpu_info) is
	 * what the reports show; a lab falls back to this where NVML cannot say. */
	int sysfs_link_gen, sysfs_link_width;
};

/* One ordered pair (a -> b): CUDA's answers are directional. */
struct topo_pair {
	int a, b;                    /* indices into topo_probe.gpus */
	bool has_level;
	int level;                   /* NVML_TOPOLOGY_* */
	int nvlinks;                 /* active NVLinks joining them (direct, or both on an NVSwitch) */
	bool via_switch;
	bool has_p2p[5];             /* NVML caps index READ, WRITE, NVLINK, ATOMICS, PROP */
	int p2p[5];                  /* nvmlGpuP2PStatus_t */
	bool has_can_access;
	bool can_access;             /* cuDeviceCanAccessPeer(a, b) */
	bool has_attr[4];            /* CUDA P2P attributes: rank, access, native atomics, arrays */
	int attr[4];
};

struct topo_nic {
	char name[64];               /* "mlx5_0" (InfiniBand) or "eth0" */
	char bus_id[32];
	char pci_path[512];
	bool has_numa_node;
	int numa_node;
};

struct topo_probe {
	bool nvml_ok;                /* NVML answered topology queries */
	bool cuda_ok;                /* libcuda initialised */
	char errors[512];            /* calls that failed for another reason than "not supported" */
	struct topo_gpu gpus[TOPO_MAX_GPUS];
	size_t n_gpus;
	struct topo_pair *pairs;     /* n_gpus * (n_gpus - 1), row-major by a, skipping a == b */
	size_t n_pairs;
	struct topo_nic nics[TOPO_MAX_NICS];
	size_t n_nics;
	bool has_process_cpus;
	struct topo_cpuset process_cpus;   /* sched_getaffinity of this process */
	struct topo_cpuset node_cpus[64];  /* sysfs /sys/devices/system/node/nodeN/cpulist */
	bool has_node[64];
};

/* What is reported of each, described once (util/field.h): JSON key, text label
 * (the columns of topo's GPU and pair tables), validity. */
enum topo_gpu_field {
	TOPO_GPU_NAME, TOPO_GPU_PCI_BUS_ID, TOPO_GPU_CUDA_ORDINAL, TOPO_GPU_NVML_INDEX, TOPO_GPU_NUMA_NODE,
	TOPO_GPU_CPU_AFFINITY, TOPO_GPU_LOCAL_CPUS, TOPO_GPU_NVLINKS_PRESENT, TOPO_GPU_NVLINKS_ACTIVE,
	TOPO_GPU_NVLINKS_TO_NVSWITCH, TOPO_GPU_FIELDS
};
extern const struct field_table topo_gpu_field_table;
enum topo_nvlink_field { TOPO_NVLINK_STATE, TOPO_NVLINK_VERSION, TOPO_NVLINK_REMOTE_BUS_ID, TOPO_NVLINK_REMOTE_TYPE,
			 TOPO_NVLINK_FIELDS };
extern const struct field_table topo_nvlink_field_table;
enum topo_pair_field { TOPO_PAIR_A, TOPO_PAIR_B, TOPO_PAIR_NVLINKS, TOPO_PAIR_VIA_NVSWITCH, TOPO_PAIR_PCIE_PATH,
		       TOPO_PAIR_FIELDS };
extern const struct field_table topo_pair_field_table;
/* A pair's "cuda" object: cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute. */
enum topo_pair_cuda_field { TOPO_CUDA_CAN_ACCESS, TOPO_CUDA_RANK, TOPO_CUDA_ACCESS, TOPO_CUDA_ATOMICS,
			    TOPO_CUDA_ARRAYS, TOPO_PAIR_CUDA_FIELDS };
extern const struct field_table topo_pair_cuda_field_table;
/* A pair's "nvml_p2p" object: nvmlDeviceGetP2PStatus per capability, in NVML's index order. */
extern const struct field_table topo_pair_nvml_field_table;
enum topo_nic_field { TOPO_NIC_NAME, TOPO_NIC_PCI_BUS_ID, TOPO_NIC_NUMA_NODE, TOPO_NIC_FIELDS };
extern const struct field_table topo_nic_field_table;
enum topo_probe_field { TOPO_PROCESS_CPUS, TOPO_NVML_OK, TOPO_CUDA_OK, TOPO_ERRORS, TOPO_PROBE_FIELDS };
extern const struct field_table topo_probe_field_table;

/* The ordered pair a -> b, NULL when a == b or out of range. */
const struct topo_pair *topo_pair_of(const struct topo_probe *t, size_t a, size_t b);

/* Adds cpu to s (ignored outside 0..TOPO_MAX_CPUS-1). */
void topo_cpuset_add(struct topo_cpuset *s, long cpu);
/* "0-31,64-95" (empty set: "") */
void topo_cpuset_format(const struct topo_cpuset *s, char *buf, size_t len);
bool topo_cpuset_empty(const struct topo_cpuset *s);
bool topo_cpuset_intersects(const struct topo_cpuset *a, const struct topo_cpuset *b);

/* "PIX" "PXB" "PHB" "NODE" "SYS" for an NVML_TOPOLOGY_* level ("X" for INTERNAL, "?" else) */
const char *topo_level_name(int level);
/* NVML's nvmlGpuP2PStatus_t in words ("IOH topology not supported") */
const char *topo_p2p_status_text(int status);
/* The remote end of an NVLink: "gpu", "nvswitch", "ibmnpu", "unknown"; NULL when not read */
const char *topo_remote_type_name(int type);

/* The PCIe relation of two devices from their sysfs paths, as NVML's levels:
 * SINGLE (one switch between them), MULTIPLE, HOSTBRIDGE, NODE (other host bridge,
 * same NUMA node) or SYSTEM; -1 when a path is unknown. */
int topo_sysfs_level(const char *path_a, const char *path_b, bool same_numa);

#endif
