/* The fake driver libraries built by MinGW as Windows DLLs (win/nvcuda.dll, win/nvml.dll and
 * win/old/), loaded under Wine by a Windows program (win/load_dlls.exe: LoadLibrary and
 * GetProcAddress, as a Windows build of cudoctor does): the same FAKE_* layouts answer as in the
 * Linux fakes. Skipped where MinGW or Wine is not installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define WIN CUDOCTOR_FAKES_DIR "/win"

static char wine[256], prefix[512];

static int setup(void **state)
{
	const char *home = getenv("HOME");
	char cmd[700];

	(void)state;
	if (system("command -v wine64 >/dev/null 2>&1") == 0)
		snprintf(wine, sizeof wine, "wine64");
	else if (access("/usr/lib/wine/wine64", X_OK) == 0)
		snprintf(wine, sizeof wine, "/usr/lib/wine/wine64");
	/* one Wine prefix for every run, kept outside the repository: making one takes seconds */
	snprintf(prefix, sizeof prefix, "%s/.cache/cudoctor-test/wine-prefix", home && *home ? home : "/tmp");
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", prefix);
	return system(cmd) == 0 ? 0 : -1;
}

/* Runs load_dlls.exe on cuda and nvml (relative to win/) under Wine with extra environment;
 * the exit status, its output in out (malloc'ed). */
static int load(const char *cuda, const char *nvml, const char *const extra[], char **out)
{
	char wp[600], exe[] = WIN "/load_dlls.exe", c[300], n[300];
	const char *argv[] = { wine, exe, c, n, NULL };
	const char *env[12] = { wp, "WINEDEBUG=-all", NULL };
	size_t k = 2;
	struct run_result res;

	if (!wine[0] || access(exe, R_OK) != 0) {
		fprintf(stderr, "skipping: %s\n", !wine[0] ? "no wine64 (tools/deps.sh test installs it)"
							   : "no MinGW-built fakes (x86_64-w64-mingw32-gcc was not found at build time)");
		skip();
	}
	snprintf(wp, sizeof wp, "WINEPREFIX=%s", prefix);
	snprintf(c, sizeof c, "%s/%s", WIN, cuda);
	snprintf(n, sizeof n, "%s/%s", WIN, nvml);
	for (size_t i = 0; extra && extra[i] && k + 1 < sizeof env / sizeof env[0]; i++)
		env[k++] = extra[i];
	env[k] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	assert_non_null(*out = strdup(res.out ? res.out : ""));
	/* Wine's console writes Windows line ends */
	for (char *r = *out, *w = *out;; r++)
		if (*r != '\r' && !(*w++ = *r))
			break;
	k = (size_t)res.status;
	run_result_free(&res);
	return (int)k;
}

static void test_two_gpus_and_driver_models(void **state)
{
	const char *extra[] = { "FAKE_GPUS=NVIDIA GeForce RTX 4090:8.9:24GiB;NVIDIA A100-PCIE-40GB:8.0:40GiB",
				"FAKE_NVML_DRIVER_MODEL=0:0;1:1:2", "FAKE_CUDA_DRIVER_VERSION=12080", NULL };
	char *out;

	(void)state;
	assert_int_equal(load("nvcuda.dll", "nvml.dll", extra, &out), 0);
	assert_string_equal(out, "cuInit 0 cuDriverGetVersion 12080 cuDeviceGetCount 2\n"
				 "nvmlInit 0 nvmlDeviceGetCount 2\n"
				 "gpu 0: NVIDIA GeForce RTX 4090, driver model result 0\n"
				 "gpu 0: model 0 pending 0\n"
				 "gpu 1: NVIDIA A100-PCIE-40GB, driver model result 0\n"
				 "gpu 1: model 1 pending 2\n");
	free(out);
}

/* A driver whose cuInit fails (999) fails it here too, and its later calls say not initialised;
 * a GPU the driver model list does not name answers NOT_SUPPORTED (3), as NVML does off Windows. */
static void test_no_gpu_and_unnamed_model(void **state)
{
	const char *none[] = { "FAKE_CUDA_INIT_RESULT=999", NULL };
	const char *one[] = { "FAKE_GPUS=NVIDIA H200:9.0:141GiB", NULL };
	char *out;

	(void)state;
	assert_int_equal(load("nvcuda.dll", "nvml.dll", none, &out), 0);
	assert_non_null(strstr(out, "cuInit 999 cuDriverGetVersion 13000 cuDeviceGetCount -1\n"));
	assert_non_null(strstr(out, "nvmlInit 0 nvmlDeviceGetCount 1\n"));
	free(out);
	assert_int_equal(load("nvcuda.dll", "nvml.dll", one, &out), 0);
	assert_non_null(strstr(out, "gpu 0: NVIDIA H200, driver model result 3\n"));
	free(out);
}

/* The old ABI's pair: the unversioned calls only, no driver model entry point. */
static void test_old_abi(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(load("old/nvcuda.dll", "old/nvml.dll", NULL, &out), 0);
	assert_non_null(strstr(out, "nvmlInit 0 nvmlDeviceGetCount 1\n"));
	assert_non_null(strstr(out, "gpu 0: NVIDIA H200, driver model missing -1\n"));
	free(out);
}

/* A DLL that is not there: Windows' own error 126 (ERROR_MOD_NOT_FOUND), the WinError 126 users see. */
static void test_missing_dll(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(load("absent/nvcuda.dll", "nvml.dll", NULL, &out), 2);
	assert_non_null(strstr(out, "(error 126)"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_gpus_and_driver_models),
		cmocka_unit_test(test_no_gpu_and_unnamed_model),
		cmocka_unit_test(test_old_abi),
		cmocka_unit_test(test_missing_dll),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
