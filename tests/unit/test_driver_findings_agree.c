/* `devices`, `doctor`, `lab`, `mem` and `gencode --native` judge the driver layer with one implementation
 * (rules_driver, run once by the run context): run each through the fake drivers and require the same driver
 * findings, object for object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

/* The ids the driver layer emits; doctor adds others (toolkits, device nodes, ...) on top. */
static const char *const driver_ids[] = {
	"no-driver", "no-device", "driver-init-failed", "system-not-ready",
	"driver-library-mismatch", "forward-compat-unsupported", "nvml-unavailable",
};

static bool is_driver_id(const char *id)
{
	for (size_t i = 0; i < sizeof driver_ids / sizeof driver_ids[0]; i++)
		if (strcmp(id, driver_ids[i]) == 0)
			return true;
	return false;
}

/* `cudoctor --json CMD [ARG [ARG]]` with the fakes, a PATH without toolkits and the extra settings. */
static json_t *run_json(const char *const cmd[3], const char *e1, const char *e2, int *status)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", cmd[0], cmd[1], cmd[2], NULL };
	const char *env[] = {
		"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
		"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
		"PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", "CUDA_HOME=",
		"CUDA_PATH=", "CUDACXX=", "LD_LIBRARY_PATH=", "VIRTUAL_ENV=", "CONDA_PREFIX=",
		"FAKE_GPUS=", "FAKE_CUDA_INIT_RESULT=", "FAKE_NVML_INIT_RESULT=", e1, e2, NULL,
	};
	struct run_result r;
	json_error_t je;
	json_t *j;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	*status = r.status;
	j = json_loads(r.out, 0, &je);
	if (!j)
		fail_msg("%s: not JSON (%s): %s\nstderr: %s", cmd[0], je.text, r.out, r.err);
	run_result_free(&r);
	return j;
}

static const char *id_of(json_t *f)
{
	return json_string_value(json_object_get(f, "id"));
}

/* The driver findings of j, in report order, as a new array. */
static json_t *driver_findings(json_t *j)
{
	json_t *out = json_array(), *f;
	size_t i;

	assert_non_null(out);
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (is_driver_id(id_of(f)))
			json_array_append(out, f);
	}
	return out;
}

/* The commands besides devices that judge the driver (lab's and mem's own findings, such as
 * lab-failed or oom-fragmentation, are filtered out with everything not in driver_ids). */
static const char *const others[][3] = {
	{ "doctor", NULL, NULL },
	{ "lab", "hello", "--quick" },
	{ "mem", "status", NULL },
	{ "mem", "probe", NULL },
	{ "gencode", "--native", NULL },
};

/* devices exits dev_status; an error among the driver findings makes the others exit 1 too. */
static void check_same(const char *e1, const char *e2, const char *expect_id, int dev_status)
{
	static const char *const devices[3] = { "devices", NULL, NULL };
	int st_dev;
	json_t *dev = run_json(devices, e1, e2, &st_dev);
	json_t *a = driver_findings(dev), *f;
	size_t i;
	bool found = false;

	/* devices reports nothing but the driver layer here (the fakes' GPUs are healthy) */
	assert_int_equal(json_array_size(a), json_array_size(json_object_get(dev, "findings")));
	json_array_foreach(a, i, f)
		found |= strcmp(id_of(f), expect_id) == 0;
	if (!found) {
		char *da = json_dumps(a, JSON_INDENT(1));
		fail_msg("%s %s: expected %s\ndevices: %s", e1, e2 ? e2 : "", expect_id, da);
	}
	assert_int_equal(st_dev, dev_status);
	for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
		int st;
		json_t *o = run_json(others[k], e1, e2, &st);
		json_t *b = driver_findings(o);

		if (!json_equal(a, b)) {
			char *da = json_dumps(a, JSON_INDENT(1)), *db = json_dumps(b, JSON_INDENT(1));
			fail_msg("%s %s: devices and %s %s differ\ndevices: %s\n%s: %s", e1, e2 ? e2 : "",
				 others[k][0], others[k][1] ? others[k][1] : "", da, others[k][0], db);
		}
		if (dev_status == 1)
			assert_int_equal(st, 1);
		json_decref(b);
		json_decref(o);
	}
	json_decref(a);
	json_decref(dev);
}

static void test_cuinit_802(void **state)
{
	(void)state;
	check_same("FAKE_CUDA_INIT_RESULT=802", NULL, "system-not-ready", 1);
}

static void test_cuinit_804(void **state)
{
	(void)state;
	check_same("FAKE_CUDA_INIT_RESULT=804", NULL, "forward-compat-unsupported", 1);
}

static void test_cuinit_100(void **state)
{
	(void)state;
	check_same("FAKE_CUDA_INIT_RESULT=100", NULL, "no-device", 1);
	/* the fake's own 100: CUDA_VISIBLE_DEVICES names no GPU, quoted as evidence by both */
	check_same("CUDA_VISIBLE_DEVICES=5", NULL, "no-device", 1);
}

static void test_other_driver_failures(void **state)
{
	(void)state;
	check_same("FAKE_CUDA_INIT_RESULT=999", NULL, "driver-init-failed", 1);
	check_same("FAKE_NVML_INIT_RESULT=18", NULL, "nvml-unavailable", 0); /* a warning only */
	check_same("CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", NULL, "no-driver", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuinit_802),
		cmocka_unit_test(test_cuinit_804),
		cmocka_unit_test(test_cuinit_100),
		cmocka_unit_test(test_other_driver_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
