/* What was collected about each GPU from the CUDA driver API and NVML: everything
 * deviceQuery prints plus NVML's health and state. Every field has a validity bit: a
 * missing symbol, NOT_SUPPORTED or a failed call leaves it unset, never the GPU. */
#ifndef CUDOCTOR_FACTS_GPU_H
#define CUDOCTOR_FACTS_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "util/field.h"

#define GPU_PROBE_MAX_GPUS 64
#define GPU_PROBE_MAX_PROCESSES 4096
#define GPU_PROBE_MAX_MIG_DEVICES 64   /* an H100/H200 has at most 7 GPU instances */

enum gpu_field {
	/* identity (CUDA, else NVML) */
	GF_NAME, GF_UUID, GF_PCI_BUS_ID, GF_PCI_DOMAIN, GF_PCI_BUS, GF_PCI_DEVICE, GF_CC,
	GF_MEMORY_TOTAL,
	/* CUDA device attributes */
	GF_SM_COUNT, GF_CLOCK_RATE, GF_MEMORY_CLOCK_RATE, GF_MEMORY_BUS_WIDTH, GF_L2_CACHE,
	GF_PERSISTING_L2_MAX, GF_WARP_SIZE, GF_MAX_THREADS_PER_BLOCK, GF_MAX_THREADS_PER_SM,
	GF_MAX_BLOCKS_PER_SM, GF_MAX_BLOCK_DIM, GF_MAX_GRID_DIM, GF_SMEM_PER_BLOCK,
	GF_SMEM_PER_BLOCK_OPTIN, GF_SMEM_PER_SM, GF_SMEM_RESERVED_PER_BLOCK, GF_REGS_PER_BLOCK,
	GF_REGS_PER_SM, GF_CONST_MEMORY, GF_MAX_PITCH, GF_TEXTURE_ALIGNMENT, GF_COPY_ENGINES,
	GF_CONCURRENT_KERNELS, GF_ECC_ENABLED, GF_UNIFIED_ADDRESSING, GF_MANAGED_MEMORY,
	GF_INTEGRATED, GF_KERNEL_EXEC_TIMEOUT, GF_CAN_MAP_HOST_MEMORY, GF_COOPERATIVE_LAUNCH,
	GF_COMPUTE_MODE, GF_TCC_DRIVER, GF_MULTI_GPU_BOARD, GF_VMM_SUPPORTED,
	/* NVML */
	GF_NVML_MINOR, GF_NVML_PCI_IDS, GF_NVML_MEMORY, GF_NVML_MEMORY_RESERVED,
	GF_PCIE_GEN_CURRENT, GF_PCIE_WIDTH_CURRENT, GF_PCIE_GEN_MAX, GF_PCIE_WIDTH_MAX,
	GF_PCIE_GEN_GPU_MAX, GF_PERSISTENCE, GF_MIG_MODE, GF_POWER_DRAW, GF_POWER_LIMIT,
	GF_POWER_ENFORCED_LIMIT, GF_TEMPERATURE, GF_CLOCK_GRAPHICS, GF_CLOCK_SM, GF_CLOCK_MEMORY,
	GF_CLOCK_MAX_GRAPHICS, GF_CLOCK_MAX_SM, GF_CLOCK_MAX_MEMORY, GF_CLOCK_EVENT_REASONS,
	GF_ECC_MODE, GF_ECC_VOLATILE, GF_ECC_AGGREGATE, GF_RETIRED_PAGES, GF_RETIRED_PENDING,
	GF_REMAPPED_ROWS, GF_PROCESSES, GF_PSTATE, GF_DRIVER_MODEL, GF_DISPLAY_ACTIVE,
	GF_MIG_DEVICES,               /* mig_devices listed (MIG mode on and the calls exist) */
	GF_RECOVERY_ACTION,           /* NVML's field 230 (R575+) */
	GF_DRAIN_STATE,               /* nvmlDeviceQueryDrainState */
	GF_COUNT
};

struct gpu_process {
	unsigned int pid;
	long long used_memory_bytes;  /* -1: the driver cannot say (other container, WDDM) */
	long long gpu_instance_id;    /* -1 without MIG */
	long long compute_instance_id;
};

/* One MIG device (a compute instance inside a GPU instance), as NVML lists it under
 * its parent GPU. Unknown values: ids -1, strings "", has_memory false. */
struct gpu_mig_device {
	unsigned int index;           /* nvmlDeviceGetMigDeviceHandleByIndex's index */
	long long gpu_instance_id, compute_instance_id;
	char uuid[96];                /* "MIG-8-4-4-4-12" (R470+) or "MIG-GPU-.../GI/CI" */
	char name[96];                /* "NVIDIA H200 MIG 1g.18gb" */
	bool has_memory;
	long long memory_total_bytes, memory_used_bytes, memory_free_bytes;
};

struct gpu_info {
	unsigned long long valid[(GF_COUNT + 63) / 64];
	int cuda_ordinal;             /* -1: not visible to CUDA (hidden, or cuInit failed) */
	int nvml_index;               /* -1: not found through NVML */
	bool nvml_gpu_lost;           /* an NVML query answered NVML_ERROR_GPU_IS_LOST */

	char name[256];
	char uuid[64];                /* "GPU-8-4-4-4-12" as nvidia-smi prints it */
	char pci_bus_id[32];          /* "0000:18:00.0", lower case, as CUDA prints it */
	long long pci_domain, pci_bus, pci_device;
	long long cc_major, cc_minor;
	long long memory_total_bytes; /* cuDeviceTotalMem, else NVML's total */

	long long sm_count, clock_rate_khz, memory_clock_rate_khz, memory_bus_width_bits;
	long long l2_cache_bytes, persisting_l2_max_bytes, warp_size;
	long long max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
	long long max_block_dim[3], max_grid_dim[3];
	long long smem_per_block_bytes, smem_per_block_optin_bytes, smem_per_sm_bytes;
	long long smem_reserved_per_block_bytes, regs_per_block, regs_per_sm;
	long long const_memory_bytes, max_pitch_bytes, texture_alignment_bytes, copy_engines;
	bool concurrent_kernels, ecc_enabled, unified_addressing, managed_memory, integrated;
	bool kernel_exec_timeout, can_map_host_memory, cooperative_launch, tcc_driver;
	bool multi_gpu_board, vmm_supported;
	long long compute_mode;       /* CUcomputemode / nvmlComputeMode_t: 0 default, 2 prohibited, 3 exclusive process */

	long long nvml_minor;
	long long pci_device_id, pci_subsystem_id;  /* e.g. 0x233510de: device << 16 | vendor */
	long long nvml_memory_total_bytes, memory_used_bytes, memory_free_bytes;
	long long memory_reserved_bytes;
	long long pcie_gen_current, pcie_width_current, pcie_gen_max, pcie_width_max, pcie_gen_gpu_max;
	bool persistence_mode, mig_mode_current, mig_mode_pending;
	long long power_draw_mw, power_limit_mw, power_enforced_limit_mw, temperature_c;
	long long clock_graphics_mhz, clock_sm_mhz, clock_memory_mhz;
	long long clock_max_graphics_mhz, clock_max_sm_mhz, clock_max_memory_mhz;
	unsigned long long clock_event_reasons;
	bool ecc_mode_current, ecc_mode_pending;
	long long ecc_corrected_volatile, ecc_uncorrected_volatile;
	long long ecc_corrected_aggregate, ecc_uncorrected_aggregate;
	long long retired_pages_sbe, retired_pages_dbe;
	bool retired_pages_pending;
	long long remapped_rows_correctable, remapped_rows_uncorrectable;
	bool remapped_rows_pending, remapped_rows_failure;
	long long pstate;
	int driver_model_current, driver_model_pending; /* Windows: nvmlDriverModel_t, 0 WDDM, 1 TCC, 2 MCDM */
	bool display_active;          /* a display is driven by this GPU (NVML's display active) */
	int recovery_action;          /* what the driver says to do: nvmlDeviceGpuRecoveryAction_t,
				       * 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset */
	bool drained;                 /* NVML's drain state: the GPU is being taken out of use */
	struct gpu_process *processes;
	size_t n_processes;
	struct gpu_mig_device *mig_devices;  /* GF_MIG_DEVICES; may be 0 with MIG on */
	size_t n_mig_devices;

	/* calls that failed for a reason other than "not supported": "nvmlDeviceGetPowerUsage:
	 * NVML_ERROR_GPU_IS_LOST; ..." (evidence for a finding, truncated when long) */
	char errors[512];

	/* from the kb (facts/kb.c): the first CUDA release that builds sm_XY for it ("11.8")
	 * and the last one ("" when still supported or unknown) */
	char kb_first_toolkit[16], kb_last_toolkit[16];
};

static inline bool gpu_has(const struct gpu_info *g, enum gpu_field f)
{
	return (g->valid[f / 64] >> (f % 64)) & 1ULL;
}

static inline void gpu_mark(struct gpu_info *g, enum gpu_field f)
{
	g->valid[f / 64] |= 1ULL << (f % 64);
}

/* "NVIDIA H200", or NULL when the name is unknown. */
static inline const char *gpu_name(const struct gpu_info *g)
{
	return gpu_has(g, GF_NAME) ? g->name : NULL;
}

/* The plain SM number (90 for CC 9.0); 0 when the compute capability is unknown. */
static inline int gpu_sm(const struct gpu_info *g)
{
	return gpu_has(g, GF_CC) ? (int)(g->cc_major * 10 + g->cc_minor) : 0;
}

/* nvidia-smi's (PCI) index, else CUDA's ordinal for a GPU NVML did not list. */
static inline int gpu_pci_index(const struct gpu_info *g)
{
	return g->nvml_index >= 0 ? g->nvml_index : g->cuda_ordinal;
}

/* Their fields (gpu_fields.c): "gpus[]", its "mig_devices[]" and "processes[]", for every
 * command that shows a GPU (docs/json.md "driver and GPU facts"). */
extern const struct field_table gpu_field_table, gpu_mig_field_table, gpu_process_field_table;

/* "default", "exclusive_thread", "prohibited", "exclusive_process" or "unknown". */
/* "WDDM", "TCC", "MCDM"; NULL for another value. */
const char *gpu_driver_model_name(int model);
/* NVML's recovery action (nvmlDeviceGpuRecoveryAction_t): "none", "GPU reset", "node reboot",
 * "drain P2P", "drain and reset"; NULL for another value. */
const char *gpu_recovery_action_name(int action);
const char *gpu_compute_mode_name(long long mode);

/* Names of the bits set in an NVML clock event reason mask, comma-separated
 * ("gpu_idle,sw_power_cap"); "none" for 0. Writes at most len bytes. */
void gpu_clock_event_reason_names(unsigned long long mask, char *buf, size_t len);
/* Whether the mask holds a reason that lowers clocks for a hardware or thermal cause (hardware
 * slowdown, hardware or software thermal slowdown, power brake): not the power cap, which a
 * GPU at full load meets by design. */
bool gpu_clock_events_hardware(unsigned long long mask);

#endif
