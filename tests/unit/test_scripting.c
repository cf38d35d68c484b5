/* The scripting contract, through the built cudoctor: under -q, --json and gencode's --format
 * stdout holds the answer or nothing, and everything else (findings, their fixes) goes to
 * stderr; -q is a line per answer and never hides an error finding; options stand anywhere,
 * and after `--` every word is text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

static struct run_result runv(const char *const *argv)
{
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

#define RUN(...) runv((const char *const[]){ CUDOCTOR_BINARY, __VA_ARGS__, NULL })

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* nvcc $(cudoctor gencode --gpu GPU --format nvcc) -c k.cu: with a GPU the toolkit builds,
 * the flags and an object; with one it dropped (a GTX 1080 under CUDA 13), no word on
 * stdout, so nvcc never sees a fix line as an option, and cudoctor's finding on stderr. */
static void nvcc_takes_gencode_or_nothing(void **state)
{
#ifdef CUDOCTOR_NVCC
	static const char script[] =
		"d=$(mktemp -d) && cd \"$d\" && printf '__global__ void k(float *p) { p[0] = 1; }\\n' > k.cu && "
		"flags=$(\"$CUDOCTOR\" gencode --toolkit \"$TK\" --gpu \"$GPU\" --format nvcc); rc=$?; "
		"echo \"rc=$rc flags=[$flags]\"; \"$NVCC\" $flags -c k.cu -o k.o && echo built; rm -rf \"$d\"";
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result r;
	/* this machine's nvcc decides which toolkit the flags are for */
	const char *ok_env[] = { "CUDOCTOR=" CUDOCTOR_BINARY, "NVCC=" CUDOCTOR_NVCC, "GPU=H200", "TK=13.0", NULL };
	const char *bad_env[] = { "CUDOCTOR=" CUDOCTOR_BINARY, "NVCC=" CUDOCTOR_NVCC, "GPU=gtx1080", "TK=13.0", NULL };

	(void)state;
	assert_int_equal(testlib_run(argv, ok_env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "rc=0 flags=[-gencode arch=compute_90,code=sm_90 "));
	assert_non_null(strstr(r.out, "built"));
	run_result_free(&r);
	assert_int_equal(testlib_run(argv, bad_env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "rc=1 flags=[]"));
	assert_non_null(strstr(r.out, "built")); /* nvcc got no flags: its default arch */
	assert_non_null(strstr(r.err, "error arch-dropped-by-toolkit: CUDA 13.0 no longer builds sm_61"));
	assert_non_null(strstr(r.err, "fix: build with CUDA 8.0-12.9"));
	assert_null(strstr(r.err, "Unknown option"));
	run_result_free(&r);
#else
	(void)state;
	skip();
#endif
}

/* every scripting form of gencode: the line alone, or nothing and the finding on stderr */
static void gencode_forms(void **state)
{
	static const char *const forms[] = { "nvcc", "cmake", "torch" };
	struct run_result r;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		r = RUN("gencode", "--toolkit", "12.8", "--gpu", "H200", "--format", forms[i]);
		assert_int_equal(r.status, 0);
		assert_int_equal(lines(r.out), 1);
		assert_string_equal(r.err, "");
		run_result_free(&r);
		r = RUN("gencode", "--toolkit", "13.0", "--gpu", "gtx1080", "--format", forms[i]);
		assert_int_equal(r.status, 1);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, "arch-dropped-by-toolkit"));
		run_result_free(&r);
	}
	/* -q: the flags, or one line per finding on stderr, never a block */
	r = RUN("-q", "gencode", "--toolkit", "13.0", "--gpu", "gtx1080");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_int_equal(lines(r.err), 1);
	assert_true(strncmp(r.err, "error arch-dropped-by-toolkit: CUDA 13.0 no longer builds sm_61 [", 65) == 0);
	run_result_free(&r);
	r = RUN("gencode", "--toolkit", "12.8", "--gpu", "H200", "--gpu", "RTX 4090", "-q");
	assert_int_equal(r.status, 0);
	assert_int_equal(lines(r.out), 1);
	run_result_free(&r);
}

/* arch -q: the verdict line on stdout, the error that sets exit 1 on stderr */
static void arch_quiet_keeps_the_error(void **state)
{
#ifdef CUDOCTOR_NVCC
	struct run_result r = RUN("-q", "arch", "--gpu", "sm_70", CUDOCTOR_FIXTURES_DIR "/arch/k_sm90.fatbin");

	(void)state;
	assert_int_equal(r.status, 1);
	assert_int_equal(lines(r.out), 1);
	assert_non_null(strstr(r.out, "k_sm90.fatbin: --gpu sm_70: no-image"));
	assert_int_equal(lines(r.err), 1);
	assert_true(strncmp(r.err, "error no-kernel-image: ", 23) == 0);
	run_result_free(&r);
#else
	(void)state;
	skip();
#endif
}

/* explain: options after the text, `--` before text that looks like an option, a pasted
 * line that starts with '-', and -q as a line per finding */
static void explain_options_anywhere(void **state)
{
	struct run_result r;

	(void)state;
	r = RUN("explain", "CUDA error: no kernel image is available for execution on the device", "--offline", "-q");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "error no-kernel-image: No kernel image for this GPU's compute capability (error 209) "
				   "[text, line 1]\n");
	assert_string_equal(r.err, "");
	run_result_free(&r);

	r = RUN("--json", "explain", "CUDA error 209", "--offline");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "\"offline\": true"));
	run_result_free(&r);

	/* after `--`, --gpu is text: it is in the matched line, and no option took it */
	r = RUN("--json", "explain", "--offline", "--", "--gpu", "CUDA error 209");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "--gpu CUDA error 209"));
	run_result_free(&r);

	r = RUN("explain", "-q", "--offline", "-> CUDA driver version is insufficient for CUDA runtime version");
	assert_int_equal(r.status, 1);
	assert_int_equal(lines(r.out), 1);
	assert_true(strncmp(r.out, "error runtime-newer-than-driver: ", 33) == 0);
	run_result_free(&r);

	/* a typo is still a usage error, not text */
	r = RUN("explain", "CUDA error 209", "--ofline");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "unknown option '--ofline'"));
	run_result_free(&r);
}

/* --json is the answer whole on stdout, whatever the findings; stderr stays empty */
static void json_is_stdout_only(void **state)
{
	struct run_result r = RUN("--json", "gencode", "--toolkit", "13.0", "--gpu", "gtx1080", "--format", "nvcc");

	(void)state;
	assert_int_equal(r.status, 1);
	assert_true(strncmp(r.out, "{", 1) == 0);
	assert_non_null(strstr(r.out, "arch-dropped-by-toolkit"));
	assert_string_equal(r.err, "");
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nvcc_takes_gencode_or_nothing),
		cmocka_unit_test(gencode_forms),
		cmocka_unit_test(arch_quiet_keeps_the_error),
		cmocka_unit_test(explain_options_anywhere),
		cmocka_unit_test(json_is_stdout_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
