/* kb/sm_flops.tsv: the rates the libraries lab computes peaks from, a sourced row for each
 * arch and type, and malformed tables rejected with the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "kb/sm_flops.h"
#include "util/err.h"

static void test_hopper(void **state)
{
	(void)state;
	struct kb_sm_flops f;
	char err[CD_ERRMSG];
	assert_int_equal(kb_sm_flops_find(90, "bf16", &f, err), CD_OK);
	assert_true(f.flops_per_clk == 4096);
	assert_string_equal(f.unit, "tensor");
	assert_false(f.uncertain);
	/* 132 SMs x 1830 MHz x 4096 = the 989.4 TFLOP/s of NVIDIA's H100 SXM5 table */
	assert_true(132 * 1830e6 * f.flops_per_clk > 989.4e12 && 132 * 1830e6 * f.flops_per_clk < 989.5e12);
	assert_int_equal(kb_sm_flops_find(90, "fp32", &f, err), CD_OK);
	assert_true(f.flops_per_clk == 256);
	assert_string_equal(f.unit, "fma");
	assert_int_equal(kb_sm_flops_find(80, "fp16", &f, err), CD_OK);
	assert_true(108 * 1410e6 * f.flops_per_clk > 311e12 && 108 * 1410e6 * f.flops_per_clk < 312.1e12);
	/* H100 SXM5 datasheet, dense: FP8 1979 TFLOP/s at 1830 MHz; FP64 67 TFLOP/s at 1980 MHz on the
	 * tensor cores, the peak of the two FP64 rows (the CUDA cores' is 34) */
	assert_int_equal(kb_sm_flops_find(90, "fp8", &f, err), CD_OK);
	assert_true(132 * 1830e6 * f.flops_per_clk > 1978e12 && 132 * 1830e6 * f.flops_per_clk < 1980e12);
	assert_int_equal(kb_sm_flops_find(90, "fp64", &f, err), CD_OK);
	assert_string_equal(f.unit, "tensor");
	assert_true(132 * 1980e6 * f.flops_per_clk > 66.8e12 && 132 * 1980e6 * f.flops_per_clk < 67.0e12);
	/* A100 datasheet: FP64 tensor core 19.5 TFLOP/s */
	assert_int_equal(kb_sm_flops_find(80, "fp64", &f, err), CD_OK);
	assert_true(108 * 1410e6 * f.flops_per_clk > 19.4e12 && 108 * 1410e6 * f.flops_per_clk < 19.5e12);
	/* A100 datasheet: INT8 tensor 624 TOPS dense, TF32 156 TFLOP/s dense */
	assert_int_equal(kb_sm_flops_find(80, "int8", &f, err), CD_OK);
	assert_true(108 * 1410e6 * f.flops_per_clk > 623e12 && 108 * 1410e6 * f.flops_per_clk < 624.5e12);
	assert_int_equal(kb_sm_flops_find(80, "tf32", &f, err), CD_OK);
	assert_true(108 * 1410e6 * f.flops_per_clk > 155.5e12 && 108 * 1410e6 * f.flops_per_clk < 156.5e12);
}

/* RTX Blackwell whitepaper, RTX 5090 (170 SMs, 2407 MHz boost): FP32 104.8 TFLOP/s, FP16
 * tensor 419 TFLOP/s dense with FP16 accumulate; L40S datasheet (142 SMs, 2520 MHz): FP8
 * 733 TFLOP/s dense. */
static void test_ada_and_blackwell(void **state)
{
	(void)state;
	struct kb_sm_flops f;
	char err[CD_ERRMSG];
	assert_int_equal(kb_sm_flops_find(120, "fp32", &f, err), CD_OK);
	assert_true(170 * 2407e6 * f.flops_per_clk > 104.7e12 && 170 * 2407e6 * f.flops_per_clk < 104.8e12);
	assert_int_equal(kb_sm_flops_find(120, "fp16", &f, err), CD_OK);
	assert_true(170 * 2407e6 * f.flops_per_clk > 418e12 && 170 * 2407e6 * f.flops_per_clk < 420e12);
	assert_true(f.uncertain); /* GeForce halves it with FP32 accumulate */
	assert_int_equal(kb_sm_flops_find(89, "fp8", &f, err), CD_OK);
	assert_true(142 * 2520e6 * f.flops_per_clk > 732e12 && 142 * 2520e6 * f.flops_per_clk < 734e12);
	/* B200's per-SM tensor rate is derived, so flagged */
	assert_int_equal(kb_sm_flops_find(100, "bf16", &f, err), CD_OK);
	assert_true(f.uncertain);
	assert_int_equal(kb_sm_flops_find(100, "fp32", &f, err), CD_OK);
	assert_false(f.uncertain);
}

static void test_every_arch_sourced(void **state)
{
	(void)state;
	static const int archs[] = { 70, 75, 80, 86, 89, 90, 100, 120 };
	struct kb_sm_flops f;
	char err[CD_ERRMSG];
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
		assert_int_equal(kb_sm_flops_find(archs[i], "fp32", &f, err), CD_OK);
		assert_int_equal(kb_sm_flops_find(archs[i], "fp16", &f, err), CD_OK);
		assert_int_equal(strncmp(f.source, "https://", 8), 0);
	}
	/* no bf16 before Ampere, no rows for archs not listed */
	assert_int_equal(kb_sm_flops_find(70, "bf16", &f, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "sm_70 bf16"));
	assert_int_equal(kb_sm_flops_find(87, "fp32", &f, err), CD_ENOTFOUND);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char hdr[] = "arch\tdtype\tunit\tflops_per_clk_sm\tuncertain\tnotes\tsource\n";
	char text[512], err[CD_ERRMSG];
	struct kb_sm_flops f;
	snprintf(text, sizeof text, "%s90\tbf16\ttensor\tmany\tno\t\thttps://x\n", hdr);
	assert_int_equal(kb_sm_flops_find_in(text, 90, "bf16", &f, err), CD_EFORMAT);
	assert_non_null(strstr(err, "sm_flops.tsv:2"));
	snprintf(text, sizeof text, "%s90\tbf16\ttensor\t4096\tno\t\tsomewhere\n", hdr);
	assert_int_equal(kb_sm_flops_find_in(text, 90, "bf16", &f, err), CD_EFORMAT);
	snprintf(text, sizeof text, "%s90\tbf16\ttensor\t4096\tmaybe\t\thttps://x\n", hdr);
	assert_int_equal(kb_sm_flops_find_in(text, 90, "bf16", &f, err), CD_EFORMAT);
	assert_int_equal(kb_sm_flops_find_in("arch\tdtype\n", 90, "bf16", &f, err), CD_EFORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hopper),
		cmocka_unit_test(test_ada_and_blackwell),
		cmocka_unit_test(test_every_arch_sourced),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
