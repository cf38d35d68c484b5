/* The frameworks' device-code places (src/probe/fw_files.c) against the real Linux x86_64 and
 * Windows win_amd64 wheels on PyPI: each wheel's member list is read from its zip central
 * directory (tests/wheels/fetch_member.py --list, HTTP range requests, cached in
 * ~/.cache/cudoctor-test/wheel-lists/), laid out as a site-packages (empty files; every shared
 * object an ELF, every .dll/.pyd a PE, those that carry device code in the real wheel with a
 * fatbin), and `arch --python` (the finder doctor uses) must list exactly the files that carry
 * device code. Which Linux members carry it was read off the whole wheels with `cudoctor arch
 * -r` (the ROCm builds' HIP bundles too); of the Windows ones, ctranslate2.dll, cupy's _generator_api .pyd and
 * libbitsandbytes_cuda130.dll were (test_pe.c), the others are the Linux file's counterparts.
 * A Windows layout is read as an install tree (Lib/site-packages, --python=DIR), not run. */
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

#include "arch_fixtures.h"
#include "probe_tree.h"
#include "testlib.h"
#include "util/str.h"

#define DEVICE_CODE ARCH_FIXTURES "/libk_shared.so"
#define DEVICE_CODE_PE ARCH_FIXTURES "/k_win.dll"
#define NO_DEVICE_CODE_PE ARCH_FIXTURES "/k_win_nodev.dll"
#define MAX_EXPECT 16

struct wheel {
	const char *project, *version, *file_part;
};

/* One site-packages: the wheels pip installs for a framework, and its device-code files. */
struct layout {
	const char *name;
	struct wheel wheels[2];
	const char *expect[MAX_EXPECT];
};

static const struct layout layouts[] = {
	{ "tensorflow", { { "tensorflow", "2.21.0", "cp311-cp311-manylinux_2_27_x86_64" } },
	  { "tensorflow/libtensorflow_cc.so.2", "tensorflow/libtensorflow_framework.so.2",
	    "tensorflow/python/lib_pywrap_tensorflow_common.so",
	    "tensorflow/python/profiler/internal/_pywrap_profiler_plugin.so" } },
	{ "cupy", { { "cupy-cuda12x", "14.2.0", "cp311-cp311-manylinux2014_x86_64" } },
	  { "cupy/cuda/cub.cpython-311-x86_64-linux-gnu.so", "cupy/cuda/thrust.cpython-311-x86_64-linux-gnu.so",
	    "cupy/random/_generator_api.cpython-311-x86_64-linux-gnu.so" } },
	{ "ctranslate2", { { "ctranslate2", "4.8.5", "cp311-cp311-manylinux_2_27_x86_64" } },
	  { "ctranslate2.libs/libctranslate2-a7a60d30.so.4.8.5" } },
	{ "onnxruntime-gpu", { { "onnxruntime-gpu", "1.31.1", "cp311-cp311-manylinux_2_28_x86_64" } },
	  { "onnxruntime/capi/libonnxruntime_providers_cuda.so" } },
	{ "bitsandbytes", { { "bitsandbytes", "0.50.2", "py3-none-manylinux_2_24_x86_64" } },
	  { "bitsandbytes/libbitsandbytes_cuda118.so", "bitsandbytes/libbitsandbytes_cuda121.so",
	    "bitsandbytes/libbitsandbytes_cuda124.so", "bitsandbytes/libbitsandbytes_cuda126.so",
	    "bitsandbytes/libbitsandbytes_cuda128.so", "bitsandbytes/libbitsandbytes_cuda130.so",
	    "bitsandbytes/libbitsandbytes_cuda132.so", "bitsandbytes/libbitsandbytes_rocm64.so",
	    "bitsandbytes/libbitsandbytes_rocm70.so", "bitsandbytes/libbitsandbytes_rocm71.so",
	    "bitsandbytes/libbitsandbytes_rocm714.so", "bitsandbytes/libbitsandbytes_rocm715.so",
	    "bitsandbytes/libbitsandbytes_rocm72.so" } },
	{ "xformers", { { "xformers", "0.0.35", "py39-none-manylinux_2_28_x86_64" } }, { "xformers/_C.so" } },
	{ "vllm", { { "vllm", "0.33.0", "cp38-abi3-manylinux_2_28_x86_64" } },
	  { "vllm/_C_stable_libtorch.abi3.so", "vllm/_deepselect_C.abi3.so", "vllm/_flashkda_C.abi3.so",
	    "vllm/_flashmla_C.abi3.so", "vllm/_flashmla_extension_C.abi3.so", "vllm/_moe_C_stable_libtorch.abi3.so",
	    "vllm/_qutlass_C.abi3.so", "vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so",
	    "vllm/vllm_flash_attn/_vllm_fa3_C.abi3.so" } },
	{ "jax", { { "jax-cuda12-plugin", "0.12.0.1", "cp312-cp312-manylinux_2_27_x86_64" },
		   { "jax-cuda12-pjrt", "0.12.0.1", "py3-none-manylinux_2_27_x86_64" } },
	  { "jax_cuda12_plugin/_linalg.so", "jax_cuda12_plugin/_prng.so", "jax_cuda12_plugin/_solver.so",
	    "jax_plugins/xla_cuda12/xla_cuda_plugin.so" } },
	/* the ROCm builds: HIP offload bundles where the CUDA builds keep fatbins */
	{ "jax-rocm7", { { "jax-rocm7-plugin", "0.10.0", "cp312-cp312-manylinux_2_28_x86_64" },
			 { "jax-rocm7-pjrt", "0.10.0", "py3-none-manylinux_2_28_x86_64" } },
	  { "jax_rocm7_plugin/_linalg.so", "jax_rocm7_plugin/_prng.so", "jax_rocm7_plugin/_solver.so",
	    "jax_plugins/xla_rocm7/xla_rocm_plugin.so" } },
	{ "cupy-rocm", { { "cupy-rocm-5-0", "13.3.0", "cp312-cp312-manylinux2014_x86_64" } },
	  { "cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so", "cupy/cuda/thrust.cpython-312-x86_64-linux-gnu.so",
	    "cupy/random/_generator_api.cpython-312-x86_64-linux-gnu.so" } },
	/* PyPI's torch for Windows is the CPU build: torch.dll, torch_cpu.dll, c10.dll are not read */
	{ "torch-win", { { "torch", "2.9.1", "cp312-cp312-win_amd64" } }, { NULL } },
	{ "cupy-win", { { "cupy-cuda12x", "14.2.0", "cp312-cp312-win_amd64" } },
	  { "cupy/cuda/cub.cp312-win_amd64.pyd", "cupy/cuda/thrust.cp312-win_amd64.pyd",
	    "cupy/random/_generator_api.cp312-win_amd64.pyd" } },
	{ "ctranslate2-win", { { "ctranslate2", "4.8.5", "cp312-cp312-win_amd64" } }, { "ctranslate2/ctranslate2.dll" } },
	{ "onnxruntime-gpu-win", { { "onnxruntime-gpu", "1.31.1", "cp312-cp312-win_amd64" } },
	  { "onnxruntime/capi/onnxruntime_providers_cuda.dll" } },
	{ "bitsandbytes-win", { { "bitsandbytes", "0.50.2", "py3-none-win_amd64" } },
	  { "bitsandbytes/libbitsandbytes_cuda118.dll", "bitsandbytes/libbitsandbytes_cuda121.dll",
	    "bitsandbytes/libbitsandbytes_cuda124.dll", "bitsandbytes/libbitsandbytes_cuda126.dll",
	    "bitsandbytes/libbitsandbytes_cuda128.dll", "bitsandbytes/libbitsandbytes_cuda130.dll",
	    "bitsandbytes/libbitsandbytes_cuda132.dll" } },
	{ "xformers-win", { { "xformers", "0.0.35", "py39-none-win_amd64" } }, { "xformers/_C.pyd" } },
};

static char root[64];

/* A win_amd64 wheel is laid out as on Windows: Lib/site-packages */
static bool is_windows(const struct layout *l)
{
	return strstr(l->wheels[0].file_part, "win_amd64") != NULL;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/cudoctor-fwlayout-%d", (int)getpid());
	return mkdir(root, 0755);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The member list of w, cached; false (and why) when the index cannot be reached. */
static bool member_list(const struct wheel *w, char *out, size_t n, char *why, size_t why_n)
{
	const char *home = getenv("HOME");
	struct run_result res;

	snprintf(out, n, "%s/.cache/cudoctor-test/wheel-lists/%s-%s-%s.txt", home && *home ? home : "/tmp", w->project,
		 w->version, w->file_part);
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/fetch_member.py", "--list",
			       w->project, w->version, w->file_part, out, NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		snprintf(why, why_n, "no network to the package index: %s", res.err);
		run_result_free(&res);
		return false;
	}
	if (res.status != 0)
		fail_msg("fetch_member.py --list %s %s exited %d: %s", w->project, w->version, res.status, res.err);
	run_result_free(&res);
	return true;
}

static bool expected(const struct layout *l, const char *member)
{
	for (size_t i = 0; i < MAX_EXPECT && l->expect[i]; i++)
		if (strcmp(l->expect[i], member) == 0)
			return true;
	return false;
}

/* root/l->name/site: every member of l's wheels, each shared object an ELF (with device code
 * where the real one has it); *n_members counts them. */
static void lay_out(const struct layout *l, const char *const lists[2], char *site, size_t site_n, size_t *n_so)
{
	char rel[1024], line[512];

	snprintf(rel, sizeof rel, is_windows(l) ? "%s/Lib/site-packages" : "%s/site-packages", l->name);
	tree_dir(root, rel);
	assert_true((size_t)snprintf(site, site_n, "%s/%s", root, rel) < site_n);
	*n_so = 0;
	for (size_t k = 0; k < 2 && lists[k]; k++) {
		FILE *f = fopen(lists[k], "r");

		assert_non_null(f);
		while (fgets(line, sizeof line, f)) {
			const char *base;

			line[strcspn(line, "\n")] = '\0';
			if (!line[0] || line[strlen(line) - 1] == '/' || strstr(line, "..") || line[0] == '/')
				continue;
			snprintf(rel, sizeof rel, "%s/%s/%s", l->name, is_windows(l) ? "Lib/site-packages" : "site-packages", line);
			base = strrchr(line, '/');
			base = base ? base + 1 : line;
			if (str_is_module_name(base) && !str_is_shared_object_name(base)) {
				assert_int_equal(tree_link(root, rel, expected(l, line) ? DEVICE_CODE_PE : NO_DEVICE_CODE_PE), 0);
				(*n_so)++;
			} else if (str_is_shared_object_name(base)) {
				assert_int_equal(tree_link(root, rel, expected(l, line) ? DEVICE_CODE : "/bin/true"), 0);
				(*n_so)++;
			} else {
				tree_file(root, rel, "", 0);
			}
		}
		fclose(f);
	}
	/* every expected file is in the real wheel */
	for (size_t i = 0; i < MAX_EXPECT && l->expect[i]; i++) {
		char p[PATH_MAX];

		snprintf(p, sizeof p, "%s/%s", site, l->expect[i]);
		if (access(p, F_OK) != 0)
			fail_msg("%s: %s is not in the wheel's file list", l->name, l->expect[i]);
	}
}

/* The paths `arch --python` lists for site, relative to it (those with device code), and in
 * *searched how many files it read (a file without device code is only counted). */
static size_t arch_python(const struct layout *l, const char *site, char found[][256], size_t max, size_t *searched)
{
	char py[PATH_MAX], script[1100], opt[PATH_MAX + 16], rel[1100];
	struct run_result res;
	json_error_t je;
	json_t *j, *file;
	size_t i, n = 0;

	snprintf(rel, sizeof rel, "%.1000s-python3", site + strlen(root) + 1);
	for (char *s = rel; *s; s++)
		if (*s == '/')
			*s = '-';
	snprintf(script, sizeof script, "#!/bin/sh\necho '%.1000s'\n", site);
	tree_file(root, rel, script, 1);
	snprintf(py, sizeof py, "%s/%s", root, rel);
	snprintf(opt, sizeof opt, "--python=%s", py);
	if (is_windows(l)) /* the install tree's folder, as mounted from Windows */
		snprintf(opt, sizeof opt, "--python=%s/%s", root, l->name);
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", opt, "--gpu", "sm_90", "--driver", "13.0", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", NULL };
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("arch --python exited %d, no JSON: %s", res.status, res.err);
	*searched = (size_t)json_integer_value(json_object_get(j, "files_searched"));
	json_array_foreach(json_object_get(j, "files"), i, file) {
		const char *p = json_string_value(json_object_get(file, "path"));

		assert_non_null(p);
		assert_true(strncmp(p, site, strlen(site)) == 0);
		assert_true(n < max);
		snprintf(found[n++], 256, "%.255s", p + strlen(site) + 1);
	}
	json_decref(j);
	run_result_free(&res);
	return n;
}

static void check(const struct layout *l)
{
	char lists[2][PATH_MAX], site[1024], why[512] = "", found[64][256];
	const char *paths[2] = { NULL, NULL };
	size_t n_so, n, n_expect = 0, searched;

	if (access(DEVICE_CODE, R_OK) != 0 || (is_windows(l) && access(DEVICE_CODE_PE, R_OK) != 0)) {
		print_message("SKIP: %s is missing (nvcc or MinGW was not found at configure time)\n",
			      is_windows(l) ? DEVICE_CODE_PE : DEVICE_CODE);
		skip();
	}
	for (size_t k = 0; k < 2 && l->wheels[k].project; k++) {
		if (!member_list(&l->wheels[k], lists[k], sizeof lists[k], why, sizeof why)) {
			print_message("SKIP: %s: %s\n", l->name, why);
			skip();
		}
		paths[k] = lists[k];
	}
	lay_out(l, paths, site, sizeof site, &n_so);
	n = arch_python(l, site, found, 64, &searched);
	while (n_expect < MAX_EXPECT && l->expect[n_expect])
		n_expect++;
	for (size_t i = 0; i < n; i++)
		if (!expected(l, found[i]))
			fail_msg("%s: the finder reads %s, which carries no device code in the wheel", l->name, found[i]);
	for (size_t i = 0; i < n_expect; i++) {
		bool seen = false;

		for (size_t k = 0; k < n; k++)
			seen |= strcmp(found[k], l->expect[i]) == 0;
		if (!seen)
			fail_msg("%s: the finder misses %s (of %zu shared objects in the wheel)", l->name, l->expect[i], n_so);
	}
	assert_int_equal(n, n_expect);
	/* and it read nothing else: every other shared object there is an ELF it would count */
	if (searched != n_expect)
		fail_msg("%s: the finder reads %zu files, %zu of them without device code", l->name, searched,
			 searched - n_expect);
}

static void tensorflow(void **state) { (void)state; check(&layouts[0]); }
static void cupy(void **state) { (void)state; check(&layouts[1]); }
static void ctranslate2(void **state) { (void)state; check(&layouts[2]); }
static void onnxruntime_gpu(void **state) { (void)state; check(&layouts[3]); }
static void bitsandbytes(void **state) { (void)state; check(&layouts[4]); }
static void xformers(void **state) { (void)state; check(&layouts[5]); }
static void vllm(void **state) { (void)state; check(&layouts[6]); }
static void jax(void **state) { (void)state; check(&layouts[7]); }
static void torch_win(void **state) { (void)state; check(&layouts[8]); }
static void cupy_win(void **state) { (void)state; check(&layouts[9]); }
static void ctranslate2_win(void **state) { (void)state; check(&layouts[10]); }
static void onnxruntime_gpu_win(void **state) { (void)state; check(&layouts[11]); }
static void bitsandbytes_win(void **state) { (void)state; check(&layouts[12]); }
static void xformers_win(void **state) { (void)state; check(&layouts[13]); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tensorflow), cmocka_unit_test(cupy),    cmocka_unit_test(ctranslate2),
		cmocka_unit_test(onnxruntime_gpu), cmocka_unit_test(bitsandbytes), cmocka_unit_test(xformers),
		cmocka_unit_test(vllm),       cmocka_unit_test(jax),
		cmocka_unit_test(torch_win), cmocka_unit_test(cupy_win), cmocka_unit_test(ctranslate2_win),
		cmocka_unit_test(onnxruntime_gpu_win), cmocka_unit_test(bitsandbytes_win), cmocka_unit_test(xformers_win),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
