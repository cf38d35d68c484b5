/* The GPU facts' field tables: every key, label and metric of "gpus[]", its MIG devices
 * and its processes (docs/json.md), the one description doctor, devices and the fleet read. */
#include <stdio.h>
#include <string.h>

#include "facts/gpu.h"

#define G(m) offsetof(struct gpu_info, m)
#define BOTH (FIELD_BRIEF | FIELD_FULL)

/* a number or a flag of gpu_info, known when its bit is set, shown by devices */
#define NUM(k, l, m, bit, u) \
	{ .key = k, .label = l, .kind = FK_LLONG, .unit = u, .off = G(m), .valid = bit, .views = FIELD_FULL }
#define FLAG(k, l, m, bit) { .key = k, .label = l, .kind = FK_BOOL, .off = G(m), .valid = bit, .views = FIELD_FULL }
#define JSON_NUM(k, m, bit) { .key = k, .kind = FK_LLONG, .off = G(m), .valid = bit }
/* a number shown by devices with a metric */
#define METRIC(k, l, m, bit, u, met) \
	{ .key = k, .label = l, .kind = FK_LLONG, .unit = u, .off = G(m), .valid = bit, .views = FIELD_FULL, .metric = met }
/* ... and by check, among each GPU's health facts */
#define HEALTH (FIELD_FULL | FIELD_HEALTH)
#define HEALTH_METRIC(k, l, m, bit, u, met) \
	{ .key = k, .label = l, .kind = FK_LLONG, .unit = u, .off = G(m), .valid = bit, .views = HEALTH, .metric = met }
#define HEALTH_FLAG(k, l, m, bit) { .key = k, .label = l, .kind = FK_BOOL, .off = G(m), .valid = bit, .views = HEALTH }

static void put_str(struct field_value *v)
{
	v->kind = FV_STR;
	v->s = v->buf;
}

/* nvidia-smi's index where NVML saw the GPU, else its CUDA ordinal: the metrics' gpu label */
static bool metric_index(const void *obj, struct field_value *v)
{
	int i = gpu_pci_index(obj);

	if (i < 0)
		return false;
	v->kind = FV_INT;
	v->i = i;
	return true;
}

static bool cc(const void *obj, struct field_value *v)
{
	const struct gpu_info *g = obj;

	snprintf(v->buf, sizeof v->buf, "%lld.%lld", g->cc_major, g->cc_minor);
	put_str(v);
	return true;
}

static void cc_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_info *g = obj;

	snprintf(buf, len, "%lld.%lld (sm_%d)", g->cc_major, g->cc_minor, gpu_sm(g));
}

static bool sm_arch(const void *obj, struct field_value *v)
{
	snprintf(v->buf, sizeof v->buf, "sm_%d", gpu_sm(obj));
	put_str(v);
	return true;
}

/* "on", "off", and what a reset would change it to */
static void mode_text(char *buf, size_t len, bool current, bool pending)
{
	const char *after = pending == current ? "" : pending ? " (on after a reset)" : " (off after a reset)";

	snprintf(buf, len, "%s%s", current ? "on" : "off", after);
}

static void mig_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_info *g = obj;

	mode_text(buf, len, g->mig_mode_current, g->mig_mode_pending);
}

static void ecc_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_info *g = obj;

	mode_text(buf, len, g->ecc_mode_current, g->ecc_mode_pending);
}

static bool compute_mode_name(const void *obj, struct field_value *v)
{
	snprintf(v->buf, sizeof v->buf, "%s", gpu_compute_mode_name(((const struct gpu_info *)obj)->compute_mode));
	put_str(v);
	return true;
}

static bool reason_names(const void *obj, struct field_value *v)
{
	const struct gpu_info *g = obj;

	gpu_clock_event_reason_names(g->clock_event_reasons, v->buf, sizeof v->buf);
	if (strcmp(v->buf, "none") == 0)
		v->buf[0] = '\0';
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = ",";
	return true;
}

static void reasons_text(const void *obj, char *buf, size_t len)
{
	const struct gpu_info *g = obj;
	char names[256];

	gpu_clock_event_reason_names(g->clock_event_reasons, names, sizeof names);
	snprintf(buf, len, "0x%llx (%s)", g->clock_event_reasons, names);
}

static void pstate_text(const void *obj, char *buf, size_t len)
{
	snprintf(buf, len, "P%lld", ((const struct gpu_info *)obj)->pstate);
}

static void lost_text(const void *obj, char *buf, size_t len)
{
	(void)obj;
	snprintf(buf, len, "yes (NVML_ERROR_GPU_IS_LOST)");
}

static bool link(struct field_value *v, bool known, long long gen, long long width)
{
	if (!known)
		return false;
	snprintf(v->buf, sizeof v->buf, "Gen %lld x%lld", gen, width);
	put_str(v);
	return true;
}

static bool link_now(const void *obj, struct field_value *v)
{
	const struct gpu_info *g = obj;

	return link(v, gpu_has(g, GF_PCIE_GEN_CURRENT) && gpu_has(g, GF_PCIE_WIDTH_CURRENT), g->pcie_gen_current,
		    g->pcie_width_current);
}

static bool link_max(const void *obj, struct field_value *v)
{
	const struct gpu_info *g = obj;

	return link(v, gpu_has(g, GF_PCIE_GEN_MAX) && gpu_has(g, GF_PCIE_WIDTH_MAX), g->pcie_gen_max, g->pcie_width_max);
}

static bool process_count(const void *obj, struct field_value *v)
{
	v->kind = FV_INT;
	v->i = (long long)((const struct gpu_info *)obj)->n_processes;
	return true;
}

#define GAUGE(n, h) { n, "gauge", h, 0, NULL, NULL }
static const struct field_metric m_total = GAUGE("cudoctor_gpu_memory_total_bytes", "Memory of the GPU in bytes.");
static const struct field_metric m_used = GAUGE("cudoctor_gpu_memory_used_bytes",
	"Memory in use on the GPU in bytes (NVML).");
static const struct field_metric m_free = GAUGE("cudoctor_gpu_memory_free_bytes",
	"Free memory on the GPU in bytes (NVML).");
static const struct field_metric m_temp = GAUGE("cudoctor_gpu_temperature_celsius",
	"GPU core temperature in degrees Celsius.");
static const struct field_metric m_draw = { "cudoctor_gpu_power_draw_watts",
	"gauge", "Power drawn by the GPU in watts.", 1e-3, NULL, NULL };
static const struct field_metric m_limit = { "cudoctor_gpu_power_limit_watts",
	"gauge", "The GPU's power limit in watts.", 1e-3, NULL, NULL };
static const struct field_metric m_clock_g = { "cudoctor_gpu_clock_hertz",
	"gauge", "Current clock of the GPU in hertz, by clock domain.", 1e6, "clock", "graphics" };
static const struct field_metric m_clock_s = { "cudoctor_gpu_clock_hertz", "gauge", NULL, 1e6, "clock", "sm" };
static const struct field_metric m_clock_m = { "cudoctor_gpu_clock_hertz", "gauge", NULL, 1e6, "clock", "memory" };
static const struct field_metric m_gen = GAUGE("cudoctor_gpu_pcie_link_generation",
	"Current PCIe generation of the GPU's link.");
static const struct field_metric m_width = GAUGE("cudoctor_gpu_pcie_link_width_lanes",
	"Current PCIe width of the GPU's link in lanes.");
static const struct field_metric m_ecc_cv = { "cudoctor_gpu_ecc_errors_total", "counter",
	"ECC errors of the GPU since the driver loaded (volatile) or over its lifetime (aggregate).", 0,
	"type", "corrected_volatile" };
static const struct field_metric m_ecc_uv = { "cudoctor_gpu_ecc_errors_total",
	"counter", NULL, 0, "type", "uncorrected_volatile" };
static const struct field_metric m_ecc_ca = { "cudoctor_gpu_ecc_errors_total",
	"counter", NULL, 0, "type", "corrected_aggregate" };
static const struct field_metric m_ecc_ua = { "cudoctor_gpu_ecc_errors_total",
	"counter", NULL, 0, "type", "uncorrected_aggregate" };
static const struct field_metric m_ret_s = { "cudoctor_gpu_retired_pages",
	"gauge", "Memory pages the GPU retired, by cause.", 0, "cause", "single_bit_ecc" };
static const struct field_metric m_ret_d = { "cudoctor_gpu_retired_pages",
	"gauge", NULL, 0, "cause", "double_bit_ecc" };
static const struct field_metric m_rem_c = { "cudoctor_gpu_remapped_rows",
	"gauge", "Memory rows the GPU remapped, by kind of error.", 0, "type", "correctable" };
static const struct field_metric m_recovery = { "cudoctor_gpu_recovery_action", "gauge",
	"What the driver says to do with the GPU (NVML field 230): 0 none, 1 GPU reset, 2 node reboot, "
	"3 drain P2P, 4 drain and reset.", 0, NULL, NULL };
static const struct field_metric m_drained = { "cudoctor_gpu_drained", "gauge",
	"1 when NVML's drain state says the GPU is taken out of use.", 0, NULL, NULL };
static const struct field_metric m_rem_u = { "cudoctor_gpu_remapped_rows", "gauge", NULL, 0, "type", "uncorrectable" };
static const struct field_metric m_persist = GAUGE("cudoctor_gpu_persistence_mode", "1 when persistence mode is on.");
static const struct field_metric m_mig = GAUGE("cudoctor_gpu_mig_mode", "1 when MIG mode is on.");
static const struct field_metric m_lost = GAUGE("cudoctor_gpu_lost",
	"1 when NVML reports the GPU as lost (fallen off the bus).");

static const struct field gpu_fields[] = {
	{ .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = metric_index, .prom_label = "gpu", .flags = FIELD_PROM_ID },
	/* identity: CUDA, else NVML */
	{ .key = "cuda_ordinal", .label = "CUDA ordinal", .kind = FK_INT, .off = G(cuda_ordinal), .valid = FIELD_ALWAYS,
	  .views = BOTH, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "nvml_index", .label = "nvidia-smi index", .kind = FK_INT, .off = G(nvml_index), .valid = FIELD_ALWAYS,
	  .views = BOTH, .flags = FIELD_NEG_UNKNOWN },
	{ .key = "name", .label = "name", .kind = FK_CHARS, .off = G(name), .valid = GF_NAME, .views = BOTH,
	  .prom_label = "name", .flags = FIELD_PROM_ID },
	{ .key = "compute_capability", .label = "compute capability", .kind = FK_CALC, .valid = GF_CC, .views = BOTH,
	  .get = cc, .text = cc_text, .prom_label = "compute_capability" },
	JSON_NUM("compute_capability_major", cc_major, GF_CC),
	JSON_NUM("compute_capability_minor", cc_minor, GF_CC),
	{ .key = "sm_arch", .kind = FK_CALC, .valid = GF_CC, .get = sm_arch },
	{ .key = "memory_total_bytes", .label = "memory", .kind = FK_LLONG, .unit = FU_BYTES, .off = G(memory_total_bytes),
	  .valid = GF_MEMORY_TOTAL, .views = BOTH, .metric = &m_total },
	{ .key = "pci_bus_id", .label = "PCI bus id", .kind = FK_CHARS, .off = G(pci_bus_id), .valid = GF_PCI_BUS_ID,
	  .views = BOTH | FIELD_HEALTH, .prom_label = "pci_bus_id" },
	JSON_NUM("pci_domain", pci_domain, GF_PCI_DOMAIN),
	JSON_NUM("pci_bus", pci_bus, GF_PCI_BUS),
	JSON_NUM("pci_device", pci_device, GF_PCI_DEVICE),
	{ .key = "uuid", .label = "UUID", .kind = FK_CHARS, .off = G(uuid), .valid = GF_UUID, .views = BOTH | FIELD_HEALTH,
	  .prom_label = "uuid", .flags = FIELD_PROM_ID },
	{ .key = "mig_mode_current", .label = "MIG mode", .kind = FK_BOOL, .off = G(mig_mode_current),
	  .valid = GF_MIG_MODE, .views = BOTH, .text = mig_text, .metric = &m_mig },
	{ .key = "mig_mode_pending", .kind = FK_BOOL, .off = G(mig_mode_pending), .valid = GF_MIG_MODE },
	{ .key = "gpu_lost", .label = "GPU lost", .kind = FK_BOOL, .off = G(nvml_gpu_lost), .valid = FIELD_ALWAYS,
	  .views = HEALTH, .flags = FIELD_QUIET, .text = lost_text, .metric = &m_lost },

	/* CUDA device attributes */
	NUM("multiprocessor_count", "multiprocessors", sm_count, GF_SM_COUNT, FU_NONE),
	NUM("clock_rate_khz", "peak SM clock", clock_rate_khz, GF_CLOCK_RATE, FU_KHZ),
	NUM("memory_clock_rate_khz", "peak memory clock", memory_clock_rate_khz, GF_MEMORY_CLOCK_RATE, FU_KHZ),
	NUM("memory_bus_width_bits", "memory bus width", memory_bus_width_bits, GF_MEMORY_BUS_WIDTH, FU_BITS),
	NUM("l2_cache_bytes", "L2 cache", l2_cache_bytes, GF_L2_CACHE, FU_BYTES),
	NUM("persisting_l2_cache_max_bytes", "persisting L2 max", persisting_l2_max_bytes, GF_PERSISTING_L2_MAX, FU_BYTES),
	NUM("warp_size_threads", "warp size", warp_size, GF_WARP_SIZE, FU_NONE),
	NUM("max_threads_per_block", "max threads per block", max_threads_per_block, GF_MAX_THREADS_PER_BLOCK, FU_NONE),
	NUM("max_threads_per_multiprocessor", "max threads per SM", max_threads_per_sm, GF_MAX_THREADS_PER_SM, FU_NONE),
	NUM("max_blocks_per_multiprocessor", "max blocks per SM", max_blocks_per_sm, GF_MAX_BLOCKS_PER_SM, FU_NONE),
	{ .key = "max_block_dim", .label = "max block dims", .kind = FK_DIMS, .off = G(max_block_dim),
	  .valid = GF_MAX_BLOCK_DIM, .views = FIELD_FULL },
	{ .key = "max_grid_dim", .label = "max grid dims", .kind = FK_DIMS, .off = G(max_grid_dim),
	  .valid = GF_MAX_GRID_DIM, .views = FIELD_FULL },
	NUM("shared_memory_per_block_bytes", "shared memory per block", smem_per_block_bytes, GF_SMEM_PER_BLOCK, FU_BYTES),
	NUM("shared_memory_per_block_optin_bytes", "shared memory per block (opt-in)", smem_per_block_optin_bytes,
	    GF_SMEM_PER_BLOCK_OPTIN, FU_BYTES),
	NUM("shared_memory_per_multiprocessor_bytes", "shared memory per SM", smem_per_sm_bytes, GF_SMEM_PER_SM, FU_BYTES),
	NUM("reserved_shared_memory_per_block_bytes", "reserved shared memory per block", smem_reserved_per_block_bytes,
	    GF_SMEM_RESERVED_PER_BLOCK, FU_BYTES),
	NUM("registers_per_block", "registers per block", regs_per_block, GF_REGS_PER_BLOCK, FU_NONE),
	NUM("registers_per_multiprocessor", "registers per SM", regs_per_sm, GF_REGS_PER_SM, FU_NONE),
	NUM("total_constant_memory_bytes", "constant memory", const_memory_bytes, GF_CONST_MEMORY, FU_BYTES),
	NUM("max_pitch_bytes", "max pitch", max_pitch_bytes, GF_MAX_PITCH, FU_BYTES),
	NUM("texture_alignment_bytes", "texture alignment", texture_alignment_bytes, GF_TEXTURE_ALIGNMENT, FU_BYTES),
	NUM("async_engine_count", "copy engines", copy_engines, GF_COPY_ENGINES, FU_NONE),
	FLAG("concurrent_kernels", "concurrent kernels", concurrent_kernels, GF_CONCURRENT_KERNELS),
	FLAG("ecc_enabled", "ECC enabled", ecc_enabled, GF_ECC_ENABLED),
	FLAG("unified_addressing", "unified addressing", unified_addressing, GF_UNIFIED_ADDRESSING),
	FLAG("managed_memory", "managed memory", managed_memory, GF_MANAGED_MEMORY),
	FLAG("integrated", "integrated", integrated, GF_INTEGRATED),
	FLAG("kernel_exec_timeout", "kernel run time limit", kernel_exec_timeout, GF_KERNEL_EXEC_TIMEOUT),
	FLAG("can_map_host_memory", "can map host memory", can_map_host_memory, GF_CAN_MAP_HOST_MEMORY),
	FLAG("cooperative_launch", "cooperative launch", cooperative_launch, GF_COOPERATIVE_LAUNCH),
	FLAG("tcc_driver", "TCC driver", tcc_driver, GF_TCC_DRIVER),
	FLAG("multi_gpu_board", "multi-GPU board", multi_gpu_board, GF_MULTI_GPU_BOARD),
	FLAG("virtual_memory_management", "virtual memory management", vmm_supported, GF_VMM_SUPPORTED),
	JSON_NUM("compute_mode", compute_mode, GF_COMPUTE_MODE),
	{ .key = "compute_mode_name", .label = "compute mode", .kind = FK_CALC, .valid = GF_COMPUTE_MODE,
	  .views = FIELD_FULL, .get = compute_mode_name },

	/* NVML */
	NUM("minor_number", "device minor", nvml_minor, GF_NVML_MINOR, FU_NONE),
	JSON_NUM("pci_device_id", pci_device_id, GF_NVML_PCI_IDS),
	JSON_NUM("pci_subsystem_id", pci_subsystem_id, GF_NVML_PCI_IDS),
	NUM("nvml_memory_total_bytes", "memory (NVML)", nvml_memory_total_bytes, GF_NVML_MEMORY, FU_BYTES),
	METRIC("memory_used_bytes", "memory used", memory_used_bytes, GF_NVML_MEMORY, FU_BYTES, &m_used),
	METRIC("memory_free_bytes", "memory free", memory_free_bytes, GF_NVML_MEMORY, FU_BYTES, &m_free),
	NUM("memory_reserved_bytes", "memory reserved", memory_reserved_bytes, GF_NVML_MEMORY_RESERVED, FU_BYTES),
	{ .label = "PCIe link now", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = HEALTH, .get = link_now },
	{ .label = "PCIe link max", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = HEALTH, .get = link_max },
	{ .key = "pcie_link_gen_current", .kind = FK_LLONG, .off = G(pcie_gen_current), .valid = GF_PCIE_GEN_CURRENT,
	  .metric = &m_gen },
	{ .key = "pcie_link_width_current", .kind = FK_LLONG, .off = G(pcie_width_current), .valid = GF_PCIE_WIDTH_CURRENT,
	  .metric = &m_width },
	JSON_NUM("pcie_link_gen_max", pcie_gen_max, GF_PCIE_GEN_MAX),
	JSON_NUM("pcie_link_width_max", pcie_width_max, GF_PCIE_WIDTH_MAX),
	NUM("pcie_link_gen_gpu_max", "PCIe generation max (GPU)", pcie_gen_gpu_max, GF_PCIE_GEN_GPU_MAX, FU_NONE),
	{ .key = "persistence_mode", .label = "persistence mode", .kind = FK_BOOL, .off = G(persistence_mode),
	  .valid = GF_PERSISTENCE, .views = HEALTH, .flags = FIELD_ON_OFF, .metric = &m_persist },
	HEALTH_METRIC("power_draw_mw", "power draw", power_draw_mw, GF_POWER_DRAW, FU_MW, &m_draw),
	HEALTH_METRIC("power_limit_mw", "power limit", power_limit_mw, GF_POWER_LIMIT, FU_MW, &m_limit),
	NUM("power_enforced_limit_mw", "enforced power limit", power_enforced_limit_mw, GF_POWER_ENFORCED_LIMIT, FU_MW),
	HEALTH_METRIC("temperature_gpu_c", "temperature", temperature_c, GF_TEMPERATURE, FU_CELSIUS, &m_temp),
	METRIC("clock_graphics_mhz", "graphics clock now", clock_graphics_mhz, GF_CLOCK_GRAPHICS, FU_MHZ, &m_clock_g),
	METRIC("clock_sm_mhz", "SM clock now", clock_sm_mhz, GF_CLOCK_SM, FU_MHZ, &m_clock_s),
	METRIC("clock_memory_mhz", "memory clock now", clock_memory_mhz, GF_CLOCK_MEMORY, FU_MHZ, &m_clock_m),
	NUM("clock_max_graphics_mhz", "graphics clock max", clock_max_graphics_mhz, GF_CLOCK_MAX_GRAPHICS, FU_MHZ),
	NUM("clock_max_sm_mhz", "SM clock max", clock_max_sm_mhz, GF_CLOCK_MAX_SM, FU_MHZ),
	NUM("clock_max_memory_mhz", "memory clock max", clock_max_memory_mhz, GF_CLOCK_MAX_MEMORY, FU_MHZ),
	{ .key = "pstate", .label = "performance state", .kind = FK_LLONG, .off = G(pstate), .valid = GF_PSTATE,
	  .views = FIELD_FULL, .text = pstate_text },
	{ .key = "driver_model", .label = "driver model", .kind = FK_NAMED, .off = G(driver_model_current),
	  .valid = GF_DRIVER_MODEL, .views = FIELD_FULL, .name = gpu_driver_model_name },
	{ .key = "driver_model_pending", .kind = FK_NAMED, .off = G(driver_model_pending), .valid = GF_DRIVER_MODEL,
	  .name = gpu_driver_model_name },
	FLAG("display_active", "display active", display_active, GF_DISPLAY_ACTIVE),
	{ .key = "clock_event_reasons", .kind = FK_ULLONG, .off = G(clock_event_reasons), .valid = GF_CLOCK_EVENT_REASONS },
	{ .key = "clock_event_reason_names", .label = "clock event reasons", .kind = FK_CALC,
	  .valid = GF_CLOCK_EVENT_REASONS, .views = HEALTH, .get = reason_names, .text = reasons_text },
	{ .key = "ecc_mode_current", .label = "ECC mode", .kind = FK_BOOL, .off = G(ecc_mode_current), .valid = GF_ECC_MODE,
	  .views = HEALTH, .text = ecc_text },
	{ .key = "ecc_mode_pending", .kind = FK_BOOL, .off = G(ecc_mode_pending), .valid = GF_ECC_MODE },
	METRIC("ecc_errors_corrected_volatile", "corrected ECC errors (volatile)",
	       ecc_corrected_volatile, GF_ECC_VOLATILE, FU_NONE, &m_ecc_cv),
	HEALTH_METRIC("ecc_errors_uncorrected_volatile", "uncorrected ECC errors (volatile)",
	       ecc_uncorrected_volatile, GF_ECC_VOLATILE, FU_NONE, &m_ecc_uv),
	METRIC("ecc_errors_corrected_aggregate", "corrected ECC errors (aggregate)",
	       ecc_corrected_aggregate, GF_ECC_AGGREGATE, FU_NONE, &m_ecc_ca),
	HEALTH_METRIC("ecc_errors_uncorrected_aggregate", "uncorrected ECC errors (aggregate)",
	       ecc_uncorrected_aggregate, GF_ECC_AGGREGATE, FU_NONE, &m_ecc_ua),
	METRIC("retired_pages_single_bit_ecc", "retired pages (single-bit ECC)",
	       retired_pages_sbe, GF_RETIRED_PAGES, FU_NONE, &m_ret_s),
	METRIC("retired_pages_double_bit_ecc", "retired pages (double-bit ECC)",
	       retired_pages_dbe, GF_RETIRED_PAGES, FU_NONE, &m_ret_d),
	HEALTH_FLAG("retired_pages_pending", "page retirement pending", retired_pages_pending, GF_RETIRED_PENDING),
	METRIC("remapped_rows_correctable", "remapped rows (correctable)",
	       remapped_rows_correctable, GF_REMAPPED_ROWS, FU_NONE, &m_rem_c),
	METRIC("remapped_rows_uncorrectable", "remapped rows (uncorrectable)",
	       remapped_rows_uncorrectable, GF_REMAPPED_ROWS, FU_NONE, &m_rem_u),
	HEALTH_FLAG("remapped_rows_pending", "row remap pending", remapped_rows_pending, GF_REMAPPED_ROWS),
	HEALTH_FLAG("remapped_rows_failure", "row remap failed", remapped_rows_failure, GF_REMAPPED_ROWS),
	{ .key = "recovery_action", .label = "recovery action", .kind = FK_NAMED, .off = G(recovery_action),
	  .valid = GF_RECOVERY_ACTION, .views = HEALTH, .name = gpu_recovery_action_name },
	{ .kind = FK_INT, .off = G(recovery_action), .valid = GF_RECOVERY_ACTION, .metric = &m_recovery },
	{ .key = "drained", .label = "drained (NVML)", .kind = FK_BOOL, .off = G(drained), .valid = GF_DRAIN_STATE,
	  .views = HEALTH, .metric = &m_drained },
	{ .label = "compute processes", .kind = FK_CALC, .valid = GF_PROCESSES, .views = FIELD_FULL, .get = process_count },
	{ .key = "errors", .label = "failed queries", .kind = FK_ITEMS, .off = G(errors), .valid = FIELD_ALWAYS,
	  .views = HEALTH, .flags = FIELD_QUIET },
};

const struct field_table gpu_field_table = {
	"gpus[]", gpu_fields, sizeof gpu_fields / sizeof gpu_fields[0], G(valid),
	"cudoctor_gpu_info", "A GPU this report saw; its facts are in the labels.",
};

#define M(m) offsetof(struct gpu_mig_device, m)

static bool mig_ids(const void *obj, struct field_value *v)
{
	const struct gpu_mig_device *m = obj;

	if (m->gpu_instance_id < 0 || m->compute_instance_id < 0)
		return false;
	snprintf(v->buf, sizeof v->buf, "%lld/%lld", m->gpu_instance_id, m->compute_instance_id);
	put_str(v);
	return true;
}

static bool mig_memory(const struct gpu_mig_device *m, long long bytes, struct field_value *v)
{
	if (!m->has_memory)
		return false;
	v->kind = FV_INT;
	v->i = bytes;
	return true;
}

static bool mig_total(const void *obj, struct field_value *v)
{
	return mig_memory(obj, ((const struct gpu_mig_device *)obj)->memory_total_bytes, v);
}

static bool mig_used(const void *obj, struct field_value *v)
{
	return mig_memory(obj, ((const struct gpu_mig_device *)obj)->memory_used_bytes, v);
}

static bool mig_free(const void *obj, struct field_value *v)
{
	return mig_memory(obj, ((const struct gpu_mig_device *)obj)->memory_free_bytes, v);
}

static const struct field mig_fields[] = {
	{ .key = "index", .label = "MIG device", .kind = FK_UINT, .off = M(index), .valid = FIELD_ALWAYS, .views = BOTH },
	{ .label = "GI/CI", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = BOTH, .get = mig_ids },
	{ .key = "gpu_instance_id", .kind = FK_LLONG, .off = M(gpu_instance_id), .valid = FIELD_ALWAYS,
	  .flags = FIELD_NEG_UNKNOWN },
	{ .key = "compute_instance_id", .kind = FK_LLONG, .off = M(compute_instance_id), .valid = FIELD_ALWAYS,
	  .flags = FIELD_NEG_UNKNOWN },
	{ .key = "name", .label = "name", .kind = FK_CHARS, .off = M(name), .valid = FIELD_ALWAYS, .views = BOTH },
	{ .key = "uuid", .label = "UUID", .kind = FK_CHARS, .off = M(uuid), .valid = FIELD_ALWAYS, .views = BOTH },
	{ .key = "memory_total_bytes", .label = "memory total", .kind = FK_CALC, .unit = FU_BYTES, .valid = FIELD_ALWAYS,
	  .views = BOTH, .get = mig_total },
	{ .key = "memory_used_bytes", .label = "used", .kind = FK_CALC, .unit = FU_BYTES, .valid = FIELD_ALWAYS,
	  .views = BOTH, .get = mig_used },
	{ .key = "memory_free_bytes", .label = "free", .kind = FK_CALC, .unit = FU_BYTES, .valid = FIELD_ALWAYS,
	  .views = BOTH, .get = mig_free },
};

const struct field_table gpu_mig_field_table = {
	"gpus[].mig_devices[]", mig_fields, sizeof mig_fields / sizeof mig_fields[0], -1, NULL, NULL,
};

#define PR(m) offsetof(struct gpu_process, m)

static const struct field process_fields[] = {
	{ .key = "pid", .label = "pid", .kind = FK_UINT, .off = PR(pid), .valid = FIELD_ALWAYS, .views = BOTH },
	{ .key = "used_memory_bytes", .label = "GPU memory", .kind = FK_LLONG, .unit = FU_BYTES, .off = PR(used_memory_bytes),
	  .valid = FIELD_ALWAYS, .views = BOTH, .flags = FIELD_NEG_UNKNOWN, .unknown = "not available" },
	{ .key = "gpu_instance_id", .kind = FK_LLONG, .off = PR(gpu_instance_id), .valid = FIELD_ALWAYS,
	  .flags = FIELD_NEG_UNKNOWN },
	{ .key = "compute_instance_id", .kind = FK_LLONG, .off = PR(compute_instance_id), .valid = FIELD_ALWAYS,
	  .flags = FIELD_NEG_UNKNOWN },
};

const struct field_table gpu_process_field_table = {
	"gpus[].processes[]", process_fields, sizeof process_fields / sizeof process_fields[0], -1, NULL, NULL,
};
