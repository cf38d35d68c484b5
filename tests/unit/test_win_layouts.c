/* Windows install trees read wherever they are mounted (docs/arch.md "Windows install trees"):
 * the fixture script's win_tree (ComfyUI portable's python_embeded, Ollama for Windows under
 * %LOCALAPPDATA%, a llama.cpp release folder; MinGW-built PE images carrying nvcc's fatbins)
 * copied under a fresh mkdtemp root, found by --python, --ollama, -r and doctor's --path, and
 * judged for an RTX 5070 Ti (12.0) and an RTX 3060 (8.6); Windows DLL family names mapped to
 * NVIDIA's wheels and CUDA majors as their Linux sonames are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_fixtures.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif
#ifndef CUDOCTOR_FAKES_DIR
#define CUDOCTOR_FAKES_DIR "build/tests/fakes"
#endif

static const char *const no_driver[] = {"CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
					"CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", "CUDA_FORCE_PTX_JIT=",
					"CUDA_DISABLE_PTX_JIT=", "CUDA_FORCE_JIT=", "CUDA_DISABLE_JIT=", NULL};

#define PY_REL "ComfyUI_windows_portable/python_embeded"
#define SITE_REL PY_REL "/Lib/site-packages"
#define OLLAMA_REL "Users/me/AppData/Local/Programs/Ollama/lib/ollama"
#define LLAMA_REL "llama-b5000-bin-win-cuda-12.4-x64"

static char root[64];

/* The fixture tree copied under a new root, as if mounted there (/mnt/c, a USB disk). */
static int copy_tree(void **state)
{
	char cmd[PATH_MAX + 256];

	(void)state;
	if (access(CUDOCTOR_FIXTURES_DIR "/win_tree/" PY_REL "/python.exe", R_OK) != 0)
		return 0; /* each test skips with the reason */
	snprintf(root, sizeof root, "/tmp/cudoctor-win-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof cmd, "cp -R '%s/win_tree/.' '%s/'", CUDOCTOR_FIXTURES_DIR, root);
	return system(cmd) == 0 ? 0 : -1;
}

static int remove_tree(void **state)
{
	char cmd[128];

	(void)state;
	if (!root[0])
		return 0;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void need_tree(void)
{
	if (!root[0]) {
		fprintf(stderr, "skipping: %s/win_tree missing (nvcc or x86_64-w64-mingw32-gcc was not found at build time)\n",
			CUDOCTOR_FIXTURES_DIR);
		skip();
	}
}

/* cudoctor --json arch ARGS... --gpu "RTX 5070 Ti" --gpu "RTX 3060" --driver 13.0 */
static json_t *arch_json(const char *a1, const char *a2, int *status)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "RTX 5070 Ti", "--gpu", "RTX 3060",
			       "--driver", "13.0", a1, a2, NULL };
	struct run_result res;
	json_error_t je;
	json_t *j;

	assert_int_equal(testlib_run(argv, no_driver, NULL, &res), 0);
	j = json_loads(res.out, 0, &je);
	if (!j)
		fprintf(stderr, "not JSON (%s): %s\nstderr: %s\n", je.text, res.out, res.err);
	*status = res.status;
	run_result_free(&res);
	assert_non_null(j);
	return j;
}

/* The verdict of the file at root/rel for the GPU of compute capability cc; fails if absent. */
static const char *verdict(json_t *j, const char *rel, const char *cc)
{
	char path[PATH_MAX];
	size_t i, k;
	json_t *f, *v;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	json_array_foreach(json_object_get(j, "files"), i, f)
	{
		if (strcmp(json_string_value(json_object_get(f, "path")), path) != 0)
			continue;
		json_array_foreach(json_object_get(f, "verdicts"), k, v)
		if (strcmp(json_string_value(json_object_get(v, "compute_capability")), cc) == 0)
			return json_string_value(json_object_get(v, "result"));
	}
	fail_msg("no verdict for %s on %s", path, cc);
	return NULL;
}

static size_t n_files(json_t *j)
{
	return json_array_size(json_object_get(j, "files"));
}

static long long searched(json_t *j)
{
	return json_integer_value(json_object_get(j, "files_searched"));
}

/* ComfyUI portable: the framework files of python_embeded's Lib/site-packages, read without
 * running python.exe, named as the folder, as python.exe, or with "--python=" */
static void test_comfyui_portable(void **state)
{
	char dir[PATH_MAX], exe[PATH_MAX + 16], opt[PATH_MAX + 16];
	int status;

	(void)state;
	need_tree();
	snprintf(dir, sizeof dir, "%s/" PY_REL, root);
	snprintf(exe, sizeof exe, "%s/python.exe", dir);
	snprintf(opt, sizeof opt, "--python=%s", dir);
	const char *forms[][2] = { { "--python", dir }, { "--python", exe }, { opt, NULL } };
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		json_t *j = arch_json(forms[i][0], forms[i][1], &status);

		/* torch_cuda.dll, cupy's cub .pyd, llama-cpp-python's ggml-cuda.dll carry device code;
		 * llama.dll beside it is read and carries none; c10.dll and python.exe are not read */
		assert_int_equal(n_files(j), 3);
		assert_int_equal(searched(j), 4);
		/* torch_cuda.dll: SASS sm_80 only, as a cu118 build has none for sm_120 */
		assert_string_equal(verdict(j, SITE_REL "/torch/lib/torch_cuda.dll", "12.0"), "no-image");
		assert_string_equal(verdict(j, SITE_REL "/torch/lib/torch_cuda.dll", "8.6"), "native");
		assert_string_equal(verdict(j, SITE_REL "/cupy/cuda/cub.cp312-win_amd64.pyd", "12.0"), "native");
		assert_string_equal(verdict(j, SITE_REL "/llama_cpp/lib/ggml-cuda.dll", "12.0"), "native");
		assert_string_equal(verdict(j, SITE_REL "/llama_cpp/lib/ggml-cuda.dll", "8.6"), "native");
		assert_int_equal(status, 1); /* no-kernel-image is an error finding */
		json_decref(j);
	}
	/* a folder without any site-packages is a usage error, named */
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "--python", root, NULL };
	struct run_result res;
	assert_int_equal(testlib_run(argv, no_driver, NULL, &res), 0);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "has no Lib/site-packages or lib/pythonX.Y/site-packages"));
	run_result_free(&res);
}

/* Ollama for Windows: its runners under %LOCALAPPDATA%\Programs\Ollama\lib\ollama, found from
 * the drive, the Users folder or %LOCALAPPDATA% itself; a llama.cpp release folder */
static void test_ollama_windows(void **state)
{
	char drive[PATH_MAX], users[PATH_MAX], local[PATH_MAX], llama[PATH_MAX], comfy[PATH_MAX + 16];
	int status;
	json_t *j;

	(void)state;
	need_tree();
	snprintf(drive, sizeof drive, "--ollama=%s", root);
	snprintf(users, sizeof users, "%s/Users", root);
	snprintf(local, sizeof local, "%s/Users/me/AppData/Local", root);
	const char *forms[][2] = { { drive, NULL }, { "--ollama", users }, { "--ollama", local } };
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		j = arch_json(forms[i][0], forms[i][1], &status);
		/* ggml-base.dll is read and carries none; ollama.exe is not below lib/ollama */
		assert_int_equal(n_files(j), 2);
		assert_int_equal(searched(j), 3);
		assert_string_equal(verdict(j, OLLAMA_REL "/cuda_v12/ggml-cuda.dll", "12.0"), "no-image");
		assert_string_equal(verdict(j, OLLAMA_REL "/cuda_v12/ggml-cuda.dll", "8.6"), "native");
		assert_string_equal(verdict(j, OLLAMA_REL "/cuda_v13/ggml-cuda.dll", "12.0"), "native");
		assert_string_equal(verdict(j, OLLAMA_REL "/cuda_v13/ggml-cuda.dll", "8.6"), "native");
		json_decref(j);
	}
	snprintf(llama, sizeof llama, "%s/" LLAMA_REL, root);
	j = arch_json("--ollama", llama, &status);
	assert_int_equal(n_files(j), 1);
	assert_int_equal(searched(j), 1); /* llama-server.exe is no module */
	assert_string_equal(verdict(j, LLAMA_REL "/ggml-cuda.dll", "12.0"), "native");
	assert_int_equal(status, 0);
	json_decref(j);
	/* nothing there: said in a note, not a failure */
	snprintf(comfy, sizeof comfy, "--ollama=%s/ComfyUI_windows_portable", root);
	j = arch_json(comfy, NULL, &status);
	assert_int_equal(n_files(j), 0);
	assert_int_equal(status, 0);
	json_decref(j);
}

/* -r: every PE image by its MZ/PE magic, whatever its name; a text file named .dll is not one */
static void test_tree_walk(void **state)
{
	char fake[PATH_MAX];
	int status;
	FILE *f;

	(void)state;
	need_tree();
	snprintf(fake, sizeof fake, "%s/" LLAMA_REL "/notes.dll", root);
	assert_non_null(f = fopen(fake, "w"));
	fputs("MZ but no PE header\n", f);
	fclose(f);
	json_t *j = arch_json("-r", root, &status);
	/* 12 PE images: python.exe, torch_cuda.dll, c10.dll, the .pyd, llama_cpp's two, ollama.exe,
	 * ggml-base.dll, two runners, llama.cpp's ggml-cuda.dll and llama-server.exe */
	assert_int_equal(searched(j), 12);
	assert_int_equal(n_files(j), 6);
	assert_string_equal(verdict(j, OLLAMA_REL "/cuda_v12/ggml-cuda.dll", "12.0"), "no-image");
	assert_string_equal(verdict(j, SITE_REL "/torch/lib/torch_cuda.dll", "8.6"), "native");
	assert_string_equal(verdict(j, LLAMA_REL "/ggml-cuda.dll", "12.0"), "native");
	json_decref(j);
	unlink(fake);
}

/* doctor --path judges a Windows install folder as one app, its PE files found as -r finds them */
static void test_doctor_path(void **state)
{
	char dir[PATH_MAX];
	struct run_result res;
	json_error_t je;
	json_t *j, *v;

	(void)state;
	need_tree();
	snprintf(dir, sizeof dir, "%s/Users/me/AppData/Local/Programs/Ollama", root);
	const char *env[] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			      "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "CUDOCTOR_HOST_ROOT=/nonexistent",
			      "FAKE_GPUS=NVIDIA GeForce RTX 5070 Ti:12.0:16GiB", "CUDA_VISIBLE_DEVICES=", NULL };
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", "--path", dir, NULL };
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	assert_non_null(j = json_loads(res.out, 0, &je));
	run_result_free(&res);
	v = json_array_get(json_object_get(j, "will_it_run"), 0);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "framework")), dir);
	assert_string_equal(json_string_value(json_object_get(v, "result")), "no-image");
	assert_non_null(strstr(json_string_value(json_object_get(v, "file")), "/cuda_v12/ggml-cuda.dll"));
	json_decref(j);
}

/* Text of `arch --gpu "RTX 5070 Ti" --driver 13.0 FILE` for the sm_80-only DLL copied as name. */
static char *judged_as(const char *name)
{
	char path[PATH_MAX], cmd[2 * PATH_MAX];
	struct run_result res;
	char *out;

	snprintf(path, sizeof path, "%s/families/%s", root, name);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/families' && cp '%s/k_win_sm80.dll' '%s'", root, ARCH_FIXTURES, path);
	assert_int_equal(system(cmd), 0);
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "--gpu", "RTX 5070 Ti", "--driver", "13.0", path, NULL };
	assert_int_equal(testlib_run(argv, no_driver, NULL, &res), 0);
	assert_int_equal(res.status, 1);
	out = res.out;
	res.out = NULL;
	run_result_free(&res);
	return out;
}

/* Windows DLL families name the same wheels as their sonames; one's own DLL names none */
static void test_dll_families(void **state)
{
	static const struct {
		const char *dll, *wheel;
	} rows[] = {
		{ "cublasLt64_12.dll", "nvidia-cublas-cu12" }, { "cublas64_12.dll", "nvidia-cublas-cu12" },
		{ "cudnn_ops64_9.dll", "nvidia-cudnn" },       { "cudart64_12.dll", "nvidia-cuda-runtime-cu12" },
		{ "nvrtc64_120_0.dll", "nvidia-cuda-nvrtc-cu12" },
	};
	char *out;

	(void)state;
	need_tree();
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		out = judged_as(rows[i].dll);
		if (!strstr(out, rows[i].wheel))
			fail_msg("%s: no %s in\n%s", rows[i].dll, rows[i].wheel, out);
		free(out);
	}
	out = judged_as("mykernels.dll");
	assert_null(strstr(out, "pip install -U 'nvidia-"));
	assert_non_null(strstr(out, "nvcc -gencode arch=compute_120,code=sm_120"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comfyui_portable),
		cmocka_unit_test(test_ollama_windows),
		cmocka_unit_test(test_tree_walk),
		cmocka_unit_test(test_doctor_path),
		cmocka_unit_test(test_dll_families),
	};
	return cmocka_run_group_tests(tests, copy_tree, remove_tree);
}
