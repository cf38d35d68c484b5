/* The front door: global options, help, version, unknown commands and their exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "testlib.h"

static struct run_result run(const char *a1, const char *a2)
{
	const char *argv[] = { CUDOCTOR_BINARY, a1, a2, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static struct run_result runv(const char *const *argv)
{
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

#define RUN(...) runv((const char *const[]){ CUDOCTOR_BINARY, __VA_ARGS__, NULL })

static void test_version(void **state)
{
	struct run_result r = run("--version", NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "cudoctor ", 9) == 0);
	run_result_free(&r);
}

static void test_help_lists_exit_codes(void **state)
{
	struct run_result r = run("--help", NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: cudoctor"));
	assert_non_null(strstr(r.out, "exit status:\n  0  no finding of severity error"));
	run_result_free(&r);
}

static void test_unknown_command_is_usage_error(void **state)
{
	struct run_result r = run("frobnicate", NULL);

	(void)state;
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "cudoctor: unknown command 'frobnicate'\nTry 'cudoctor --help'.\n");
	assert_string_equal(r.out, "");
	run_result_free(&r);
}

static void test_bad_color_is_usage_error(void **state)
{
	struct run_result r = run("--color=sometimes", "--version");

	(void)state;
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--color must be auto, always or never"));
	run_result_free(&r);
}

/* global options anywhere, with either spelling of a value */
static void test_global_options_anywhere(void **state)
{
	struct run_result a = RUN("kb", "gpu", "H200", "--json");
	struct run_result b = RUN("--color", "never", "-v", "kb", "gpu", "H200");
	struct run_result c = RUN("kb", "--color=always", "gpu", "H200");

	(void)state;
	assert_int_equal(a.status, 0);
	assert_true(strncmp(a.out, "{", 1) == 0);
	assert_int_equal(b.status, 0);
	assert_non_null(strstr(b.out, "H200"));
	assert_int_equal(c.status, 0);
	assert_non_null(strstr(c.out, "\033["));
	run_result_free(&a);
	run_result_free(&b);
	run_result_free(&c);
}

static void expect_usage(struct run_result r, const char *err)
{
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, err);
	assert_string_equal(r.out, "");
	run_result_free(&r);
}

/* one line naming what was wrong, then where to look; never the whole help */
static void test_usage_errors_are_two_lines(void **state)
{
	(void)state;
	expect_usage(RUN("--bogus"), "cudoctor: unknown option '--bogus'\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("gencode", "--bogus"),
		     "cudoctor gencode: unknown option '--bogus'\nTry 'cudoctor gencode --help'.\n");
	expect_usage(RUN("gencode", "--gpu"),
		     "cudoctor gencode: option '--gpu' needs a value (SPEC)\nTry 'cudoctor gencode --help'.\n");
	expect_usage(RUN("--json", "kb", "gpu", "H200", "--markdown"),
		     "cudoctor kb: options '--json' and '--markdown' exclude each other\nTry 'cudoctor kb --help'.\n");
	expect_usage(RUN("-qv", "kb", "gpu", "H200"),
		     "cudoctor: options '--quiet' and '--verbose' exclude each other\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("mem", "estimate", "--params", "7B", "--gpu", "H100", "--gpu-memory", "80GiB"),
		     "cudoctor mem: options '--gpu' and '--gpu-memory' exclude each other\nTry 'cudoctor mem --help'.\n");
	expect_usage(RUN("mem", "frobnicate"),
		     "cudoctor mem: unknown subcommand 'frobnicate'\nTry 'cudoctor mem --help'.\n");
}

static void test_help_command_is_command_help(void **state)
{
	struct run_result a = RUN("help", "gencode");
	struct run_result b = RUN("gencode", "--help");
	struct run_result c = RUN("help", "mem", "estimate");

	(void)state;
	assert_int_equal(a.status, 0);
	assert_string_equal(a.out, b.out);
	assert_non_null(strstr(a.out, "  -g, --gpu SPEC"));
	assert_non_null(strstr(c.out, "usage: cudoctor mem estimate FILE|DIR"));
	assert_non_null(strstr(c.out, "--gpu-memory SIZE"));
	run_result_free(&a);
	run_result_free(&b);
	run_result_free(&c);
}

/* `help help` and `help --help` are the overview, not "unknown command" */
static void test_help_of_help(void **state)
{
	struct run_result top = RUN("--help");
	struct run_result a = RUN("help", "help");
	struct run_result b = RUN("help", "--help");

	(void)state;
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_string_equal(a.out, top.out);
	assert_string_equal(b.out, top.out);
	assert_string_equal(a.err, "");
	run_result_free(&top);
	run_result_free(&a);
	run_result_free(&b);
}

/* Help prose keeps its layout when wrapped: a table line continues under its second
 * column, and no line of any command's help is wider than 80 columns (not a terminal) */
static void test_help_wraps_under_its_columns(void **state)
{
	static const char *const cmds[] = { "doctor", "devices", "check", "topo", "arch", "explain", "gencode", "plan",
					    "diff", "kb", "mem", "lab", "completion", NULL };
	struct run_result d = RUN("doctor", "--help");

	(void)state;
	assert_non_null(strstr(d.out, "  Driver     the libcuda loaded and how, its version, the CUDA version it\n"
				      "             supports, the kernel module's version\n"));
	run_result_free(&d);
	for (const char *const *c = cmds; *c; c++) {
		struct run_result h = RUN("help", *c);
		size_t col = 0;

		assert_int_equal(h.status, 0);
		for (const char *s = h.out; *s; s++) {
			col = *s == '\n' ? 0 : col + (((unsigned char)*s & 0xc0) != 0x80);
			if (col > 80)
				fail_msg("cudoctor help %s: a line over 80 columns", *c);
		}
		run_result_free(&h);
	}
}

/* kb -q prints the answer alone, one line per row it shows, not nothing */
static void test_kb_quiet_answers(void **state)
{
	struct run_result g = RUN("-q", "kb", "gpu", "H200");
	struct run_result t = RUN("kb", "toolkit", "13.0", "-q");
	struct run_result e = RUN("-q", "kb", "error", "209");

	(void)state;
	assert_int_equal(g.status, 0);
	assert_string_equal(g.out, "NVIDIA H200: 9.0 (sm_90), Hopper\n");
	assert_string_equal(t.out, "CUDA 13.0: minimum Linux driver 580.65.06\n");
	assert_non_null(strstr(e.out, "cudaErrorNoKernelImageForDevice = 209: no kernel image is available for "
				      "execution on the device\n"));
	run_result_free(&g);
	run_result_free(&t);
	run_result_free(&e);
}

/* kb driver, torch and framework -q: the branch and its CUDA, a line per build */
static void test_kb_quiet_driver_and_builds(void **state)
{
	struct run_result d = RUN("-q", "kb", "driver", "580.65.06");
	struct run_result n = RUN("-q", "kb", "driver", "999.1");
	struct run_result t = RUN("-q", "kb", "torch", "2.8.0");
	struct run_result f = RUN("kb", "framework", "ollama", "-q");

	(void)state;
	assert_int_equal(d.status, 0);
	assert_string_equal(d.out, "driver 580.65.06: R580, CUDA 13.0\n");
	assert_int_equal(n.status, 0);
	assert_true(strncmp(n.out, "driver 999.1: R", 15) == 0);
	assert_non_null(strstr(n.out, " (the nearest older branch listed), CUDA at least "));
	assert_string_equal(t.out, "torch 2.8.0 cu126: CUDA 12.6 (stable), sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90\n"
				   "torch 2.8.0 cu128: CUDA 12.8 (stable), sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120\n"
				   "torch 2.8.0 cu129: CUDA 12.9 (experimental), sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 "
				   "+ PTX compute_120\n");
	/* Ollama bundles its CUDA: the line says what it needs, not "CUDA -" */
	assert_string_equal(f.out, "ollama current cuda: compute capability 5.0 .. 6.2, min driver 570\n"
				   "ollama current cuda: compute capability 7.0 and newer, min driver 550\n");
	run_result_free(&d);
	run_result_free(&n);
	run_result_free(&t);
	run_result_free(&f);
}

/* every --gpu counts: two GPUs, two rows of the fit table */
static void test_every_gpu_is_used(void **state)
{
	struct run_result r = RUN("mem", "estimate", "--params", "7B", "-g", "H100 SXM", "--gpu=H200", "--json");

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "H100"));
	assert_non_null(strstr(r.out, "H200"));
	run_result_free(&r);
}

/* Why: "`cudoctor docter` -> no did-you-mean (GPU names have one)". A command, a subcommand or
 * an option a slip of the keyboard away from one names it, in the one line a usage error
 * gets; a word far from every name gets no guess. */
static void test_cudoctor_docter_gives_no_did_you_mean(void **state)
{
	(void)state;
	expect_usage(RUN("docter"), "cudoctor: unknown command 'docter'; did you mean 'doctor'?\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("dcotor"), "cudoctor: unknown command 'dcotor'; did you mean 'doctor'?\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("explian"), "cudoctor: unknown command 'explian'; did you mean 'explain'?\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("--jsn", "doctor"), "cudoctor: unknown option '--jsn'; did you mean '--json'?\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("check", "--no-lod"),
		     "cudoctor check: unknown option '--no-lod'; did you mean '--no-load'?\nTry 'cudoctor check --help'.\n");
	expect_usage(RUN("mem", "estimat"),
		     "cudoctor mem: unknown subcommand 'estimat'; did you mean 'estimate'?\nTry 'cudoctor mem --help'.\n");
	/* a command's own option is nearer than a global one */
	expect_usage(RUN("arch", "--cuobjdmp", "x"),
		     "cudoctor arch: unknown option '--cuobjdmp'; did you mean '--cuobjdump'?\nTry 'cudoctor arch --help'.\n");
	/* --format where a command has none: the options every command has */
	expect_usage(RUN("explain", "--format", "json", "log.txt"),
		     "cudoctor explain: unknown option '--format'; --json or --markdown choose any command's output "
		     "(--format, after the command, is doctor's, devices', check's and fleet's, where it also takes "
		     "prometheus)\nTry 'cudoctor explain --help'.\n");
	expect_usage(RUN("frobnicate"), "cudoctor: unknown command 'frobnicate'\nTry 'cudoctor --help'.\n");
	expect_usage(RUN("gencode", "--bogus"),
		     "cudoctor gencode: unknown option '--bogus'\nTry 'cudoctor gencode --help'.\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_help_lists_exit_codes),
		cmocka_unit_test(test_unknown_command_is_usage_error),
		cmocka_unit_test(test_bad_color_is_usage_error),
		cmocka_unit_test(test_global_options_anywhere),
		cmocka_unit_test(test_usage_errors_are_two_lines),
		cmocka_unit_test(test_help_command_is_command_help),
		cmocka_unit_test(test_help_of_help),
		cmocka_unit_test(test_kb_quiet_answers),
		cmocka_unit_test(test_kb_quiet_driver_and_builds),
		cmocka_unit_test(test_help_wraps_under_its_columns),
		cmocka_unit_test(test_every_gpu_is_used),
		cmocka_unit_test(test_cudoctor_docter_gives_no_did_you_mean),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
