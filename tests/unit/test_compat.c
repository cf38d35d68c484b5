/* kb/compat: the selection rules of fatbin.md §4, case by case. Each case names the
 * observation or document it comes from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "rules/arch.h"
#include "kb/compat.h"

static struct compat_env env_for(unsigned cc)
{
	struct compat_env e = {.cc = cc, .ptx_isa_max = COMPAT_ISA(9, 0), .zstd_ok = 1};
	e.family = compat_family_table(&e.n_family);
	return e;
}

static struct compat_image sass(unsigned arch, char suffix)
{
	return (struct compat_image){.kind = COMPAT_KIND_SASS, .arch = arch, .suffix = suffix};
}

static struct compat_image ptx(unsigned arch, char suffix, unsigned isa)
{
	return (struct compat_image){.kind = COMPAT_KIND_PTX, .arch = arch, .suffix = suffix, .ptx_isa = isa};
}

static enum compat_outcome choose1(struct compat_image im, unsigned cc)
{
	struct compat_env e = env_for(cc);
	struct compat_choice ch;
	compat_choose(&im, 1, &e, &ch);
	return ch.outcome;
}

/* Plain SASS: same major, minor >= (Programming Guide §1.3.4.1; H200: sm_80/86 -> 209, sm_90 ok) */
static void test_plain_sass(void **state)
{
	(void)state;
	assert_int_equal(choose1(sass(80, 0), 86), COMPAT_SASS);
	assert_int_equal(choose1(sass(80, 0), 87), COMPAT_SASS);
	assert_int_equal(choose1(sass(80, 0), 89), COMPAT_SASS);
	assert_int_equal(choose1(sass(86, 0), 80), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(80, 0), 90), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(86, 0), 90), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(90, 0), 90), COMPAT_SASS);
	assert_int_equal(choose1(sass(100, 0), 103), COMPAT_SASS);
	assert_int_equal(choose1(sass(100, 0), 120), COMPAT_NO_IMAGE); /* 10.x and 12.x are different majors */
	assert_int_equal(choose1(sass(120, 0), 100), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(120, 0), 121), COMPAT_SASS);
}

/* sm_XYa: exactly X.Y (§5.1.2.1; H200: sm_90a ok, sm_100a -> 209) */
static void test_arch_specific_sass(void **state)
{
	(void)state;
	assert_int_equal(choose1(sass(90, 'a'), 90), COMPAT_SASS);
	assert_int_equal(choose1(sass(100, 'a'), 90), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(100, 'a'), 103), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(120, 'a'), 121), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(120, 'a'), 120), COMPAT_SASS);
}

/* sm_XYf: Table 28 family members only; an f label below 10.0 is no family (H200: sm_90f -> 209) */
static void test_family_sass(void **state)
{
	(void)state;
	assert_int_equal(choose1(sass(100, 'f'), 100), COMPAT_SASS);
	assert_int_equal(choose1(sass(100, 'f'), 103), COMPAT_SASS);
	assert_int_equal(choose1(sass(100, 'f'), 110), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(100, 'f'), 120), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(103, 'f'), 100), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(103, 'f'), 103), COMPAT_SASS);
	assert_int_equal(choose1(sass(110, 'f'), 110), COMPAT_SASS);
	assert_int_equal(choose1(sass(120, 'f'), 121), COMPAT_SASS);
	assert_int_equal(choose1(sass(121, 'f'), 120), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(sass(90, 'f'), 90), COMPAT_NO_IMAGE);
}

/* PTX: any CC >= target (H200: compute_80 ok, compute_100 -> 209); a/f as for SASS */
static void test_ptx(void **state)
{
	(void)state;
	assert_int_equal(choose1(ptx(80, 0, COMPAT_ISA(9, 0)), 90), COMPAT_JIT);
	assert_int_equal(choose1(ptx(75, 0, COMPAT_ISA(9, 0)), 120), COMPAT_JIT);
	assert_int_equal(choose1(ptx(100, 0, COMPAT_ISA(9, 0)), 90), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(ptx(90, 'a', COMPAT_ISA(9, 0)), 90), COMPAT_JIT);
	assert_int_equal(choose1(ptx(90, 'a', COMPAT_ISA(9, 0)), 100), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(ptx(100, 'a', COMPAT_ISA(9, 0)), 90), COMPAT_NO_IMAGE);
	assert_int_equal(choose1(ptx(100, 'f', COMPAT_ISA(9, 0)), 103), COMPAT_JIT);
	assert_int_equal(choose1(ptx(100, 'f', COMPAT_ISA(9, 0)), 120), COMPAT_NO_IMAGE);
}

/* PTX ISA newer than the driver's JIT -> 222 (R580 = 9.0: 9.1 and 9.9 refused) */
static void test_ptx_isa(void **state)
{
	(void)state;
	assert_int_equal(choose1(ptx(90, 0, COMPAT_ISA(9, 0)), 90), COMPAT_JIT);
	assert_int_equal(choose1(ptx(90, 0, COMPAT_ISA(9, 1)), 90), COMPAT_PTX_TOO_NEW);
	assert_int_equal(choose1(ptx(90, 0, COMPAT_ISA(9, 9)), 90), COMPAT_PTX_TOO_NEW);
	/* a PTX that does not fit the GPU is no-image, whatever its ISA */
	assert_int_equal(choose1(ptx(100, 0, COMPAT_ISA(9, 9)), 90), COMPAT_NO_IMAGE);
	/* unknown driver: no ISA limit */
	struct compat_env e = env_for(90);
	struct compat_image im = ptx(90, 0, COMPAT_ISA(9, 9));
	struct compat_choice ch;
	e.ptx_isa_max = 0;
	compat_choose(&im, 1, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_JIT);
}

/* The driver prefers SASS, then the nearest arch; ties: ELF without the compat blob, first ELF, last PTX */
static void test_selection_order(void **state)
{
	(void)state;
	struct compat_env e = env_for(89);
	struct compat_choice ch;
	struct compat_image a[] = {ptx(89, 0, COMPAT_ISA(9, 0)), sass(80, 0), sass(86, 0), sass(75, 0)};
	compat_choose(a, 4, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_SASS);
	assert_int_equal(ch.image, 2);
	struct compat_image b[] = {ptx(75, 0, COMPAT_ISA(9, 0)), ptx(86, 0, COMPAT_ISA(9, 0)), ptx(86, 0, COMPAT_ISA(9, 0)),
				   ptx(90, 0, COMPAT_ISA(9, 0))};
	compat_choose(b, 4, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_JIT);
	assert_int_equal(ch.image, 2);
	struct compat_image c[] = {sass(100, 0), sass(100, 0)};
	c[0].compat_blob = true;
	e = env_for(100);
	compat_choose(c, 2, &e, &ch);
	assert_int_equal(ch.image, 1);
	/* a usable PTX with a too-new ISA does not hide an older usable PTX */
	struct compat_image d[] = {ptx(80, 0, COMPAT_ISA(8, 0)), ptx(90, 0, COMPAT_ISA(9, 9))};
	e = env_for(90);
	compat_choose(d, 2, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_JIT);
	assert_int_equal(ch.image, 0);
}

/* CUDA_FORCE_PTX_JIT ignores SASS (SASS-only -> 209, SASS+PTX -> JIT); CUDA_DISABLE_PTX_JIT -> 223 */
static void test_jit_switches(void **state)
{
	(void)state;
	struct compat_env e = env_for(90);
	struct compat_choice ch;
	struct compat_image only_sass[] = {sass(90, 0)};
	struct compat_image both[] = {sass(90, 0), ptx(90, 0, COMPAT_ISA(9, 0))};
	struct compat_image only_ptx[] = {ptx(80, 0, COMPAT_ISA(9, 0))};
	e.force_ptx_jit = true;
	compat_choose(only_sass, 1, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_NO_IMAGE);
	compat_choose(both, 2, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_JIT);
	assert_int_equal(ch.image, 1);
	e.force_ptx_jit = false;
	e.disable_ptx_jit = true;
	compat_choose(only_ptx, 1, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_JIT_DISABLED);
	compat_choose(both, 2, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_SASS);
	compat_choose(only_sass, 1, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_SASS);
	/* PTX that cannot fit anyway stays no-image with the JIT disabled */
	struct compat_image far[] = {ptx(100, 0, COMPAT_ISA(9, 0))};
	compat_choose(far, 1, &e, &ch);
	assert_int_equal(ch.outcome, COMPAT_NO_IMAGE);
}

static const char *fake_vars[8][2];
static const char *fake_get(const char *name)
{
	for (size_t i = 0; i < 8 && fake_vars[i][0]; i++)
		if (strcmp(fake_vars[i][0], name) == 0)
			return fake_vars[i][1];
	return NULL;
}

static void test_env_vars(void **state)
{
	(void)state;
	struct compat_env e = {0};
	memset(fake_vars, 0, sizeof(fake_vars));
	fake_vars[0][0] = "CUDA_FORCE_JIT";
	fake_vars[0][1] = "1";
	compat_env_from_vars(&e, fake_get);
	assert_true(e.force_ptx_jit);
	assert_false(e.disable_ptx_jit);
	/* the PTX_ name overrides the older one */
	fake_vars[1][0] = "CUDA_FORCE_PTX_JIT";
	fake_vars[1][1] = "0";
	fake_vars[2][0] = "CUDA_DISABLE_PTX_JIT";
	fake_vars[2][1] = "1";
	compat_env_from_vars(&e, fake_get);
	assert_false(e.force_ptx_jit);
	assert_true(e.disable_ptx_jit);
}

/* zstd images on a pre-12.4 driver: error 200 predicted */
static void test_zstd_driver(void **state)
{
	(void)state;
	struct compat_env e = env_for(90);
	struct compat_image im = sass(90, 0);
	struct compat_choice ch;
	im.zstd = true;
	e.zstd_ok = 0;
	compat_choose(&im, 1, &e, &ch);
	assert_true(ch.zstd_unloadable);
	e.zstd_ok = -1;
	compat_choose(&im, 1, &e, &ch);
	assert_false(ch.zstd_unloadable);
	struct arch_driver d;
	assert_int_equal(arch_driver_from_text("550.54.14", &d, NULL), 0);
	assert_int_equal(d.cuda, 12040);
	assert_int_equal(d.zstd_ok, 1);
	assert_int_equal(d.ptx_isa_max, COMPAT_ISA(8, 4));
	assert_int_equal(arch_driver_from_text("535.104.05", &d, NULL), 0);
	assert_int_equal(d.cuda, 12020);
	assert_int_equal(d.zstd_ok, 0);
	assert_int_equal(arch_driver_from_text("12.8", &d, NULL), 0);
	assert_int_equal(d.ptx_isa_max, COMPAT_ISA(8, 7));
	assert_int_equal(arch_driver_from_text("580.159.04", &d, NULL), 0);
	assert_int_equal(d.ptx_isa_max, COMPAT_ISA(9, 0));
	assert_int_equal(arch_driver_from_text("bogus", &d, NULL), -5);
}

static void test_verdicts(void **state)
{
	(void)state;
	struct compat_tally t = {0};
	assert_int_equal(compat_verdict_of(&t), VERDICT_NONE);
	compat_tally_add(&t, COMPAT_SASS);
	assert_int_equal(compat_verdict_of(&t), VERDICT_NATIVE);
	compat_tally_add(&t, COMPAT_JIT);
	assert_int_equal(compat_verdict_of(&t), VERDICT_JIT);
	compat_tally_add(&t, COMPAT_NO_IMAGE);
	assert_int_equal(compat_verdict_of(&t), VERDICT_PARTIAL);
	memset(&t, 0, sizeof(t));
	compat_tally_add(&t, COMPAT_PTX_TOO_NEW);
	assert_int_equal(compat_verdict_of(&t), VERDICT_PTX_TOO_NEW);
	compat_tally_add(&t, COMPAT_NO_IMAGE);
	assert_int_equal(compat_verdict_of(&t), VERDICT_NO_IMAGE);
	memset(&t, 0, sizeof(t));
	compat_tally_add(&t, COMPAT_JIT_DISABLED);
	assert_int_equal(compat_verdict_of(&t), VERDICT_JIT_DISABLED);
	assert_string_equal(compat_verdict_name(VERDICT_PARTIAL), "partial");
	assert_string_equal(compat_verdict_name(VERDICT_PTX_TOO_NEW), "ptx-too-new");
}

static void test_gpu_spec(void **state)
{
	(void)state;
	unsigned cc = 0;
	assert_int_equal(arch_parse_gpu_spec("sm_89", &cc, NULL, 0, NULL), 0);
	assert_int_equal(cc, 89);
	assert_int_equal(arch_parse_gpu_spec("8.9", &cc, NULL, 0, NULL), 0);
	assert_int_equal(cc, 89);
	assert_int_equal(arch_parse_gpu_spec("89", &cc, NULL, 0, NULL), 0);
	assert_int_equal(arch_parse_gpu_spec("sm_90a", &cc, NULL, 0, NULL), 0);
	assert_int_equal(cc, 90);
	assert_int_equal(arch_parse_gpu_spec("12.0", &cc, NULL, 0, NULL), 0);
	assert_int_equal(cc, 120);
	assert_int_equal(arch_parse_gpu_spec("sm_100f", &cc, NULL, 0, NULL), 0);
	assert_int_equal(cc, 100);
	assert_int_equal(arch_parse_gpu_spec("sm_9x", &cc, NULL, 0, NULL), -5);
	assert_int_equal(arch_parse_gpu_spec("", &cc, NULL, 0, NULL), -5);
	/* product names through kb/gpus.tsv */
	char label[128];
	assert_int_equal(arch_parse_gpu_spec("H200", &cc, label, sizeof(label), NULL), 0);
	assert_int_equal(cc, 90);
	assert_non_null(strstr(label, "H200"));
	assert_int_equal(arch_parse_gpu_spec("RTX 4060 Ti", &cc, label, sizeof(label), NULL), 0);
	assert_int_equal(cc, 89);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_sass),     cmocka_unit_test(test_arch_specific_sass),
		cmocka_unit_test(test_family_sass),    cmocka_unit_test(test_ptx),
		cmocka_unit_test(test_ptx_isa),        cmocka_unit_test(test_selection_order),
		cmocka_unit_test(test_jit_switches),   cmocka_unit_test(test_env_vars),
		cmocka_unit_test(test_zstd_driver),    cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_gpu_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
