/* kb/stack_rules: each rule fed fabricated facts, asserting the finding's id, severity and
 * the versions, branches and commands it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "kb/stack_rules.h"
#include "report/report.h"
#include "util/err.h"

static const int archs_130[] = { 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121 };
static const int archs_126[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90 };
static const int archs_124[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90 };

static struct version V(int major, int minor)
{
	struct version v = { major, minor, 0, 2 };
	return v;
}

/* A working driver 550.54.14 (CUDA 12.4, R550), kernel module of the same version. */
static struct stack_facts base(void)
{
	struct stack_facts f;

	memset(&f, 0, sizeof f);
	f.driver.loaded = true;
	f.driver.library_path = "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14";
	f.driver.init_called = true;
	f.driver.init_result = CUDA_SUCCESS;
	f.driver.init_result_name = "CUDA_SUCCESS";
	f.driver.cuda = V(12, 4);
	f.driver.version = "550.54.14";
	f.driver.version_source = "NVML";
	f.driver.kmod_version = "550.54.14";
	f.driver.branch = "R550";
	return f;
}

static struct stack_gpu gpu(int cuda, int pci, const char *name, int major, int minor)
{
	struct stack_gpu g;

	memset(&g, 0, sizeof g);
	g.cuda_index = cuda;
	g.pci_index = pci;
	g.name = name;
	g.cc_major = major;
	g.cc_minor = minor;
	g.persistence = -1;
	return g;
}

static struct stack_toolkit toolkit(const char *root, const char *nvcc, int major, int minor, bool selected,
				    const int *archs, size_t n, const char *min_driver, const char *branch)
{
	struct stack_toolkit t;

	memset(&t, 0, sizeof t);
	t.path = root;
	t.nvcc = nvcc;
	t.version = V(major, minor);
	t.selected = selected;
	t.archs = archs;
	t.n_archs = n;
	t.kb_known = archs != NULL;
	t.min_driver = min_driver;
	t.min_branch = branch;
	return t;
}

static void run(const struct stack_facts *f, struct report *r)
{
	assert_int_equal(report_init(r, "doctor"), CD_OK);
	assert_int_equal(stack_rules_run(f, r), CD_OK);
	assert_false(r->oom);
}

static size_t count(const struct report *r, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += strcmp(r->findings[i].id, id) == 0;
	return n;
}

static bool any_has(char *const *v, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], needle))
			return true;
	return false;
}

static const struct finding *expect(const struct report *r, const char *id, enum severity sev)
{
	const struct finding *f = report_find(r, id);

	if (!f) {
		for (size_t i = 0; i < r->n_findings; i++)
			print_message("have: %s: %s\n", r->findings[i].id, r->findings[i].title);
		fail_msg("no finding %s", id);
	}
	assert_int_equal(f->severity, sev);
	assert_non_null(f->why);
	assert_true(strlen(f->why) > 40);
	assert_true(f->n_fix > 0);
	assert_true(f->n_evidence > 0);
	return f;
}

static void test_no_driver(void **state)
{
	struct stack_facts f = base();
	struct stack_toolkit t = toolkit("/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	struct report r;

	(void)state;
	f.driver.loaded = false;
	f.driver.load_error = "libcuda.so.1: cannot open shared object file: No such file or directory";
	f.driver.kmod_version = NULL;
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "no-driver", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "cannot open shared object"));
	assert_true(report_has_errors(&r));
	/* without a driver nothing can be compared with it */
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 0);
	assert_int_equal(count(&r, "driver-cuda-version"), 0);
	report_free(&r);
}

static void test_init_results(void **state)
{
	static const struct {
		int result;
		const char *name, *id;
	} cases[] = {
		{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no-device" },
		{ CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward-compat-unsupported" },
		{ CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "system-not-ready" },
		{ CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "driver-library-mismatch" },
		{ CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "driver-init-failed" },
		{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "driver-init-failed" },
		{ 34, "CUDA_ERROR_STUB_LIBRARY", "driver-init-failed" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct stack_facts f = base();
		struct report r;
		f.driver.init_result = cases[i].result;
		f.driver.init_result_name = cases[i].name;
		run(&f, &r);
		const struct finding *x = expect(&r, cases[i].id, SEV_ERROR);
		char ev[64];
		snprintf(ev, sizeof ev, "%s (%d)", cases[i].name, cases[i].result);
		assert_true(any_has(x->evidence, x->n_evidence, ev));
		assert_int_equal(r.n_findings, 1);
		report_free(&r);
	}
}

static void test_init_804_fix_names_compat(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.driver.library_path = "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06";
	f.driver.init_result = CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE;
	f.driver.init_result_name = "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
	run(&f, &r);
	const struct finding *x = expect(&r, "forward-compat-unsupported", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/compat/libcuda.so.570.124.06"));
	assert_true(any_has(x->fix, x->n_fix, "LD_LIBRARY_PATH"));
	report_free(&r);
}

/* stack_driver_rules is what `devices` runs: the driver layer alone, the same findings
 * stack_rules_run gives for it, and nothing from the other layers. */
static void test_driver_rules_alone(void **state)
{
	struct stack_toolkit t = toolkit("/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	static const int results[] = { CUDA_ERROR_SYSTEM_NOT_READY, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, CUDA_ERROR_NO_DEVICE };

	(void)state;
	for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
		struct stack_facts f = base();
		struct report all, drv;
		f.driver.init_result = results[i];
		f.driver.init_result_name = "CUresult";
		f.driver.cuda = V(13, 1); /* so the toolkit is judged (and fits) in the full run */
		f.toolkits = &t;
		f.n_toolkits = 1;
		run(&f, &all);
		assert_int_equal(report_init(&drv, "devices"), CD_OK);
		assert_int_equal(stack_driver_rules(&f, &drv), CD_OK);
		assert_int_equal(drv.n_findings, 1);
		assert_true(report_has_finding(&all, drv.findings[0].id));
		assert_string_equal(report_find(&all, drv.findings[0].id)->title, drv.findings[0].title);
		report_free(&all);
		report_free(&drv);
	}
}

/* cuInit succeeded but cuDeviceGetCount says 0; NVML's count is evidence. */
static void test_device_count_zero(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.driver.has_device_count = true;
	f.driver.device_count = 0;
	f.driver.has_nvml_device_count = true;
	f.driver.nvml_device_count = 2;
	run(&f, &r);
	const struct finding *x = expect(&r, "no-device", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "cuDeviceGetCount = 0"));
	assert_true(any_has(x->evidence, x->n_evidence, "NVML sees 2 GPU(s)"));
	report_free(&r);
	f.driver.device_count = 1;
	run(&f, &r);
	assert_int_equal(count(&r, "no-device"), 0);
	report_free(&r);
}

/* NVML's own result picks the advice: 18 is a version mismatch (reboot), 9 no kernel module. */
static void test_nvml_result_advice(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.driver.nvml_failed = true;
	f.driver.nvml_error = "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
	f.driver.nvml_result = 18;
	run(&f, &r);
	const struct finding *x = expect(&r, "nvml-unavailable", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "nvmlInit = NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)"));
	assert_true(any_has(x->fix, x->n_fix, "reboot"));
	report_free(&r);
	f.driver.nvml_error = "NVML_ERROR_DRIVER_NOT_LOADED";
	f.driver.nvml_result = 9;
	run(&f, &r);
	x = expect(&r, "nvml-unavailable", SEV_WARN);
	assert_true(any_has(x->fix, x->n_fix, "modprobe nvidia"));
	assert_false(any_has(x->fix, x->n_fix, "reboot"));
	report_free(&r);
}

/* no libcuda but NVML sees GPUs: the driver is installed, its libcuda is what is missing */
static void test_no_driver_nvml_sees_gpus(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.driver.loaded = false;
	f.driver.load_error = "libcuda.so.1: cannot open shared object file";
	f.driver.has_nvml_device_count = true;
	f.driver.nvml_device_count = 1;
	f.driver.nvml_path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
	run(&f, &r);
	const struct finding *x = expect(&r, "no-driver", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1) sees 1 GPU(s)"));
	report_free(&r);
}

/* The example: RTX 4060 Ti on a CUDA 12.4 driver with nvcc 13.0 first on PATH. */
static void test_toolkit_newer_than_driver(void **state)
{
	struct stack_facts f = base();
	struct stack_gpu g = gpu(0, 0, "NVIDIA GeForce RTX 4060 Ti", 8, 9);
	struct stack_toolkit t[2] = {
		toolkit("/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580"),
		toolkit("/usr/local/cuda-12.4", "/usr/local/cuda-12.4/bin/nvcc", 12, 4, false, archs_124, 14, "550.54.14", "R550"),
	};
	struct report r;

	(void)state;
	f.gpus = &g;
	f.n_gpus = 1;
	f.toolkits = t;
	f.n_toolkits = 2;
	run(&f, &r);
	const struct finding *x = expect(&r, "toolkit-newer-than-driver", SEV_ERROR);
	assert_string_equal(x->subject, "/usr/local/cuda-13.0/bin/nvcc");
	assert_non_null(strstr(x->title, "13.0"));
	assert_non_null(strstr(x->title, "12.4"));
	assert_true(any_has(x->evidence, x->n_evidence, "550.54.14 supports CUDA up to 12.4"));
	assert_true(any_has(x->fix, x->n_fix, "580.65.06"));
	assert_true(any_has(x->fix, x->n_fix, "R580"));
	assert_true(any_has(x->fix, x->n_fix, "nvidia-driver-580"));
	/* the older toolkit already here is the other way out */
	assert_true(any_has(x->fix, x->n_fix, "export PATH=/usr/local/cuda-12.4/bin:$PATH"));
	assert_non_null(strstr(x->why, "error 35"));
	/* 12.4 fits the driver; 8.9 is buildable by both */
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 1);
	assert_int_equal(count(&r, "toolkit-cannot-target-gpu"), 0);
	assert_true(report_has_errors(&r));
	report_free(&r);
}

static void test_toolkit_newer_minor_is_warning(void **state)
{
	struct stack_facts f = base();
	struct stack_toolkit t = toolkit("/usr/local/cuda-12.8", "/usr/local/cuda-12.8/bin/nvcc", 12, 8, true, NULL, 0, "570.26", "R570");
	struct report r;

	(void)state;
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "toolkit-newer-than-driver", SEV_WARN);
	assert_non_null(strstr(x->why, "minor-version compatibility"));
	assert_non_null(strstr(x->why, "222"));
	assert_false(report_has_errors(&r));
	report_free(&r);
}

static void test_cuda_118_driver(void **state)
{
	struct stack_facts f = base();
	struct stack_toolkit t = toolkit("/usr/local/cuda-12.4", "/usr/local/cuda-12.4/bin/nvcc", 12, 4, true, archs_124, 14, "550.54.14", "R550");
	struct report r;

	(void)state;
	f.driver.cuda = V(11, 8);
	f.driver.version = "520.61.05";
	f.driver.kmod_version = "520.61.05";
	f.driver.branch = "R520";
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "toolkit-newer-than-driver", SEV_ERROR);
	assert_non_null(strstr(x->title, "11.8"));
	assert_true(any_has(x->fix, x->n_fix, "550.54.14"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA 11.x"));
	report_free(&r);
}

static void test_smi_cuda_version_explained(void **state)
{
	struct stack_facts f = base();
	struct stack_toolkit t = toolkit("/usr/local/cuda-11.8", "/usr/local/cuda-11.8/bin/nvcc", 11, 8, true, NULL, 0, NULL, NULL);
	struct report r;

	(void)state;
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "driver-cuda-version", SEV_INFO);
	assert_non_null(strstr(x->title, "12.4"));
	assert_non_null(strstr(x->title, "11.8"));
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 0);
	report_free(&r);
}

static void test_v100_with_cuda13(void **state)
{
	struct stack_facts f = base();
	struct stack_gpu g = gpu(0, 0, "Tesla V100-SXM2-16GB", 7, 0);
	struct stack_toolkit t = toolkit("/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	struct report r;

	(void)state;
	g.last_toolkit = "12.9";
	g.first_toolkit = "9.0";
	f.driver.cuda = V(13, 0);
	f.driver.version = f.driver.kmod_version = "580.95.05";
	f.gpus = &g;
	f.n_gpus = 1;
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "arch-dropped-by-toolkit", SEV_ERROR);
	assert_string_equal(x->subject, "GPU 0 (Tesla V100-SXM2-16GB)");
	assert_non_null(strstr(x->title, "sm_70"));
	assert_non_null(strstr(x->title, "CUDA 13.0"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA 12.9"));
	assert_int_equal(count(&r, "toolkit-cannot-target-gpu"), 0);
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 0);
	report_free(&r);
}

static void test_rtx5090_with_cuda126(void **state)
{
	struct stack_facts f = base();
	struct stack_gpu g = gpu(0, 0, "NVIDIA GeForce RTX 5090", 12, 0);
	struct stack_toolkit t = toolkit("/usr/local/cuda-12.6", "/usr/local/cuda-12.6/bin/nvcc", 12, 6, true, archs_126, 14, "560.28.03", "R560");
	struct report r;

	(void)state;
	g.first_toolkit = "12.8";
	f.driver.cuda = V(12, 8);
	f.gpus = &g;
	f.n_gpus = 1;
	f.toolkits = &t;
	f.n_toolkits = 1;
	run(&f, &r);
	/* compute_90 PTX still JIT-compiles for 12.0, so this is a warning */
	const struct finding *x = expect(&r, "toolkit-cannot-target-gpu", SEV_WARN);
	assert_non_null(strstr(x->title, "sm_120"));
	assert_true(any_has(x->evidence, x->n_evidence, "needs CUDA 12.8"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA 12.8 or newer"));
	assert_true(any_has(x->fix, x->n_fix, "compute_90"));
	report_free(&r);
}

static void test_runtime_newer_than_driver(void **state)
{
	struct stack_facts f = base();
	struct stack_runtime rt[2];
	struct stack_framework fw;
	struct report r;

	(void)state;
	memset(rt, 0, sizeof rt);
	memset(&fw, 0, sizeof fw);
	rt[0].path = rt[0].real_path = "/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13";
	rt[0].soname = "libcudart.so.13";
	rt[0].version = V(13, 0);
	rt[0].origin = ORIGIN_PIP;
	rt[0].rank = -1;
	rt[0].min_driver = "580.65.06";
	rt[1].path = rt[1].real_path = "/usr/local/cuda-12.4/lib64/libcudart.so.12";
	rt[1].soname = "libcudart.so.12";
	rt[1].version = V(12, 4);
	rt[1].origin = ORIGIN_TOOLKIT;
	rt[1].rank = 1000;
	fw.name = "torch";
	fw.version = "2.9.0+cu130";
	fw.cuda = "13.0";
	fw.path = "/venv/lib/python3.11/site-packages/torch";
	f.runtimes = rt;
	f.n_runtimes = 2;
	f.frameworks = &fw;
	f.n_frameworks = 1;
	run(&f, &r);
	assert_int_equal(count(&r, "runtime-newer-than-driver"), 2);
	const struct finding *x = expect(&r, "runtime-newer-than-driver", SEV_ERROR);
	assert_non_null(strstr(x->subject, "cu13/lib/libcudart.so.13"));
	assert_true(any_has(x->fix, x->n_fix, "580.65.06"));
	assert_non_null(strstr(x->why, "35"));
	bool torch_seen = false;
	for (size_t i = 0; i < r.n_findings; i++)
		if (strstr(r.findings[i].title, "torch 2.9.0+cu130")) {
			torch_seen = true;
			assert_int_equal(r.findings[i].severity, SEV_ERROR);
			assert_true(any_has(r.findings[i].fix, r.findings[i].n_fix, "download.pytorch.org/whl/cuXYZ"));
			assert_true(any_has(r.findings[i].fix, r.findings[i].n_fix, "<= 124"));
		}
	assert_true(torch_seen);
	report_free(&r);
}

static void test_library_shadowed(void **state)
{
	struct stack_facts f = base();
	struct stack_runtime rt[3];
	struct report r;

	(void)state;
	memset(rt, 0, sizeof rt);
	/* a toolkit dir in LD_LIBRARY_PATH beats the wheel's RUNPATH (jax#28929 style) */
	rt[0].path = rt[0].real_path = "/usr/local/cuda-12.1/lib64/libcudart.so.12";
	rt[0].soname = "libcudart.so.12";
	rt[0].version = V(12, 1);
	rt[0].origin = ORIGIN_TOOLKIT;
	rt[0].rank = 0;
	rt[0].from_ld_library_path = true;
	rt[1].path = rt[1].real_path = "/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12";
	rt[1].soname = "libcudart.so.12";
	rt[1].version = V(12, 4);
	rt[1].origin = ORIGIN_PIP;
	rt[1].rank = -1;
	/* same version in the ld cache: not a shadowing problem */
	rt[2].path = rt[2].real_path = "/usr/lib/x86_64-linux-gnu/libcudart.so.12";
	rt[2].soname = "libcudart.so.12";
	rt[2].version = V(12, 1);
	rt[2].origin = ORIGIN_SYSTEM;
	rt[2].rank = 1005;
	f.runtimes = rt;
	f.n_runtimes = 3;
	run(&f, &r);
	assert_int_equal(count(&r, "library-shadowed"), 1);
	const struct finding *x = expect(&r, "library-shadowed", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "picked: /usr/local/cuda-12.1/lib64/libcudart.so.12, version 12.1"));
	assert_true(any_has(x->evidence, x->n_evidence, "shadowed: /venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12, version 12.4"));
	assert_true(any_has(x->fix, x->n_fix, "LD_LIBRARY_PATH"));
	report_free(&r);

	/* a bare soname major (no minor known) is never compared */
	rt[1].version.parts = 1;
	run(&f, &r);
	assert_int_equal(count(&r, "library-shadowed"), 0);
	report_free(&r);
}

static void test_torch_cpu_only(void **state)
{
	struct stack_facts f = base();
	struct stack_gpu g = gpu(0, 0, "NVIDIA H200", 9, 0);
	struct stack_framework fw;
	struct report r;

	(void)state;
	memset(&fw, 0, sizeof fw);
	fw.name = "torch";
	fw.version = "2.5.1+cpu";
	fw.cpu_only = true;
	fw.path = "/venv/site-packages/torch";
	f.frameworks = &fw;
	f.n_frameworks = 1;
	f.gpus = &g;
	f.n_gpus = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "torch-cpu-only", SEV_WARN);
	assert_non_null(strstr(x->title, "2.5.1+cpu"));
	assert_true(any_has(x->fix, x->n_fix, "<= 124"));
	report_free(&r);
}

static void visible(struct stack_facts *f, const char *raw, const char *const toks[], size_t n)
{
	f->platform.visible.set = true;
	f->platform.visible.raw = raw;
	f->platform.visible.n = n;
	for (size_t i = 0; i < n; i++) {
		struct visible_token *t = &f->platform.visible.tok[i];
		snprintf(t->text, sizeof t->text, "%s", toks[i]);
		if (strncmp(toks[i], "GPU-", 4) == 0) {
			t->kind = VIS_GPU_UUID;
		} else if (toks[i][0] >= '0' && toks[i][0] <= '9') {
			t->kind = VIS_INDEX;
			t->index = atol(toks[i]);
		} else {
			t->kind = VIS_INVALID;
		}
	}
}

static void test_visible_devices(void **state)
{
	struct stack_gpu g[2] = { gpu(0, 0, "NVIDIA H200", 9, 0), gpu(1, 1, "NVIDIA H200", 9, 0) };
	struct report r;

	(void)state;
	g[0].uuid = "GPU-11111111-2222-3333-4444-555555555555";
	g[1].uuid = "GPU-aaaaaaaa-2222-3333-4444-555555555555";
	{
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "", NULL, 0);
		run(&f, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_ERROR);
		assert_non_null(strstr(x->title, "empty"));
		report_free(&r);
	}
	{
		const char *toks[] = { "0", "7" };
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "0,7", toks, 2);
		run(&f, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_WARN);
		assert_non_null(strstr(x->title, "index 7 does not exist"));
		assert_true(any_has(x->evidence, x->n_evidence, "1 visible"));
		report_free(&r);
	}
	{
		const char *toks[] = { "1", "1" };
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "1,1", toks, 2);
		run(&f, &r);
		expect(&r, "visible-devices-invalid", SEV_ERROR);
		report_free(&r);
	}
	{
		const char *toks[] = { "GPU-aaaa", "0" };
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "GPU-aaaa,0", toks, 2);
		run(&f, &r);
		assert_int_equal(count(&r, "visible-devices-invalid"), 0);
		report_free(&r);
	}
	{
		const char *toks[] = { "GPU-", "0" }; /* a prefix of both: ambiguous */
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "GPU-,0", toks, 2);
		run(&f, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_ERROR);
		assert_non_null(strstr(x->title, "more than one GPU"));
		report_free(&r);
	}
	{
		const char *toks[] = { "-1" }; /* the usual way to hide GPUs on purpose */
		struct stack_facts f = base();
		f.gpus = g;
		f.n_gpus = 2;
		visible(&f, "-1", toks, 1);
		run(&f, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_WARN);
		assert_non_null(strstr(x->title, "negative"));
		report_free(&r);
	}
}

/* MIG- tokens against the MIG devices NVML listed: both spellings, a prefix that names two,
 * and no judgement while one GPU's MIG devices are unknown. */
static void test_visible_mig_devices(void **state)
{
	static const struct stack_mig migs[2] = {
		{ "MIG-0123abcd-0000-1111-2222-333333333333", 1, 0 },
		{ "MIG-0123abcd-0000-1111-2222-444444444444", 2, 0 },
	};
	static const struct {
		const char *token;
		bool g1_listed;
		const char *title; /* NULL: no finding */
	} cases[] = {
		{ "MIG-0123abcd-0000-1111-2222-444444444444", true, NULL },
		{ "MIG-GPU-11111111-2222-3333-4444-555555555555/2/0", true, NULL },
		{ "MIG-GPU-11111111-2222-3333-4444-555555555555/3/0", true, "matches no MIG device here" },
		{ "MIG-GPU-aaaaaaaa-2222-3333-4444-555555555555/1/0", true, "matches no MIG device here" },
		{ "MIG-0123abcd", true, "more than one MIG device" },
		{ "MIG-ffffffff", true, "matches no MIG device here" },
		{ "MIG-ffffffff", false, NULL },
	};
	struct report r;

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct stack_gpu g[2] = { gpu(0, 0, "NVIDIA H200", 9, 0), gpu(1, 1, "NVIDIA H200", 9, 0) };
		struct stack_facts f = base();

		g[0].uuid = "GPU-11111111-2222-3333-4444-555555555555";
		g[1].uuid = "GPU-aaaaaaaa-2222-3333-4444-555555555555";
		g[0].mig_listed = true;
		g[0].migs = migs;
		g[0].n_migs = 2;
		g[1].mig_listed = cases[c].g1_listed; /* MIG off there, or unknown */
		f.gpus = g;
		f.n_gpus = 2;
		f.platform.visible.set = true;
		f.platform.visible.raw = cases[c].token;
		f.platform.visible.n = 1;
		f.platform.visible.tok[0].kind = VIS_MIG_UUID;
		snprintf(f.platform.visible.tok[0].text, sizeof f.platform.visible.tok[0].text, "%s", cases[c].token);
		run(&f, &r);
		if (!cases[c].title) {
			assert_int_equal(count(&r, "visible-devices-invalid"), 0);
		} else {
			const struct finding *x = expect(&r, "visible-devices-invalid", SEV_ERROR);
			if (!strstr(x->title, cases[c].title))
				fail_msg("%s: %s", cases[c].token, x->title);
		}
		report_free(&r);
	}
}

static void test_device_order(void **state)
{
	/* PCI order: 4060 Ti (bus 18), H200 (bus 28); CUDA puts the H200 first */
	struct stack_gpu g[2] = { gpu(1, 0, "NVIDIA GeForce RTX 4060 Ti", 8, 9), gpu(0, 1, "NVIDIA H200", 9, 0) };
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.gpus = g;
	f.n_gpus = 2;
	run(&f, &r);
	const struct finding *x = expect(&r, "device-order-mismatch", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "nvidia-smi GPU 0 = CUDA device 1: NVIDIA GeForce RTX 4060 Ti"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
	report_free(&r);

	f.platform.device_order = "PCI_BUS_ID";
	run(&f, &r);
	assert_int_equal(count(&r, "device-order-mismatch"), 0);
	report_free(&r);

	/* same order: nothing to say */
	f.platform.device_order = NULL;
	g[0].cuda_index = 0;
	g[1].cuda_index = 1;
	run(&f, &r);
	assert_int_equal(count(&r, "device-order-mismatch"), 0);
	report_free(&r);
}

static void test_device_nodes(void **state)
{
	struct device_node nodes[3] = {
		{ "/dev/nvidiactl", true, true },
		{ "/dev/nvidia-uvm", false, false },
		{ "/dev/nvidia0", true, true },
	};
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.platform.nodes = nodes;
	f.platform.n_nodes = 3;
	/* cuInit worked: the nodes it needs were there, whatever a stat says */
	run(&f, &r);
	assert_int_equal(count(&r, "device-nodes"), 0);
	report_free(&r);

	f.driver.init_result = CUDA_ERROR_UNKNOWN;
	f.driver.init_result_name = "CUDA_ERROR_UNKNOWN";
	run(&f, &r);
	const struct finding *x = expect(&r, "device-nodes", SEV_WARN);
	assert_true(any_has(x->fix, x->n_fix, "modprobe nvidia_uvm"));
	report_free(&r);

	nodes[1].exists = nodes[1].accessible = true;
	nodes[2].accessible = false;
	run(&f, &r);
	x = expect(&r, "device-nodes", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/dev/nvidia0: permission denied"));
	assert_true(any_has(x->fix, x->n_fix, "usermod -aG video"));
	report_free(&r);

	/* a machine without any driver: no-driver says it all */
	nodes[0].exists = nodes[2].exists = false;
	f.driver.loaded = false;
	f.driver.kmod_version = NULL;
	run(&f, &r);
	assert_int_equal(count(&r, "device-nodes"), 0);
	expect(&r, "no-driver", SEV_ERROR);
	report_free(&r);
}

static void test_wsl(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	f.platform.wsl = true;
	f.platform.wsl_lib_dir = f.platform.wsl_libcuda1 = f.platform.wsl_dxg = true;
	f.platform.wsl_libcuda1_symlink = true;
	f.platform.wsl_libcuda_unversioned = true;
	run(&f, &r);
	assert_int_equal(count(&r, "wsl-libcuda"), 0);
	report_free(&r);

	f.platform.wsl_distro_libcuda = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
	f.platform.wsl_libcuda_unversioned = false;
	run(&f, &r);
	assert_int_equal(count(&r, "wsl-libcuda"), 2);
	const struct finding *x = expect(&r, "wsl-libcuda", SEV_ERROR);
	assert_string_equal(x->subject, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	report_free(&r);

	f.platform.wsl_distro_libcuda = NULL;
	f.platform.wsl_libcuda1 = false;
	f.platform.wsl_dxg = false;
	run(&f, &r);
	x = expect(&r, "wsl-libcuda", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/dev/dxg is missing"));
	report_free(&r);
}

static void test_module_mismatch_and_persistence(void **state)
{
	struct stack_facts f = base();
	struct stack_gpu g = gpu(0, 0, "NVIDIA H200", 9, 0);
	struct report r;

	(void)state;
	f.driver.kmod_version = "580.95.05";
	f.driver.version = "580.159.04";
	g.persistence = 0;
	f.gpus = &g;
	f.n_gpus = 1;
	run(&f, &r);
	const struct finding *x = expect(&r, "driver-library-mismatch", SEV_ERROR);
	assert_non_null(strstr(x->title, "580.95.05"));
	assert_non_null(strstr(x->title, "580.159.04"));
	assert_true(any_has(x->fix, x->n_fix, "reboot"));
	x = expect(&r, "persistence-off", SEV_INFO);
	assert_string_equal(x->subject, "GPU 0 (NVIDIA H200)");
	report_free(&r);

	g.persistence = 1;
	f.driver.kmod_version = "580.159.04";
	run(&f, &r);
	assert_int_equal(r.n_findings, 0);
	report_free(&r);
}

static void test_verdict_only_when_clean(void **state)
{
	struct stack_facts f = base();
	struct report r;

	(void)state;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(stack_verdict(&f, &r), CD_OK);
	assert_true(report_has_finding(&r, "stack-consistent"));
	assert_int_equal(r.findings[0].severity, SEV_OK);
	report_free(&r);

	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	report_add_finding(&r, SEV_WARN, "library-shadowed", "x", "a warning");
	assert_int_equal(stack_verdict(&f, &r), CD_OK);
	assert_false(report_has_finding(&r, "stack-consistent"));
	report_free(&r);

	f.driver.init_result = 999;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(stack_verdict(&f, &r), CD_OK);
	assert_false(report_has_finding(&r, "stack-consistent"));
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_verdict_only_when_clean),
		cmocka_unit_test(test_init_results),
		cmocka_unit_test(test_init_804_fix_names_compat),
		cmocka_unit_test(test_driver_rules_alone),
		cmocka_unit_test(test_device_count_zero),
		cmocka_unit_test(test_nvml_result_advice),
		cmocka_unit_test(test_no_driver_nvml_sees_gpus),
		cmocka_unit_test(test_toolkit_newer_than_driver),
		cmocka_unit_test(test_toolkit_newer_minor_is_warning),
		cmocka_unit_test(test_cuda_118_driver),
		cmocka_unit_test(test_smi_cuda_version_explained),
		cmocka_unit_test(test_v100_with_cuda13),
		cmocka_unit_test(test_rtx5090_with_cuda126),
		cmocka_unit_test(test_runtime_newer_than_driver),
		cmocka_unit_test(test_library_shadowed),
		cmocka_unit_test(test_torch_cpu_only),
		cmocka_unit_test(test_visible_devices),
		cmocka_unit_test(test_visible_mig_devices),
		cmocka_unit_test(test_device_order),
		cmocka_unit_test(test_device_nodes),
		cmocka_unit_test(test_wsl),
		cmocka_unit_test(test_module_mismatch_and_persistence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
