/* doctor and devices --format prometheus through the fake drivers: every line read by a strict
 * reader of the exposition format (tests/unit/prom_check.py), the metric values against the
 * fakes' facts, label values escaped, and --format's usage errors. */
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

#define CHECK CUDOCTOR_SOURCE_DIR "/tests/unit/prom_check.py"
#define FAKES "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1", \
	"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "CUDA_VISIBLE_DEVICES="
/* a second GPU whose name needs every escape: a quote, a backslash and a newline */
#define TWO_GPUS "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA \"Odd\" \\GPU\ntwo:8.9:8GiB"

/* cudoctor ARGS --format prometheus -o FILE, then the checker over FILE: its samples */
static struct run_result metrics(const char *command, const char *extra_env, int *status)
{
	char path[] = "/tmp/cudoctor-prom-XXXXXX";
	int fd = mkstemp(path);
	const char *argv[] = { CUDOCTOR_BINARY, command, "--format", "prometheus", "-o", path, NULL };
	const char *check[] = { "/usr/bin/python3", CHECK, path, NULL };
	const char *env[] = { FAKES, TWO_GPUS, "FAKE_NVML_ECC=0:5:2:10:3", "FAKE_NVML_TEMP=0:61",
			      "FAKE_NVML_POWER=0:75500:700000", extra_env, NULL };
	struct run_result r, c;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	*status = r.status;
	run_result_free(&r);
	assert_int_equal(testlib_run(check, NULL, NULL, &c), 0);
	if (c.status != 0)
		fail_msg("not valid exposition format: %s", c.err);
	unlink(path);
	return c;
}

static void has(const char *samples, const char *line)
{
	if (!strstr(samples, line))
		fail_msg("no sample '%s' in:\n%s", line, samples);
}

#define H200 "gpu=\"0\",name=\"NVIDIA H200\",uuid=\"GPU-0bacaf01-bdea-739f-7cf7-2d72701204ec\""

static void test_devices_metrics(void **state)
{
	int status;
	struct run_result c = metrics("devices", NULL, &status);

	(void)state;
	assert_int_equal(status, 1); /* uncorrected ECC errors: an error finding, as in text */
	has(c.out, "cudoctor_up{command=\"devices\"} 1\n");
	has(c.out, "cudoctor_findings{id=\"ecc-errors\",severity=\"error\"} 1\n");
	has(c.out, "cudoctor_findings_by_severity{severity=\"error\"} 1\n");
	has(c.out, "cudoctor_findings_by_severity{severity=\"warn\"} 0\n");
	has(c.out, "cudoctor_driver_info{cuda=\"13.0\",version=\"580.159.04\"} 1\n");
	has(c.out, "cudoctor_gpu_memory_total_bytes{" H200 "} 151397597184\n");
	has(c.out, "cudoctor_gpu_temperature_celsius{" H200 "} 61\n");
	has(c.out, "cudoctor_gpu_power_draw_watts{" H200 "} 75.5\n");
	has(c.out, "cudoctor_gpu_power_limit_watts{" H200 "} 700\n");
	has(c.out, "cudoctor_gpu_ecc_errors_total{gpu=\"0\",name=\"NVIDIA H200\",type=\"uncorrected_volatile\","
		   "uuid=\"GPU-0bacaf01-bdea-739f-7cf7-2d72701204ec\"} 2\n");
	has(c.out, "cudoctor_gpu_ecc_errors_total{gpu=\"0\",name=\"NVIDIA H200\",type=\"corrected_aggregate\","
		   "uuid=\"GPU-0bacaf01-bdea-739f-7cf7-2d72701204ec\"} 10\n");
	/* the checker prints label values unescaped, as JSON strings */
	has(c.out, "name=\"NVIDIA \\\"Odd\\\" \\\\GPU\\ntwo\"");
	has(c.out, "cudoctor_gpu_memory_total_bytes{gpu=\"1\",");
	run_result_free(&c);
}

static void test_doctor_metrics(void **state)
{
	int status;
	struct run_result c = metrics("doctor", NULL, &status);

	(void)state;
	has(c.out, "cudoctor_up{command=\"doctor\"} 1\n");
	has(c.out, "cudoctor_driver_loaded 1\n");
	has(c.out, "cudoctor_driver_info{cuda=\"13.0\",version=\"580.159.04\"} 1\n");
	has(c.out, "cudoctor_gpu_memory_total_bytes{" H200 "} 151397597184\n");
	has(c.out, "cudoctor_gpu_info{compute_capability=\"9.0\",gpu=\"0\",");
	run_result_free(&c);
}

static void test_no_driver(void **state)
{
	char path[] = "/tmp/cudoctor-prom-XXXXXX";
	int fd = mkstemp(path);
	const char *argv[] = { CUDOCTOR_BINARY, "doctor", "--format=prometheus", "-o", path, NULL };
	const char *check[] = { "/usr/bin/python3", CHECK, path, NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };
	struct run_result r, c;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	assert_int_equal(testlib_run(check, NULL, NULL, &c), 0);
	assert_int_equal(c.status, 0);
	has(c.out, "cudoctor_findings{id=\"no-driver\",severity=\"error\"} 1\n");
	has(c.out, "cudoctor_driver_loaded 0\n");
	assert_null(strstr(c.out, "cudoctor_gpu_memory_total_bytes"));
	unlink(path);
	run_result_free(&r);
	run_result_free(&c);
}

static void test_usage_errors(void **state)
{
	const char *both[] = { CUDOCTOR_BINARY, "--json", "devices", "--format", "prometheus", NULL };
	const char *bogus[] = { CUDOCTOR_BINARY, "devices", "--format", "yaml", NULL };
	const char *same[] = { CUDOCTOR_BINARY, "--json", "devices", "--format", "json", NULL };
	const char *env[] = { FAKES, NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(both, env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--format prometheus conflicts with --json"));
	assert_string_equal(r.out, "");
	run_result_free(&r);
	assert_int_equal(testlib_run(bogus, env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'yaml'"));
	run_result_free(&r);
	assert_int_equal(testlib_run(same, env, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_true(r.out[0] == '{');
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_metrics),
		cmocka_unit_test(test_doctor_metrics),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_usage_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
