/* The fake driver libraries answer per GPU: two GPUs with different NVML values, unsupported
 * queries and compute modes come back as themselves in `cudoctor --json devices`, never one
 * GPU's values on both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "testlib.h"

static json_t *devices(const char *const extra[])
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
	const char *env[16] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
				"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
				"FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4090:8.9:24GiB",
				"CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", NULL };
	struct run_result r;
	size_t n = 5;
	json_t *j;

	for (size_t i = 0; extra[i] && n + 1 < 16; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	if (!(j = json_loads(r.out, 0, NULL)))
		fail_msg("not JSON (exit %d): %.300s %.300s", r.status, r.out, r.err);
	run_result_free(&r);
	return j;
}

static json_t *gpu(json_t *j, size_t i)
{
	json_t *g = json_array_get(json_object_get(j, "gpus"), i);

	assert_non_null(g);
	return g;
}

static void values_per_gpu(void **state)
{
	const char *extra[] = { "FAKE_NVML_TEMP=0:41;1:77", "FAKE_NVML_POWER=0:120000:700000;1:300000:450000",
				"FAKE_CUDA_COMPUTE_MODE=1:3", NULL };
	json_t *j = devices(extra);

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 0), "temperature_gpu_c")), 41);
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 1), "temperature_gpu_c")), 77);
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 0), "power_draw_mw")), 120000);
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 1), "power_draw_mw")), 300000);
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 0), "compute_mode")), 0);
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 1), "compute_mode")), 3);
	json_decref(j);
}

/* a query unsupported on one GPU only: the other still answers */
static void unsupported_per_gpu(void **state)
{
	const char *one[] = { "FAKE_NVML_NOT_SUPPORTED=1:temperature", "FAKE_NVML_TEMP=0:41;1:77", NULL };
	const char *all[] = { "FAKE_NVML_NOT_SUPPORTED=temperature", NULL };
	json_t *j = devices(one);

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(gpu(j, 0), "temperature_gpu_c")), 41);
	assert_false(json_is_integer(json_object_get(gpu(j, 1), "temperature_gpu_c")));
	json_decref(j);
	j = devices(all);
	assert_false(json_is_integer(json_object_get(gpu(j, 0), "temperature_gpu_c")));
	assert_false(json_is_integer(json_object_get(gpu(j, 1), "temperature_gpu_c")));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_per_gpu),
		cmocka_unit_test(unsupported_per_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
