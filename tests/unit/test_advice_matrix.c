/* Advice agrees with the kb everywhere: every command that prints fixes (doctor with the fakes
 * and a CUDA 13 torch, arch on an nvcc fixture and a CUDA 13 library, explain --offline with
 * --gpu/--driver, gencode, plan) over GPUs from Maxwell to Blackwell, GB10 and Thor, drivers from
 * R470 to R595 and toolkits from 11.8 to 13.0. Every driver branch named must support the GPU,
 * every PyTorch wheel named must carry code for it, every NVIDIA package must be of the
 * library's CUDA major, and gencode's driver range must hold the GPU's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advice_check.h"
#include "probe_tree.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static const struct {
	const char *name; /* as the driver reports it (kb/gpus.tsv) */
	const char *cc;
} gpus[] = {
	{ "NVIDIA GeForce GTX 750 Ti", "5.0" }, { "NVIDIA GeForce GTX 1080", "6.1" },
	{ "Tesla V100-SXM2-16GB", "7.0" },      { "NVIDIA GeForce RTX 2080 Ti", "7.5" },
	{ "NVIDIA A100-SXM4-40GB", "8.0" },     { "NVIDIA GeForce RTX 3090", "8.6" },
	{ "NVIDIA GeForce RTX 4090", "8.9" },   { "NVIDIA H100 80GB HBM3", "9.0" },
	{ "NVIDIA B200", "10.0" },              { "NVIDIA GeForce RTX 5090", "12.0" },
	{ "NVIDIA GB10", "12.1" },              { "NVIDIA Thor", "11.0" },
};

static const struct {
	const char *version;
	int cuda;
} drivers[] = {
	{ "470.256.02", 11040 }, { "535.104.05", 12020 }, { "570.124.06", 12080 }, { "580.95.05", 13000 },
	{ "595.58.03", 13020 },
};

static const char *const toolkits[] = { "11.8", "12.4", "12.8", "12.9", "13.0" };

static char root[64];
static size_t runs, checked_branches, checked_wheels, checked_packages;

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	/* a CUDA 13 torch without its libraries: judged by its version.py */
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\n", 0);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py",
		  "__version__ = '2.11.0+cu130'\ndebug = False\ncuda = '13.0'\nhip = None\n", 0);
	/* and a CUDA 13.2 toolkit on PATH, whose driver (R595) ends Pascal's and Maxwell's support */
	tree_file(root, "cuda-13.2/bin/nvcc",
		  "#!/bin/sh\ncase \"$1\" in\n--version) echo 'Cuda compilation tools, release 13.2, V13.2.51' ;;\n"
		  "*) exit 1 ;;\nesac\n", 1);
	tree_file(root, "cuda-13.2/version.json", "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"13.2.51\"}}", 0);
	return kb_load(NULL) == 0 && kb_fw_load(NULL) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static void spec(size_t g, struct gpu_spec *s)
{
	const struct kb_gpu *k = kb_gpu_by_name(gpus[g].name);

	assert_non_null(k);
	plan_spec_of((unsigned)k->arch, gpus[g].name, s);
}

/* What plan advises: its findings' fixes and the recommended build's install line (its JSON
 * also lists every build in the tables, each with an install line, advised or not). */
static char *plan_advice(const char *out)
{
	json_error_t je;
	json_t *j = json_loads(out, 0, &je), *f, *line;
	size_t i, k;
	char *text = calloc(1, 1 << 16);
	size_t used = 0;

	assert_non_null(j);
	assert_non_null(text);
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		json_array_foreach(json_object_get(f, "fix"), k, line)
			used += (size_t)snprintf(text + used, (1 << 16) - used, "%s\n", json_string_value(line));
	}
	if (json_is_object(json_object_get(j, "torch")))
		snprintf(text + used, (1 << 16) - used, "%s\n",
			 json_string_value(json_object_get(json_object_get(j, "torch"), "pip")));
	json_decref(j);
	return text;
}

/* Runs argv with env; checks all of its output's advice for GPU g. */
static void run_checked(const char *const argv[], const char *const env[], const char *stdin_text, size_t g,
			int want_major, struct run_result *keep)
{
	struct run_result res;
	struct gpu_spec s;
	struct advice_seen seen = { 0 };
	char why[512], cmd[512] = "";

	assert_int_equal(testlib_run(argv, env, stdin_text, &res), 0);
	runs++;
	for (size_t i = 0; argv[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s ", argv[i]);
	if (res.status > 1)
		fail_msg("%s exited %d: %s", cmd, res.status, res.err);
	spec(g, &s);
	if (strcmp(argv[2], "plan") == 0) {
		char *advice = plan_advice(res.out);

		advice_check_text(advice, &s, 1, want_major, &seen, why, sizeof why);
		free(advice);
	} else {
		advice_check_text(res.out, &s, 1, want_major, &seen, why, sizeof why);
	}
	if (why[0])
		fail_msg("%s(%s): %s\n%s", cmd, gpus[g].name, why, res.out);
	checked_branches += seen.branches;
	checked_wheels += seen.wheels;
	checked_packages += seen.packages;
	if (keep)
		*keep = res;
	else
		run_result_free(&res);
}

static void plan_matrix(void **state)
{
	(void)state;
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
			const char *argv[] = { CUDOCTOR_BINARY, "--json", "plan", "--gpu", gpus[g].name, "--driver",
					       drivers[d].version, NULL };

			run_checked(argv, NULL, NULL, g, 0, NULL);
		}
}

static void explain_matrix(void **state)
{
	static const char text[] =
		"  File \"/venv/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 319, in _lazy_init\n"
		"RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
		"RuntimeError: CUDA driver version is insufficient for CUDA runtime version (error 35)\n";

	(void)state;
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
			const char *argv[] = { CUDOCTOR_BINARY, "--json", "explain", "--offline", "--gpu", gpus[g].name,
					       "--driver", drivers[d].version, NULL };

			run_checked(argv, NULL, text, g, 0, NULL);
		}
}

static void doctor_matrix(void **state)
{
	char venv[PATH_MAX + 16], e_gpu[256], e_drv[64], e_cuda[64], path[PATH_MAX + 16];

	(void)state;
	snprintf(venv, sizeof venv, "VIRTUAL_ENV=%s/venv", root);
	snprintf(path, sizeof path, "PATH=%s/cuda-13.2/bin", root);
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
			const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", NULL };
			const char *env[] = { "CUDOCTOR_LIBCUDA=" FAKE_CUDA, "CUDOCTOR_LIBNVML=" FAKE_NVML,
					      "CUDA_VISIBLE_DEVICES=", "CUDA_HOME=", "CUDA_PATH=", "CUDACXX=",
					      "LD_LIBRARY_PATH=", "CONDA_PREFIX=", path,
					      "CUDOCTOR_PROC_ROOT=/nonexistent", e_gpu, e_drv, e_cuda, venv, NULL };

			snprintf(e_gpu, sizeof e_gpu, "FAKE_GPUS=%s:%s:16GiB", gpus[g].name, gpus[g].cc);
			snprintf(e_drv, sizeof e_drv, "FAKE_NVML_DRIVER_VERSION=%s", drivers[d].version);
			snprintf(e_cuda, sizeof e_cuda, "FAKE_CUDA_DRIVER_VERSION=%d", drivers[d].cuda);
			run_checked(argv, env, NULL, g, 0, NULL);
		}
}

static void arch_matrix(void **state)
{
	static const char lib13[] = "/usr/local/cuda/lib64/libcublas.so.13";
	char fixture[PATH_MAX];

	(void)state;
	snprintf(fixture, sizeof fixture, "%s/arch/k_exe", CUDOCTOR_FIXTURES_DIR);
	if (access(fixture, R_OK) != 0) {
		fprintf(stderr, "SKIP: %s not built (no nvcc)\n", fixture);
		skip();
	}
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
			const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", gpus[g].name, "--driver",
					       drivers[d].version, fixture, NULL };
			const char *argv13[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", gpus[g].name, "--driver",
						 drivers[d].version, lib13, NULL };

			run_checked(argv, NULL, NULL, g, 0, NULL);
			/* a CUDA 13 library of a toolkit: no pip package, its driver R580 or the GPU's */
			if (access(lib13, R_OK) == 0 && (d == 1 || d == 3))
				run_checked(argv13, NULL, NULL, g, 13, NULL);
		}
}

static void gencode_matrix(void **state)
{
	(void)state;
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t t = 0; t < sizeof toolkits / sizeof toolkits[0]; t++) {
			const char *argv[] = { CUDOCTOR_BINARY, "--json", "gencode", "--gpu", gpus[g].name, "--toolkit",
					       toolkits[t], NULL };
			struct run_result res;
			struct gpu_spec s;
			struct plan_gpu pg;
			json_error_t je;
			json_t *j, *min, *max;

			run_checked(argv, NULL, NULL, g, 0, &res);
			j = json_loads(res.out, 0, &je);
			if (!j)
				fail_msg("gencode %s %s: not JSON: %s", gpus[g].name, toolkits[t], res.out);
			spec(g, &s);
			plan_gpu_support(&s, &pg);
			min = json_object_get(j, "min_driver");
			max = json_object_get(j, "max_driver_branch");
			if (json_is_string(min) && pg.first_branch && !pg.jetson) {
				int branch = atoi(json_string_value(min));

				if (branch < pg.first_branch)
					fail_msg("gencode --gpu '%s' --toolkit %s: min_driver %s is below the GPU's first branch R%d",
						 gpus[g].name, toolkits[t], json_string_value(min), pg.first_branch);
				checked_branches++;
			}
			if (json_is_string(min) && !pg.jetson && pg.last_branch) {
				if (!json_is_integer(max) || json_integer_value(max) != pg.last_branch)
					fail_msg("gencode --gpu '%s' --toolkit %s: max_driver_branch is not R%d", gpus[g].name,
						 toolkits[t], pg.last_branch);
			}
			json_decref(j);
			run_result_free(&res);
		}
}

/* The matrix checked something of each kind (a check that saw nothing cannot fail). */
static void matrix_saw_advice(void **state)
{
	(void)state;
	fprintf(stderr, "advice matrix: %zu runs, %zu branches, %zu wheels, %zu packages checked\n", runs,
		checked_branches, checked_wheels, checked_packages);
	assert_true(checked_branches > 50);
	assert_true(checked_wheels > 20);
	/* the only NVIDIA library the matrix reads lies under a toolkit prefix: a toolkit release
	 * replaces it, never a pip wheel */
	assert_int_equal(checked_packages, 0);
}

/* The checker itself: the advice the issue reported is caught. */
static void checker_catches_bad_advice(void **state)
{
	struct gpu_spec s1080, s5090;
	struct advice_seen seen = { 0 };
	char why[512];

	(void)state;
	plan_spec_of(61, "NVIDIA GeForce GTX 1080", &s1080);
	plan_spec_of(120, "NVIDIA GeForce RTX 5090", &s5090);
	advice_check_text("fix: sudo apt install nvidia-driver-595", &s1080, 1, 0, &seen, why, sizeof why);
	assert_non_null(strstr(why, "R595 is past"));
	advice_check_text("pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu130", &s1080, 1, 0,
			  &seen, why, sizeof why);
	assert_non_null(strstr(why, "no code for"));
	advice_check_text("pip install -U 'nvidia-cublas-cu12'", &s1080, 1, 13, &seen, why, sizeof why);
	assert_non_null(strstr(why, "names CUDA 12"));
	advice_check_text("sudo apt install nvidia-driver-535", &s5090, 1, 0, &seen, why, sizeof why);
	assert_non_null(strstr(why, "predates"));
	advice_check_text("sudo apt install nvidia-driver-580; pip install torch==2.11.0 --index-url "
			  "https://download.pytorch.org/whl/cu126", &s1080, 1, 0, &seen, why, sizeof why);
	assert_string_equal(why, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_catches_bad_advice),
		cmocka_unit_test(plan_matrix),
		cmocka_unit_test(explain_matrix),
		cmocka_unit_test(doctor_matrix),
		cmocka_unit_test(arch_matrix),
		cmocka_unit_test(gencode_matrix),
		cmocka_unit_test(matrix_saw_advice),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
