/* One situation, one fix: the fix engine (rules/fix.h) against plan over a matrix of GPUs,
 * drivers and platforms, arch's lines for NVIDIA libraries, plan without a driver, the
 * catalogue's rows filled by the engine, and no placeholder in any fix line explain prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "rules/catalogue.h"
#include "rules/fix.h"
#include "testlib.h"
#include "util/err.h"

static const struct {
	const char *name;
	unsigned cc;
} gpus[] = {
	{ "NVIDIA GeForce GTX 750 Ti", 50 }, { "NVIDIA GeForce GTX 1080", 61 }, { "Tesla V100-SXM2-16GB", 70 },
	{ "NVIDIA GeForce RTX 2080 Ti", 75 }, { "NVIDIA A100-SXM4-40GB", 80 },   { "NVIDIA GeForce RTX 3090", 86 },
	{ "NVIDIA GeForce RTX 4090", 89 },   { "NVIDIA H100 80GB HBM3", 90 },     { "NVIDIA B200", 100 },
	{ "NVIDIA GeForce RTX 5090", 120 },
};
static const char *const drivers[] = { NULL, "470", "535", "570", "580" };

static char *run_out(const char *const argv[])
{
	struct run_result res = { 0 };
	char *out;

	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	out = res.out;
	res.out = NULL;
	run_result_free(&res);
	return out;
}

static void torch_situation(struct fix_situation *s, size_t g, const char *driver, bool windows)
{
	fix_situation_init(s);
	assert_int_equal(fix_add_gpu(s, gpus[g].cc, gpus[g].name, FIX_SRC_GIVEN), CD_OK);
	if (driver)
		assert_int_equal(fix_set_driver(s, driver, FIX_SRC_GIVEN), CD_OK);
	s->framework.fw = PLAN_FW_TORCH;
	s->framework.src = FIX_SRC_GIVEN;
	s->binary.kind = FIX_BIN_FRAMEWORK;
	s->platform.os = windows ? FIX_OS_WINDOWS : FIX_OS_LINUX;
	if (windows)
		snprintf(s->platform.pip, sizeof s->platform.pip, "python -m pip");
}

/* 10 GPUs x 5 drivers x 2 platforms: the engine's torch build is the one plan -q names, its
 * install line is plan's (with the platform's pip), and a missing driver is asked for. */
static void matrix_engine_agrees_with_plan(void **state)
{
	size_t situations = 0;

	(void)state;
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++)
		for (size_t d = 0; d < sizeof drivers / sizeof drivers[0]; d++)
			for (int w = 0; w < 2; w++) {
				const char *argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", gpus[g].name, "--os",
						       w ? "windows" : "linux", drivers[d] ? "--driver" : NULL,
						       drivers[d], NULL };
				struct fix_situation s;
				struct fix_lines l;
				char err[CD_ERRMSG], want[96];
				char *out;

				torch_situation(&s, g, drivers[d], w);
				assert_int_equal(fix_plan(&s, FIX_INSTALL, &l, err), CD_OK);
				out = run_out(argv);
				situations++;
				if (!l.torch) {
					assert_non_null(strstr(out, "torch: none"));
					free(out);
					continue;
				}
				snprintf(want, sizeof want, "torch %s %s", l.torch->release, l.torch->variant);
				if (!strstr(out, want))
					fail_msg("%s driver %s: engine says %s, plan says\n%s", gpus[g].name,
						 drivers[d] ? drivers[d] : "none", want, out);
				for (size_t i = 0; i < l.n; i++)
					if (l.line[i].kind == FIX_LINE_INSTALL) {
						/* the same line, less the --force-reinstall a fix adds */
						assert_non_null(strstr(l.line[i].cmd, w ? "python -m pip install" : "pip install"));
						if (strstr(out, "pip install") && !strstr(out, l.torch->index_url))
							fail_msg("%s driver %s: %s not in\n%s", gpus[g].name,
								 drivers[d] ? drivers[d] : "none", l.torch->index_url, out);
					}
				if (!drivers[d])
					assert_string_equal(l.missing, "driver");
				free(out);
			}
	assert_true(situations >= 40);
}

/* explain and plan disagreed on a CUDA 11.4 driver: the engine, fed the text's driver, names
 * what plan names for R470, and the row's lines hold no cuXYZ. */
static void why_explain_and_plan_disagree(void **state)
{
	static const char *const argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "RTX 3090", "--driver", "470", NULL };
	struct version cuda = { .major = 11, .minor = 4, .parts = 2 };
	struct fix_situation s;
	struct fix_lines l;
	struct finding_vars v;
	struct report r;
	const struct finding *f;
	char err[CD_ERRMSG], want[96], *out;

	(void)state;
	fix_situation_init(&s);
	fix_add_gpu(&s, 86, "NVIDIA GeForce RTX 3090", FIX_SRC_TEXT);
	fix_set_driver_cuda(&s, &cuda, FIX_SRC_TEXT);
	s.framework.fw = PLAN_FW_TORCH;
	assert_int_equal(fix_plan(&s, FIX_RUNTIME_TOO_NEW, &l, err), CD_OK);
	assert_non_null(l.torch);
	out = run_out(argv);
	snprintf(want, sizeof want, "torch %s %s", l.torch->release, l.torch->variant);
	assert_non_null(strstr(out, want));
	assert_string_equal(want, "torch 2.7.1 cu118");
	free(out);

	assert_int_equal(report_init(&r, "test"), CD_OK);
	finding_vars_init(&v);
	fix_vars(&l, &v);
	finding_flag(&v, "fixed", true);
	finding_var(&v, "driver_cuda", "11.4");
	f = finding_make(&r, SEV_CATALOGUE, "runtime-newer-than-driver", "torch", &v);
	assert_non_null(f);
	assert_non_null(strstr(f->fix[0], "torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118"));
	for (size_t i = 0; i < f->n_fix; i++)
		assert_null(strstr(f->fix[i], "XYZ"));
	report_free(&r);
}

/* The 5090's "no kernel image" from a torch wheel: the install line first, no rebuild line. */
static void why_5090_install_line_first(void **state)
{
	struct fix_situation s;
	struct fix_lines l;
	struct finding_vars v;
	struct report r;
	const struct finding *f;
	char err[CD_ERRMSG];

	(void)state;
	torch_situation(&s, 9, NULL, false);
	assert_int_equal(fix_plan(&s, FIX_NO_IMAGE, &l, err), CD_OK);
	assert_int_equal(report_init(&r, "test"), CD_OK);
	finding_vars_init(&v);
	fix_vars(&l, &v);
	finding_flag(&v, "fixed", true);
	finding_flag(&v, "replace", true);
	finding_flag(&v, "torch", true);
	finding_flag(&v, "force_jit", false);
	finding_var(&v, "sm", "120");
	f = finding_make(&r, SEV_CATALOGUE, "no-kernel-image", "torch", &v);
	assert_non_null(f);
	assert_true(f->n_fix >= 1);
	if (!strstr(f->fix[0], "torch==2.11.0"))
		fail_msg("first fix: %s", f->fix[0]);
	assert_non_null(strstr(f->fix[0], "pip install --force-reinstall torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128"));
	assert_non_null(strstr(f->fix[0], "needs R570+"));
	for (size_t i = 0; i < f->n_fix; i++) {
		assert_null(strstr(f->fix[i], "gencode"));
		assert_null(strstr(f->fix[i], "nvcc"));
		assert_null(strstr(f->fix[i], "cuXYZ"));
	}
	report_free(&r);
}

/* arch on a GTX 1080: no CUDA 13 wheel carries sm_61, and a toolkit's file is not pip's. */
static void why_arch_impossible_fixes(void **state)
{
	static const char lib13[] = "/usr/local/cuda/lib64/libcublas.so.13";
	struct fix_situation s;
	struct fix_lines l;
	char err[CD_ERRMSG];

	(void)state;
	fix_situation_init(&s);
	fix_add_gpu(&s, 61, "NVIDIA GeForce GTX 1080", FIX_SRC_GIVEN);
	s.binary.kind = FIX_BIN_NV_WHEEL;
	s.binary.cuda_major = 13;
	snprintf(s.binary.wheel, sizeof s.binary.wheel, "nvidia-cublas");
	assert_int_equal(fix_plan(&s, FIX_NO_IMAGE, &l, err), CD_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.line[0].cmd, "pip install -U 'nvidia-cublas-cu12'");
	assert_non_null(strstr(l.line[0].why, "CUDA 12.9 is the last toolkit for sm_61"));
	s.binary.kind = FIX_BIN_NV_TOOLKIT;
	assert_int_equal(fix_plan(&s, FIX_NO_IMAGE, &l, err), CD_OK);
	assert_int_equal(l.n, 1);
	assert_null(strstr(l.line[0].why, "pip"));
	assert_non_null(strstr(l.line[0].why, "cuda-toolkit-12-9"));
	/* a CUDA 13 wheel on a GPU CUDA 13 builds stays -cu13 */
	s.gpu[0].cc = 90;
	s.binary.kind = FIX_BIN_NV_WHEEL;
	assert_int_equal(fix_plan(&s, FIX_NO_IMAGE, &l, err), CD_OK);
	assert_string_equal(l.line[0].cmd, "pip install -U 'nvidia-cublas-cu13'");

	if (access(lib13, R_OK) == 0) {
		const char *argv[] = { CUDOCTOR_BINARY, "arch", "--gpu", "1080", lib13, NULL };
		char *out = run_out(argv);

		assert_null(strstr(out, "-cu13"));
		assert_null(strstr(out, "pip install"));
		assert_non_null(strstr(out, "CUDA 12.9 is the last toolkit for sm_61"));
		free(out);
	}
}

/* plan without a driver: the build for the oldest branch first, each line with its branch. */
static void why_plan_without_driver(void **state)
{
	static const char *const argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "RTX 5090", NULL };
	char *out, *lead, *newest;

	(void)state;
	out = run_out(argv);
	lead = strstr(out, "torch 2.11.0 cu128 (needs R570+): pip install torch==2.11.0");
	newest = strstr(out, "newest: torch ");
	assert_non_null(lead);
	assert_non_null(newest);
	assert_true(lead < newest);
	assert_non_null(strstr(newest, "(needs R580+)"));
	free(out);
}

/* No fix line explain writes over the whole corpus of real error texts holds a placeholder. */
static void no_placeholder_in_explain_fixes(void **state)
{
	static const char *const bad[] = { "cuXYZ", "XYZ", "YOUR_GPU", "sm_XY " };
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "--offline", "-", NULL };
	char dir[] = CUDOCTOR_SOURCE_DIR "/tests/explain";
	struct run_result res = { 0 };
	char *all = NULL, *line;
	size_t len = 0, fixes = 0;
	struct dirent *e;
	DIR *d;

	(void)state;
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d))) {
		char path[1024];
		FILE *fp;
		long n;

		if (!strstr(e->d_name, ".txt"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		assert_non_null(fp = fopen(path, "rb"));
		fseek(fp, 0, SEEK_END);
		n = ftell(fp);
		rewind(fp);
		assert_non_null(all = realloc(all, len + (size_t)n + 2));
		len += fread(all + len, 1, (size_t)n, fp);
		all[len++] = '\n';
		all[len] = '\0';
		fclose(fp);
	}
	closedir(d);
	assert_int_equal(testlib_run(argv, NULL, all, &res), 0);
	for (line = strstr(res.out, "fix: "); line; line = strstr(line + 1, "fix: ")) {
		size_t n = strcspn(line, "\n");

		fixes++;
		for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
			char *hit = strstr(line, bad[b]);

			if (hit && (size_t)(hit - line) < n)
				fail_msg("placeholder %s in: %.*s", bad[b], (int)n, line);
		}
	}
	assert_true(fixes > 20);
	run_result_free(&res);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matrix_engine_agrees_with_plan),
		cmocka_unit_test(why_explain_and_plan_disagree),
		cmocka_unit_test(why_5090_install_line_first),
		cmocka_unit_test(why_arch_impossible_fixes),
		cmocka_unit_test(why_plan_without_driver),
		cmocka_unit_test(no_placeholder_in_explain_fixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
