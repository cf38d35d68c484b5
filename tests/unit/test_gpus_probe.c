/* The GPU probe through the fake drivers: fields from CUDA and NVML, CUDA vs NVML order,
 * hidden devices, failing cuInit, missing or mismatched NVML, unsupported queries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/gpus.h"

static const char *const env_names[] = {
	"FAKE_GPUS", "FAKE_CUDA_INIT_RESULT", "FAKE_CUDA_DRIVER_VERSION", "FAKE_CUDA_ORDER",
	"FAKE_CUDA_ATTR_UNSUPPORTED", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "FAKE_NVML_INIT_RESULT",
	"FAKE_NVML_PROCS", "FAKE_NVML_NOT_SUPPORTED", "FAKE_NVML_LOST", "FAKE_NVML_ECC",
	"FAKE_NVML_CLOCK_REASONS", "FAKE_NVML_PCIE", "FAKE_NVML_MIG", "FAKE_NVML_MIG_DEVICES", NULL,
};

static void use_fakes(const char *dir)
{
	char path[512];

	for (size_t i = 0; env_names[i]; i++)
		unsetenv(env_names[i]);
	snprintf(path, sizeof(path), "%s/libcuda.so.1", dir);
	setenv("CUDOCTOR_LIBCUDA", path, 1);
	snprintf(path, sizeof(path), "%s/libnvidia-ml.so.1", dir);
	setenv("CUDOCTOR_LIBNVML", path, 1);
}

static int setup(void **state)
{
	(void)state;
	use_fakes(CUDOCTOR_FAKES_DIR);
	return 0;
}

/* Both libraries loaded (CUDOCTOR_LIBCUDA / CUDOCTOR_LIBNVML), collected, shut down and
 * unloaded, as the run context does over a run. */
static void probe(struct gpu_probe *p)
{
	char err[CD_ERRMSG] = "";
	struct cudrv cu;
	struct nvml nv;
	bool cu_ok, nv_ok;

	memset(p, 0, sizeof(*p));
	cu_ok = cudrv_load(&cu, p->cuda_load_error) == CD_OK;
	nv_ok = nvml_load(&nv, p->nvml_load_error) == CD_OK;
	assert_int_equal(gpu_probe_collect(p, cu_ok ? &cu : NULL, nv_ok ? &nv : NULL, err), CD_OK);
	if (driver_nvml_ok(p) && nv.Shutdown)
		nv.Shutdown();
	if (cu_ok)
		cudrv_unload(&cu);
	if (nv_ok)
		nvml_unload(&nv);
}

static void test_one_h200_all_fields(void **state)
{
	struct gpu_probe p;

	(void)state;
	probe(&p);
	assert_true(p.cuda_loaded);
	assert_int_equal(p.cuda_init_result, CUDA_SUCCESS);
	assert_string_equal(p.cuda_init_result_name, "CUDA_SUCCESS");
	assert_int_equal(p.cuda_driver_version, 13000);
	assert_true(p.nvml_loaded);
	assert_string_equal(p.user_driver_version, "580.159.04");
	assert_string_equal(p.user_driver_version_source, "NVML");
	assert_true(driver_has(&p, DF_VERSION) && driver_has(&p, DF_CUDA_VERSION) && driver_has(&p, DF_NVML_INIT));
	assert_int_equal(p.nvml_cuda_driver_version, 13000);
	assert_int_equal(p.n_gpus, 1);
	const struct gpu_info *g = &p.gpus[0];
	assert_int_equal(g->cuda_ordinal, 0);
	assert_int_equal(g->nvml_index, 0);
	assert_string_equal(g->name, "NVIDIA H200");
	assert_int_equal(g->cc_major, 9);
	assert_int_equal(g->cc_minor, 0);
	assert_int_equal(g->memory_total_bytes, 141LL << 30);
	assert_int_equal(g->sm_count, 132);
	assert_int_equal(g->clock_rate_khz, 1980000);
	assert_int_equal(g->smem_per_block_optin_bytes, 232448);
	assert_int_equal(g->max_block_dim[2], 64);
	assert_int_equal(g->max_grid_dim[0], 2147483647);
	assert_string_equal(g->pci_bus_id, "0000:18:00.0");
	assert_true(strncmp(g->uuid, "GPU-", 4) == 0 && strlen(g->uuid) == 40);
	assert_true(gpu_has(g, GF_ECC_VOLATILE) && gpu_has(g, GF_REMAPPED_ROWS) && gpu_has(g, GF_MIG_MODE));
	assert_false(gpu_has(g, GF_RETIRED_PAGES)); /* Hopper remaps rows instead */
	assert_true(gpu_has(g, GF_NVML_MEMORY_RESERVED));
	assert_int_equal(g->nvml_memory_total_bytes, 141LL << 30);
	assert_int_equal(g->pcie_gen_max, 5);
	assert_int_equal(g->clock_event_reasons, NVML_CLOCKS_EVENT_GPU_IDLE);
	assert_true(gpu_has(g, GF_PROCESSES));
	assert_int_equal(g->n_processes, 0);
	assert_string_equal(g->errors, "");
	gpu_probe_free(&p);
}

/* Eight GPUs of chosen names and CCs, each matched to its NVML device. */
static void test_eight_gpus_names_and_ccs(void **state)
{
	static const char *const names[] = {
		"NVIDIA GeForce RTX 4060 Ti", "NVIDIA GeForce RTX 5060 Ti", "Tesla V100-SXM2-16GB", "NVIDIA H200",
		"NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 3090", "NVIDIA B200", "Tesla T4",
	};
	static const int ccs[] = { 89, 120, 70, 90, 80, 86, 100, 75 };
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_GPUS", "NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA GeForce RTX 5060 Ti:12.0:16GiB;"
			    "Tesla V100-SXM2-16GB:7.0:16GiB;NVIDIA H200:9.0:141GiB;NVIDIA A100-SXM4-80GB:8.0:80GiB;"
			    "NVIDIA GeForce RTX 3090:8.6:24GiB;NVIDIA B200:10.0:180GiB;Tesla T4:7.5:16GiB", 1);
	probe(&p);
	assert_int_equal(p.n_gpus, 8);
	assert_int_equal(p.cuda_device_count, 8);
	assert_int_equal(p.nvml_device_count, 8);
	for (int i = 0; i < 8; i++) {
		assert_string_equal(p.gpus[i].name, names[i]);
		assert_int_equal(p.gpus[i].cc_major * 10 + p.gpus[i].cc_minor, ccs[i]);
		assert_int_equal(p.gpus[i].cuda_ordinal, i);
		assert_int_equal(p.gpus[i].nvml_index, i);
	}
	assert_int_equal(p.gpus[1].memory_total_bytes, 16LL << 30);
	assert_false(gpu_has(&p.gpus[0], GF_ECC_MODE)); /* consumer card: NOT_SUPPORTED, silently */
	assert_string_equal(p.gpus[0].errors, "");
	gpu_probe_free(&p);
}

/* CUDA enumerates fastest first, NVML by PCI bus: the probe pairs them by UUID. */
static void test_cuda_order_differs_from_nvml(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_GPUS", "NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB", 1);
	setenv("FAKE_CUDA_ORDER", "1,0", 1);
	probe(&p);
	assert_int_equal(p.n_gpus, 2);
	assert_string_equal(p.gpus[0].name, "NVIDIA H200");
	assert_int_equal(p.gpus[0].cuda_ordinal, 0);
	assert_int_equal(p.gpus[0].nvml_index, 1);
	assert_string_equal(p.gpus[0].pci_bus_id, "0000:28:00.0");
	assert_int_equal(p.gpus[1].nvml_index, 0);
	assert_true(gpu_has(&p.gpus[0], GF_MIG_MODE)); /* NVML facts landed on the right GPU */
	assert_false(gpu_has(&p.gpus[1], GF_MIG_MODE));
	gpu_probe_free(&p);
	/* CUDA_DEVICE_ORDER=PCI_BUS_ID restores the NVML order */
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	probe(&p);
	assert_int_equal(p.gpus[0].nvml_index, 0);
	assert_int_equal(p.gpus[1].nvml_index, 1);
	gpu_probe_free(&p);
}

static void test_hidden_gpu_listed_from_nvml(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_GPUS", "NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB", 1);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	probe(&p);
	assert_int_equal(p.cuda_device_count, 1);
	assert_int_equal(p.n_gpus, 2);
	assert_string_equal(p.gpus[0].name, "NVIDIA H200");
	assert_int_equal(p.gpus[0].nvml_index, 1);
	assert_int_equal(p.gpus[1].cuda_ordinal, -1);
	assert_int_equal(p.gpus[1].nvml_index, 0);
	assert_string_equal(p.gpus[1].name, "NVIDIA GeForce RTX 4060 Ti");
	/* what NVML knows without CUDA: CC, PCI, memory total */
	assert_int_equal(p.gpus[1].cc_major, 8);
	assert_true(gpu_has(&p.gpus[1], GF_MEMORY_TOTAL));
	assert_false(gpu_has(&p.gpus[1], GF_SM_COUNT));
	gpu_probe_free(&p);
}

static void check_init_failure(int code, const char *name)
{
	struct gpu_probe p;
	char value[16];

	snprintf(value, sizeof(value), "%d", code);
	setenv("FAKE_CUDA_INIT_RESULT", value, 1);
	probe(&p);
	assert_true(driver_has(&p, DF_CUDA_INIT));
	assert_int_equal(p.cuda_init_result, code);
	assert_string_equal(p.cuda_init_result_name, name);
	assert_false(driver_has(&p, DF_CUDA_DEVICE_COUNT));
	/* NVML still lists the GPU, not visible to CUDA */
	assert_int_equal(p.n_gpus, 1);
	assert_int_equal(p.gpus[0].cuda_ordinal, -1);
	assert_int_equal(p.gpus[0].nvml_index, 0);
	assert_string_equal(p.gpus[0].name, "NVIDIA H200");
	gpu_probe_free(&p);
}

static void test_cuinit_failures(void **state)
{
	(void)state;
	check_init_failure(100, "CUDA_ERROR_NO_DEVICE");
	check_init_failure(999, "CUDA_ERROR_UNKNOWN");
	check_init_failure(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
	check_init_failure(802, "CUDA_ERROR_SYSTEM_NOT_READY");
}

static void test_driver_versions(void **state)
{
	static const int versions[] = { 11080, 12040, 12080, 13000 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct gpu_probe p;
		char v[16];
		snprintf(v, sizeof(v), "%d", versions[i]);
		setenv("FAKE_CUDA_DRIVER_VERSION", v, 1);
		probe(&p);
		assert_true(driver_has(&p, DF_CUDA_VERSION));
		assert_int_equal(p.cuda_driver_version, versions[i]);
		assert_int_equal(p.nvml_cuda_driver_version, versions[i]);
		gpu_probe_free(&p);
	}
}

static void test_no_driver(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("CUDOCTOR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	probe(&p);
	assert_false(p.cuda_loaded);
	assert_non_null(strstr(p.cuda_load_error, "/nonexistent/libcuda.so.1"));
	assert_false(driver_has(&p, DF_CUDA_INIT));
	assert_int_equal(p.n_gpus, 1); /* from NVML */
	gpu_probe_free(&p);
}

static void test_nvml_missing_or_mismatched(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("CUDOCTOR_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	probe(&p);
	assert_false(p.nvml_loaded);
	assert_non_null(strstr(p.nvml_load_error, "/nonexistent/libnvidia-ml.so.1"));
	assert_int_equal(p.n_gpus, 1);
	assert_int_equal(p.gpus[0].nvml_index, -1);
	assert_true(gpu_has(&p.gpus[0], GF_SM_COUNT));
	assert_false(gpu_has(&p.gpus[0], GF_PCIE_GEN_CURRENT));
	gpu_probe_free(&p);

	use_fakes(CUDOCTOR_FAKES_DIR);
	setenv("FAKE_NVML_INIT_RESULT", "18", 1);
	probe(&p);
	assert_true(p.nvml_loaded);
	assert_int_equal(p.nvml_init_result, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
	assert_string_equal(p.nvml_init_result_text, "Driver/library version mismatch");
	assert_false(driver_has(&p, DF_VERSION));
	assert_int_equal(p.n_gpus, 1);
	assert_int_equal(p.gpus[0].nvml_index, -1);
	gpu_probe_free(&p);
}

static void test_unsupported_lost_and_attr(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_NVML_NOT_SUPPORTED", "power,temperature", 1);
	setenv("FAKE_CUDA_ATTR_UNSUPPORTED", "13,36", 1);
	probe(&p);
	const struct gpu_info *g = &p.gpus[0];
	assert_false(gpu_has(g, GF_POWER_DRAW));
	assert_false(gpu_has(g, GF_TEMPERATURE));
	assert_false(gpu_has(g, GF_CLOCK_RATE));
	assert_false(gpu_has(g, GF_MEMORY_CLOCK_RATE));
	assert_true(gpu_has(g, GF_SM_COUNT));
	assert_true(gpu_has(g, GF_CLOCK_SM));
	assert_string_equal(g->errors, ""); /* "not supported" is not an error */
	gpu_probe_free(&p);

	use_fakes(CUDOCTOR_FAKES_DIR);
	setenv("FAKE_NVML_LOST", "0", 1);
	probe(&p);
	g = &p.gpus[0];
	assert_int_equal(p.n_gpus, 1);
	assert_true(gpu_has(g, GF_SM_COUNT)); /* CUDA facts survive */
	assert_false(gpu_has(g, GF_POWER_DRAW));
	assert_true(g->nvml_gpu_lost);
	/* said once, by the first query that met it */
	assert_string_equal(g->errors, "nvmlDeviceGetCudaComputeCapability: NVML_ERROR_GPU_IS_LOST");
	gpu_probe_free(&p);
}

static void test_processes_and_health(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_NVML_PROCS", "0:1234:2GiB;0:99:na;0:7:512MiB", 1);
	setenv("FAKE_NVML_ECC", "0:3:1:10:2", 1);
	setenv("FAKE_NVML_CLOCK_REASONS", "0:0x48", 1);
	setenv("FAKE_NVML_PCIE", "0:3:8:5:16", 1);
	probe(&p);
	const struct gpu_info *g = &p.gpus[0];
	assert_int_equal(g->n_processes, 3);
	assert_int_equal(g->processes[0].pid, 1234);
	assert_int_equal(g->processes[0].used_memory_bytes, 2LL << 30);
	assert_int_equal(g->processes[1].used_memory_bytes, -1);
	assert_int_equal(g->processes[1].gpu_instance_id, -1);
	assert_int_equal(g->memory_used_bytes, (2LL << 30) + (512LL << 20));
	assert_int_equal(g->ecc_corrected_volatile, 3);
	assert_int_equal(g->ecc_uncorrected_volatile, 1);
	assert_int_equal(g->ecc_uncorrected_aggregate, 2);
	assert_int_equal(g->clock_event_reasons, 0x48);
	assert_int_equal(g->pcie_gen_current, 3);
	assert_int_equal(g->pcie_width_current, 8);
	assert_int_equal(g->pcie_width_max, 16);
	gpu_probe_free(&p);
}

/* An old driver: no cuDeviceTotalMem_v2, NVML without _v2/_v3 entry points. */
static void test_old_abi(void **state)
{
	struct gpu_probe p;

	(void)state;
	use_fakes(CUDOCTOR_FAKES_DIR "/old");
	setenv("FAKE_GPUS", "Tesla V100-SXM2-16GB:7.0:16GiB", 1);
	setenv("FAKE_NVML_PROCS", "0:42:1GiB", 1);
	setenv("FAKE_NVML_CLOCK_REASONS", "0:0x4", 1);
	probe(&p);
	const struct gpu_info *g = &p.gpus[0];
	assert_non_null(strstr(p.cuda_missing, "cuDeviceTotalMem_v2"));
	assert_int_equal(g->memory_total_bytes, 16LL << 30); /* from NVML instead */
	assert_string_equal(g->pci_bus_id, "0000:18:00.0"); /* from the legacy 16-byte id */
	assert_int_equal(g->n_processes, 1);
	assert_int_equal(g->processes[0].pid, 42);
	assert_int_equal(g->processes[0].used_memory_bytes, 1LL << 30);
	assert_int_equal(g->clock_event_reasons, NVML_CLOCKS_EVENT_SW_POWER_CAP); /* via ...ThrottleReasons */
	assert_false(gpu_has(g, GF_NVML_MEMORY_RESERVED));
	assert_true(gpu_has(g, GF_RETIRED_PAGES)); /* Volta retires pages */
	gpu_probe_free(&p);
}

/* MIG on with two instances: each listed under its GPU with its own ids, UUID, name, memory. */
static void test_mig_two_instances(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_NVML_MIG_DEVICES", "0:1g.18gb:18GiB:20MiB;0:3g.71gb:71GiB", 1);
	probe(&p);
	const struct gpu_info *g = &p.gpus[0];
	assert_true(gpu_has(g, GF_MIG_MODE) && g->mig_mode_current);
	assert_true(gpu_has(g, GF_MIG_DEVICES));
	assert_int_equal(g->n_mig_devices, 2);
	assert_int_equal(g->mig_devices[0].index, 0);
	assert_int_equal(g->mig_devices[0].gpu_instance_id, 1);
	assert_int_equal(g->mig_devices[0].compute_instance_id, 0);
	assert_string_equal(g->mig_devices[0].name, "NVIDIA H200 MIG 1g.18gb");
	assert_true(strncmp(g->mig_devices[0].uuid, "MIG-", 4) == 0 && strlen(g->mig_devices[0].uuid) == 40);
	assert_string_not_equal(g->mig_devices[0].uuid, g->mig_devices[1].uuid);
	assert_true(g->mig_devices[0].has_memory);
	assert_int_equal(g->mig_devices[0].memory_total_bytes, 18LL << 30);
	assert_int_equal(g->mig_devices[0].memory_used_bytes, 20LL << 20);
	assert_int_equal(g->mig_devices[0].memory_free_bytes, (18LL << 30) - (20LL << 20));
	assert_int_equal(g->mig_devices[1].gpu_instance_id, 2);
	assert_string_equal(g->mig_devices[1].name, "NVIDIA H200 MIG 3g.71gb");
	assert_int_equal(g->mig_devices[1].memory_total_bytes, 71LL << 30);
	assert_int_equal(g->mig_devices[1].memory_used_bytes, 0);
	/* the GPU's own facts stay the GPU's */
	assert_string_equal(g->name, "NVIDIA H200");
	assert_int_equal(g->nvml_memory_total_bytes, 141LL << 30);
	assert_string_equal(g->errors, "");
	gpu_probe_free(&p);
}

/* MIG on without instances: the list is known and empty; MIG off: no list at all. */
static void test_mig_on_without_instances_and_off(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("FAKE_NVML_MIG", "0:1:1", 1);
	probe(&p);
	assert_true(p.gpus[0].mig_mode_current);
	assert_true(gpu_has(&p.gpus[0], GF_MIG_DEVICES));
	assert_int_equal(p.gpus[0].n_mig_devices, 0);
	gpu_probe_free(&p);

	/* instances configured but MIG switched off: NVML lists nothing */
	setenv("FAKE_NVML_MIG", "0:0:0", 1);
	setenv("FAKE_NVML_MIG_DEVICES", "0:1g.18gb:18GiB", 1);
	probe(&p);
	assert_true(gpu_has(&p.gpus[0], GF_MIG_MODE));
	assert_false(p.gpus[0].mig_mode_current);
	assert_false(gpu_has(&p.gpus[0], GF_MIG_DEVICES));
	assert_null(p.gpus[0].mig_devices);
	gpu_probe_free(&p);

	/* a consumer card knows no MIG: neither mode nor list, and no error */
	setenv("FAKE_GPUS", "NVIDIA GeForce RTX 4060 Ti:8.9:8GiB", 1);
	setenv("FAKE_NVML_MIG_DEVICES", "0:1g.18gb:18GiB", 1);
	unsetenv("FAKE_NVML_MIG");
	probe(&p);
	assert_false(gpu_has(&p.gpus[0], GF_MIG_MODE));
	assert_false(gpu_has(&p.gpus[0], GF_MIG_DEVICES));
	assert_string_equal(p.gpus[0].errors, "");
	gpu_probe_free(&p);
}

/* An NVML without the MIG device calls: the mode is shown, the instances stay unknown. */
static void test_mig_without_symbols(void **state)
{
	struct gpu_probe p;

	(void)state;
	setenv("CUDOCTOR_LIBNVML", CUDOCTOR_FAKES_DIR "/nomig/libnvidia-ml.so.1", 1);
	setenv("FAKE_NVML_MIG_DEVICES", "0:1g.18gb:18GiB;0:3g.71gb:71GiB", 1);
	probe(&p);
	assert_non_null(strstr(p.nvml_missing, "nvmlDeviceGetMigDeviceHandleByIndex"));
	assert_true(gpu_has(&p.gpus[0], GF_MIG_MODE) && p.gpus[0].mig_mode_current);
	assert_false(gpu_has(&p.gpus[0], GF_MIG_DEVICES));
	assert_int_equal(p.gpus[0].n_mig_devices, 0);
	assert_string_equal(p.gpus[0].errors, "");
	gpu_probe_free(&p);
}

static void test_pci_uuid_reason_helpers(void **state)
{
	char out[64];
	static const unsigned char u[16] = { 0x8a, 0x3f, 0x11, 0x02, 0xab, 0xcd, 0x01, 0x23,
					     0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0xff };

	(void)state;
	assert_true(gpu_normalize_pci_bus_id("00000000:18:00.0", out, sizeof(out)));
	assert_string_equal(out, "0000:18:00.0");
	assert_true(gpu_normalize_pci_bus_id("0000:C1:00.0", out, sizeof(out)));
	assert_string_equal(out, "0000:c1:00.0");
	assert_true(gpu_normalize_pci_bus_id("18:00.0", out, sizeof(out)));
	assert_string_equal(out, "0000:18:00.0");
	assert_true(gpu_normalize_pci_bus_id("00010000:01:00.0", out, sizeof(out)));
	assert_string_equal(out, "00010000:01:00.0");
	assert_false(gpu_normalize_pci_bus_id("0000:18:00", out, sizeof(out)));
	assert_false(gpu_normalize_pci_bus_id("0000:18:40.0", out, sizeof(out))); /* device > 31 */
	assert_false(gpu_normalize_pci_bus_id("GPU-1234", out, sizeof(out)));
	assert_false(gpu_normalize_pci_bus_id("", out, sizeof(out)));
	gpu_format_uuid(u, out, sizeof(out));
	assert_string_equal(out, "GPU-8a3f1102-abcd-0123-4567-89abcdef00ff");
	gpu_clock_event_reason_names(0, out, sizeof(out));
	assert_string_equal(out, "none");
	gpu_clock_event_reason_names(0x41, out, sizeof(out));
	assert_string_equal(out, "gpu_idle,hw_thermal_slowdown");
	gpu_clock_event_reason_names(0x1000, out, sizeof(out));
	assert_string_equal(out, "unknown_0x1000");
	gpu_clock_event_reason_names(0x1ff, out, 16); /* truncated, still terminated */
	assert_true(strlen(out) < 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_one_h200_all_fields, setup),
		cmocka_unit_test_setup(test_eight_gpus_names_and_ccs, setup),
		cmocka_unit_test_setup(test_cuda_order_differs_from_nvml, setup),
		cmocka_unit_test_setup(test_hidden_gpu_listed_from_nvml, setup),
		cmocka_unit_test_setup(test_cuinit_failures, setup),
		cmocka_unit_test_setup(test_driver_versions, setup),
		cmocka_unit_test_setup(test_no_driver, setup),
		cmocka_unit_test_setup(test_nvml_missing_or_mismatched, setup),
		cmocka_unit_test_setup(test_unsupported_lost_and_attr, setup),
		cmocka_unit_test_setup(test_processes_and_health, setup),
		cmocka_unit_test_setup(test_old_abi, setup),
		cmocka_unit_test_setup(test_mig_two_instances, setup),
		cmocka_unit_test_setup(test_mig_on_without_instances_and_off, setup),
		cmocka_unit_test_setup(test_mig_without_symbols, setup),
		cmocka_unit_test(test_pci_uuid_reason_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
