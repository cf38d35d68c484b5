/* src/rules: each rule fed fabricated facts, asserting the finding's id, severity and
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
#include "report/finding_write.h"
#include "report/report.h"
#include "rules/rules.h"
#include "util/err.h"

static const int archs_130[] = { 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121 };
static const int archs_126[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90 };
static const int archs_124[] = { 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90 };

#define SET(dst, text) snprintf((dst), sizeof(dst), "%s", (text))

static struct version V(int major, int minor)
{
	struct version v = { major, minor, 0, 2 };
	return v;
}

/* One machine's facts as the probes (and facts/kb.c) would have filled them. */
struct world {
	struct gpu_probe driver;
	struct gpu_info gpus[4];
	struct platform_info platform;
	struct toolkits tk;
	struct toolkit t[2];
	struct runtimes rt;
	struct runtime r[3];
	struct python_info py;
	struct py_framework fw[2];
	struct facts f;
};

static struct world W;

/* A working driver 550.54.14 (CUDA 12.4, R550), kernel module of the same version; no
 * GPU, toolkit, runtime or framework until a test adds one. */
static struct world *base(void)
{
	struct world *w = &W;

	memset(w, 0, sizeof *w);
	w->driver.cuda_loaded = true;
	SET(w->driver.cuda_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
	driver_mark(&w->driver, DF_CUDA_INIT);
	w->driver.cuda_init_result = CUDA_SUCCESS;
	SET(w->driver.cuda_init_result_name, "CUDA_SUCCESS");
	driver_mark(&w->driver, DF_CUDA_VERSION);
	w->driver.cuda_driver_version = 12040;
	SET(w->driver.user_driver_version, "550.54.14");
	w->driver.user_driver_version_source = "NVML";
	driver_mark(&w->driver, DF_KMOD);
	SET(w->driver.kmod_version, "550.54.14");
	SET(w->driver.kb_branch, "R550");
	/* NVML loaded and initialised */
	w->driver.nvml_loaded = true;
	driver_mark(&w->driver, DF_NVML_INIT);
	w->driver.nvml_init_result = NVML_SUCCESS;
	w->driver.gpus = w->gpus;
	w->tk.t = w->t;
	w->rt.r = w->r;
	w->py.fw = w->fw;
	w->f.driver = &w->driver;
	w->f.platform = &w->platform;
	w->f.toolkits = &w->tk;
	w->f.runtimes = &w->rt;
	w->f.n_runtime_sets = 1;
	w->f.python = &w->py;
	return w;
}

static void set_cuda(struct world *w, int major, int minor)
{
	w->driver.cuda_driver_version = major * 1000 + minor * 10;
}

/* a GPU with CUDA ordinal cuda (-1 hidden) and nvidia-smi index pci */
static struct gpu_info *gpu(struct world *w, int cuda, int pci, const char *name, int major, int minor)
{
	struct gpu_info *g = &w->gpus[w->driver.n_gpus++];

	memset(g, 0, sizeof *g);
	g->cuda_ordinal = cuda;
	g->nvml_index = pci;
	SET(g->name, name);
	gpu_mark(g, GF_NAME);
	g->cc_major = major;
	g->cc_minor = minor;
	gpu_mark(g, GF_CC);
	return g;
}

static void set_uuid(struct gpu_info *g, const char *uuid)
{
	SET(g->uuid, uuid);
	gpu_mark(g, GF_UUID);
}

static struct toolkit *toolkit(struct world *w, const char *root, const char *nvcc, int major, int minor, bool selected,
			       const int *archs, size_t n, const char *min_driver, const char *branch)
{
	struct toolkit *t = &w->t[w->tk.n++];

	memset(t, 0, sizeof *t);
	SET(t->root, root);
	SET(t->nvcc, nvcc);
	t->version = V(major, minor);
	t->selected = selected;
	if (archs)
		memcpy(t->kb.archs, archs, n * sizeof archs[0]);
	t->kb.n_archs = archs ? n : 0;
	t->kb.known = archs != NULL;
	if (min_driver)
		SET(t->kb.min_driver, min_driver);
	if (branch)
		SET(t->kb.min_branch, branch);
	return t;
}

static struct runtime *runtime(struct world *w, const char *path, const char *soname, int major, int minor,
			       enum runtime_origin origin, int rank)
{
	struct runtime *rt = &w->r[w->rt.n++];

	memset(rt, 0, sizeof *rt);
	SET(rt->path, path);
	SET(rt->real_path, path);
	SET(rt->soname, soname);
	rt->version = V(major, minor);
	rt->origin = origin;
	rt->rank = rank;
	return rt;
}

static struct py_framework *framework(struct world *w, const char *name, const char *version, const char *cuda,
				      bool cpu_only, const char *path)
{
	struct py_framework *fw = &w->fw[w->py.n_fw++];

	memset(fw, 0, sizeof *fw);
	SET(fw->name, name);
	SET(fw->version, version);
	SET(fw->cuda, cuda ? cuda : "");
	fw->cpu_only = cpu_only;
	SET(fw->path, path);
	return fw;
}

/* what doctor runs: the driver layer (the run context's), then every other layer */
static int run_rules(const struct facts *f, struct report *r)
{
	int rc = rules_driver(f, r);

	return rc == CD_OK ? rules_stack(f, r) : rc;
}

static void run(const struct world *w, struct report *r)
{
	assert_int_equal(report_init(r, "doctor"), CD_OK);
	assert_int_equal(run_rules(&w->f, r), CD_OK);
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
	struct world *w = base();
	struct report r;

	(void)state;
	toolkit(w, "/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	w->driver.cuda_loaded = false;
	SET(w->driver.cuda_load_error, "libcuda.so.1: cannot open shared object file: No such file or directory");
	driver_unmark(&w->driver, DF_KMOD);
	w->driver.kmod_version[0] = '\0';
	run(w, &r);
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
		struct world *w = base();
		struct report r;
		w->driver.cuda_init_result = cases[i].result;
		SET(w->driver.cuda_init_result_name, cases[i].name);
		run(w, &r);
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
	struct world *w = base();
	struct report r;

	(void)state;
	SET(w->driver.cuda_path, "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06");
	w->driver.cuda_init_result = CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE;
	SET(w->driver.cuda_init_result_name, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE");
	run(w, &r);
	const struct finding *x = expect(&r, "forward-compat-unsupported", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/compat/libcuda.so.570.124.06"));
	assert_true(any_has(x->fix, x->n_fix, "LD_LIBRARY_PATH"));
	report_free(&r);
}

/* rules_driver is what the run context runs for every command: the driver layer alone, the
 * same findings doctor's full run gives for it, and nothing from the other layers. */
static void test_driver_rules_alone(void **state)
{
	static const int results[] = { CUDA_ERROR_SYSTEM_NOT_READY, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, CUDA_ERROR_NO_DEVICE };

	(void)state;
	for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
		struct world *w = base();
		struct report all, drv;
		toolkit(w, "/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
		w->driver.cuda_init_result = results[i];
		SET(w->driver.cuda_init_result_name, "CUresult");
		set_cuda(w, 13, 1); /* so the toolkit is judged (and fits) in the full run */
		run(w, &all);
		assert_int_equal(report_init(&drv, "devices"), CD_OK);
		assert_int_equal(rules_driver(&w->f, &drv), CD_OK);
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
	struct world *w = base();
	struct report r;

	(void)state;
	driver_mark(&w->driver, DF_CUDA_DEVICE_COUNT);
	w->driver.cuda_device_count = 0;
	driver_mark(&w->driver, DF_NVML_DEVICE_COUNT);
	w->driver.nvml_device_count = 2;
	run(w, &r);
	const struct finding *x = expect(&r, "no-device", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "cuDeviceGetCount = 0"));
	assert_true(any_has(x->evidence, x->n_evidence, "NVML sees 2 GPU(s)"));
	report_free(&r);
	w->driver.cuda_device_count = 1;
	run(w, &r);
	assert_int_equal(count(&r, "no-device"), 0);
	report_free(&r);
}

/* NVML's own result picks the advice: 18 is a version mismatch (reboot), 9 no kernel module. */
static void test_nvml_result_advice(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	w->driver.nvml_init_result = 18;
	SET(w->driver.nvml_init_result_name, "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	run(w, &r);
	const struct finding *x = expect(&r, "nvml-unavailable", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "nvmlInit = NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)"));
	assert_true(any_has(x->fix, x->n_fix, "reboot"));
	report_free(&r);
	w->driver.nvml_init_result = 9;
	SET(w->driver.nvml_init_result_name, "NVML_ERROR_DRIVER_NOT_LOADED");
	run(w, &r);
	x = expect(&r, "nvml-unavailable", SEV_WARN);
	assert_true(any_has(x->fix, x->n_fix, "modprobe nvidia"));
	assert_false(any_has(x->fix, x->n_fix, "reboot"));
	report_free(&r);
}

/* no libcuda but NVML sees GPUs: the driver is installed, its libcuda is what is missing */
static void test_no_driver_nvml_sees_gpus(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	w->driver.cuda_loaded = false;
	SET(w->driver.cuda_load_error, "libcuda.so.1: cannot open shared object file");
	driver_mark(&w->driver, DF_NVML_DEVICE_COUNT);
	w->driver.nvml_device_count = 1;
	SET(w->driver.nvml_path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
	run(w, &r);
	const struct finding *x = expect(&r, "no-driver", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1) sees 1 GPU(s)"));
	report_free(&r);
}

/* The example: RTX 4060 Ti on a CUDA 12.4 driver with nvcc 13.0 first on PATH. */
static void test_toolkit_newer_than_driver(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	gpu(w, 0, 0, "NVIDIA GeForce RTX 4060 Ti", 8, 9);
	toolkit(w, "/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	toolkit(w, "/usr/local/cuda-12.4", "/usr/local/cuda-12.4/bin/nvcc", 12, 4, false, archs_124, 14, "550.54.14", "R550");
	run(w, &r);
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
	struct world *w = base();
	struct report r;

	(void)state;
	toolkit(w, "/usr/local/cuda-12.8", "/usr/local/cuda-12.8/bin/nvcc", 12, 8, true, NULL, 0, "570.26", "R570");
	run(w, &r);
	const struct finding *x = expect(&r, "toolkit-newer-than-driver", SEV_WARN);
	assert_non_null(strstr(x->why, "minor-version compatibility"));
	assert_non_null(strstr(x->why, "222"));
	assert_false(report_has_errors(&r));
	report_free(&r);
}

static void test_cuda_118_driver(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	toolkit(w, "/usr/local/cuda-12.4", "/usr/local/cuda-12.4/bin/nvcc", 12, 4, true, archs_124, 14, "550.54.14", "R550");
	set_cuda(w, 11, 8);
	SET(w->driver.user_driver_version, "520.61.05");
	SET(w->driver.kmod_version, "520.61.05");
	SET(w->driver.kb_branch, "R520");
	run(w, &r);
	const struct finding *x = expect(&r, "toolkit-newer-than-driver", SEV_ERROR);
	assert_non_null(strstr(x->title, "11.8"));
	assert_true(any_has(x->fix, x->n_fix, "550.54.14"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA 11.x"));
	report_free(&r);
}

static void test_smi_cuda_version_explained(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	toolkit(w, "/usr/local/cuda-11.8", "/usr/local/cuda-11.8/bin/nvcc", 11, 8, true, NULL, 0, NULL, NULL);
	run(w, &r);
	const struct finding *x = expect(&r, "driver-cuda-version", SEV_INFO);
	assert_non_null(strstr(x->title, "12.4"));
	assert_non_null(strstr(x->title, "11.8"));
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 0);
	report_free(&r);
}

static void test_v100_with_cuda13(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	struct gpu_info *g = gpu(w, 0, 0, "Tesla V100-SXM2-16GB", 7, 0);
	toolkit(w, "/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	SET(g->kb_last_toolkit, "12.9");
	SET(g->kb_first_toolkit, "9.0");
	set_cuda(w, 13, 0);
	SET(w->driver.user_driver_version, "580.95.05");
	SET(w->driver.kmod_version, "580.95.05");
	run(w, &r);
	const struct finding *x = expect(&r, "arch-dropped-by-toolkit", SEV_ERROR);
	assert_string_equal(x->subject, "GPU 0 (Tesla V100-SXM2-16GB)");
	assert_non_null(strstr(x->title, "sm_70"));
	assert_non_null(strstr(x->title, "CUDA 13.0"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA 12.9"));
	assert_int_equal(count(&r, "toolkit-cannot-target-gpu"), 0);
	assert_int_equal(count(&r, "toolkit-newer-than-driver"), 0);
	report_free(&r);
}

/* A GPU CUDA does not see is named by NVML's index, the same subject as the health rules
 * give it (rules/subject.c). */
static void test_hidden_gpu_subject(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	gpu(w, -1, 1, "Tesla V100-SXM2-16GB", 7, 0);
	toolkit(w, "/usr/local/cuda-13.0", "/usr/local/cuda-13.0/bin/nvcc", 13, 0, true, archs_130, 12, "580.65.06", "R580");
	set_cuda(w, 13, 0);
	SET(w->driver.user_driver_version, "580.95.05");
	SET(w->driver.kmod_version, "580.95.05");
	run(w, &r);
	const struct finding *x = expect(&r, "arch-dropped-by-toolkit", SEV_ERROR);
	assert_string_equal(x->subject, "NVML device 1 (Tesla V100-SXM2-16GB)");
	report_free(&r);
}

static void test_rtx5090_with_cuda126(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	struct gpu_info *g = gpu(w, 0, 0, "NVIDIA GeForce RTX 5090", 12, 0);
	toolkit(w, "/usr/local/cuda-12.6", "/usr/local/cuda-12.6/bin/nvcc", 12, 6, true, archs_126, 14, "560.28.03", "R560");
	SET(g->kb_first_toolkit, "12.8");
	set_cuda(w, 12, 8);
	run(w, &r);
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
	struct world *w = base();
	struct report r;

	(void)state;
	struct runtime *rt = runtime(w, "/venv/lib/python3.11/site-packages/nvidia/cu13/lib/libcudart.so.13", "libcudart.so.13", 13, 0, ORIGIN_PIP, -1);
	SET(rt->kb_min_driver, "580.65.06");
	runtime(w, "/usr/local/cuda-12.4/lib64/libcudart.so.12", "libcudart.so.12", 12, 4, ORIGIN_TOOLKIT, 1000);
	gpu(w, 0, 0, "NVIDIA H100 80GB HBM3", 9, 0);
	/* a framework of another CUDA major beside it does not own it */
	framework(w, "cupy-cuda12x", "13.6.0", "12", false, "/venv/lib/python3.11/site-packages/cupy_cuda12x-13.6.0.dist-info");
	run(w, &r);
	assert_int_equal(count(&r, "runtime-newer-than-driver"), 1);
	const struct finding *x = expect(&r, "runtime-newer-than-driver", SEV_ERROR);
	assert_non_null(strstr(x->subject, "cu13/lib/libcudart.so.13"));
	assert_true(any_has(x->fix, x->n_fix, "nvidia-driver-580"));
	assert_non_null(strstr(x->why, "580.65.06")); /* the CUDA 13 family's floor */
	assert_non_null(strstr(x->why, "35"));
	report_free(&r);
	/* torch built for CUDA 13 in that site-packages loads it: the cause is said once, by doctor's
	 * frameworks, which judge torch with its device code (test_framework_wheels); neither the
	 * wheel's runtime nor torch's version.py is a finding of the stack's rules */
	framework(w, "torch", "2.9.0+cu130", "13.0", false, "/venv/lib/python3.11/site-packages/torch");
	run(w, &r);
	assert_int_equal(count(&r, "runtime-newer-than-driver"), 0);
	report_free(&r);
}

static void test_library_shadowed(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	/* a toolkit dir in LD_LIBRARY_PATH beats the wheel's RUNPATH (jax#28929 style) */
	struct runtime *a = runtime(w, "/usr/local/cuda-12.1/lib64/libcudart.so.12", "libcudart.so.12", 12, 1, ORIGIN_TOOLKIT, 0);
	a->from_ld_library_path = true;
	struct runtime *b = runtime(w, "/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", "libcudart.so.12", 12, 4, ORIGIN_PIP, -1);
	/* same version in the ld cache: not a shadowing problem */
	runtime(w, "/usr/lib/x86_64-linux-gnu/libcudart.so.12", "libcudart.so.12", 12, 1, ORIGIN_SYSTEM, 1005);
	run(w, &r);
	assert_int_equal(count(&r, "library-shadowed"), 1);
	const struct finding *x = expect(&r, "library-shadowed", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "picked: /usr/local/cuda-12.1/lib64/libcudart.so.12, version 12.1"));
	assert_true(any_has(x->evidence, x->n_evidence, "shadowed: /venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12, version 12.4"));
	assert_true(any_has(x->fix, x->n_fix, "LD_LIBRARY_PATH"));
	report_free(&r);

	/* a bare soname major (no minor known) is never compared */
	b->version.parts = 1;
	run(w, &r);
	assert_int_equal(count(&r, "library-shadowed"), 0);
	report_free(&r);
}

static void test_torch_cpu_only(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	framework(w, "torch", "2.5.1+cpu", NULL, true, "/venv/site-packages/torch");
	gpu(w, 0, 0, "NVIDIA H200", 9, 0);
	run(w, &r);
	const struct finding *x = expect(&r, "torch-cpu-only", SEV_WARN);
	assert_non_null(strstr(x->title, "2.5.1+cpu"));
	assert_true(any_has(x->fix, x->n_fix, "pip install --force-reinstall torch=="));
	report_free(&r);
}

static void visible(struct world *w, const char *raw, const char *const toks[], size_t n)
{
	struct visible_devices *vd = &w->platform.visible;

	vd->set = true;
	vd->raw = raw;
	vd->n = n;
	for (size_t i = 0; i < n; i++) {
		struct visible_token *t = &vd->tok[i];
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

/* two H200s with UUIDs, for the CUDA_VISIBLE_DEVICES cases */
static struct world *two_gpus(void)
{
	struct world *w = base();

	set_uuid(gpu(w, 0, 0, "NVIDIA H200", 9, 0), "GPU-11111111-2222-3333-4444-555555555555");
	set_uuid(gpu(w, 1, 1, "NVIDIA H200", 9, 0), "GPU-aaaaaaaa-2222-3333-4444-555555555555");
	return w;
}

static void test_visible_devices(void **state)
{
	struct report r;

	(void)state;
	{
		struct world *w = two_gpus();
		visible(w, "", NULL, 0);
		run(w, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_ERROR);
		assert_non_null(strstr(x->title, "empty"));
		report_free(&r);
	}
	{
		const char *toks[] = { "0", "7" };
		struct world *w = two_gpus();
		visible(w, "0,7", toks, 2);
		run(w, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_WARN);
		assert_non_null(strstr(x->title, "index 7 does not exist"));
		assert_true(any_has(x->evidence, x->n_evidence, "1 visible"));
		report_free(&r);
	}
	{
		const char *toks[] = { "1", "1" };
		struct world *w = two_gpus();
		visible(w, "1,1", toks, 2);
		run(w, &r);
		expect(&r, "visible-devices-invalid", SEV_ERROR);
		report_free(&r);
	}
	{
		const char *toks[] = { "GPU-aaaa", "0" };
		struct world *w = two_gpus();
		visible(w, "GPU-aaaa,0", toks, 2);
		run(w, &r);
		assert_int_equal(count(&r, "visible-devices-invalid"), 0);
		report_free(&r);
	}
	{
		const char *toks[] = { "GPU-", "0" }; /* a prefix of both: ambiguous */
		struct world *w = two_gpus();
		visible(w, "GPU-,0", toks, 2);
		run(w, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_ERROR);
		assert_non_null(strstr(x->title, "more than one GPU"));
		report_free(&r);
	}
	{
		const char *toks[] = { "-1" }; /* the usual way to hide GPUs on purpose */
		struct world *w = two_gpus();
		visible(w, "-1", toks, 1);
		run(w, &r);
		const struct finding *x = expect(&r, "visible-devices-invalid", SEV_WARN);
		assert_non_null(strstr(x->title, "negative"));
		report_free(&r);
	}
}

/* MIG- tokens against the MIG devices NVML listed: both spellings, a prefix that names two,
 * and no judgement while one GPU's MIG devices are unknown. */
static void test_visible_mig_devices(void **state)
{
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
		struct gpu_mig_device migs[2];
		struct world *w = two_gpus();
		struct gpu_info *g0 = &w->gpus[0], *g1 = &w->gpus[1];

		memset(migs, 0, sizeof migs);
		SET(migs[0].uuid, "MIG-0123abcd-0000-1111-2222-333333333333");
		migs[0].gpu_instance_id = 1;
		SET(migs[1].uuid, "MIG-0123abcd-0000-1111-2222-444444444444");
		migs[1].gpu_instance_id = 2;
		/* GPU 0: MIG on, two devices listed; GPU 1: MIG off, or its state unknown */
		g0->mig_mode_current = true;
		gpu_mark(g0, GF_MIG_MODE);
		g0->mig_devices = migs;
		g0->n_mig_devices = 2;
		gpu_mark(g0, GF_MIG_DEVICES);
		if (cases[c].g1_listed)
			gpu_mark(g1, GF_MIG_MODE);
		w->platform.visible.set = true;
		w->platform.visible.raw = cases[c].token;
		w->platform.visible.n = 1;
		w->platform.visible.tok[0].kind = VIS_MIG_UUID;
		SET(w->platform.visible.tok[0].text, cases[c].token);
		run(w, &r);
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
	struct world *w = base();
	struct report r;

	(void)state;
	/* PCI order: 4060 Ti (bus 18), H200 (bus 28); CUDA puts the H200 first */
	struct gpu_info *a = gpu(w, 1, 0, "NVIDIA GeForce RTX 4060 Ti", 8, 9);
	struct gpu_info *b = gpu(w, 0, 1, "NVIDIA H200", 9, 0);
	run(w, &r);
	const struct finding *x = expect(&r, "device-order-mismatch", SEV_WARN);
	assert_true(any_has(x->evidence, x->n_evidence, "nvidia-smi GPU 0 = CUDA device 1: NVIDIA GeForce RTX 4060 Ti"));
	assert_true(any_has(x->fix, x->n_fix, "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
	report_free(&r);

	w->platform.device_order = "PCI_BUS_ID";
	run(w, &r);
	assert_int_equal(count(&r, "device-order-mismatch"), 0);
	report_free(&r);

	/* same order: nothing to say */
	w->platform.device_order = NULL;
	a->cuda_ordinal = 0;
	b->cuda_ordinal = 1;
	run(w, &r);
	assert_int_equal(count(&r, "device-order-mismatch"), 0);
	report_free(&r);
}

static void test_device_nodes(void **state)
{
	static const struct device_node nodes[3] = {
		{ "/dev/nvidiactl", true, true },
		{ "/dev/nvidia-uvm", false, false },
		{ "/dev/nvidia0", true, true },
	};
	struct world *w = base();
	struct device_node *n = w->platform.nodes;
	struct report r;

	(void)state;
	memcpy(n, nodes, sizeof nodes);
	w->platform.n_nodes = 3;
	/* cuInit worked: the nodes it needs were there, whatever a stat says */
	run(w, &r);
	assert_int_equal(count(&r, "device-nodes"), 0);
	report_free(&r);

	w->driver.cuda_init_result = CUDA_ERROR_UNKNOWN;
	SET(w->driver.cuda_init_result_name, "CUDA_ERROR_UNKNOWN");
	run(w, &r);
	const struct finding *x = expect(&r, "device-nodes", SEV_WARN);
	assert_true(any_has(x->fix, x->n_fix, "modprobe nvidia_uvm"));
	report_free(&r);

	n[1].exists = n[1].accessible = true;
	n[2].accessible = false;
	run(w, &r);
	x = expect(&r, "device-nodes", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/dev/nvidia0: permission denied"));
	assert_true(any_has(x->fix, x->n_fix, "usermod -aG video"));
	report_free(&r);

	/* a machine without any driver: no-driver says it all */
	n[0].exists = n[2].exists = false;
	w->driver.cuda_loaded = false;
	driver_unmark(&w->driver, DF_KMOD);
	w->driver.kmod_version[0] = '\0';
	run(w, &r);
	assert_int_equal(count(&r, "device-nodes"), 0);
	expect(&r, "no-driver", SEV_ERROR);
	report_free(&r);
}

static void test_wsl(void **state)
{
	struct world *w = base();
	struct platform_info *p = &w->platform;
	struct report r;

	(void)state;
	p->wsl = true;
	p->wsl_lib_dir = p->wsl_libcuda1 = p->wsl_dxg = true;
	p->wsl_libcuda1_symlink = true;
	p->wsl_libcuda_unversioned = true;
	run(w, &r);
	assert_int_equal(count(&r, "wsl-libcuda"), 0);
	report_free(&r);

	SET(p->wsl_distro_libcuda, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	p->wsl_libcuda_unversioned = false;
	run(w, &r);
	assert_int_equal(count(&r, "wsl-libcuda"), 2);
	const struct finding *x = expect(&r, "wsl-libcuda", SEV_ERROR);
	assert_string_equal(x->subject, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	report_free(&r);

	p->wsl_distro_libcuda[0] = '\0';
	p->wsl_libcuda1 = false;
	p->wsl_dxg = false;
	run(w, &r);
	x = expect(&r, "wsl-libcuda", SEV_ERROR);
	assert_true(any_has(x->evidence, x->n_evidence, "/dev/dxg is missing"));
	report_free(&r);
}

static void test_module_mismatch_and_persistence(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	struct gpu_info *g = gpu(w, 0, 0, "NVIDIA H200", 9, 0);
	SET(w->driver.kmod_version, "580.95.05");
	SET(w->driver.user_driver_version, "580.159.04");
	g->persistence_mode = false;
	gpu_mark(g, GF_PERSISTENCE);
	run(w, &r);
	const struct finding *x = expect(&r, "driver-library-mismatch", SEV_ERROR);
	assert_non_null(strstr(x->title, "580.95.05"));
	assert_non_null(strstr(x->title, "580.159.04"));
	assert_true(any_has(x->fix, x->n_fix, "reboot"));
	x = expect(&r, "persistence-off", SEV_INFO);
	assert_string_equal(x->subject, "GPU 0 (NVIDIA H200)");
	report_free(&r);

	g->persistence_mode = true;
	SET(w->driver.kmod_version, "580.159.04");
	run(w, &r);
	assert_int_equal(r.n_findings, 0);
	report_free(&r);
}

static void test_verdict_only_when_clean(void **state)
{
	struct world *w = base();
	struct report r;

	(void)state;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(rules_verdict(&w->f, &r), CD_OK);
	assert_true(report_has_finding(&r, "stack-consistent"));
	assert_int_equal(r.findings[0].severity, SEV_OK);
	report_free(&r);

	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	report_add_finding(&r, SEV_WARN, "library-shadowed", "x", "a warning");
	assert_int_equal(rules_verdict(&w->f, &r), CD_OK);
	assert_false(report_has_finding(&r, "stack-consistent"));
	report_free(&r);

	w->driver.cuda_init_result = 999;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(rules_verdict(&w->f, &r), CD_OK);
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
		cmocka_unit_test(test_hidden_gpu_subject),
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
