/* `cudoctor devices`: every GPU with what deviceQuery prints plus what NVML adds, as a
 * table per GPU or as JSON (every field, units in the key names), with health findings. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/gpu_mig.h"
#include "probe/gpus.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/units.h"

enum kind { K_INT, K_BOOL };

/* The scalar fields, in the order the JSON lists them. */
struct gpu_key {
	enum gpu_field f;
	const char *key;
	enum kind kind;
	size_t off;
};

#define INT(f, key, m) { f, key, K_INT, offsetof(struct gpu_info, m) }
#define FLAG(f, key, m) { f, key, K_BOOL, offsetof(struct gpu_info, m) }

static const struct gpu_key fields[] = {
	INT(GF_PCI_DOMAIN, "pci_domain", pci_domain),
	INT(GF_PCI_BUS, "pci_bus", pci_bus),
	INT(GF_PCI_DEVICE, "pci_device", pci_device),
	INT(GF_CC, "compute_capability_major", cc_major),
	INT(GF_CC, "compute_capability_minor", cc_minor),
	INT(GF_MEMORY_TOTAL, "memory_total_bytes", memory_total_bytes),
	INT(GF_SM_COUNT, "multiprocessor_count", sm_count),
	INT(GF_CLOCK_RATE, "clock_rate_khz", clock_rate_khz),
	INT(GF_MEMORY_CLOCK_RATE, "memory_clock_rate_khz", memory_clock_rate_khz),
	INT(GF_MEMORY_BUS_WIDTH, "memory_bus_width_bits", memory_bus_width_bits),
	INT(GF_L2_CACHE, "l2_cache_bytes", l2_cache_bytes),
	INT(GF_PERSISTING_L2_MAX, "persisting_l2_cache_max_bytes", persisting_l2_max_bytes),
	INT(GF_WARP_SIZE, "warp_size_threads", warp_size),
	INT(GF_MAX_THREADS_PER_BLOCK, "max_threads_per_block", max_threads_per_block),
	INT(GF_MAX_THREADS_PER_SM, "max_threads_per_multiprocessor", max_threads_per_sm),
	INT(GF_MAX_BLOCKS_PER_SM, "max_blocks_per_multiprocessor", max_blocks_per_sm),
	INT(GF_SMEM_PER_BLOCK, "shared_memory_per_block_bytes", smem_per_block_bytes),
	INT(GF_SMEM_PER_BLOCK_OPTIN, "shared_memory_per_block_optin_bytes", smem_per_block_optin_bytes),
	INT(GF_SMEM_PER_SM, "shared_memory_per_multiprocessor_bytes", smem_per_sm_bytes),
	INT(GF_SMEM_RESERVED_PER_BLOCK, "reserved_shared_memory_per_block_bytes", smem_reserved_per_block_bytes),
	INT(GF_REGS_PER_BLOCK, "registers_per_block", regs_per_block),
	INT(GF_REGS_PER_SM, "registers_per_multiprocessor", regs_per_sm),
	INT(GF_CONST_MEMORY, "total_constant_memory_bytes", const_memory_bytes),
	INT(GF_MAX_PITCH, "max_pitch_bytes", max_pitch_bytes),
	INT(GF_TEXTURE_ALIGNMENT, "texture_alignment_bytes", texture_alignment_bytes),
	INT(GF_COPY_ENGINES, "async_engine_count", copy_engines),
	FLAG(GF_CONCURRENT_KERNELS, "concurrent_kernels", concurrent_kernels),
	FLAG(GF_ECC_ENABLED, "ecc_enabled", ecc_enabled),
	FLAG(GF_UNIFIED_ADDRESSING, "unified_addressing", unified_addressing),
	FLAG(GF_MANAGED_MEMORY, "managed_memory", managed_memory),
	FLAG(GF_INTEGRATED, "integrated", integrated),
	FLAG(GF_KERNEL_EXEC_TIMEOUT, "kernel_exec_timeout", kernel_exec_timeout),
	FLAG(GF_CAN_MAP_HOST_MEMORY, "can_map_host_memory", can_map_host_memory),
	FLAG(GF_COOPERATIVE_LAUNCH, "cooperative_launch", cooperative_launch),
	FLAG(GF_TCC_DRIVER, "tcc_driver", tcc_driver),
	FLAG(GF_MULTI_GPU_BOARD, "multi_gpu_board", multi_gpu_board),
	FLAG(GF_VMM_SUPPORTED, "virtual_memory_management", vmm_supported),
	INT(GF_COMPUTE_MODE, "compute_mode", compute_mode),
	INT(GF_NVML_MINOR, "minor_number", nvml_minor),
	INT(GF_NVML_PCI_IDS, "pci_device_id", pci_device_id),
	INT(GF_NVML_PCI_IDS, "pci_subsystem_id", pci_subsystem_id),
	INT(GF_NVML_MEMORY, "nvml_memory_total_bytes", nvml_memory_total_bytes),
	INT(GF_NVML_MEMORY, "memory_used_bytes", memory_used_bytes),
	INT(GF_NVML_MEMORY, "memory_free_bytes", memory_free_bytes),
	INT(GF_NVML_MEMORY_RESERVED, "memory_reserved_bytes", memory_reserved_bytes),
	INT(GF_PCIE_GEN_CURRENT, "pcie_link_gen_current", pcie_gen_current),
	INT(GF_PCIE_GEN_MAX, "pcie_link_gen_max", pcie_gen_max),
	INT(GF_PCIE_GEN_GPU_MAX, "pcie_link_gen_gpu_max", pcie_gen_gpu_max),
	INT(GF_PCIE_WIDTH_CURRENT, "pcie_link_width_current", pcie_width_current),
	INT(GF_PCIE_WIDTH_MAX, "pcie_link_width_max", pcie_width_max),
	FLAG(GF_PERSISTENCE, "persistence_mode", persistence_mode),
	FLAG(GF_MIG_MODE, "mig_mode_current", mig_mode_current),
	FLAG(GF_MIG_MODE, "mig_mode_pending", mig_mode_pending),
	INT(GF_POWER_DRAW, "power_draw_mw", power_draw_mw),
	INT(GF_POWER_LIMIT, "power_limit_mw", power_limit_mw),
	INT(GF_POWER_ENFORCED_LIMIT, "power_enforced_limit_mw", power_enforced_limit_mw),
	INT(GF_TEMPERATURE, "temperature_gpu_c", temperature_c),
	INT(GF_CLOCK_GRAPHICS, "clock_graphics_mhz", clock_graphics_mhz),
	INT(GF_CLOCK_SM, "clock_sm_mhz", clock_sm_mhz),
	INT(GF_CLOCK_MEMORY, "clock_memory_mhz", clock_memory_mhz),
	INT(GF_CLOCK_MAX_GRAPHICS, "clock_max_graphics_mhz", clock_max_graphics_mhz),
	INT(GF_CLOCK_MAX_SM, "clock_max_sm_mhz", clock_max_sm_mhz),
	INT(GF_CLOCK_MAX_MEMORY, "clock_max_memory_mhz", clock_max_memory_mhz),
	INT(GF_PSTATE, "pstate", pstate),
	FLAG(GF_ECC_MODE, "ecc_mode_current", ecc_mode_current),
	FLAG(GF_ECC_MODE, "ecc_mode_pending", ecc_mode_pending),
	INT(GF_ECC_VOLATILE, "ecc_errors_corrected_volatile", ecc_corrected_volatile),
	INT(GF_ECC_VOLATILE, "ecc_errors_uncorrected_volatile", ecc_uncorrected_volatile),
	INT(GF_ECC_AGGREGATE, "ecc_errors_corrected_aggregate", ecc_corrected_aggregate),
	INT(GF_ECC_AGGREGATE, "ecc_errors_uncorrected_aggregate", ecc_uncorrected_aggregate),
	INT(GF_RETIRED_PAGES, "retired_pages_single_bit_ecc", retired_pages_sbe),
	INT(GF_RETIRED_PAGES, "retired_pages_double_bit_ecc", retired_pages_dbe),
	FLAG(GF_RETIRED_PENDING, "retired_pages_pending", retired_pages_pending),
	INT(GF_REMAPPED_ROWS, "remapped_rows_correctable", remapped_rows_correctable),
	INT(GF_REMAPPED_ROWS, "remapped_rows_uncorrectable", remapped_rows_uncorrectable),
	FLAG(GF_REMAPPED_ROWS, "remapped_rows_pending", remapped_rows_pending),
	FLAG(GF_REMAPPED_ROWS, "remapped_rows_failure", remapped_rows_failure),
};

static const char *compute_mode_name(long long m)
{
	switch (m) {
	case 0: return "default";
	case 1: return "exclusive_thread";
	case 2: return "prohibited";
	case 3: return "exclusive_process";
	}
	return "unknown";
}

/* ---- JSON ---- */

/* Every set records OOM in *oom rather than failing silently. */
static void jset(json_t *o, const char *key, json_t *v, bool *oom)
{
	if (!v || json_object_set_new(o, key, v) != 0)
		*oom = true;
}

static json_t *jstr_or_null(bool valid, const char *s)
{
	return valid ? json_string(s) : json_null();
}

static json_t *jint_or_null(bool valid, long long v)
{
	return valid ? json_integer(v) : json_null();
}

static json_t *words_array(const char *list, bool *oom)
{
	json_t *a = json_array();
	char word[256];

	if (!a) {
		*oom = true;
		return NULL;
	}
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, " ");
		if (n > 0 && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (json_array_append_new(a, json_string(word)))
				*oom = true;
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	return a;
}

static json_t *dims_json(const struct gpu_info *g, enum gpu_field f, const long long d[3])
{
	return gpu_has(g, f) ? json_pack("[III]", (json_int_t)d[0], (json_int_t)d[1], (json_int_t)d[2]) : json_null();
}

static json_t *gpu_json(const struct gpu_info *g, bool *oom)
{
	json_t *o = json_object();
	char buf[256];

	if (!o) {
		*oom = true;
		return NULL;
	}
	jset(o, "cuda_ordinal", jint_or_null(g->cuda_ordinal >= 0, g->cuda_ordinal), oom);
	jset(o, "nvml_index", jint_or_null(g->nvml_index >= 0, g->nvml_index), oom);
	jset(o, "gpu_lost", json_boolean(g->nvml_gpu_lost), oom);
	jset(o, "name", jstr_or_null(gpu_has(g, GF_NAME), g->name), oom);
	jset(o, "uuid", jstr_or_null(gpu_has(g, GF_UUID), g->uuid), oom);
	jset(o, "pci_bus_id", jstr_or_null(gpu_has(g, GF_PCI_BUS_ID), g->pci_bus_id), oom);
	snprintf(buf, sizeof(buf), "%lld.%lld", g->cc_major, g->cc_minor);
	jset(o, "compute_capability", jstr_or_null(gpu_has(g, GF_CC), buf), oom);
	snprintf(buf, sizeof(buf), "sm_%lld%lld", g->cc_major, g->cc_minor);
	jset(o, "sm_arch", jstr_or_null(gpu_has(g, GF_CC), buf), oom);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct gpu_key *fd = &fields[i];
		const char *at = (const char *)g + fd->off;
		json_t *v;

		if (!gpu_has(g, fd->f)) {
			v = json_null();
		} else if (fd->kind == K_BOOL) {
			bool b;
			memcpy(&b, at, sizeof(b));
			v = json_boolean(b);
		} else {
			long long n;
			memcpy(&n, at, sizeof(n));
			v = json_integer(n);
		}
		jset(o, fd->key, v, oom);
	}
	jset(o, "max_block_dim", dims_json(g, GF_MAX_BLOCK_DIM, g->max_block_dim), oom);
	jset(o, "max_grid_dim", dims_json(g, GF_MAX_GRID_DIM, g->max_grid_dim), oom);
	jset(o, "compute_mode_name", jstr_or_null(gpu_has(g, GF_COMPUTE_MODE), compute_mode_name(g->compute_mode)), oom);
	jset(o, "clock_event_reasons", jint_or_null(gpu_has(g, GF_CLOCK_EVENT_REASONS), (long long)g->clock_event_reasons), oom);
	if (gpu_has(g, GF_CLOCK_EVENT_REASONS)) {
		gpu_clock_event_reason_names(g->clock_event_reasons, buf, sizeof(buf));
		for (char *c = buf; *c; c++)
			if (*c == ',')
				*c = ' ';
		jset(o, "clock_event_reason_names", words_array(strcmp(buf, "none") ? buf : "", oom), oom);
	} else {
		jset(o, "clock_event_reason_names", json_null(), oom);
	}
	if (gpu_has(g, GF_PROCESSES)) {
		json_t *a = json_array();
		for (size_t i = 0; a && i < g->n_processes; i++) {
			const struct gpu_process *pr = &g->processes[i];
			json_t *po = json_object();
			if (!po || json_array_append_new(a, po)) {
				*oom = true;
				break;
			}
			jset(po, "pid", json_integer(pr->pid), oom);
			jset(po, "used_memory_bytes", jint_or_null(pr->used_memory_bytes >= 0, pr->used_memory_bytes), oom);
			jset(po, "gpu_instance_id", jint_or_null(pr->gpu_instance_id >= 0, pr->gpu_instance_id), oom);
			jset(po, "compute_instance_id", jint_or_null(pr->compute_instance_id >= 0, pr->compute_instance_id), oom);
		}
		jset(o, "processes", a, oom);
	} else {
		jset(o, "processes", json_null(), oom);
	}
	jset(o, "mig_devices", gpu_mig_devices_json(g), oom);
	json_t *errs = json_array();
	for (const char *p = g->errors; errs && *p;) {
		size_t n = strcspn(p, ";");
		if (json_array_append_new(errs, json_stringn(p, n)))
			*oom = true;
		p += n;
		while (*p == ';' || *p == ' ')
			p++;
	}
	jset(o, "errors", errs, oom);
	return o;
}

static int put_json(struct report *r, const struct gpu_probe *p)
{
	bool oom = false;
	json_t *cu = json_object(), *nv = json_object(), *gpus = json_array();
	char buf[64];

	if (!cu || !nv || !gpus) {
		json_decref(cu);
		json_decref(nv);
		json_decref(gpus);
		return CD_ENOMEM;
	}
	jset(cu, "loaded", json_boolean(p->cuda_loaded), &oom);
	jset(cu, "path", jstr_or_null(p->cuda_loaded, p->cuda_path), &oom);
	jset(cu, "how", jstr_or_null(p->cuda_loaded, p->cuda_how), &oom);
	jset(cu, "error", jstr_or_null(!p->cuda_loaded, p->cuda_load_error), &oom);
	jset(cu, "missing_symbols", words_array(p->cuda_missing, &oom), &oom);
	jset(cu, "driver_version_int", jint_or_null(driver_has(p, DF_CUDA_VERSION), p->cuda_driver_version), &oom);
	snprintf(buf, sizeof(buf), "%d.%d", p->cuda_driver_version / 1000, p->cuda_driver_version % 1000 / 10);
	jset(cu, "cuda_version", jstr_or_null(driver_has(p, DF_CUDA_VERSION), buf), &oom);
	jset(cu, "cuinit_result", jint_or_null(driver_has(p, DF_CUDA_INIT), p->cuda_init_result), &oom);
	jset(cu, "cuinit_result_name", jstr_or_null(driver_has(p, DF_CUDA_INIT), p->cuda_init_result_name), &oom);
	jset(cu, "device_count", jint_or_null(driver_has(p, DF_CUDA_DEVICE_COUNT), p->cuda_device_count), &oom);

	jset(nv, "loaded", json_boolean(p->nvml_loaded), &oom);
	jset(nv, "path", jstr_or_null(p->nvml_loaded, p->nvml_path), &oom);
	jset(nv, "how", jstr_or_null(p->nvml_loaded, p->nvml_how), &oom);
	jset(nv, "error", jstr_or_null(!p->nvml_loaded, p->nvml_load_error), &oom);
	jset(nv, "missing_symbols", words_array(p->nvml_missing, &oom), &oom);
	json_t *fb = json_array();
	for (const char *s = p->nvml_fallbacks; fb && *s;) {
		/* entries look like "name (not newer_name)" */
		const char *close = strchr(s, ')');
		size_t n = close ? (size_t)(close - s + 1) : strlen(s);
		if (json_array_append_new(fb, json_stringn(s, n)))
			oom = true;
		s += n;
		while (*s == ' ')
			s++;
	}
	jset(nv, "fallbacks", fb, &oom);
	jset(nv, "init_result", jint_or_null(driver_has(p, DF_NVML_INIT), p->nvml_init_result), &oom);
	jset(nv, "init_result_name", jstr_or_null(driver_has(p, DF_NVML_INIT), p->nvml_init_result_name), &oom);
	jset(nv, "init_result_text", jstr_or_null(driver_has(p, DF_NVML_INIT), p->nvml_init_result_text), &oom);
	jset(nv, "nvml_version", jstr_or_null(driver_has(p, DF_NVML_VERSION), p->nvml_version), &oom);
	jset(nv, "cuda_driver_version_int", jint_or_null(driver_has(p, DF_NVML_CUDA_VERSION), p->nvml_cuda_driver_version), &oom);
	jset(nv, "device_count", jint_or_null(driver_has(p, DF_NVML_DEVICE_COUNT), p->nvml_device_count), &oom);

	for (size_t i = 0; i < p->n_gpus; i++)
		if (json_array_append_new(gpus, gpu_json(&p->gpus[i], &oom)))
			oom = true;
	report_json_set(r, "driver_version", jstr_or_null(driver_has(p, DF_VERSION), p->user_driver_version));
	report_json_set(r, "libcuda", cu);
	report_json_set(r, "nvml", nv);
	report_json_set(r, "gpus", gpus);
	if (oom)
		r->oom = true;
	return CD_OK;
}

/* ---- text ---- */

#define KV_IF(field, key, ...)                                   \
	do {                                                     \
		if (gpu_has(g, field))                           \
			report_kv(r, key, __VA_ARGS__);          \
	} while (0)

static const char *yn(bool b)
{
	return b ? "yes" : "no";
}

static void put_gpu_text(struct report *r, const struct gpu_info *g)
{
	char subject[320], a[96], b[96];

	gpu_subject(g, subject, sizeof(subject));
	report_section(r, "%s", subject);
	KV_IF(GF_CC, "compute capability", "%lld.%lld (sm_%lld%lld)", g->cc_major, g->cc_minor, g->cc_major, g->cc_minor);
	KV_IF(GF_UUID, "UUID", "%s", g->uuid);
	if (gpu_has(g, GF_PCI_BUS_ID))
		report_kv(r, "PCI bus id", "%s (domain %lld, bus %lld, device %lld)", g->pci_bus_id, g->pci_domain,
			  g->pci_bus, g->pci_device);
	report_kv(r, "CUDA ordinal / NVML index", "%s / %s",
		  g->cuda_ordinal >= 0 ? (snprintf(a, sizeof(a), "%d", g->cuda_ordinal), a) : "not visible to CUDA",
		  g->nvml_index >= 0 ? (snprintf(b, sizeof(b), "%d", g->nvml_index), b) : "not seen by NVML");
	if (gpu_has(g, GF_MEMORY_TOTAL)) {
		units_fmt_bytes((uint64_t)g->memory_total_bytes, a, sizeof(a));
		report_kv(r, "global memory", "%s (%lld bytes)", a, g->memory_total_bytes);
	}
	if (gpu_has(g, GF_NVML_MEMORY)) {
		units_fmt_bytes((uint64_t)g->memory_used_bytes, a, sizeof(a));
		units_fmt_bytes((uint64_t)g->memory_free_bytes, b, sizeof(b));
		report_kv(r, "memory used / free", "%s / %s", a, b);
	}
	KV_IF(GF_SM_COUNT, "multiprocessors", "%lld", g->sm_count);
	KV_IF(GF_CLOCK_RATE, "GPU max clock", "%lld MHz", g->clock_rate_khz / 1000);
	KV_IF(GF_MEMORY_CLOCK_RATE, "memory clock", "%lld MHz", g->memory_clock_rate_khz / 1000);
	KV_IF(GF_MEMORY_BUS_WIDTH, "memory bus width", "%lld bits", g->memory_bus_width_bits);
	if (gpu_has(g, GF_L2_CACHE)) {
		units_fmt_bytes((uint64_t)g->l2_cache_bytes, a, sizeof(a));
		report_kv(r, "L2 cache", "%s", a);
	}
	KV_IF(GF_CONST_MEMORY, "constant memory", "%lld bytes", g->const_memory_bytes);
	KV_IF(GF_SMEM_PER_BLOCK, "shared memory per block", "%lld bytes (opt-in up to %lld)", g->smem_per_block_bytes,
	      gpu_has(g, GF_SMEM_PER_BLOCK_OPTIN) ? g->smem_per_block_optin_bytes : g->smem_per_block_bytes);
	KV_IF(GF_SMEM_PER_SM, "shared memory per SM", "%lld bytes", g->smem_per_sm_bytes);
	KV_IF(GF_REGS_PER_BLOCK, "registers per block / SM", "%lld / %lld", g->regs_per_block, g->regs_per_sm);
	KV_IF(GF_WARP_SIZE, "warp size", "%lld", g->warp_size);
	KV_IF(GF_MAX_THREADS_PER_BLOCK, "max threads per block / SM", "%lld / %lld", g->max_threads_per_block,
	      g->max_threads_per_sm);
	KV_IF(GF_MAX_BLOCKS_PER_SM, "max blocks per SM", "%lld", g->max_blocks_per_sm);
	KV_IF(GF_MAX_BLOCK_DIM, "max block dims", "(%lld, %lld, %lld)", g->max_block_dim[0], g->max_block_dim[1],
	      g->max_block_dim[2]);
	KV_IF(GF_MAX_GRID_DIM, "max grid dims", "(%lld, %lld, %lld)", g->max_grid_dim[0], g->max_grid_dim[1],
	      g->max_grid_dim[2]);
	KV_IF(GF_COPY_ENGINES, "copy engines", "%lld", g->copy_engines);
	KV_IF(GF_CONCURRENT_KERNELS, "concurrent kernels", "%s", yn(g->concurrent_kernels));
	KV_IF(GF_ECC_ENABLED, "ECC enabled", "%s", yn(g->ecc_enabled));
	KV_IF(GF_UNIFIED_ADDRESSING, "unified addressing", "%s", yn(g->unified_addressing));
	KV_IF(GF_MANAGED_MEMORY, "managed memory", "%s", yn(g->managed_memory));
	KV_IF(GF_COOPERATIVE_LAUNCH, "cooperative launch", "%s", yn(g->cooperative_launch));
	KV_IF(GF_KERNEL_EXEC_TIMEOUT, "kernel run time limit", "%s", yn(g->kernel_exec_timeout));
	KV_IF(GF_COMPUTE_MODE, "compute mode", "%s", compute_mode_name(g->compute_mode));
	if (gpu_has(g, GF_PCIE_GEN_CURRENT) && gpu_has(g, GF_PCIE_WIDTH_CURRENT))
		report_kv(r, "PCIe link now", "Gen %lld x%lld", g->pcie_gen_current, g->pcie_width_current);
	if (gpu_has(g, GF_PCIE_GEN_MAX) && gpu_has(g, GF_PCIE_WIDTH_MAX))
		report_kv(r, "PCIe link max", "Gen %lld x%lld (GPU and host)", g->pcie_gen_max, g->pcie_width_max);
	KV_IF(GF_PERSISTENCE, "persistence mode", "%s", g->persistence_mode ? "enabled" : "disabled");
	KV_IF(GF_MIG_MODE, "MIG mode", "%s%s", g->mig_mode_current ? "enabled" : "disabled",
	      g->mig_mode_pending != g->mig_mode_current ? " (change pending)" : "");
	KV_IF(GF_POWER_DRAW, "power draw", "%lld.%lld W", g->power_draw_mw / 1000, g->power_draw_mw % 1000 / 100);
	KV_IF(GF_POWER_LIMIT, "power limit", "%lld W", g->power_limit_mw / 1000);
	KV_IF(GF_TEMPERATURE, "temperature", "%lld C", g->temperature_c);
	if (gpu_has(g, GF_CLOCK_SM) && gpu_has(g, GF_CLOCK_MEMORY))
		report_kv(r, "SM / memory clock now", "%lld / %lld MHz", g->clock_sm_mhz, g->clock_memory_mhz);
	if (gpu_has(g, GF_CLOCK_MAX_SM) && gpu_has(g, GF_CLOCK_MAX_MEMORY))
		report_kv(r, "SM / memory clock max", "%lld / %lld MHz", g->clock_max_sm_mhz, g->clock_max_memory_mhz);
	KV_IF(GF_PSTATE, "performance state", "P%lld", g->pstate);
	if (gpu_has(g, GF_CLOCK_EVENT_REASONS)) {
		char names[256];
		gpu_clock_event_reason_names(g->clock_event_reasons, names, sizeof(names));
		report_kv(r, "clock event reasons", "0x%llx (%s)", g->clock_event_reasons, names);
	}
	KV_IF(GF_ECC_MODE, "ECC mode", "%s%s", g->ecc_mode_current ? "enabled" : "disabled",
	      g->ecc_mode_pending != g->ecc_mode_current ? " (change pending)" : "");
	KV_IF(GF_ECC_VOLATILE, "ECC errors (volatile)", "%lld corrected, %lld uncorrected", g->ecc_corrected_volatile,
	      g->ecc_uncorrected_volatile);
	KV_IF(GF_ECC_AGGREGATE, "ECC errors (aggregate)", "%lld corrected, %lld uncorrected", g->ecc_corrected_aggregate,
	      g->ecc_uncorrected_aggregate);
	KV_IF(GF_RETIRED_PAGES, "retired pages", "%lld single-bit, %lld double-bit%s", g->retired_pages_sbe,
	      g->retired_pages_dbe, gpu_has(g, GF_RETIRED_PENDING) && g->retired_pages_pending ? ", retirement pending" : "");
	KV_IF(GF_REMAPPED_ROWS, "remapped rows", "%lld correctable, %lld uncorrectable%s%s", g->remapped_rows_correctable,
	      g->remapped_rows_uncorrectable, g->remapped_rows_pending ? ", remap pending" : "",
	      g->remapped_rows_failure ? ", remap FAILED" : "");
	if (gpu_has(g, GF_PROCESSES))
		report_kv(r, "compute processes", "%zu", g->n_processes);
	if (g->nvml_gpu_lost)
		report_kv(r, "state", "LOST (NVML_ERROR_GPU_IS_LOST)");
	if (g->errors[0])
		report_kv(r, "failed queries", "%s", g->errors);
	if (gpu_has(g, GF_PROCESSES) && g->n_processes > 0) {
		static const char *const head[] = { "pid", "GPU memory" };
		report_table(r, 2, head);
		for (size_t i = 0; i < g->n_processes; i++) {
			char pid[32], mem[64];
			const char *cells[2] = { pid, mem };
			snprintf(pid, sizeof(pid), "%u", g->processes[i].pid);
			if (g->processes[i].used_memory_bytes >= 0)
				snprintf(mem, sizeof(mem), "%lld MiB", g->processes[i].used_memory_bytes >> 20);
			else
				snprintf(mem, sizeof(mem), "not available");
			report_table_row(r, cells);
		}
	}
	if (gpu_mig_devices_text(r, g) != CD_OK)
		r->oom = true;
}

static void put_text(struct report *r, const struct gpu_probe *p)
{
	report_section(r, "Driver");
	if (driver_has(p, DF_VERSION))
		report_kv(r, "driver version", "%s", p->user_driver_version);
	if (driver_has(p, DF_CUDA_VERSION))
		report_kv(r, "CUDA driver API", "%d.%d (supports CUDA runtimes up to this version)",
			  p->cuda_driver_version / 1000, p->cuda_driver_version % 1000 / 10);
	report_kv(r, "libcuda", "%s", p->cuda_loaded ? p->cuda_path : "not loaded");
	if (p->cuda_loaded) {
		report_kv(r, "  found by", "%s", p->cuda_how);
		if (p->cuda_missing[0])
			report_kv(r, "  missing symbols", "%s", p->cuda_missing);
	}
	if (driver_has(p, DF_CUDA_INIT))
		report_kv(r, "cuInit", "%s", p->cuda_init_result_name);
	report_kv(r, "libnvidia-ml", "%s", p->nvml_loaded ? p->nvml_path : "not loaded");
	if (p->nvml_loaded) {
		report_kv(r, "  found by", "%s", p->nvml_how);
		if (p->nvml_missing[0])
			report_kv(r, "  missing symbols", "%s", p->nvml_missing);
		if (p->nvml_fallbacks[0])
			report_kv(r, "  older entry points", "%s", p->nvml_fallbacks);
	}
	if (driver_has(p, DF_NVML_INIT))
		report_kv(r, "nvmlInit", "%s", p->nvml_init_result_name);
	report_kv(r, "GPUs", "%d seen by CUDA, %d by NVML", driver_has(p, DF_CUDA_DEVICE_COUNT) ? p->cuda_device_count : 0,
		  driver_has(p, DF_NVML_DEVICE_COUNT) ? p->nvml_device_count : 0);
	for (size_t i = 0; i < p->n_gpus; i++)
		put_gpu_text(r, &p->gpus[i]);
}

/* -q: a line per GPU a script can read (which GPU, its arch, memory, the driver), then
 * the warn and error findings. */
static int put_answer(struct report *r, const struct gpu_probe *p)
{
	char subject[320], cc[32], mem[48];
	int rc = CD_OK;

	if (!p->n_gpus)
		rc = report_answer(r, "no GPU: %d seen by CUDA, %d by NVML", driver_has(p, DF_CUDA_DEVICE_COUNT) ? p->cuda_device_count : 0,
				   driver_has(p, DF_NVML_DEVICE_COUNT) ? p->nvml_device_count : 0);
	for (size_t i = 0; rc == CD_OK && i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];

		gpu_subject(g, subject, sizeof(subject));
		if (gpu_has(g, GF_CC))
			snprintf(cc, sizeof(cc), "sm_%lld%lld", g->cc_major, g->cc_minor);
		else
			snprintf(cc, sizeof(cc), "compute capability unknown");
		if (gpu_has(g, GF_MEMORY_TOTAL))
			units_fmt_bytes((uint64_t)g->memory_total_bytes, mem, sizeof(mem));
		else if (gpu_has(g, GF_NVML_MEMORY))
			units_fmt_bytes((uint64_t)g->nvml_memory_total_bytes, mem, sizeof(mem));
		else
			snprintf(mem, sizeof(mem), "memory unknown");
		rc = report_answer(r, "%s: %s, %s, driver %s", subject, cc, mem,
				   driver_has(p, DF_VERSION) ? p->user_driver_version : "version unknown");
	}
	return rc == CD_OK ? report_answer_findings(r) : rc;
}

static const struct cli_opt devices_opts[] = { CMD_OPT_FORMAT_ENTRY, { 0 } };

static int devices_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const struct gpu_probe *p = &g->run->probe; /* opened and judged by the run context */
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "devices takes no arguments (got '%.60s')", argv[1]);
	if ((rc = cmd_format_option(r, g, err)) != CD_OK)
		return rc;
	rc = rules_gpu_health(p, r);
	if (rc == CD_OK)
		rc = put_json(r, p);
	if (rc == CD_OK)
		put_text(r, p);
	if (rc == CD_OK && (rc = put_answer(r, p)) != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
	return rc;
}

const struct cd_command cmd_devices = {
	.name = "devices",
	.summary = "every GPU: what deviceQuery prints plus NVML's state and health",
	.usage = "cudoctor devices [--format prometheus]",
	.opts = devices_opts,
	.help = "Lists every GPU the CUDA driver and NVML see, in CUDA order (GPUs hidden from CUDA "
		"by CUDA_VISIBLE_DEVICES follow, from NVML): name, compute capability, memory, SMs, "
		"clocks, limits per block and SM, caches, PCI location, UUID, compute mode; and from "
		"NVML the driver version, PCIe link, persistence, MIG mode and MIG devices (their "
		"GPU/compute instance, UUID and memory), power, temperature, clocks and clock event "
		"reasons, ECC counters, retired pages / remapped rows and processes. "
		"Reads only; creates no CUDA context.\n\n"
		"Findings: no-driver, no-device, driver-init-failed, system-not-ready, "
		"driver-library-mismatch, forward-compat-unsupported, nvml-unavailable (the same driver "
		"rules as doctor), gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, "
		"clocks-throttled. "
		"--json carries every field, units in the key names (docs/json.md); unknown values are null. "
		"-q prints a line per GPU (GPU 0 (NAME): sm_90, memory, driver) and the warn and error "
		"findings, a line each.",
	.notes = "Environment: CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML select the driver libraries.",
	.needs = NEEDS_DRIVER,
	.run = devices_run,
};
