/* `cudoctor lab` without a GPU: the list works, names are checked, and a missing driver
 * is a clear finding with exit 1, never a crash; --json stays one object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "testlib.h"

static const char *const no_driver[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", NULL };

static void test_list(void **state)
{
	(void)state;
	const char *argv[] = { CUDOCTOR_BINARY, "lab", "list", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	static const char *const names[] = { "hello", "indexing-2d", "coalescing", "bank-conflicts", "divergence",
					     "block-size", "latency", "bandwidth", "host-transfer", "streams",
					     "graphs", "constant-memory", "transpose", "occupancy", "texture",
					     "sync", "device-malloc" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		assert_non_null(strstr(r.out, names[i]));
	run_result_free(&r);
}

/* -q lab list: the names alone, one a line, for a script's loop; -q with no driver: why */
static void test_quiet(void **state)
{
	const char *list[] = { CUDOCTOR_BINARY, "-q", "lab", "list", NULL };
	const char *run[] = { CUDOCTOR_BINARY, "-q", "lab", "hello", NULL };
	struct run_result r;
	size_t lines = 0;

	(void)state;
	assert_int_equal(testlib_run(list, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "hello\nindexing-2d\n", 18) == 0);
	for (const char *c = r.out; *c; c++)
		lines += *c == '\n';
	assert_true(lines >= 17);
	assert_null(strchr(r.out, ' '));
	run_result_free(&r);
	assert_int_equal(testlib_run(run, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, ""); /* no verdict: nothing on stdout */
	assert_true(strncmp(r.err, "error no-driver: ", 17) == 0);
	assert_string_equal(strchr(r.err, '\n'), "\n"); /* one line */
	run_result_free(&r);
}

static void test_list_json(void **state)
{
	(void)state;
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "lab", "list", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_driver, NULL, &r), 0);
	json_error_t je;
	json_t *o = json_loads(r.out, 0, &je);
	assert_non_null(o);
	json_t *a = json_object_get(o, "available");
	assert_true(json_is_array(a) && json_array_size(a) >= 13);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "name")), "hello");
	json_decref(o);
	run_result_free(&r);
}

static void test_unknown_lab_is_usage(void **state)
{
	(void)state;
	const char *argv[] = { CUDOCTOR_BINARY, "lab", "run", "warp-speed", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no lab named 'warp-speed'"));
	assert_non_null(strstr(r.err, "bank-conflicts"));
	run_result_free(&r);
	const char *none[] = { CUDOCTOR_BINARY, "lab", NULL };
	assert_int_equal(testlib_run(none, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
}

static void test_no_driver_is_a_finding(void **state)
{
	(void)state;
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "lab", "all", "--quick", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	json_error_t je;
	json_t *o = json_loads(r.out, 0, &je);
	assert_non_null(o);
	/* the driver is judged first, by the rules doctor and devices share */
	json_t *f = json_array_get(json_object_get(o, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "no-driver");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "evidence"), 0)), "/nonexistent"));
#if !CUDOCTOR_HAVE_KERNELS
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(o, "findings"), 1), "id")),
			    "lab-no-kernels");
#endif
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	json_decref(o);
	run_result_free(&r);
	/* the same as text, and a --plot folder does not change that */
	const char *text[] = { CUDOCTOR_BINARY, "lab", "hello", "--plot", "/tmp", NULL };
	assert_int_equal(testlib_run(text, no_driver, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "cannot be loaded"));
	run_result_free(&r);
}

/* the fake driver of tests/fakes: no GPU, a failing cuInit, and a driver that cannot load
 * modules each end in one error finding naming the failed call, never a crash */
static json_t *run_fake(const char *const env[], int *status)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "lab", "hello", "--quick", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	*status = r.status;
	json_error_t je;
	json_t *o = json_loads(r.out, 0, &je);
	if (!o)
		fail_msg("not JSON: %s\nstderr: %s", r.out, r.err);
	run_result_free(&r);
	return o;
}

static void test_fake_driver(void **state)
{
	(void)state;
#if CUDOCTOR_HAVE_KERNELS
	const char *nogpu[] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
				"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "CUDA_VISIBLE_DEVICES=-1", NULL };
	const char *badinit[] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1", "FAKE_CUDA_INIT_RESULT=999", NULL };
	const char *h200[] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			       "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", NULL };
	int status;
	json_t *o = run_fake(nogpu, &status);
	json_t *f = json_array_get(json_object_get(o, "findings"), 0);
	assert_int_equal(status, 1);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "no-device");
	json_decref(o);

	o = run_fake(badinit, &status);
	f = json_array_get(json_object_get(o, "findings"), 0);
	assert_int_equal(status, 1);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "driver-init-failed");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "evidence"), 0)), "cuInit"));
	json_decref(o);

	/* the fake knows devices but loads no modules: the driver is fine, and the lab says
	 * which call failed */
	o = run_fake(h200, &status);
	f = json_array_get(json_object_get(o, "findings"), 0);
	assert_int_equal(status, 1);
	assert_int_equal(json_array_size(json_object_get(o, "findings")), 1);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "lab-failed");
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "evidence"), 0)), "cuModuleLoadData"));
	json_decref(o);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_list_json),
		cmocka_unit_test(test_unknown_lab_is_usage),
		cmocka_unit_test(test_no_driver_is_a_finding),
		cmocka_unit_test(test_fake_driver),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
