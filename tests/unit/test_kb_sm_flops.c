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
}

static void test_every_arch_sourced(void **state)
{
	(void)state;
	static const int archs[] = { 70, 75, 80, 86, 89, 90 };
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
		cmocka_unit_test(test_every_arch_sourced),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
