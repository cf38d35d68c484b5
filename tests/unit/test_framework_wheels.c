/* doctor's "Will it run" on real PyTorch wheels, with the fake drivers: torch 2.5.1+cu124's
 * and 2.11.0+cu130's libtorch_cuda.so (PyPI's manylinux wheels for CPython 3.11; only that
 * member and torch/version.py are fetched, into ~/.cache/cudoctor-test/, and reused) in a fake
 * site-packages. doctor must name the missing arch, give plan's install line, and never send a
 * GTX 1080 past R580. */
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

#include "advice_check.h"
#include "probe_tree.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

struct wheel {
	const char *release, *file_part, *dir;
	char lib[PATH_MAX], version_py[PATH_MAX];
	bool have;
	char why_not[512];
};

static struct wheel wheels[] = {
	{ .release = "2.5.1", .file_part = "cp311-cp311-manylinux1_x86_64", .dir = "torch-2.5.1" },
	{ .release = "2.11.0", .file_part = "cp311-cp311-manylinux_2_28_x86_64", .dir = "torch-2.11.0" },
};

static char root[64];

/* Fetches torch/lib/libtorch_cuda.so and torch/version.py of w into the cache (reused). */
static void fetch(struct wheel *w)
{
	const char *home = getenv("HOME");
	char out[PATH_MAX - 64];
	struct run_result res;

	snprintf(out, sizeof out, "%s/.cache/cudoctor-test/%s", home && *home ? home : "/tmp", w->dir);
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/fetch_member.py", "torch",
			       w->release, w->file_part, out, "torch/version.py", "torch/lib/libtorch_cuda.so", NULL };
	if (testlib_run(argv, NULL, NULL, &res) != 0) {
		snprintf(w->why_not, sizeof w->why_not, "could not run fetch_member.py");
		return;
	}
	if (res.status == 0) {
		w->have = true;
		snprintf(w->lib, sizeof w->lib, "%s/libtorch_cuda.so", out);
		snprintf(w->version_py, sizeof w->version_py, "%s/version.py", out);
	} else if (res.status == 77) {
		snprintf(w->why_not, sizeof w->why_not, "no network to the package index: %s", res.err);
	} else {
		fail_msg("fetch_member.py %s exited %d: %s", w->release, res.status, res.err);
	}
	run_result_free(&res);
}

/* A venv whose site-packages holds torch of w: version.py copied, libtorch_cuda.so linked. */
static void venv_of(struct wheel *w, const char *name)
{
	char rel[256], *text = NULL;
	FILE *f = fopen(w->version_py, "r");
	size_t n = 0;

	assert_non_null(f);
	text = calloc(1, 4096);
	assert_non_null(text);
	n = fread(text, 1, 4095, f);
	fclose(f);
	text[n] = '\0';
	snprintf(rel, sizeof rel, "%s/pyvenv.cfg", name);
	tree_file(root, rel, "home = /usr/bin\n", 0);
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages/torch/version.py", name);
	tree_file(root, rel, text, 0);
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages/torch-%s.dist-info/METADATA", name, w->release);
	tree_file(root, rel, "Name: torch\n", 0);
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", name);
	assert_int_equal(tree_link(root, rel, w->lib), 0);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	for (size_t i = 0; i < sizeof wheels / sizeof wheels[0]; i++) {
		fetch(&wheels[i]);
		if (wheels[i].have)
			venv_of(&wheels[i], wheels[i].dir);
	}
	return kb_load(NULL) == 0 && kb_fw_load(NULL) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static bool usable(const struct wheel *w)
{
	if (!w->have)
		fprintf(stderr, "SKIP: torch %s wheel not fetched (%s)\n", w->release, w->why_not);
	return w->have;
}

/* cudoctor [--json] doctor with the fakes, GPU gpu (FAKE_GPUS form), driver, and w's venv. */
static void doctor(const struct wheel *w, const char *gpu, const char *driver, int cuda, bool json,
		   struct run_result *res)
{
	char venv[PATH_MAX], e_gpu[256], e_drv[64], e_cuda[64], e_venv[PATH_MAX + 16];
	const char *argv[] = { CUDOCTOR_BINARY, json ? "--json" : "doctor", json ? "doctor" : NULL, NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=" FAKE_CUDA, "CUDOCTOR_LIBNVML=" FAKE_NVML, "CUDA_VISIBLE_DEVICES=",
			      "CUDA_HOME=", "CUDA_PATH=", "CUDACXX=", "LD_LIBRARY_PATH=", "CONDA_PREFIX=",
			      "PATH=/nonexistent", "CUDOCTOR_PROC_ROOT=/nonexistent", e_gpu, e_drv, e_cuda, e_venv, NULL };

	tree_path(root, w->dir, venv, sizeof venv);
	snprintf(e_gpu, sizeof e_gpu, "FAKE_GPUS=%s", gpu);
	snprintf(e_drv, sizeof e_drv, "FAKE_NVML_DRIVER_VERSION=%s", driver);
	snprintf(e_cuda, sizeof e_cuda, "FAKE_CUDA_DRIVER_VERSION=%d", cuda);
	snprintf(e_venv, sizeof e_venv, "VIRTUAL_ENV=%s", venv);
	assert_int_equal(testlib_run(argv, env, NULL, res), 0);
}

/* The will_it_run row of torch (the only framework in the venv). */
static json_t *torch_row(json_t *j)
{
	json_t *rows = json_object_get(j, "will_it_run"), *row;
	size_t i;

	json_array_foreach(rows, i, row) {
		if (strncmp(json_string_value(json_object_get(row, "framework")), "torch ", 6) == 0)
			return row;
	}
	fail_msg("no torch row in will_it_run");
	return NULL;
}

static void gpu_spec_of(const char *name, struct gpu_spec *s)
{
	const struct kb_gpu *g = kb_gpu_by_name(name);

	assert_non_null(g);
	plan_spec_of((unsigned)g->arch, name, s);
}

/* Everything the report advises is consistent with the kb for this GPU. */
static void advice_ok(const char *out, const char *gpu_name)
{
	struct gpu_spec s;
	struct advice_seen seen = { 0 };
	char why[512];

	gpu_spec_of(gpu_name, &s);
	advice_check_text(out, &s, 1, 0, &seen, why, sizeof why);
	if (why[0])
		fail_msg("%s\nin:\n%s", why, out);
}

/* Findings whose id is id about the venv (this host's own toolkit and runtimes make theirs). */
static size_t count_id(json_t *j, const char *id)
{
	json_t *f;
	size_t i, n = 0;

	json_array_foreach(json_object_get(j, "findings"), i, f) {
		const char *subject = json_string_value(json_object_get(f, "subject"));

		n += strcmp(json_string_value(json_object_get(f, "id")), id) == 0 && subject &&
		     (strstr(subject, "site-packages") || strncmp(subject, "torch", 5) == 0);
	}
	return n;
}

static json_t *finding_of(json_t *j, const char *id)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(j, "findings"), i, f) {
		const char *subject = json_string_value(json_object_get(f, "subject"));

		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 && subject && strstr(subject, "site-packages"))
			return f;
	}
	return NULL;
}

static bool evidence_has(json_t *f, const char *needle)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(f, "evidence"), i, e) {
		if (strstr(json_string_value(e), needle))
			return true;
	}
	return false;
}

/* The first case: an RTX 5070 Ti with driver 572 and torch 2.5.1+cu124. */
static void rtx5070ti_torch251_no_sm120(void **state)
{
	struct wheel *w = &wheels[0];
	struct run_result res;
	json_t *j, *row;
	json_error_t je;
	const char *fix;

	(void)state;
	if (!usable(w))
		skip();
	doctor(w, "NVIDIA GeForce RTX 5070 Ti:12.0:16GiB", "572.16", 12080, true, &res);
	assert_int_equal(res.status, 1);
	j = json_loads(res.out, 0, &je);
	assert_non_null(j);
	row = torch_row(j);
	assert_string_equal(json_string_value(json_object_get(row, "result")), "no-image");
	assert_string_equal(json_string_value(json_object_get(row, "missing")), "sm_120");
	fix = json_string_value(json_object_get(row, "fix"));
	assert_non_null(fix);
	/* plan's wheel: one with sm_120 that a CUDA 12.8 driver runs */
	assert_non_null(strstr(fix, "pip install --force-reinstall torch=="));
	assert_non_null(strstr(fix, "/whl/cu12"));
	advice_ok(fix, "NVIDIA GeForce RTX 5070 Ti");
	advice_ok(res.out, "NVIDIA GeForce RTX 5070 Ti");
	json_decref(j);
	run_result_free(&res);

	/* in text, the answer comes first: the first section after the provenance line */
	doctor(w, "NVIDIA GeForce RTX 5070 Ti:12.0:16GiB", "572.16", 12080, false, &res);
	{
		const char *first = strstr(res.out, "\n\n");

		assert_non_null(first);
		assert_true(strncmp(first + 2, "Will it run\n", 12) == 0);
		assert_true(strstr(res.out, "no kernel image for sm_120") < strstr(res.out, "\nDriver\n"));
	}
	run_result_free(&res);
}

/* The second case: a GTX 1080 with a CUDA 13 torch (2.11.0+cu130), on R570, R580 and
 * a branch past Pascal's last. */
static void gtx1080_torch_cu130_no_sm61(void **state)
{
	static const struct {
		const char *driver;
		int cuda;
		const char *result;
	} drivers[] = {
		{ "572.16", 12080, "no-image" }, { "580.95.05", 13000, "no-image" }, { "595.10", 13020, "gpu-unsupported" },
	};
	struct wheel *w = &wheels[1];

	(void)state;
	if (!usable(w))
		skip();
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
		struct run_result res;
		json_t *j, *row;
		json_error_t je;
		const char *fix;

		doctor(w, "NVIDIA GeForce GTX 1080:6.1:8GiB", drivers[i].driver, drivers[i].cuda, true, &res);
		assert_int_equal(res.status, 1);
		j = json_loads(res.out, 0, &je);
		assert_non_null(j);
		row = torch_row(j);
		assert_string_equal(json_string_value(json_object_get(row, "result")), drivers[i].result);
		assert_string_equal(json_string_value(json_object_get(row, "missing")), "sm_61");
		fix = json_string_value(json_object_get(row, "fix"));
		assert_non_null(fix);
		if (strcmp(drivers[i].result, "no-image") == 0)
			assert_non_null(strstr(fix, "pip install --force-reinstall torch=="));
		else
			assert_string_equal(fix, "sudo apt install nvidia-driver-580");
		/* no image (and at 572 its runtime too): one finding, whose fix meets both */
		assert_int_equal(count_id(j, "framework-cannot-run"), 1);
		assert_int_equal(count_id(j, "runtime-newer-than-driver"), 0);
		/* never a branch past R580, never a wheel without sm_60/61, anywhere in the report */
		advice_ok(res.out, "NVIDIA GeForce GTX 1080");
		json_decref(j);
		run_result_free(&res);
	}
}

/* The same torch on a GPU it carries SASS for runs natively, and no finding is made. */
static void h200_torch251_runs(void **state)
{
	struct wheel *w = &wheels[0];
	struct run_result res;
	json_t *j, *row;
	json_error_t je;

	(void)state;
	if (!usable(w))
		skip();
	doctor(w, "NVIDIA H200:9.0:141GiB", "580.95.05", 13000, true, &res);
	j = json_loads(res.out, 0, &je);
	assert_non_null(j);
	row = torch_row(j);
	assert_string_equal(json_string_value(json_object_get(row, "result")), "native");
	assert_true(json_is_null(json_object_get(row, "fix")));
	assert_null(strstr(res.out, "framework-cannot-run"));
	json_decref(j);
	run_result_free(&res);
}

/* torch 2.11.0+cu130 carries sm_90 and sm_89, but its CUDA 13 runtime refuses a CUDA 12.8 driver:
 * one cause, one finding (runtime-newer-than-driver) for both GPUs, what it stops on each is its
 * evidence and plan's wheel for this driver its one fix; no framework-cannot-run beside it. */
static void torch_cu130_on_r572_one_finding(void **state)
{
	struct wheel *w = &wheels[1];
	struct run_result res;
	json_t *j, *f, *fix;
	json_error_t je;

	(void)state;
	if (!usable(w))
		skip();
	doctor(w, "NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4090:8.9:24GiB", "572.16", 12080, true, &res);
	assert_int_equal(res.status, 1);
	j = json_loads(res.out, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(torch_row(j), "result")), "driver-too-old");
	assert_int_equal(count_id(j, "runtime-newer-than-driver"), 1);
	assert_int_equal(count_id(j, "framework-cannot-run"), 0);
	f = finding_of(j, "runtime-newer-than-driver");
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(f, "subject")), "torch/lib/libtorch_cuda.so"));
	assert_true(evidence_has(f, "cannot run on GPU 0 (NVIDIA H200)"));
	assert_true(evidence_has(f, "cannot run on GPU 1 (NVIDIA GeForce RTX 4090)"));
	assert_true(evidence_has(f, "CUDA 13.x runs on driver 580"));
	fix = json_object_get(f, "fix");
	assert_int_equal(json_array_size(fix), 1);
	assert_non_null(strstr(json_string_value(json_array_get(fix, 0)), "pip install --force-reinstall torch=="));
	assert_non_null(strstr(json_string_value(json_array_get(fix, 0)), "/whl/cu12"));
	advice_ok(res.out, "NVIDIA H200");
	json_decref(j);
	run_result_free(&res);

	/* the text and Markdown reports say the same one finding */
	doctor(w, "NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4090:8.9:24GiB", "572.16", 12080, false, &res);
	assert_non_null(strstr(res.out, "runtime-newer-than-driver"));
	assert_null(strstr(res.out, "framework-cannot-run"));
	assert_non_null(strstr(res.out, "site-packages/torch/lib/libtorch_cuda.so]"));
	assert_non_null(strstr(res.out, "cannot run on GPU 0 (NVIDIA H200)"));
	run_result_free(&res);
}

/* Findings with id, whatever their subject. */
static size_t count_any(json_t *j, const char *id, json_t **first)
{
	json_t *f;
	size_t i, n = 0;

	*first = NULL;
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 && !n++)
			*first = f;
	}
	return n;
}

/* An RTX 5090 on R550, a branch that predates it, beside an H200 it supports: the driver is the
 * one cause on the 5090, one gpu-newer-than-driver whose evidence names each torch it stops
 * (and what else stops it: no sm_120 in cu124's code, cu130's runtime floor) with plan's fix;
 * the "Will it run" rows stay, and no framework-cannot-run is made beside it. */
static void rtx5090_on_r550_one_driver_finding(void **state)
{
	static const char *const also[] = { "no image for sm_120", "CUDA 13.x runtime needs driver 580.65.06" };
	size_t judged = 0;

	(void)state;
	for (size_t k = 0; k < sizeof wheels / sizeof wheels[0]; k++) {
		struct wheel *w = &wheels[k];
		struct run_result res;
		json_t *j, *f, *other, *row = NULL, *rows;
		json_error_t je;
		char stops[128];
		size_t i;

		if (!usable(w))
			continue;
		doctor(w, "NVIDIA GeForce RTX 5090:12.0:32GiB;NVIDIA H200:9.0:141GiB", "550.54.14", 12040, true, &res);
		assert_int_equal(res.status, 1);
		j = json_loads(res.out, 0, &je);
		assert_non_null(j);
		assert_int_equal(count_any(j, "gpu-newer-than-driver", &f), 1);
		assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
		assert_string_equal(json_string_value(json_object_get(f, "subject")), "GPU 0 (NVIDIA GeForce RTX 5090)");
		snprintf(stops, sizeof stops, "so torch %s", w->release);
		assert_true(evidence_has(f, stops));
		assert_true(evidence_has(f, "cannot run on GPU 0 (NVIDIA GeForce RTX 5090)"));
		assert_true(evidence_has(f, also[k]));
		assert_true(evidence_has(f, "sudo apt install nvidia-driver-"));
		assert_int_equal(count_any(j, "framework-cannot-run", &other), 0);
		/* the row on the 5090 still says why */
		rows = json_object_get(j, "will_it_run");
		json_array_foreach(rows, i, row) {
			if (strcmp(json_string_value(json_object_get(row, "gpu")), "GPU 0 (NVIDIA GeForce RTX 5090)") == 0)
				break;
		}
		assert_true(i < json_array_size(rows));
		assert_string_equal(json_string_value(json_object_get(row, "result")), "gpu-unsupported");
		assert_non_null(json_string_value(json_object_get(row, "fix")));
		/* what is advised for the 5090 (the H200's row has its own fix) */
		advice_ok(json_string_value(json_object_get(row, "fix")), "NVIDIA GeForce RTX 5090");
		{
			char *text = json_dumps(f, 0);

			assert_non_null(text);
			advice_ok(text, "NVIDIA GeForce RTX 5090");
			free(text);
		}
		json_decref(j);
		run_result_free(&res);
		judged++;
	}
	if (!judged)
		skip();
}

/* arch --python over a real torch tree: the CCCL header whose name holds ".so" is not read as
 * a library (it made the run exit 3). */
static void arch_python_skips_so_named_headers(void **state)
{
	struct wheel *w = &wheels[0];
	char site[PATH_MAX], py[PATH_MAX], rel[256];
	struct run_result res;

	(void)state;
	if (!usable(w))
		skip();
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages/torch/include/cccl/cuda/std/algorithm.sort_heap.h", w->dir);
	tree_file(root, rel, "#pragma once\n", 0);
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages/torch/lib/libtorch_global_deps.so.txt", w->dir);
	tree_file(root, rel, "not a library\n", 0);
	snprintf(rel, sizeof rel, "%s/lib/python3.11/site-packages", w->dir);
	tree_path(root, rel, site, sizeof site);
	/* an interpreter that answers with this site-packages, as python3 -c 'import site...' would */
	snprintf(rel, sizeof rel, "bin/python3");
	{
		char script[PATH_MAX + 64];

		snprintf(script, sizeof script, "#!/bin/sh\necho '%s'\n", site);
		tree_file(root, rel, script, 1);
	}
	tree_path(root, rel, py, sizeof py);
	{
		char arg[PATH_MAX + 16];
		const char *argv[] = { CUDOCTOR_BINARY, "arch", arg, "--gpu", "sm_90", NULL };

		snprintf(arg, sizeof arg, "--python=%s", py);
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	}
	if (res.status != 0)
		fail_msg("arch --python exited %d: %s", res.status, res.err);
	/* (libtorch_cuda.so is a symbolic link here, which the walk leaves out) */
	assert_null(strstr(res.out, "sort_heap"));
	assert_null(strstr(res.err, "sort_heap"));
	run_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rtx5070ti_torch251_no_sm120),
		cmocka_unit_test(gtx1080_torch_cu130_no_sm61),
		cmocka_unit_test(h200_torch251_runs),
		cmocka_unit_test(torch_cu130_on_r572_one_finding),
		cmocka_unit_test(rtx5090_on_r550_one_driver_finding),
		cmocka_unit_test(arch_python_skips_so_named_headers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
