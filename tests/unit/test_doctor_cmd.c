/* The whole `cudoctor doctor` run as a process against the fake driver libraries
 * (tests/fakes, configured by FAKE_*), with fake toolkits on PATH: the scenarios. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_tree.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static char root[64];
static char path_13[8192], path_124[8192];

/* A toolkit tree: bin/nvcc that only answers --version, and version.json. */
static void make_toolkit(const char *dir, const char *release, const char *full)
{
	char rel[256], script[512], json[256];

	snprintf(rel, sizeof rel, "%s/bin/nvcc", dir);
	snprintf(script, sizeof script,
		 "#!/bin/sh\ncase \"$1\" in\n--version) echo 'Cuda compilation tools, release %s, V%s' ;;\n"
		 "--list-gpu-arch) printf 'compute_75\\ncompute_80\\n' ;;\n*) exit 1 ;;\nesac\n", release, full);
	tree_file(root, rel, script, 1);
	snprintf(rel, sizeof rel, "%s/version.json", dir);
	snprintf(json, sizeof json, "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"%s\"}}", full);
	tree_file(root, rel, json, 0);
}

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	make_toolkit("cuda-13.0", "13.0", "13.0.2");
	make_toolkit("cuda-12.4", "12.4", "12.4.1");
	snprintf(path_13, sizeof path_13, "PATH=%s/cuda-13.0/bin:/usr/bin:/bin", root);
	snprintf(path_124, sizeof path_124, "PATH=%s/cuda-12.4/bin:/usr/bin:/bin", root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* Runs `cudoctor --json doctor` with the fakes and extra environment; returns the JSON. */
static json_t *doctor_json(const char *const extra[], int *status)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", NULL };
	const char *env[32];
	size_t n = 0;
	struct run_result res;
	json_error_t je;
	json_t *j;

	env[n++] = "CUDOCTOR_LIBCUDA=" FAKE_CUDA;
	env[n++] = "CUDOCTOR_LIBNVML=" FAKE_NVML;
	env[n++] = "CUDA_VISIBLE_DEVICES=";
	env[n++] = "CUDA_DEVICE_ORDER=";
	env[n++] = "CUDA_HOME=";
	env[n++] = "CUDA_PATH=";
	env[n++] = "CUDACXX=";
	env[n++] = "LD_LIBRARY_PATH=";
	env[n++] = "VIRTUAL_ENV=";
	env[n++] = "CONDA_PREFIX=";
	for (size_t i = 0; extra && extra[i] && n + 1 < sizeof env / sizeof env[0]; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	*status = res.status;
	j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %s\nstderr: %s", je.text, res.out, res.err);
	run_result_free(&res);
	return j;
}

/* The first finding with id, or NULL. */
static json_t *finding(json_t *j, const char *id)
{
	json_t *fs = json_object_get(j, "findings"), *f;
	size_t i;

	json_array_foreach(fs, i, f) {
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
			return f;
	}
	return NULL;
}

static json_t *need(json_t *j, const char *id)
{
	json_t *f = finding(j, id);

	if (!f) {
		char *dump = json_dumps(json_object_get(j, "findings"), JSON_INDENT(1));
		fail_msg("no %s in %s", id, dump);
	}
	return f;
}

static bool list_has(json_t *f, const char *key, const char *needle)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(f, key), i, v) {
		if (strstr(json_string_value(v), needle))
			return true;
	}
	return false;
}

static const char *sget(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The example: RTX 4060 Ti, driver 550.54.14 (CUDA 12.4), nvcc 13.0 first on PATH. */
static void test_4060ti_cuda124_driver_nvcc13(void **state)
{
	const char *env[] = { path_13, "FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB", "FAKE_CUDA_DRIVER_VERSION=12040",
			      "FAKE_NVML_DRIVER_VERSION=550.54.14", NULL };
	int status;
	json_t *j, *f, *drv, *gpu, *tk;
	size_t i;
	bool selected_seen = false;

	(void)state;
	j = doctor_json(env, &status);
	assert_int_equal(status, 1);
	assert_string_equal(sget(j, "command"), "doctor");
	drv = json_object_get(j, "driver");
	assert_string_equal(sget(drv, "cuda_version"), "12.4");
	assert_string_equal(sget(drv, "version"), "550.54.14");
	assert_string_equal(sget(drv, "library_path"), FAKE_CUDA);
	gpu = json_array_get(json_object_get(j, "gpus"), 0);
	assert_string_equal(sget(gpu, "name"), "NVIDIA GeForce RTX 4060 Ti");
	assert_string_equal(sget(gpu, "compute_capability"), "8.9");
	assert_int_equal(json_integer_value(json_object_get(gpu, "memory_total_bytes")), 8LL << 30);
	assert_int_equal(json_integer_value(json_object_get(gpu, "cuda_ordinal")), 0);
	json_array_foreach(json_object_get(j, "toolkits"), i, tk) {
		if (json_is_true(json_object_get(tk, "selected"))) {
			selected_seen = true;
			assert_string_equal(sget(tk, "version"), "13.0.2");
			assert_string_equal(sget(tk, "version_source"), "version.json");
			assert_non_null(strstr(sget(tk, "nvcc"), "/cuda-13.0/bin/nvcc"));
		}
	}
	assert_true(selected_seen);

	f = need(j, "toolkit-newer-than-driver");
	assert_string_equal(sget(f, "severity"), "error");
	assert_non_null(strstr(sget(f, "title"), "13.0"));
	assert_non_null(strstr(sget(f, "title"), "12.4"));
	assert_non_null(strstr(sget(f, "title"), "R550"));
	assert_true(list_has(f, "evidence", "550.54.14 supports CUDA up to 12.4"));
	assert_true(list_has(f, "fix", "R580"));
	assert_null(finding(j, "no-driver"));
	json_decref(j);
}

/* How many findings have id, and the first whose subject contains part (NULL: any). */
static size_t count_of(json_t *j, const char *id, const char *part, json_t **first)
{
	json_t *f;
	size_t i, n = 0;

	*first = NULL;
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (strcmp(sget(f, "id"), id) != 0 || (part && !strstr(sget(f, "subject"), part)))
			continue;
		if (!n++)
			*first = f;
	}
	return n;
}

/* nvcc 13.0 on a CUDA 12.4 driver, its lib64/libcudart.so.13 on LD_LIBRARY_PATH beside an app's
 * own CUDA 13.1 libcudart: the toolkit is one cause, one toolkit-newer-than-driver whose evidence
 * is its runtime; the app's copy is another and keeps its runtime-newer-than-driver. */
static void test_toolkit_runtime_is_toolkit_evidence(void **state)
{
	char ld[8192], home[8192], path[8192], dir[4096];
	const char *gpu = "FAKE_GPUS=NVIDIA GeForce RTX 4090:8.9:24GiB", *cuda = "FAKE_CUDA_DRIVER_VERSION=12040",
		   *drv = "FAKE_NVML_DRIVER_VERSION=550.54.14", *host = "CUDOCTOR_HOST_ROOT=/nonexistent";
	int status;
	json_t *j, *f;

	(void)state;
	/* a toolkit of its own: the other tests' has no runtime */
	make_toolkit("rt/cuda-13.0", "13.0", "13.0.2");
	snprintf(path, sizeof path, "PATH=%s/rt/cuda-13.0/bin:/usr/bin:/bin", root);
	tree_file(root, "rt/cuda-13.0/lib64/libcudart.so.13.0.96", "\177ELF", 0);
	tree_link(root, "rt/cuda-13.0/lib64/libcudart.so.13", "libcudart.so.13.0.96");
	tree_file(root, "rt/app/lib/libcudart.so.13.1.80", "\177ELF", 0);
	tree_link(root, "rt/app/lib/libcudart.so.13", "libcudart.so.13.1.80");
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/rt/app/lib:%s/rt/cuda-13.0/lib64", root, root);
	{
		const char *env[] = { path, ld, gpu, cuda, drv, host, NULL };

		j = doctor_json(env, &status);
	}
	assert_int_equal(status, 1);
	assert_int_equal(count_of(j, "toolkit-newer-than-driver", NULL, &f), 1);
	assert_string_equal(sget(f, "severity"), "error");
	assert_true(list_has(f, "evidence", "cuda-13.0/lib64/libcudart.so.13 (CUDA 13.0) refuses this driver too"));
	/* the toolkit's copy is no finding of its own; the app's is */
	assert_int_equal(count_of(j, "runtime-newer-than-driver", "cuda-13.0", &f), 0);
	assert_int_equal(count_of(j, "runtime-newer-than-driver", NULL, &f), 1);
	assert_non_null(strstr(sget(f, "subject"), "/app/lib/libcudart.so.13"));
	assert_string_equal(sget(f, "severity"), "error");
	json_decref(j);

	/* the toolkit not on PATH (only CUDA_HOME), its runtime the loader's first pick: still one
	 * finding, an error because programs load that runtime */
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/rt/cuda-13.0/lib64", root);
	snprintf(home, sizeof home, "CUDA_HOME=%s", tree_path(root, "rt/cuda-13.0", dir, sizeof dir));
	{
		const char *env[] = { "PATH=/usr/bin:/bin", home, ld, gpu, cuda, drv, host, NULL };

		j = doctor_json(env, &status);
	}
	assert_int_equal(status, 1);
	assert_int_equal(count_of(j, "toolkit-newer-than-driver", NULL, &f), 1);
	assert_string_equal(sget(f, "severity"), "error");
	assert_true(list_has(f, "evidence", "the loader's pick of its soname"));
	assert_int_equal(count_of(j, "runtime-newer-than-driver", NULL, &f), 0);
	json_decref(j);
}

static void test_no_driver(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "doctor", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
			      path_124, "NO_COLOR=1", NULL };
	struct run_result res;
	const char *jenv[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", path_124, NULL };
	int status;
	json_t *j, *f;

	(void)state;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	assert_int_equal(res.status, 1);
	/* the text report still says what is here */
	assert_non_null(strstr(res.out, "Driver"));
	assert_non_null(strstr(res.out, "Toolkits"));
	assert_non_null(strstr(res.out, "cuda-12.4/bin/nvcc"));
	assert_non_null(strstr(res.out, "Runtimes"));
	assert_non_null(strstr(res.out, "no-driver"));
	run_result_free(&res);

	j = doctor_json(jenv, &status);
	assert_int_equal(status, 1);
	f = need(j, "no-driver");
	assert_string_equal(sget(f, "severity"), "error");
	assert_true(json_is_false(json_object_get(json_object_get(j, "driver"), "loaded")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "driver"), "cuda_version")));
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 0);
	assert_null(finding(j, "toolkit-newer-than-driver"));
	json_decref(j);
}

static void test_init_failures(void **state)
{
	static const struct {
		const char *env, *id, *name;
	} cases[] = {
		{ "FAKE_CUDA_INIT_RESULT=100", "no-device", "CUDA_ERROR_NO_DEVICE" },
		{ "FAKE_CUDA_INIT_RESULT=999", "driver-init-failed", "CUDA_ERROR_UNKNOWN" },
		{ "FAKE_CUDA_INIT_RESULT=804", "forward-compat-unsupported", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
		{ "FAKE_CUDA_INIT_RESULT=802", "system-not-ready", "CUDA_ERROR_SYSTEM_NOT_READY" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *env[] = { cases[i].env, path_13, NULL };
		int status;
		json_t *j = doctor_json(env, &status), *f;
		assert_int_equal(status, 1);
		f = need(j, cases[i].id);
		assert_string_equal(sget(f, "severity"), "error");
		assert_true(list_has(f, "evidence", cases[i].name));
		assert_string_equal(sget(json_object_get(j, "driver"), "init_result_name"), cases[i].name);
		/* the driver layer is devices' too: ids as in test_driver_findings_agree, and
		 * cuInit's other failure ids never doubled by a generic driver-init-failed */
		if (strcmp(cases[i].id, "driver-init-failed") != 0)
			assert_null(finding(j, "driver-init-failed"));
		if (strcmp(cases[i].id, "no-device") == 0)
			assert_true(list_has(f, "evidence", "NVML sees 1 GPU(s)"));
		json_decref(j);
	}
}

static void test_cuda118_driver(void **state)
{
	const char *env[] = { path_124, "FAKE_GPUS=NVIDIA A100-SXM4-80GB:8.0:80GiB", "FAKE_CUDA_DRIVER_VERSION=11080",
			      "FAKE_NVML_DRIVER_VERSION=520.61.05", NULL };
	int status;
	json_t *j, *f;

	(void)state;
	j = doctor_json(env, &status);
	assert_int_equal(status, 1);
	assert_string_equal(sget(json_object_get(j, "driver"), "cuda_version"), "11.8");
	f = need(j, "toolkit-newer-than-driver");
	assert_string_equal(sget(f, "severity"), "error");
	assert_non_null(strstr(sget(f, "title"), "12.4"));
	assert_non_null(strstr(sget(f, "title"), "11.8"));
	json_decref(j);
}

static void test_v100_nvcc13(void **state)
{
	const char *env[] = { path_13, "FAKE_GPUS=Tesla V100-SXM2-16GB:7.0:16GiB", "FAKE_CUDA_DRIVER_VERSION=13000",
			      "FAKE_NVML_DRIVER_VERSION=580.95.05", NULL };
	int status;
	json_t *j, *f;

	(void)state;
	j = doctor_json(env, &status);
	assert_int_equal(status, 1);
	f = need(j, "arch-dropped-by-toolkit");
	assert_string_equal(sget(f, "severity"), "error");
	assert_non_null(strstr(sget(f, "title"), "sm_70"));
	assert_true(list_has(f, "fix", "12.9"));
	assert_null(finding(j, "toolkit-newer-than-driver"));
	json_decref(j);
}

static void test_healthy_h200(void **state)
{
	const char *env[] = { path_13, "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "FAKE_CUDA_DRIVER_VERSION=13000",
			      "FAKE_NVML_DRIVER_VERSION=580.159.04", "FAKE_NVML_PERSISTENCE=0:1", NULL };
	int status;
	json_t *j, *f;
	size_t i;

	(void)state;
	j = doctor_json(env, &status);
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (strcmp(sget(f, "severity"), "error") == 0)
			fail_msg("unexpected error finding %s: %s", sget(f, "id"), sget(f, "title"));
	}
	assert_int_equal(status, 0);
	assert_string_equal(sget(json_array_get(json_object_get(j, "gpus"), 0), "compute_capability"), "9.0");
	f = json_array_get(json_object_get(j, "findings"), json_array_size(json_object_get(j, "findings")) - 1);
	assert_string_equal(sget(f, "id"), "stack-consistent"); /* the verdict comes last */
	assert_string_equal(sget(f, "severity"), "ok");
	json_decref(j);
}

static void test_two_gpus_order_and_visible(void **state)
{
	const char *env[] = { path_13, "FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB",
			      "FAKE_CUDA_ORDER=1,0", "FAKE_CUDA_DRIVER_VERSION=13000", NULL };
	const char *env_vis[] = { path_13, "FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA H200:9.0:141GiB",
				  "FAKE_CUDA_DRIVER_VERSION=13000", "CUDA_VISIBLE_DEVICES=0,5", NULL };
	int status;
	json_t *j, *f;

	(void)state;
	j = doctor_json(env, &status);
	f = need(j, "device-order-mismatch");
	assert_string_equal(sget(f, "severity"), "warn");
	assert_true(list_has(f, "fix", "CUDA_DEVICE_ORDER=PCI_BUS_ID"));
	json_decref(j);

	j = doctor_json(env_vis, &status);
	f = need(j, "visible-devices-invalid");
	assert_non_null(strstr(sget(f, "title"), "index 5"));
	assert_string_equal(sget(json_object_get(j, "platform"), "cuda_visible_devices"), "0,5");
	json_decref(j);
}

/* Two GPUs: doctor judges their links as topo does (one inactive NVLink of eighteen). */
static void test_two_gpus_topology(void **state)
{
	const char *env[] = { path_13, "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB", "FAKE_TOPO=nvlink-pairs",
			      "FAKE_TOPO_NVLINK_DOWN=0:3", "CUDOCTOR_HOST_ROOT=/nonexistent", "FAKE_CUDA_DRIVER_VERSION=13000", NULL };
	const char *one[] = { path_13, "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "FAKE_TOPO=nvlink-pairs",
			      "FAKE_TOPO_NVLINK_DOWN=0:3", "CUDOCTOR_HOST_ROOT=/nonexistent", "FAKE_CUDA_DRIVER_VERSION=13000", NULL };
	int status;
	json_t *j, *f;

	(void)state;
	j = doctor_json(env, &status);
	f = need(j, "nvlink-down");
	assert_non_null(strstr(sget(f, "subject"), "GPU 0"));
	json_decref(j);
	j = doctor_json(one, &status);
	assert_null(finding(j, "nvlink-down"));
	json_decref(j);
}

/* MIG on with two instances: gpus[].mig_devices lists them; CUDA_VISIBLE_DEVICES=MIG-...
 * is checked against their UUIDs (both spellings), and only when they are known. */
static void test_mig_instances_and_visible(void **state)
{
	const char *env[] = { path_13, "FAKE_NVML_MIG_DEVICES=0:1g.18gb:18GiB:20MiB;0:3g.71gb:71GiB", NULL };
	const char *env_none[] = { path_13, "FAKE_NVML_MIG=0:1:1", NULL };
	char good[160], legacy[200], wrong_ci[200];
	int status;
	json_t *j, *g, *m, *f;

	(void)state;
	j = doctor_json(env, &status);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	assert_int_equal(json_array_size(json_object_get(g, "mig_devices")), 2);
	m = json_array_get(json_object_get(g, "mig_devices"), 1);
	assert_string_equal(sget(m, "name"), "NVIDIA H200 MIG 3g.71gb");
	assert_int_equal(json_integer_value(json_object_get(m, "memory_total_bytes")), 71LL << 30);
	snprintf(good, sizeof good, "CUDA_VISIBLE_DEVICES=%s", sget(m, "uuid"));
	snprintf(legacy, sizeof legacy, "CUDA_VISIBLE_DEVICES=MIG-%s/2/0", sget(g, "uuid"));
	snprintf(wrong_ci, sizeof wrong_ci, "CUDA_VISIBLE_DEVICES=MIG-%s/2/5", sget(g, "uuid"));
	assert_null(finding(j, "visible-devices-invalid"));
	json_decref(j);

	const char *env_good[] = { path_13, env[1], good, NULL };
	j = doctor_json(env_good, &status);
	assert_null(finding(j, "visible-devices-invalid"));
	json_decref(j);
	const char *env_legacy[] = { path_13, env[1], legacy, NULL };
	j = doctor_json(env_legacy, &status);
	assert_null(finding(j, "visible-devices-invalid"));
	json_decref(j);
	const char *env_wrong[] = { path_13, env[1], wrong_ci, NULL };
	j = doctor_json(env_wrong, &status);
	f = need(j, "visible-devices-invalid");
	assert_non_null(strstr(sget(f, "title"), "matches no MIG device here"));
	json_decref(j);
	const char *env_bad[] = { path_13, env[1], "CUDA_VISIBLE_DEVICES=MIG-00000000-1111-2222-3333-444444444444", NULL };
	j = doctor_json(env_bad, &status);
	f = need(j, "visible-devices-invalid");
	assert_string_equal(sget(f, "severity"), "error"); /* nothing visible to CUDA */
	json_decref(j);

	/* MIG on without instances: an empty list, and no MIG- token can exist */
	j = doctor_json(env_none, &status);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_array(json_object_get(g, "mig_devices")));
	assert_int_equal(json_array_size(json_object_get(g, "mig_devices")), 0);
	json_decref(j);
	const char *env_none_tok[] = { path_13, "FAKE_NVML_MIG=0:1:1", "CUDA_VISIBLE_DEVICES=MIG-0bacaf01", NULL };
	j = doctor_json(env_none_tok, &status);
	f = need(j, "visible-devices-invalid");
	assert_non_null(strstr(sget(f, "title"), "no GPU has a MIG instance"));
	json_decref(j);

	/* an NVML without the MIG device calls: instances unknown, the token is not judged */
	const char *env_nomig[] = { path_13, env[1], "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/nomig/libnvidia-ml.so.1",
				    "CUDA_VISIBLE_DEVICES=MIG-00000000-1111-2222-3333-444444444444", NULL };
	j = doctor_json(env_nomig, &status);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	assert_true(json_is_null(json_object_get(g, "mig_devices")));
	assert_null(finding(j, "visible-devices-invalid"));
	json_decref(j);
}

/* P8: an old cuDNN in LD_LIBRARY_PATH wins over the one the venv's wheel ships. */
static void test_cudnn_shadowed_and_torch(void **state)
{
	char ld[4200], path[8400];
	const char *env[] = { path, ld, "FAKE_CUDA_DRIVER_VERSION=12040", "FAKE_NVML_DRIVER_VERSION=550.54.14", NULL };
	int status;
	json_t *j, *f, *fw;
	size_t i;
	bool listed = false;

	(void)state;
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n", 0);
	tree_file(root, "venv/bin/python3", "#!/bin/sh\nexit 1\n", 1);
	tree_file(root, "venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "\177ELF", 0);
	tree_dir(root, "venv/lib/python3.11/site-packages/nvidia_cudnn_cu12-9.1.0.70.dist-info");
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py",
		  "__version__ = '2.9.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n", 0);
	tree_file(root, "oldcudnn/libcudnn.so.9.0.0", "\177ELF", 0);
	tree_link(root, "oldcudnn/libcudnn.so.9", "libcudnn.so.9.0.0");
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/oldcudnn", root);
	snprintf(path, sizeof path, "PATH=%s/venv/bin:%s", root, path_13 + strlen("PATH="));

	j = doctor_json(env, &status);
	assert_int_equal(status, 1);
	need(j, "library-shadowed");
	f = NULL;
	json_array_foreach(json_object_get(j, "findings"), i, fw) {
		if (strcmp(sget(fw, "id"), "library-shadowed") == 0 && list_has(fw, "evidence", "nvidia/cudnn/lib/libcudnn.so.9, version 9.1.0.70"))
			f = fw;
	}
	assert_non_null(f);
	assert_string_equal(sget(f, "subject"), "libcudnn.so.9");
	assert_string_equal(sget(f, "severity"), "warn");
	assert_true(list_has(f, "evidence", "oldcudnn/libcudnn.so.9, version 9.0.0, system, from LD_LIBRARY_PATH"));
	json_array_foreach(json_object_get(j, "libraries"), i, fw) {
		if (strcmp(sget(fw, "library"), "libcudnn") == 0 && strstr(sget(fw, "path"), "/oldcudnn/"))
			listed = json_is_true(json_object_get(fw, "picked"));
	}
	assert_true(listed);
	/* torch built for CUDA 13.0 on a 12.4 driver */
	json_array_foreach(json_object_get(json_object_get(j, "python"), "frameworks"), i, fw) {
		if (strcmp(sget(fw, "name"), "torch") == 0)
			assert_string_equal(sget(fw, "cuda"), "13.0");
	}
	f = NULL;
	json_array_foreach(json_object_get(j, "findings"), i, fw) {
		if (strcmp(sget(fw, "id"), "runtime-newer-than-driver") == 0 && list_has(fw, "evidence", "torch 2.9.0+cu130"))
			f = fw;
	}
	assert_non_null(f);
	assert_string_equal(sget(f, "severity"), "error");
	assert_non_null(strstr(sget(f, "title"), "CUDA 13.x runtime needs a newer driver than driver 550.54.14 (CUDA 12.4)"));
	json_decref(j);
}

/* -v asks the selected nvcc what it accepts; --markdown renders the same sections. */
static void test_verbose_and_markdown(void **state)
{
	const char *argv_v[] = { CUDOCTOR_BINARY, "--json", "-v", "doctor", NULL };
	const char *argv_md[] = { CUDOCTOR_BINARY, "--markdown", "doctor", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=" FAKE_CUDA, "CUDOCTOR_LIBNVML=" FAKE_NVML, path_13, "CUDA_HOME=", "CUDACXX=", NULL };
	struct run_result res;
	json_t *j, *tk;
	size_t i;
	bool seen = false;

	(void)state;
	assert_int_equal(testlib_run(argv_v, env, NULL, &res), 0);
	j = json_loads(res.out, 0, NULL);
	assert_non_null(j);
	json_array_foreach(json_object_get(j, "toolkits"), i, tk) {
		if (json_is_true(json_object_get(tk, "selected"))) {
			assert_string_equal(sget(tk, "nvcc_list_gpu_arch"), "compute_75 compute_80");
			seen = true;
		}
	}
	assert_true(seen);
	json_decref(j);
	run_result_free(&res);

	assert_int_equal(testlib_run(argv_md, env, NULL, &res), 0);
	for (size_t k = 0; k < 6; k++) {
		static const char *const sections[] = { "### Driver", "### GPUs", "### Toolkits", "### Runtimes", "### Python", "### Platform" };
		assert_non_null(strstr(res.out, sections[k]));
	}
	assert_non_null(strstr(res.out, "| \\* |"));
	run_result_free(&res);
}

static void test_usage(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "doctor", "extra", NULL };
	struct run_result res;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "no arguments"));
	run_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4060ti_cuda124_driver_nvcc13),
		cmocka_unit_test(test_toolkit_runtime_is_toolkit_evidence),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_init_failures),
		cmocka_unit_test(test_cuda118_driver),
		cmocka_unit_test(test_v100_nvcc13),
		cmocka_unit_test(test_healthy_h200),
		cmocka_unit_test(test_two_gpus_order_and_visible),
		cmocka_unit_test(test_mig_instances_and_visible),
		cmocka_unit_test(test_cudnn_shadowed_and_torch),
		cmocka_unit_test(test_verbose_and_markdown),
		cmocka_unit_test(test_two_gpus_topology),
		cmocka_unit_test(test_usage),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
