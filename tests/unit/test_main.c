/* The front door: global options, help, version, unknown commands and their exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "testlib.h"

static struct run_result run(const char *a1, const char *a2)
{
	const char *argv[] = { CUDOCTOR_BINARY, a1, a2, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static void test_version(void **state)
{
	struct run_result r = run("--version", NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "cudoctor ", 9) == 0);
	run_result_free(&r);
}

static void test_help_lists_exit_codes(void **state)
{
	struct run_result r = run("--help", NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: cudoctor"));
	assert_non_null(strstr(r.out, "exit codes: 0"));
	run_result_free(&r);
}

static void test_unknown_command_is_usage_error(void **state)
{
	struct run_result r = run("frobnicate", NULL);

	(void)state;
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
	assert_string_equal(r.out, "");
	run_result_free(&r);
}

static void test_bad_color_is_usage_error(void **state)
{
	struct run_result r = run("--color=sometimes", "--version");

	(void)state;
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--color must be auto, always or never"));
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_help_lists_exit_codes),
		cmocka_unit_test(test_unknown_command_is_usage_error),
		cmocka_unit_test(test_bad_color_is_usage_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
