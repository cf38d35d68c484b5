/* rules/driver_need on nvcc-built executables (tests/fixtures/build.sh): k_exe needs
 * libcudart.so.N (-cudart=shared), k_exe_static carries nvcc's default static runtime and
 * the release it was built with. Judged against drivers below and above that family's floor,
 * and a GPU newer than a driver branch; and arch's --driver refusing what is no version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_fixtures.h"
#include "rules/arch.h"
#include "kb/kb.h"
#include "report/report.h"
#include "rules/driver_need.h"
#include "testlib.h"
#include "util/err.h"

/* the CUDA major of the nvcc that built the fixtures, from its --version line */
static int fixture_cuda_major(void)
{
	char buf[256] = "";
	FILE *f = fopen(ARCH_FIXTURES "/nvcc-version.txt", "r");
	const char *v;

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	v = strstr(buf, "cuda_");
	return v ? atoi(v + 5) : 0;
}

static void driver(struct arch_driver *d, const char *text)
{
	char err[CD_ERRMSG];

	assert_int_equal(arch_driver_from_text(text, d, err), CD_OK);
}

static bool judged_fails(const struct runtime_need *n, const char *drv)
{
	struct arch_target t;
	struct report r;
	struct driver_need_verdict v;
	bool fails;

	arch_target_init(&t);
	driver(&t.driver, drv);
	v = driver_need_verdict(n, &t.driver);
	fails = v.fails;
	assert_int_equal(report_init(&r, "arch"), CD_OK);
	assert_int_equal(driver_need_finding(&r, "k_exe", n, &t, &v), CD_OK);
	assert_int_equal(report_has_finding(&r, "runtime-newer-than-driver"), fails);
	if (fails) {
		const struct finding *f = report_find(&r, "runtime-newer-than-driver");

		assert_non_null(strstr(f->title, "error 35"));
	}
	report_free(&r);
	return fails;
}

static void need_of(const char *name, struct runtime_need *n, bool is_static)
{
	struct mapped_file mf;
	int major = fixture_cuda_major();

	MAP_FIXTURE_OR_SKIP("k_exe", &mf);
	file_unmap(&mf);
	{
		char path[512], err[CD_ERRMSG];

		snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, name);
		assert_int_equal(file_map(path, &mf, err), CD_OK);
	}
	runtime_need_of(mf.data, mf.size, n);
	file_unmap(&mf);
	assert_true(n->known);
	assert_int_equal(n->is_static, is_static);
	assert_int_equal(n->cuda.major, major);
	assert_non_null(strstr(n->how, is_static ? "static CUDA runtime" : "NEEDED libcudart.so."));
	assert_true(n->min_driver.major >= 400);
}

/* a driver one branch below the family's floor, and the floor itself */
static void judge_around_floor(const struct runtime_need *n)
{
	char below[32], floor[32];
	const struct kb_driver_branch *b;
	struct version fam = { n->cuda.major, 0, 0, 2 };

	snprintf(floor, sizeof(floor), "%s", n->min_driver_text);
	snprintf(below, sizeof(below), "%d.10", n->min_driver.major - 10);
	assert_true(judged_fails(n, below));
	assert_false(judged_fails(n, floor));
	/* a CUDA version: the previous major fails, the runtime's own passes */
	snprintf(below, sizeof(below), "%d.0", n->cuda.major - 1);
	assert_true(judged_fails(n, below));
	snprintf(floor, sizeof(floor), "%d.0", n->cuda.major);
	assert_false(judged_fails(n, floor));
	b = kb_driver_branch_for_cuda(&fam);
	assert_non_null(b);
	assert_int_equal(n->branch, b->branch);
}

static void dynamic_runtime(void **state)
{
	struct runtime_need n;

	(void)state;
	need_of("k_exe", &n, false);
	judge_around_floor(&n);
}

static void static_runtime(void **state)
{
	struct runtime_need n;

	(void)state;
	need_of("k_exe_static", &n, true);
	judge_around_floor(&n);
}

/* a cubin or fatbin has no runtime of its own: nothing to judge */
static void no_runtime(void **state)
{
	struct mapped_file mf;
	struct runtime_need n;

	(void)state;
	MAP_FIXTURE_OR_SKIP("k_sm90.fatbin", &mf);
	runtime_need_of(mf.data, mf.size, &n);
	file_unmap(&mf);
	assert_false(n.known);
}

static void gpu_newer_than_branch(void **state)
{
	struct arch_target t;
	struct arch_driver d;
	struct report r;
	struct driver_gpu_verdict v;
	char err[CD_ERRMSG];
	bool fails;

	(void)state;
	arch_target_init(&t);
	assert_int_equal(arch_target_gpu_option(&t, "sm_120", err), CD_OK);
	assert_int_equal(arch_target_gpu_option(&t, "sm_86", err), CD_OK);
	driver(&d, "535.104");
	assert_int_equal(report_init(&r, "arch"), CD_OK);
	v = driver_gpu_verdict(&t.gpus[0], &d);
	fails = v.fails;
	assert_int_equal(driver_gpu_finding(&r, &t.gpus[0], &d, &v), CD_OK);
	assert_true(fails);
	v = driver_gpu_verdict(&t.gpus[1], &d);
	fails = v.fails;
	assert_int_equal(driver_gpu_finding(&r, &t.gpus[1], &d, &v), CD_OK);
	assert_false(fails);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].id, "gpu-newer-than-driver");
	report_free(&r);
	driver(&d, "570.26");
	assert_int_equal(report_init(&r, "arch"), CD_OK);
	v = driver_gpu_verdict(&t.gpus[0], &d);
	fails = v.fails;
	assert_int_equal(driver_gpu_finding(&r, &t.gpus[0], &d, &v), CD_OK);
	assert_false(fails);
	report_free(&r);
}

static void driver_text_is_checked(void **state)
{
	static const char *const bad[] = { "1.2.3.4.5", "abc", "1.2", "12.4x", "550..54", "", "-1" };
	static const char *const good[] = { "535.104", "550.54.14", "12.4", "13.0", "12.4.1" };
	struct arch_driver d;
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(arch_driver_from_text(bad[i], &d, err), CD_EUSAGE);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(arch_driver_from_text(good[i], &d, err), CD_OK);
}

/* the command: a static CUDA 13 program judged on an RTX 3060 with R535 is an error (exit 1) */
static void arch_command(void **state)
{
	struct mapped_file mf;
	struct run_result rr;
	char arg[512];

	(void)state;
	MAP_FIXTURE_OR_SKIP("k_exe_static", &mf);
	file_unmap(&mf);
	if (fixture_cuda_major() < 13) {
		fprintf(stderr, "skipping: fixtures built by CUDA %d; the R535 case needs CUDA 13\n", fixture_cuda_major());
		skip();
	}
	snprintf(arg, sizeof(arg), "%s/k_exe_static", ARCH_FIXTURES);
	assert_int_equal(testlib_run((const char *const[]){ CUDOCTOR_BINARY, "arch", "--gpu", "RTX 3060", "--driver",
							 "535.104", arg, NULL },
				     NULL, NULL, &rr),
			 0);
	assert_int_equal(rr.status, 1);
	assert_non_null(strstr(rr.out, "runtime-newer-than-driver"));
	assert_non_null(strstr(rr.out, "R580"));
	run_result_free(&rr);
	assert_int_equal(testlib_run((const char *const[]){ CUDOCTOR_BINARY, "arch", "--gpu", "RTX 3060", "--driver",
							 "1.2.3.4.5", arg, NULL },
				     NULL, NULL, &rr),
			 0);
	assert_int_equal(rr.status, 2);
	run_result_free(&rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dynamic_runtime),	  cmocka_unit_test(static_runtime),
		cmocka_unit_test(no_runtime),		  cmocka_unit_test(gpu_newer_than_branch),
		cmocka_unit_test(driver_text_is_checked), cmocka_unit_test(arch_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
