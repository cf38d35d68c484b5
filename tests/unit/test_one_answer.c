/* One situation, one answer from every command: a matrix of GPUs and drivers with a CPU-only
 * PyTorch through doctor (the fakes and a venv), explain (nvidia-smi's table and torch's error),
 * plan, arch (a torch library without the GPU's code) and fleet (doctor's reports), comparing
 * the PyTorch build each fix names; the "Why" cases of the one-answer issue end to end; no
 * placeholder in any fix line over tests/explain one text at a time and the fakes' findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_tree.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static const struct {
	const char *name, *cc;
} gpus[] = {
	{ "NVIDIA GeForce GTX 750 Ti", "5.0" }, { "NVIDIA GeForce GTX 1080", "6.1" },
	{ "Tesla V100-SXM2-16GB", "7.0" },      { "NVIDIA GeForce RTX 2080 Ti", "7.5" },
	{ "NVIDIA A100-SXM4-40GB", "8.0" },     { "NVIDIA GeForce RTX 3090", "8.6" },
	{ "NVIDIA GeForce RTX 4090", "8.9" },   { "NVIDIA H100 80GB HBM3", "9.0" },
	{ "NVIDIA B200", "10.0" },              { "NVIDIA GeForce RTX 5090", "12.0" },
};

static const struct {
	const char *version, *cuda_text;
	int cuda;
} drivers[] = {
	{ "470.256.02", "11.4", 11040 }, { "535.104.05", "12.2", 12020 }, { "570.124.06", "12.8", 12080 },
	{ "580.95.05", "13.0", 13000 },
};

static const char *const placeholders[] = { "cuXYZ", "XYZ", "YOUR_GPU", "sm_XY", "./your_program", "your_program.exe" };

static char root[64];

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\n", 0);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py",
		  "__version__ = '2.5.1+cpu'\ndebug = False\ncuda = None\nhip = None\n", 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static struct run_result run(const char *const argv[], const char *const env[], const char *in)
{
	struct run_result res = { 0 };

	assert_int_equal(testlib_run(argv, env, in, &res), 0);
	if (res.status > 1)
		fail_msg("%s %s exited %d: %s", argv[1], argv[2], res.status, res.err);
	return res;
}

/* The PyTorch build a fix line names ("torch==2.7.1 --index-url .../cu118": "2.7.1 cu118"), ""
 * none; with fix_only, only in a fix line. */
static void torch_named(const char *out, bool fix_only, char *buf, size_t n)
{
	const char *p = out;

	buf[0] = '\0';
	while ((p = strstr(p, "torch=="))) {
		const char *bol = p, *url = strstr(p, "--index-url "), *fix;
		size_t eol = strcspn(p, "\n\"");

		while (bol > out && bol[-1] != '\n')
			bol--;
		fix = strstr(bol, "fix");
		if (url && (size_t)(url - p) < eol && (!fix_only || (fix && fix < p))) {
			const char *v = url + 12 + strcspn(url + 12, " \n\"");

			while (v > url && v[-1] != '/')
				v--;
			snprintf(buf, n, "%.*s %.*s", (int)strcspn(p + 7, " "), p + 7, (int)strcspn(v, " \n\""), v);
			return;
		}
		p += 7;
	}
}

/* plan -q's build: "torch 2.7.1 cu118: pip install ...", or "torch: none runs on this driver;
 * with R580 or newer: torch 2.15.0 cu132": "2.7.1 cu118", "2.15.0 cu132"; "" none */
static void plan_build(size_t g, size_t d, char *buf, size_t n)
{
	const char *argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", gpus[g].name, "--driver", drivers[d].version,
			       "--os", "linux", NULL };
	struct run_result res = run(argv, NULL, NULL);
	const char *l = strstr(res.out, "\ntorch"), *t;
	size_t len;

	buf[0] = '\0';
	if (l && (t = strstr(l + 1, "torch ")) && (len = strcspn(l + 1, "\n")) && t < l + 1 + len) {
		size_t a = strcspn(t + 6, " ");

		snprintf(buf, n, "%.*s %.*s", (int)a, t + 6, (int)strcspn(t + 7 + a, ":\n"), t + 7 + a);
	}
	run_result_free(&res);
}

static void agree(const char *cmd, size_t g, size_t d, const char *want, const char *got, const char *out)
{
	if (strcmp(want, got) != 0)
		fail_msg("%s on %s, driver %s: plan names '%s', %s names '%s'\n%s", cmd, gpus[g].name, drivers[d].version,
			 want, cmd, got, out);
}

static void no_placeholder(const char *cmd, const char *out)
{
	for (const char *l = strstr(out, "fix"); l; l = strstr(l + 1, "fix")) {
		size_t n = strcspn(l, "\n");

		for (size_t b = 0; b < sizeof placeholders / sizeof placeholders[0]; b++) {
			const char *hit = strstr(l, placeholders[b]);

			if (hit && (size_t)(hit - l) < n)
				fail_msg("%s: placeholder %s in: %.*s", cmd, placeholders[b], (int)n, l);
		}
	}
}

/* 10 GPUs x 4 drivers, a CPU-only torch: doctor, explain, fleet and (where the library lacks the
 * GPU's code) arch name plan's build, and none of them a placeholder. */
static void matrix_one_situation_one_build(void **state)
{
	char lib[PATH_MAX], fixture[PATH_MAX], report[PATH_MAX], venv[PATH_MAX + 16], cp[3 * PATH_MAX];
	size_t situations = 0, compared = 0, arch_compared = 0;

	(void)state;
	snprintf(fixture, sizeof fixture, "%s/arch/k_exe", CUDOCTOR_FIXTURES_DIR);
	snprintf(lib, sizeof lib, "%s/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", root);
	snprintf(report, sizeof report, "%s/node01.json", root);
	snprintf(venv, sizeof venv, "VIRTUAL_ENV=%s/venv", root);
	if (access(fixture, R_OK) == 0) {
		snprintf(cp, sizeof cp, "mkdir -p %s/venv/lib/python3.11/site-packages/torch/lib && cp %s %s", root,
			 fixture, lib);
		assert_int_equal(system(cp), 0);
	}
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++) {
			char want[256], got[256], text[512], e_gpu[160], e_drv[64], e_cuda[64];
			const char *env[] = { "CUDOCTOR_LIBCUDA=" FAKE_CUDA, "CUDOCTOR_LIBNVML=" FAKE_NVML,
					      "CUDA_VISIBLE_DEVICES=", "CUDA_HOME=", "CUDA_PATH=", "CUDACXX=",
					      "LD_LIBRARY_PATH=", "CONDA_PREFIX=", "PATH=/nonexistent",
					      "CUDOCTOR_HOST_ROOT=/nonexistent", e_gpu, e_drv, e_cuda, venv, NULL };
			const char *doctor[] = { CUDOCTOR_BINARY, "--json", "--output", report, "doctor", NULL };
			const char *fleet[] = { CUDOCTOR_BINARY, "fleet", report, NULL };
			const char *explain[] = { CUDOCTOR_BINARY, "explain", "--offline", "-", NULL };
			const char *arch[] = { CUDOCTOR_BINARY, "arch", "--gpu", gpus[g].name, "--driver",
					       drivers[d].version, lib, NULL };
			struct run_result res;
			FILE *fp;
			char *json;
			long n;

			situations++;
			plan_build(g, d, want, sizeof want);

			snprintf(e_gpu, sizeof e_gpu, "FAKE_GPUS=%s:%s:16GiB", gpus[g].name, gpus[g].cc);
			snprintf(e_drv, sizeof e_drv, "FAKE_NVML_DRIVER_VERSION=%s", drivers[d].version);
			snprintf(e_cuda, sizeof e_cuda, "FAKE_CUDA_DRIVER_VERSION=%d", drivers[d].cuda);
			res = run(doctor, env, NULL);
			run_result_free(&res);
			assert_non_null(fp = fopen(report, "rb"));
			fseek(fp, 0, SEEK_END);
			n = ftell(fp);
			rewind(fp);
			assert_non_null(json = calloc(1, (size_t)n + 1));
			assert_int_equal(fread(json, 1, (size_t)n, fp), (size_t)n);
			fclose(fp);
			assert_non_null(strstr(json, "\"torch-cpu-only\""));
			torch_named(strstr(json, "\"torch-cpu-only\""), false, got, sizeof got);
			agree("doctor", g, d, want, got, json);
			no_placeholder("doctor", json);
			free(json);

			res = run(fleet, NULL, NULL);
			assert_non_null(strstr(res.out, "torch-cpu-only"));
			torch_named(strstr(res.out, "torch-cpu-only"), false, got, sizeof got);
			agree("fleet", g, d, want, got, res.out);
			run_result_free(&res);

			snprintf(text, sizeof text,
				 "| NVIDIA-SMI %s   Driver Version: %s   CUDA Version: %s |\n"
				 "|   0  %-26s  Off | 00000000:01:00.0 Off |    N/A |\n"
				 "torch 2.5.1+cpu\nAssertionError: Torch not compiled with CUDA enabled\n",
				 drivers[d].version, drivers[d].version, drivers[d].cuda_text, gpus[g].name);
			res = run(explain, NULL, text);
			torch_named(res.out, true, got, sizeof got);
			agree("explain", g, d, want, got, res.out);
			no_placeholder("explain", res.out);
			run_result_free(&res);
			compared += 3;

			if (access(lib, R_OK) == 0) {
				res = run(arch, NULL, NULL);
				if (strstr(res.out, "no-kernel-image")) {
					torch_named(res.out, true, got, sizeof got);
					agree("arch", g, d, want, got, res.out);
					arch_compared++;
				}
				no_placeholder("arch", res.out);
				run_result_free(&res);
			}
		}
	assert_true(situations >= 40);
	assert_true(compared >= 120);
	if (access(lib, R_OK) == 0)
		assert_true(arch_compared >= 8);
}

/* "The log loses to the machine it is pasted on" / "explain and plan disagree": torch's
 * "driver too old (found version 11040)" is answered as plan answers R470: torch 2.7.1 cu118 by
 * minor-version compatibility, a newer branch for newer builds, and no line twice. */
static void why_explain_and_plan_disagree(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "RuntimeError: The NVIDIA driver on your system is too old "
			       "(found version 11040). Please update your GPU driver", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
			      NULL };
	struct run_result res;
	const char *fix;
	char first[512];

	(void)state;
	res = run(argv, env, NULL);
	assert_non_null(strstr(res.out, "runtime-newer-than-driver"));
	assert_non_null(fix = strstr(res.out, "fix: "));
	snprintf(first, sizeof first, "%.*s", (int)strcspn(fix, "\n"), fix);
	if (!strstr(first, "torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118") ||
	    !strstr(first, "minor-version compatibility"))
		fail_msg("first fix: %s\n%s", first, res.out);
	assert_non_null(strstr(res.out, "sudo apt install nvidia-driver-580"));
	assert_null(strstr(res.out, "the driver is not known"));
	for (const char *a = fix; a; a = strstr(a + 1, "fix: "))
		for (const char *b = strstr(a + 1, "fix: "); b; b = strstr(b + 1, "fix: ")) {
			size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
			size_t ca = strcspn(a, "#"), cb = strcspn(b, "#");

			/* the same command twice, whatever its comment */
			if (ca < la && cb < lb && ca == cb && strncmp(a, b, ca) == 0)
				fail_msg("twice: %.*s\n%s", (int)la, a, res.out);
		}
	no_placeholder("explain", res.out);
	run_result_free(&res);
}

/* "explain on the most common PyTorch error": the RTX 5090's sm_120 text from torch gives the
 * install line first and no rebuild, gencode or ./your_program line. */
static void why_explain_on_the_most_common_pytorch_error(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "--offline", CUDOCTOR_SOURCE_DIR "/tests/explain/105.txt", NULL };
	struct run_result res;
	const char *fix;

	(void)state;
	res = run(argv, NULL, NULL);
	assert_non_null(fix = strstr(res.out, "fix: "));
	if (strncmp(fix, "fix: pip install --force-reinstall torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128",
		    99) != 0)
		fail_msg("first fix:\n%s", res.out);
	assert_null(strstr(res.out, "gencode"));
	assert_null(strstr(res.out, "nvcc"));
	assert_null(strstr(res.out, "cudoctor arch"));
	no_placeholder("explain", res.out);
	run_result_free(&res);
}

/* "Natural inputs fall through": the bare phrase names no program, so no ./your_program: the
 * line says what to run instead. */
static void why_natural_inputs_fall_through(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "--offline", "no kernel image", NULL };
	struct run_result res;

	(void)state;
	res = run(argv, NULL, NULL);
	assert_non_null(strstr(res.out, "no-kernel-image"));
	assert_non_null(strstr(res.out, "the program that failed is not named"));
	no_placeholder("explain", res.out);
	run_result_free(&res);
}

/* "plan without a driver": the toolkit line is the lead build's CUDA, not the newest's. */
static void why_plan_without_a_driver(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "RTX 5090", NULL };
	struct run_result res;

	(void)state;
	res = run(argv, NULL, NULL);
	assert_non_null(strstr(res.out, "torch 2.11.0 cu128 (needs R570+)"));
	if (!strstr(res.out, "toolkit: CUDA 12.8\n"))
		fail_msg("toolkit not the lead's:\n%s", res.out);
	run_result_free(&res);
}

/* Every text of tests/explain on its own: no fix line holds a placeholder. */
static void no_placeholder_over_the_corpus(void **state)
{
	const char *dir = CUDOCTOR_SOURCE_DIR "/tests/explain";
	size_t texts = 0;
	struct dirent *e;
	DIR *d;

	(void)state;
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d))) {
		char path[1024];
		const char *argv[] = { CUDOCTOR_BINARY, "explain", "--offline", path, NULL };
		struct run_result res;

		if (!strstr(e->d_name, ".txt"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
		no_placeholder(e->d_name, res.out);
		run_result_free(&res);
		texts++;
	}
	closedir(d);
	assert_true(texts > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matrix_one_situation_one_build),
		cmocka_unit_test(why_explain_and_plan_disagree),
		cmocka_unit_test(why_explain_on_the_most_common_pytorch_error),
		cmocka_unit_test(why_natural_inputs_fall_through),
		cmocka_unit_test(why_plan_without_a_driver),
		cmocka_unit_test(no_placeholder_over_the_corpus),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
