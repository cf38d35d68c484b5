/* The cuBLAS loader and our declarations: the enum values against the toolkit's
 * cublas_api.h and library_types.h (where a toolkit is installed), a missing or wrong
 * CUDOCTOR_LIBCUBLAS as one clear error, and every entry point bound from a real libcublas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/cublas.h"
#include "util/err.h"
#include "util/file.h"

#define TOOLKIT_LIB "/usr/local/cuda/lib64/libcublas.so.13"

/* value of "NAME = N" in text, or INT32_MIN */
static long enum_value(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if ((p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) || isalnum((unsigned char)p[len]) ||
		    p[len] == '_')
			continue;
		const char *q = p + len;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=')
			continue;
		return strtol(q + 1, NULL, 0);
	}
	return INT32_MIN;
}

static void test_enums_match_headers(void **state)
{
	(void)state;
	char *api = NULL, *types = NULL;
	char err[CD_ERRMSG];
	if (file_read_text("/usr/local/cuda/include/cublas_api.h", 4 << 20, &api, NULL, err) != CD_OK ||
	    file_read_text("/usr/local/cuda/include/library_types.h", 1 << 20, &types, NULL, err) != CD_OK) {
		free(api);
		skip();
	}
	static const struct {
		const char *name;
		long ours;
		int in_types;
	} e[] = {
		{ "CUBLAS_STATUS_SUCCESS", CUBLAS_STATUS_SUCCESS, 0 },
		{ "CUBLAS_STATUS_NOT_INITIALIZED", CUBLAS_STATUS_NOT_INITIALIZED, 0 },
		{ "CUBLAS_STATUS_ALLOC_FAILED", CUBLAS_STATUS_ALLOC_FAILED, 0 },
		{ "CUBLAS_STATUS_INVALID_VALUE", CUBLAS_STATUS_INVALID_VALUE, 0 },
		{ "CUBLAS_STATUS_ARCH_MISMATCH", CUBLAS_STATUS_ARCH_MISMATCH, 0 },
		{ "CUBLAS_STATUS_MAPPING_ERROR", CUBLAS_STATUS_MAPPING_ERROR, 0 },
		{ "CUBLAS_STATUS_EXECUTION_FAILED", CUBLAS_STATUS_EXECUTION_FAILED, 0 },
		{ "CUBLAS_STATUS_INTERNAL_ERROR", CUBLAS_STATUS_INTERNAL_ERROR, 0 },
		{ "CUBLAS_STATUS_NOT_SUPPORTED", CUBLAS_STATUS_NOT_SUPPORTED, 0 },
		{ "CUBLAS_STATUS_LICENSE_ERROR", CUBLAS_STATUS_LICENSE_ERROR, 0 },
		{ "CUBLAS_OP_N", CUBLAS_OP_N, 0 },
		{ "CUBLAS_OP_T", CUBLAS_OP_T, 0 },
		{ "CUBLAS_DEFAULT_MATH", CUBLAS_DEFAULT_MATH, 0 },
		{ "CUBLAS_PEDANTIC_MATH", CUBLAS_PEDANTIC_MATH, 0 },
		{ "CUBLAS_COMPUTE_32F", CUBLAS_COMPUTE_32F, 0 },
		{ "CUBLAS_GEMM_DEFAULT", CUBLAS_GEMM_DEFAULT, 0 },
		{ "CUDA_R_32F", CUDA_R_32F, 1 },
		{ "CUDA_R_16F", CUDA_R_16F, 1 },
		{ "CUDA_R_16BF", CUDA_R_16BF, 1 },
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		long v = enum_value(e[i].in_types ? types : api, e[i].name);
		if (v != e[i].ours)
			fail_msg("%s: ours %ld, the toolkit's header %ld", e[i].name, e[i].ours, v);
	}
	assert_int_equal(enum_value("X_Y = 3, X = 4", "X"), 4); /* the parser itself */
	free(api);
	free(types);
}

static void test_missing_override(void **state)
{
	(void)state;
	struct cublas b;
	char err[CD_ERRMSG] = "";
	setenv("CUDOCTOR_LIBCUBLAS", "/nonexistent/libcublas.so.13", 1);
	assert_int_equal(cublas_load(&b, NULL, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "CUDOCTOR_LIBCUBLAS=/nonexistent/libcublas.so.13"));
	assert_null(b.lib.handle);
	unsetenv("CUDOCTOR_LIBCUBLAS");
}

/* the fake libcuda loads but has none of cuBLAS's entry points */
static void test_not_cublas(void **state)
{
	(void)state;
	struct cublas b;
	char err[CD_ERRMSG] = "";
	setenv("CUDOCTOR_LIBCUBLAS", CUDOCTOR_FAKES_DIR "/libcuda.so.1", 1);
	assert_int_equal(cublas_load(&b, NULL, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "is not libcublas"));
	assert_non_null(strstr(err, "cublasGemmEx"));
	assert_null(b.lib.handle);
	unsetenv("CUDOCTOR_LIBCUBLAS");
}

/* Runs fn in a child that leaves with _exit: a real libcublas keeps allocations of its own
 * start-up that are not ours to free, and the leak check runs only at exit(). */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;
	if (pid == 0)
		_exit(fn());
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* a path list of files that do not exist: the error counts them (77: a libcublas on the
 * loader's path won before the list) */
static int paths_tried(void)
{
	struct cublas b;
	char err[CD_ERRMSG] = "";
	const char *paths[] = { "/nonexistent/a/libcublas.so.12", "/nonexistent/b/libcublas.so.13", NULL };
	unsetenv("CUDOCTOR_LIBCUBLAS");
	int rc = cublas_load(&b, paths, err);
	if (rc == CD_OK)
		return 77;
	return rc == CD_ENOTFOUND && strstr(err, "none of 2 other libcublas files loaded") ? 0 : 1;
}

static void test_paths_tried(void **state)
{
	(void)state;
	int rc = in_child(paths_tried);
	if (rc == 77)
		skip();
	assert_int_equal(rc, 0);
}

static int toolkit_binds(void)
{
	struct cublas b;
	char err[CD_ERRMSG] = "";
	const char *paths[] = { TOOLKIT_LIB, NULL };
	setenv("CUDOCTOR_LIBCUBLAS", "", 1); /* empty: not an override */
	if (cublas_load(&b, paths, err) != CD_OK)
		return 1;
	int ok = b.Create && b.Destroy && b.SetStream && b.GetVersion && b.SetMathMode && b.GemmEx &&
		 !b.lib.missing[0] && strstr(b.lib.path, "libcublas.so.13");
	cublas_unload(&b);
	return ok ? 0 : 2;
}

static void test_toolkit_library_binds(void **state)
{
	(void)state;
	if (access(TOOLKIT_LIB, R_OK) != 0)
		skip();
	assert_int_equal(in_child(toolkit_binds), 0);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(cublas_status_name(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
	assert_string_equal(cublas_status_name(12345), "CUBLAS_STATUS_(unnamed)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enums_match_headers), cmocka_unit_test(test_missing_override),
		cmocka_unit_test(test_not_cublas),          cmocka_unit_test(test_paths_tried),
		cmocka_unit_test(test_toolkit_library_binds), cmocka_unit_test(test_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
