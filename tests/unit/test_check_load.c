/* The parts of check's load tests that need no GPU: the GEMM type per compute capability
 * (with its row in kb/sm_flops.tsv, which the rate is judged against) and the NVML samples'
 * bound and rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "check/load.h"
#include "driver/cublas.h"
#include "kb/sm_flops.h"
#include "util/err.h"

static void test_gemm_dtype(void **state)
{
	static const struct {
		int cc;
		const char *dtype;
		int type;
	} rows[] = { { 120, "bf16", CUDA_R_16BF }, { 100, "bf16", CUDA_R_16BF }, { 90, "bf16", CUDA_R_16BF },
		     { 80, "bf16", CUDA_R_16BF },  { 75, "fp16", CUDA_R_16F },   { 70, "fp16", CUDA_R_16F },
		     { 61, "fp32", CUDA_R_32F } };
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct kb_sm_flops kf;
		int type = -1;

		assert_string_equal(check_gemm_dtype(rows[i].cc / 10, &type), rows[i].dtype);
		assert_int_equal(type, rows[i].type);
		/* the H200 row the judge's theory uses */
		if (rows[i].cc == 90) {
			assert_int_equal(kb_sm_flops_find(90, rows[i].dtype, &kf, err), CD_OK);
			assert_true(kf.flops_per_clk == 4096);
		}
	}
}

/* Without NVML a sample is all -1; two offers within 0.1 s make one sample; a full buffer
 * takes no more. */
static void test_samples(void **state)
{
	struct check_samples *sm = calloc(1, sizeof *sm);

	(void)state;
	assert_non_null(sm);
	sm->t0 = 0;
	check_samples_add(sm);
	check_samples_add(sm);
	assert_int_equal(sm->n, 1);
	assert_int_equal(sm->s[0].reasons, -1);
	assert_int_equal(sm->s[0].sm_mhz, -1);
	assert_int_equal(sm->s[0].temperature_c, -1);
	assert_int_equal(sm->s[0].power_mw, -1);
	sm->s[0].t_s -= 1.0; /* as if taken a second ago */
	check_samples_add(sm);
	assert_int_equal(sm->n, 2);
	sm->n = CHECK_MAX_SAMPLES;
	sm->s[sm->n - 1].t_s = -1e9;
	check_samples_add(sm);
	assert_int_equal(sm->n, CHECK_MAX_SAMPLES);
	check_samples_add(NULL);
	free(sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_dtype),
		cmocka_unit_test(test_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
