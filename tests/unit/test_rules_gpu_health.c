/* rules/driver.c (reached from a GPU probe's facts) and rules/gpu_health.c on fabricated
 * GPU facts: which finding, which severity, and the
 * evidence and fix that make it actionable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "probe/driver_info.h"
#include "probe/platform.h"
#include "rules/rules.h"

static struct gpu_probe healthy_probe(struct gpu_info *g)
{
	struct gpu_probe p;

	memset(&p, 0, sizeof(p));
	memset(g, 0, sizeof(*g));
	p.cuda_loaded = true;
	snprintf(p.cuda_path, sizeof(p.cuda_path), "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
	snprintf(p.cuda_how, sizeof(p.cuda_how), "loader search");
	driver_mark(&p, DF_CUDA_INIT);
	snprintf(p.cuda_init_result_name, sizeof(p.cuda_init_result_name), "CUDA_SUCCESS");
	driver_mark(&p, DF_CUDA_DEVICE_COUNT);
	p.cuda_device_count = 1;
	p.nvml_loaded = true;
	driver_mark(&p, DF_NVML_INIT);
	driver_mark(&p, DF_NVML_DEVICE_COUNT);
	p.nvml_device_count = 1;
	g->cuda_ordinal = 0;
	g->nvml_index = 0;
	snprintf(g->name, sizeof(g->name), "NVIDIA H200");
	gpu_mark(g, GF_NAME);
	snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "0000:18:00.0");
	/* what an idle H200 shows: Gen 5 x16, idle reason, ECC clean */
	g->pcie_gen_current = g->pcie_gen_max = 5;
	g->pcie_width_current = g->pcie_width_max = 16;
	gpu_mark(g, GF_PCIE_GEN_CURRENT);
	gpu_mark(g, GF_PCIE_GEN_MAX);
	gpu_mark(g, GF_PCIE_WIDTH_CURRENT);
	gpu_mark(g, GF_PCIE_WIDTH_MAX);
	g->clock_event_reasons = NVML_CLOCKS_EVENT_GPU_IDLE;
	gpu_mark(g, GF_CLOCK_EVENT_REASONS);
	gpu_mark(g, GF_ECC_VOLATILE);
	gpu_mark(g, GF_ECC_AGGREGATE);
	gpu_mark(g, GF_REMAPPED_ROWS);
	p.gpus = g;
	p.n_gpus = 1;
	return p;
}

struct ctx {
	struct report r;
	struct gpu_info g;
	struct gpu_probe p;
	const char *container;
};

static int setup(void **state)
{
	static struct ctx c;

	assert_int_equal(report_init(&c.r, "devices"), CD_OK);
	c.p = healthy_probe(&c.g);
	c.container = NULL;
	*state = &c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	report_free(&c->r);
	return 0;
}

static bool any_contains(char **v, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], needle))
			return true;
	return false;
}

/* No NVIDIA kernel module: a root without /proc/driver/nvidia/version. */
#define NO_PROC_ROOT "/nonexistent-cudoctor-root"

static int run_all(struct ctx *c, const char *visible)
{
	static struct platform_info pl;
	struct facts f = { 0 };

	driver_info_collect(&c->p, NO_PROC_ROOT);
	memset(&pl, 0, sizeof(pl));
	visible_devices_parse(visible, &pl.visible);
	pl.container = c->container;
	f.driver = &c->p;
	f.platform = &pl;
	int rc = rules_driver(&f, &c->r);

	return rc ? rc : rules_gpu_health(&c->p, &c->r);
}

static void test_healthy_machine_has_no_findings(void **state)
{
	struct ctx *c = *state;

	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_int_equal(c->r.n_findings, 0);
}

static void test_no_driver(void **state)
{
	struct ctx *c = *state;

	c->p.cuda_loaded = false;
	driver_unmark(&c->p, DF_CUDA_INIT);
	snprintf(c->p.cuda_load_error, sizeof(c->p.cuda_load_error),
		 "libcuda.so.1: libcuda.so.1: cannot open shared object file: No such file or directory");
	snprintf(c->p.nvml_path, sizeof(c->p.nvml_path), "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
	c->container = "docker";
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "no-driver");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(any_contains(f->evidence, f->n_evidence, "cannot open shared object file"));
	/* NVML still saw the GPU: the driver is there, its libcuda is not reachable */
	assert_true(any_contains(f->evidence, f->n_evidence, "NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1) sees 1 GPU(s)"));
	assert_true(any_contains(f->evidence, f->n_evidence, "no NVIDIA kernel module"));
	assert_true(any_contains(f->fix, f->n_fix, "--gpus all"));
	assert_int_equal(c->r.n_findings, 1);
}

static void init_fails(struct ctx *c, CUresult code, const char *name)
{
	c->p.cuda_init_result = code;
	snprintf(c->p.cuda_init_result_name, sizeof(c->p.cuda_init_result_name), "%s", name);
	driver_unmark(&c->p, DF_CUDA_DEVICE_COUNT);
	assert_int_equal(run_all(c, NULL), CD_OK);
}

static void test_init_999_points_at_uvm(void **state)
{
	struct ctx *c = *state;

	init_fails(c, 999, "CUDA_ERROR_UNKNOWN");
	const struct finding *f = report_find(&c->r, "driver-init-failed");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_string_equal(f->title, "cuInit failed: CUDA_ERROR_UNKNOWN (999)");
	assert_true(any_contains(f->evidence, f->n_evidence, "cuInit(0) = CUDA_ERROR_UNKNOWN (999)"));
	assert_true(any_contains(f->evidence, f->n_evidence, "libcuda: /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
	assert_true(any_contains(f->fix, f->n_fix, "modprobe nvidia_uvm"));
}

static void test_init_802_points_at_fabric_manager(void **state)
{
	struct ctx *c = *state;

	init_fails(c, 802, "CUDA_ERROR_SYSTEM_NOT_READY");
	assert_false(report_has_finding(&c->r, "driver-init-failed"));
	const struct finding *f = report_find(&c->r, "system-not-ready");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(any_contains(f->evidence, f->n_evidence, "cuInit(0) = CUDA_ERROR_SYSTEM_NOT_READY (802)"));
	assert_true(any_contains(f->fix, f->n_fix, "nvidia-fabricmanager"));
}

static void test_init_804_points_at_compat(void **state)
{
	struct ctx *c = *state;

	init_fails(c, 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
	assert_false(report_has_finding(&c->r, "driver-init-failed"));
	const struct finding *f = report_find(&c->r, "forward-compat-unsupported");
	assert_non_null(f);
	assert_non_null(strstr(f->why, "cuda-compat"));
	assert_true(any_contains(f->evidence, f->n_evidence, "loaded /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"));
	assert_true(any_contains(f->fix, f->n_fix, "compat"));
}

static void test_init_803_is_library_mismatch(void **state)
{
	struct ctx *c = *state;

	init_fails(c, 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
	assert_false(report_has_finding(&c->r, "driver-init-failed"));
	const struct finding *f = report_find(&c->r, "driver-library-mismatch");
	assert_non_null(f);
	assert_true(any_contains(f->fix, f->n_fix, "reboot"));
}

static void test_init_34_is_the_stub(void **state)
{
	struct ctx *c = *state;

	init_fails(c, 34, "CUDA_ERROR_STUB_LIBRARY");
	const struct finding *f = report_find(&c->r, "driver-init-failed");
	assert_non_null(f);
	assert_non_null(strstr(f->why, "stub"));
	assert_true(any_contains(f->fix, f->n_fix, "stubs directory"));
}

static void test_init_100_is_no_device_with_visible_devices(void **state)
{
	struct ctx *c = *state;

	c->p.cuda_init_result = CUDA_ERROR_NO_DEVICE;
	snprintf(c->p.cuda_init_result_name, sizeof(c->p.cuda_init_result_name), "CUDA_ERROR_NO_DEVICE");
	driver_unmark(&c->p, DF_CUDA_DEVICE_COUNT);
	assert_int_equal(run_all(c, ""), CD_OK);
	assert_false(report_has_finding(&c->r, "driver-init-failed"));
	const struct finding *f = report_find(&c->r, "no-device");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(any_contains(f->evidence, f->n_evidence, "CUDA_VISIBLE_DEVICES=\"\""));
	assert_true(any_contains(f->evidence, f->n_evidence, "NVML sees 1 GPU(s)"));
	assert_true(any_contains(f->fix, f->n_fix, "unset CUDA_VISIBLE_DEVICES"));
}

static void test_count_zero_is_no_device(void **state)
{
	struct ctx *c = *state;

	c->p.cuda_device_count = 0; /* cuInit succeeded, yet no device */
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "no-device");
	assert_non_null(f);
	assert_true(any_contains(f->evidence, f->n_evidence, "cuDeviceGetCount = 0"));
	assert_true(any_contains(f->evidence, f->n_evidence, "NVML sees 1 GPU(s)"));
	assert_false(any_contains(f->fix, f->n_fix, "unset CUDA_VISIBLE_DEVICES")); /* it is not set */
}

static void test_nvml_mismatch_says_reboot(void **state)
{
	struct ctx *c = *state;

	c->p.nvml_init_result = NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	snprintf(c->p.nvml_init_result_name, sizeof(c->p.nvml_init_result_name), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	snprintf(c->p.nvml_init_result_text, sizeof(c->p.nvml_init_result_text), "Driver/library version mismatch");
	snprintf(c->p.nvml_path, sizeof(c->p.nvml_path), "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "nvml-unavailable");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_WARN);
	assert_true(any_contains(f->evidence, f->n_evidence, "nvmlInit = NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)"));
	assert_true(any_contains(f->evidence, f->n_evidence, "libnvidia-ml: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
	assert_non_null(strstr(f->why, "Driver/library version mismatch"));
	assert_true(any_contains(f->fix, f->n_fix, "reboot"));
	assert_false(report_has_errors(&c->r));
}

static void test_nvml_missing(void **state)
{
	struct ctx *c = *state;

	c->p.nvml_loaded = false;
	driver_unmark(&c->p, DF_NVML_INIT);
	snprintf(c->p.nvml_load_error, sizeof(c->p.nvml_load_error), "CUDOCTOR_LIBNVML=/x: cannot open");
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "nvml-unavailable");
	assert_non_null(f);
	assert_true(any_contains(f->evidence, f->n_evidence, "CUDOCTOR_LIBNVML=/x"));
}

static void test_ecc_severity(void **state)
{
	struct ctx *c = *state;

	c->g.ecc_corrected_volatile = 12; /* corrected errors alone are routine */
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_false(report_has_finding(&c->r, "ecc-errors"));
	c->g.ecc_uncorrected_aggregate = 2;
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_int_equal(report_find(&c->r, "ecc-errors")->severity, SEV_WARN);
	report_free(&c->r);
	report_init(&c->r, "devices");
	c->g.ecc_uncorrected_volatile = 1;
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "ecc-errors");
	assert_int_equal(f->severity, SEV_ERROR);
	assert_string_equal(f->subject, "GPU 0 (NVIDIA H200)");
	assert_true(any_contains(f->evidence, f->n_evidence, "12 corrected, 1 uncorrected"));
	assert_true(any_contains(f->fix, f->n_fix, "-i 0000:18:00.0"));
}

static void test_retirement_and_remap(void **state)
{
	struct ctx *c = *state;

	c->g.remapped_rows_pending = true;
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_int_equal(report_find(&c->r, "retired-pages-pending")->severity, SEV_WARN);
	report_free(&c->r);
	report_init(&c->r, "devices");
	c->g.remapped_rows_failure = true;
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "retired-pages-pending");
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(any_contains(f->fix, f->n_fix, "RMA"));
	/* an unsupported query (validity bit unset) is never a finding */
	report_free(&c->r);
	report_init(&c->r, "devices");
	c->g.valid[GF_REMAPPED_ROWS / 64] &= ~(1ULL << (GF_REMAPPED_ROWS % 64));
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_false(report_has_finding(&c->r, "retired-pages-pending"));
}

static void test_pcie_idle_generation_is_normal(void **state)
{
	struct ctx *c = *state;

	c->g.pcie_gen_current = 1; /* idle: the GPU lowered its generation */
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_false(report_has_finding(&c->r, "pcie-link-degraded"));
	c->g.clock_event_reasons = 0; /* busy and still Gen 1 */
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_true(report_has_finding(&c->r, "pcie-link-degraded"));
	report_free(&c->r);
	report_init(&c->r, "devices");
	c->g.pcie_gen_current = 5;
	c->g.clock_event_reasons = NVML_CLOCKS_EVENT_GPU_IDLE;
	c->g.pcie_width_current = 8; /* width does not drop at idle */
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "pcie-link-degraded");
	assert_non_null(f);
	assert_string_equal(f->title, "PCIe link runs at Gen 5 x8, below the Gen 5 x16 it can do");
	assert_true(any_contains(f->fix, f->n_fix, "lspci -vv -s 0000:18:00.0"));
}

static void test_clock_reasons(void **state)
{
	struct ctx *c = *state;

	c->g.clock_event_reasons = NVML_CLOCKS_EVENT_SW_POWER_CAP;
	assert_int_equal(run_all(c, NULL), CD_OK);
	assert_int_equal(report_find(&c->r, "clocks-throttled")->severity, SEV_INFO);
	report_free(&c->r);
	report_init(&c->r, "devices");
	c->g.clock_event_reasons = NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN | NVML_CLOCKS_EVENT_SW_POWER_CAP;
	c->g.temperature_c = 91;
	gpu_mark(&c->g, GF_TEMPERATURE);
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "clocks-throttled");
	assert_int_equal(f->severity, SEV_WARN);
	assert_string_equal(f->title, "clocks are held down by sw_power_cap,hw_thermal_slowdown");
	assert_true(any_contains(f->evidence, f->n_evidence, "0x44"));
	assert_true(any_contains(f->evidence, f->n_evidence, "temperature 91 C"));
}

static void test_gpu_lost(void **state)
{
	struct ctx *c = *state;

	c->g.nvml_gpu_lost = true;
	snprintf(c->g.errors, sizeof(c->g.errors), "nvmlDeviceGetMemoryInfo_v2: NVML_ERROR_GPU_IS_LOST");
	assert_int_equal(run_all(c, NULL), CD_OK);
	const struct finding *f = report_find(&c->r, "gpu-lost");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(any_contains(f->evidence, f->n_evidence, "NVML_ERROR_GPU_IS_LOST"));
}

static void test_subject_for_hidden_gpu(void **state)
{
	struct ctx *c = *state;
	char buf[64];

	c->g.cuda_ordinal = -1;
	c->g.nvml_index = 3;
	gpu_subject(&c->g, buf, sizeof(buf));
	assert_string_equal(buf, "NVML device 3 (NVIDIA H200)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_healthy_machine_has_no_findings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_driver, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_999_points_at_uvm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_802_points_at_fabric_manager, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_804_points_at_compat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_803_is_library_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_34_is_the_stub, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_100_is_no_device_with_visible_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_zero_is_no_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvml_mismatch_says_reboot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvml_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ecc_severity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retirement_and_remap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pcie_idle_generation_is_normal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_reasons, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subject_for_hidden_gpu, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
