/* The labs' driver layer against the fake libcuda of tests/fakes: a driver without an entry
 * point the labs call is refused before cuInit, naming it; a failed call reads
 * "cuName: CUDA_ERROR_X (n)". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "probe/gpus.h"

static const unsigned char not_a_module[16];
static struct gpu_probe probe; /* the run's facts, as cmd_lab hands them over */

static void open_with(const char *libcuda, struct cudrv *d, struct lab_ctx *c, char *err)
{
	setenv("CUDOCTOR_LIBCUDA", libcuda, 1);
	setenv("CUDOCTOR_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	setenv("FAKE_GPUS", "NVIDIA H200:9.0:141GiB", 1);
	memset(d, 0, sizeof *d);
	memset(c, 0, sizeof *c);
	gpu_probe_free(&probe);
	memset(&probe, 0, sizeof probe);
	assert_int_equal(cudrv_load(d, err), CD_OK);
	assert_int_equal(gpu_probe_collect(&probe, d, NULL, err), CD_OK);
	c->probe = &probe;
}

/* The device's facts are the probe's: a view of its gpu_info, not read again. */
static void test_device_facts_are_the_probes(void **state)
{
	struct lab_dev v;
	char err[CD_ERRMSG] = "";
	struct cudrv d;
	struct lab_ctx c;

	(void)state;
	open_with(CUDOCTOR_FAKES_DIR "/libcuda.so.1", &d, &c, err);
	assert_int_equal(lab_dev_of(&probe, 0, &v, err), CD_OK);
	assert_string_equal(v.name, "NVIDIA H200");
	assert_int_equal(v.cc_major, 9);
	assert_int_equal(v.sm_count, probe.gpus[0].sm_count);
	assert_int_equal(v.l2_bytes, probe.gpus[0].l2_cache_bytes);
	assert_int_equal(v.clock_khz, 1980000);
	assert_true(v.total_mem == (size_t)(141LL << 30));
	/* a fact the probe did not get stays unknown rather than read again */
	probe.gpus[0].valid[GF_SM_COUNT / 64] &= ~(1ULL << (GF_SM_COUNT % 64));
	assert_int_equal(lab_dev_of(&probe, 0, &v, err), CD_EDRIVER);
	assert_non_null(strstr(err, "no multiprocessors"));
	assert_int_equal(lab_dev_of(&probe, 1, &v, err), CD_EDRIVER);
	assert_non_null(strstr(err, "no CUDA device 1"));
	cudrv_unload(&d);
}

static void test_old_driver_is_refused_naming_the_entry_point(void **state)
{
	struct cudrv d;
	struct lab_ctx c;
	char err[CD_ERRMSG] = "";

	(void)state;
	open_with(CUDOCTOR_FAKES_DIR "/old/libcuda.so.1", &d, &c, err);
	assert_int_equal(lab_open(&c, &d, 0, not_a_module, err), CD_EDRIVER);
	/* the old fake has cuMemGetInfo but not cuMemGetInfo_v2, which cudoctor binds */
	assert_non_null(strstr(err, "cuMemGetInfo is missing from "));
	assert_non_null(strstr(err, "old/libcuda.so.1"));
	assert_null(c.ctx);
	cudrv_unload(&d);
}

static void test_failed_calls_name_the_call_and_result(void **state)
{
	struct cudrv d;
	struct lab_ctx c;
	char err[CD_ERRMSG] = "";

	(void)state;
	open_with(CUDOCTOR_FAKES_DIR "/libcuda.so.1", &d, &c, err);
	/* the fake answers cuModuleLoadData with CUDA_ERROR_NOT_SUPPORTED */
	assert_int_equal(lab_open(&c, &d, 0, not_a_module, err), CD_EDRIVER);
	assert_string_equal(err, "cuModuleLoadData: CUDA_ERROR_NOT_SUPPORTED (801)");
	assert_null(c.ctx); /* the primary context was released on the way out */
	assert_int_equal(lab_open(&c, &d, 3, not_a_module, err), CD_EUSAGE);
	assert_string_equal(err, "no CUDA device 3 (1 visible)");
	c.d = &d;
	assert_int_equal(lab_cu(&c, CUDA_SUCCESS, "cuMemAlloc", err), CD_OK);
	assert_int_equal(lab_cu(&c, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", err), CD_EDRIVER);
	assert_string_equal(err, "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)");
	cudrv_unload(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_driver_is_refused_naming_the_entry_point),
		cmocka_unit_test(test_failed_calls_name_the_call_and_result),
		cmocka_unit_test(test_device_facts_are_the_probes),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	gpu_probe_free(&probe);
	return rc;
}
