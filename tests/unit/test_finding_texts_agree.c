/* A finding reads the same whichever command emits it: for each id doctor and explain both emit,
 * put this machine (the fake driver of tests/fakes) in the state doctor judges, and have explain
 * read a real error text of that id on the same machine; the title, why and fix of the two
 * findings must be equal. runtime-newer-than-driver is also compared between arch and explain
 * on one binary. The texts are real reports' (tests/explain/, each .expect names its URL) or the
 * CUDA runtime's own error string. */
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
#include "util/err.h"
#include "util/file.h"

#define FAKE_CUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define K_EXE CUDOCTOR_FIXTURES_DIR "/arch/k_exe"

static char root[64];

static int setup(void **state)
{
	(void)state;
	return tree_new(root, sizeof root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* `cudoctor --json ARGS...` with the fakes, nothing of this machine's CUDA setup, and extra. */
static json_t *run_json(const char *const args[], const char *const extra[], const char *stdin_text)
{
	const char *argv[16] = { CUDOCTOR_BINARY, "--json" };
	const char *env[32];
	size_t n = 2, ne = 0;
	struct run_result r;
	json_error_t je;
	json_t *j;

	for (size_t i = 0; args[i] && n + 1 < sizeof argv / sizeof argv[0]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	env[ne++] = FAKE_CUDA;
	env[ne++] = FAKE_NVML;
	env[ne++] = "PATH=/usr/bin:/bin";
	env[ne++] = "CUDA_VISIBLE_DEVICES=";
	env[ne++] = "CUDA_DEVICE_ORDER=";
	env[ne++] = "CUDA_HOME=";
	env[ne++] = "CUDA_PATH=";
	env[ne++] = "CUDACXX=";
	env[ne++] = "LD_LIBRARY_PATH=";
	env[ne++] = "VIRTUAL_ENV=";
	env[ne++] = "CONDA_PREFIX=";
	env[ne++] = "CUDOCTOR_HOST_ROOT=/nonexistent"; /* the fakes answer, not this machine's module */
	for (size_t i = 0; extra && extra[i] && ne + 1 < sizeof env / sizeof env[0]; i++)
		env[ne++] = extra[i];
	env[ne] = NULL;
	assert_int_equal(testlib_run(argv, env, stdin_text, &r), 0);
	j = json_loads(r.out, 0, &je);
	if (!j)
		fail_msg("%s: not JSON (%s): %s\nstderr: %s", args[0], je.text, r.out, r.err);
	run_result_free(&r);
	return j;
}

static json_t *finding(json_t *report, const char *id)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(report, "findings"), i, f) {
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
			return f;
	}
	return NULL;
}

static char *corpus(const char *name)
{
	char path[512], *text = NULL;

	snprintf(path, sizeof path, "%s/tests/explain/%s", CUDOCTOR_SOURCE_DIR, name);
	assert_int_equal(file_read_text(path, 1 << 20, &text, NULL, NULL), CD_OK);
	return text;
}

/* The two findings' title, why and fix are equal; says which differs and how. */
static void same_keys(const char *id, json_t *a, const char *a_name, json_t *b, const char *b_name, size_t n_keys)
{
	static const char *const keys[] = { "title", "why", "fix" };

	if (!a || !b)
		fail_msg("%s: %s %s it, %s %s it", id, a_name, a ? "emits" : "does not emit", b_name,
			 b ? "emits" : "does not emit");
	for (size_t k = 0; k < n_keys; k++) {
		json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);

		if (!json_equal(x, y)) {
			char *sx = json_dumps(x, JSON_ENCODE_ANY), *sy = json_dumps(y, JSON_ENCODE_ANY);

			print_error("%s: the %s differs\n  %s: %s\n  %s: %s\n", id, keys[k], a_name, sx, b_name, sy);
			free(sx);
			free(sy);
			fail();
		}
	}
}

static void same_text(const char *id, json_t *a, const char *a_name, json_t *b, const char *b_name)
{
	same_keys(id, a, a_name, b, b_name, 3);
}

/* doctor in the machine state env sets; explain reading text (a corpus file, or literal) there */
static void doctor_and_explain_agree(const char *id, const char *const env[], const char *file, const char *text)
{
	static const char *const doctor[] = { "doctor", NULL };
	static const char *const explain[] = { "explain", NULL };
	char *owned = file ? corpus(file) : NULL;
	json_t *d = run_json(doctor, env, NULL), *e = run_json(explain, env, owned ? owned : text);

	same_text(id, finding(d, id), "doctor", finding(e, id), "explain");
	json_decref(d);
	json_decref(e);
	free(owned);
}

static void test_driver_layer(void **state)
{
	const char *no_driver[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", NULL };
	const char *no_device[] = { "FAKE_CUDA_INIT_RESULT=100", NULL };
	const char *init3[] = { "FAKE_CUDA_INIT_RESULT=3", NULL };
	const char *stub[] = { "FAKE_CUDA_INIT_RESULT=34", NULL };
	const char *not_ready[] = { "FAKE_CUDA_INIT_RESULT=802", NULL };
	const char *mismatch[] = { "FAKE_CUDA_INIT_RESULT=803", NULL };
	const char *compat[] = { "FAKE_CUDA_INIT_RESULT=804", NULL };

	(void)state;
	doctor_and_explain_agree("no-driver", no_driver, "095.txt", NULL);
	doctor_and_explain_agree("no-device", no_device, "629.txt", NULL);
	doctor_and_explain_agree("driver-init-failed", init3, "048.txt", NULL);
	doctor_and_explain_agree("driver-init-failed", stub, "048.txt", NULL);
	doctor_and_explain_agree("system-not-ready", not_ready, "082.txt", NULL);
	doctor_and_explain_agree("driver-library-mismatch", mismatch, "013.txt", NULL);
	doctor_and_explain_agree("forward-compat-unsupported", compat, "065.txt", NULL);
}

static void test_nvml_ecc_visible(void **state)
{
	const char *nvml_unknown[] = { "FAKE_NVML_INIT_RESULT=999", NULL };
	const char *nvml_mismatch[] = { "FAKE_NVML_INIT_RESULT=18", NULL };
	const char *ecc[] = { "FAKE_NVML_ECC=0:1:3:5:7", NULL };
	const char *visible[] = { "CUDA_VISIBLE_DEVICES=7", NULL };

	(void)state;
	doctor_and_explain_agree("nvml-unavailable", nvml_unknown, "017.txt", NULL);
	doctor_and_explain_agree("nvml-unavailable", nvml_mismatch, "017.txt", NULL);
	/* cudaGetErrorString(214), as kb/errors.tsv has it */
	doctor_and_explain_agree("ecc-errors", ecc, NULL, "RuntimeError: CUDA error: uncorrectable ECC error encountered");
	doctor_and_explain_agree("visible-devices-invalid", visible, "553.txt", NULL);
}

/* A CUDA 13 runtime on a CUDA 12.2 driver: doctor's torch built for CUDA 13.0, and explain's
 * --binary k_exe (NEEDED libcudart.so.13, built by the nvcc 13 of the fixtures); and arch on
 * the same binary. */
static void test_runtime_newer_than_driver(void **state)
{
	static const char *const doctor[] = { "doctor", NULL };
	const char *explain[] = { "explain", "--binary", K_EXE, NULL, NULL };
	const char *arch[] = { "arch", K_EXE, NULL };
	char path[4200];
	const char *env[] = { path, "FAKE_CUDA_DRIVER_VERSION=12020", "FAKE_NVML_DRIVER_VERSION=535.54.03", NULL };
	char *text = corpus("049.txt");
	json_t *d, *e, *a;

	(void)state;
	if (!path_is_file(K_EXE)) {
		print_message("SKIP: arch's nvcc fixtures were not built; the CUDA 13 binary is missing\n");
		free(text);
		skip();
	}
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n", 0);
	tree_file(root, "venv/bin/python3", "#!/bin/sh\nexit 1\n", 1);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py",
		  "__version__ = '2.9.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n", 0);
	snprintf(path, sizeof path, "PATH=%s/venv/bin:/usr/bin:/bin", root);
	d = run_json(doctor, env, NULL);
	e = run_json(explain, env, text);
	a = run_json(arch, env, NULL);
	/* doctor knows the framework, so its one fix is plan's pick for it (the wheel this driver
	 * runs) where explain, knowing only the runtime, lists the ways out */
	same_keys("runtime-newer-than-driver", finding(d, "runtime-newer-than-driver"), "doctor",
		  finding(e, "runtime-newer-than-driver"), "explain", 2);
	{
		json_t *fix = json_object_get(finding(d, "runtime-newer-than-driver"), "fix");

		assert_int_equal(json_array_size(fix), 1);
		assert_non_null(strstr(json_string_value(json_array_get(fix, 0)), "pip install --force-reinstall torch=="));
		assert_null(finding(d, "framework-cannot-run"));
	}
	same_text("runtime-newer-than-driver", finding(a, "runtime-newer-than-driver"), "arch",
		  finding(e, "runtime-newer-than-driver"), "explain");
	/* the numbers that decide it are in the text */
	assert_non_null(strstr(json_string_value(json_object_get(finding(e, "runtime-newer-than-driver"), "title")),
			       "CUDA 13.x runtime needs a newer driver than driver 535.54.03 (CUDA 12.2)"));
	json_decref(d);
	json_decref(e);
	json_decref(a);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_layer),
		cmocka_unit_test(test_nvml_ecc_visible),
		cmocka_unit_test_setup_teardown(test_runtime_newer_than_driver, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
