/* CUDA error numbers across the renumbering of CUDA 10.1: the pre-10.1 table
 * (kb/error_codes_pre101.tsv) and explain's rules for reading a number with the release in
 * mind (src/explain/eras.c). The corpus texts in tests/explain/720-737 are the real inputs;
 * these are the edges of each rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explain/evidence.h"
#include "explain/eras.h"
#include "explain/explain.h"
#include "kb/old_codes.h"
#include "util/err.h"

/* ---- the table ---- */

static void numbers_before_10_1(void **state)
{
	/* the old numbers reports print, and what CUDA 13 numbers the same errors */
	static const struct { int old; const char *name; int now; } rows[] = {
		{ 48, "cudaErrorNoKernelImageForDevice", 209 }, { 77, "cudaErrorIllegalAddress", 700 },
		{ 8, "cudaErrorInvalidDeviceFunction", 98 },    { 11, "cudaErrorInvalidValue", 1 },
		{ 10, "cudaErrorInvalidDevice", 101 },          { 38, "cudaErrorNoDevice", 100 },
		{ 7, "cudaErrorLaunchOutOfResources", 701 },    { 4, "cudaErrorLaunchFailure", 719 },
		{ 59, "cudaErrorAssert", 710 },                 { 30, "cudaErrorUnknown", 999 },
		{ 29, "cudaErrorCudartUnloading", 4 },          { 1, "cudaErrorMissingConfiguration", 52 },
		{ 35, "cudaErrorInsufficientDriver", 35 },      { 46, "cudaErrorDevicesUnavailable", 46 },
		{ 83, "cudaErrorSystemNotReady", 802 },         { 127, "cudaErrorStartupFailure", 127 },
	};
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(kb_old_codes_load(err), CD_OK);
	assert_int_equal(kb_old_code_count(), 83);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct kb_old_code *o = kb_old_code_by_code(rows[i].old);

		assert_non_null(o);
		assert_string_equal(o->error->name, rows[i].name);
		assert_int_equal(o->error->code, rows[i].now);
		assert_ptr_equal(kb_old_code_of(o->error), o);
	}
	/* gaps of the old enum, and codes born in 10.1 or later, have no old number */
	assert_null(kb_old_code_by_code(52));
	assert_null(kb_old_code_by_code(85));
	assert_null(kb_old_code_of(kb_error_by_name("cudaErrorStubLibrary")));
	/* the old text of 46 differs from CUDA 13's and is one explain looks for */
	assert_string_equal(kb_old_code_by_code(46)->string, "all CUDA-capable devices are busy or unavailable");
	assert_true(kb_old_code_by_code(46)->string_seen);
	assert_false(kb_old_code_by_code(12)->string_seen);
}

static int parse(const char *text, char *err)
{
	struct kb_old_codes o;
	int rc = kb_old_codes_parse((const unsigned char *)text, strlen(text), &o, err);

	if (rc == CD_OK)
		kb_old_codes_free(&o);
	return rc;
}

#define HDR "code\tname\tstring\tstring_source\treleases\tsource\n"

static void bad_tables_are_refused(void **state)
{
	static const struct { const char *text, *why; } bad[] = {
		{ HDR "48\tcudaErrorNoKernelImageForDevice\tno kernel image\t13-text\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: string: 13-text, but not the CUDA 13 text of this name" },
		{ HDR "48\tcudaErrorNoKernelImageForDevice\tno kernel image\treport\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: string: neither the CUDA 13 text nor a wording in error_wordings.tsv" },
		{ HDR "48\tcudaErrorNoSuchThing\tx\t13-text\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: name: not a runtime error errors.tsv has" },
		{ HDR "48\tCUDA_ERROR_NO_BINARY_FOR_GPU\tx\t13-text\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: name: not a runtime error errors.tsv has" },
		{ HDR "4x\tcudaErrorUnknown\tunknown error\t13-text\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: code: expected a positive whole number" },
		{ HDR "30\tcudaErrorUnknown\tunknown error\t13-text\t9.0-10.0\tX\n"
		      "30\tcudaErrorNoDevice\tno CUDA-capable device is detected\t13-text\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:3: code: listed twice" },
		{ HDR "30\tcudaErrorUnknown\tunknown error\tguess\t9.0-10.0\tX\n",
		  "error_codes_pre101.tsv:2: string_source: expected report or 13-text" },
		{ HDR "30\tcudaErrorUnknown\tunknown error\t13-text\t\tX\n",
		  "error_codes_pre101.tsv:2: releases: empty" },
		{ "code\tname\n30\tcudaErrorUnknown\n", NULL },
	};
	char err[CD_ERRMSG];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(bad[i].text, err), CD_EFORMAT);
		if (bad[i].why)
			assert_string_equal(err, bad[i].why);
		else
			assert_non_null(strstr(err, "error_codes_pre101.tsv"));
	}
	assert_int_equal(parse(HDR "30\tcudaErrorUnknown\tunknown error\t13-text\t9.0-10.0\tX\n", err), CD_OK);
}

/* ---- which release a text names ---- */

static void release_markers(void **state)
{
	static const struct { const char *s; int v; } m[] = {
		{ "cuda 9.2", 92 },
		{ "cuda-9.0/lib64", 90 },
		{ "cuda9.0", 90 },
		{ "cuda version: 10.0 |", 100 },
		{ "cuda runtime version: 9.0.176", 90 },
		{ "cuda used to build pytorch: 9.0", 90 },
		{ "cuda compilation tools, release 9.2, v9.2.148", 92 },
		{ "cuda\\v8.0\\bin\\cudnn64_7.dll", 80 },
		{ "cuda v10.0", 100 },
		{ "libcudart.so.10.0: cannot open shared object file", 100 },
		{ "cudart64_100.dll", 100 },
		{ "cudart64_90.dll", 90 },
		{ "cudart64_12.dll", 120 },
		{ "cuda version: 12.2", 122 },
		{ "cuda capability 7.5", 0 },   /* a GPU's compute capability, not a release */
		{ "cuda error 10.0", 0 },
		{ "cudamalloc 9.0", 0 },
		{ "cuda 9.25", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		int v = eras_marker_release(m[i].s, strlen(m[i].s), NULL);

		if (v != m[i].v)
			fail_msg("\"%s\": %d, expected %d", m[i].s, v, m[i].v);
	}
}

/* the hints the scanner gives: every "cuda" offset and whether "runtime version" is there */
static struct era_hints hints_of(const char *low, uint32_t *at, size_t max)
{
	struct era_hints h = { true, strstr(low, "runtime version") != NULL, at, 0 };

	for (const char *p = low; (p = strstr(p, "cuda")) != NULL && h.n_cuda < max; p++)
		at[h.n_cuda++] = (uint32_t)(p - low);
	return h;
}

/* searched and hinted, the line must say the same */
static bool old_text(const char *low)
{
	struct era_state s = { 0 }, t = { 0 };
	uint32_t at[64];
	struct era_hints h = hints_of(low, at, 64);

	eras_line(&s, low, strlen(low), 1, NULL);
	eras_line(&t, low, strlen(low), 1, &h);
	assert_int_equal(s.old, t.old);
	assert_string_equal(s.marker, t.marker);
	return s.old;
}

static void old_release_lines(void **state)
{
	(void)state;
	assert_true(old_text("  cuda driver version / runtime version          10.0 / 9.0"));
	assert_false(old_text("  cuda driver version / runtime version          11.4 / 11.5"));
	assert_true(old_text("| nvidia-smi 410.48       driver version: 410.48       cuda version: 10.0     |"));
	assert_false(old_text("| nvidia-smi 535.104.05   driver version: 535.104.05   cuda version: 12.2     |"));
	assert_true(old_text("host frame:/usr/local/cuda/lib64/libcudart.so.9.0 (cudafree + 0x1a0)"));
	assert_false(old_text("libcudart.so.12: cannot open shared object file"));
	assert_false(old_text("found gpu0 geforce 820m which is of cuda capability 2.1."));
	assert_false(old_text("nvcuda.dll 9.0"));
}

/* ---- the rules, through the matcher ---- */

static struct explain_result scan(const char *text)
{
	struct explain_result r;
	char err[CD_ERRMSG];

	assert_int_equal(explain_text(text, strlen(text), &r, err), CD_OK);
	return r;
}

static bool evidence_says(const struct explain_match *m, const char *what)
{
	char lines[16][400];
	size_t n = explain_offline_evidence(m, lines, 16);

	for (size_t i = 0; i < n; i++)
		if (strstr(lines[i], what))
			return true;
	return false;
}

static void a_named_error_wins(void **state)
{
	struct explain_result r;

	(void)state;
	r = scan("CUDA error at helper_cuda.h:1113 code=48(cudaErrorNoKernelImageForDevice) \"cudaGetLastError()\"");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "no-kernel-image");
	assert_int_equal(r.m[0].era.how, ERA_NAMED);
	assert_int_equal(r.m[0].code_seen, 48);
	assert_true(evidence_says(&r.m[0], "48: this error's number before CUDA 10.1"));
	explain_result_free(&r);
	/* a number beside the string that is not its old code is not taken for one */
	r = scan("CUDA error 12: an illegal memory access was encountered");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "illegal-address");
	assert_int_equal(r.m[0].era.how, ERA_NONE);
	assert_int_equal(r.m[0].code_seen, -1);
	explain_result_free(&r);
	/* today's number beside today's string: nothing to note */
	r = scan("CUDA error 700: an illegal memory access was encountered");
	assert_int_equal(r.m[0].era.how, ERA_NONE);
	explain_result_free(&r);
}

static void an_old_only_number_gets_its_old_meaning(void **state)
{
	struct explain_result r;

	(void)state;
	r = scan("CUDA error 77");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "illegal-address");
	assert_int_equal(r.m[0].era.how, ERA_OLD_ONLY);
	assert_true(evidence_says(&r.m[0], "no CUDA 13 runtime or driver error has the number 77"));
	explain_result_free(&r);
	r = scan("cudaGetDeviceCount returned 38");
	assert_string_equal(r.m[0].finding, "no-device");
	explain_result_free(&r);
	/* a number kept across the renumbering means the same in both */
	r = scan("cudaGetDeviceCount returned 35");
	assert_string_equal(r.m[0].finding, "runtime-newer-than-driver");
	assert_int_equal(r.m[0].era.how, ERA_NONE);
	explain_result_free(&r);
}

static void a_number_of_both_eras(void **state)
{
	struct explain_result r;

	(void)state;
	/* read as CUDA 13's, the old meaning named as the alternative */
	r = scan("RuntimeError: cuda runtime error (8) at THCTensorMath.cu:26");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "cuda-error");
	assert_string_equal(r.m[0].error->name, "cudaErrorProfilerAlreadyStopped");
	assert_int_equal(r.m[0].era.how, ERA_CURRENT_ALT);
	assert_true(evidence_says(&r.m[0], "before CUDA 10.1 it was cudaErrorInvalidDeviceFunction"));
	explain_result_free(&r);
	/* a CUDA 13-era text keeps the reading */
	r = scan("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
		 "RuntimeError: cuda runtime error (8) at THCTensorMath.cu:26\n");
	assert_string_equal(r.m[0].error->name, "cudaErrorProfilerAlreadyStopped");
	explain_result_free(&r);
	/* the text names an old runtime, even below the error: the old meaning wins */
	r = scan("RuntimeError: cuda runtime error (8) at THCTensorMath.cu:26\n"
		 "some other line\n"
		 "CUDA runtime version: 9.0.176\n");
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "no-kernel-image");
	assert_string_equal(r.m[0].error->name, "cudaErrorInvalidDeviceFunction");
	assert_int_equal(r.m[0].era.how, ERA_OLD_BY_TEXT);
	assert_true(evidence_says(&r.m[0], "(\"cuda runtime version: 9.0\", line 3)"));
	explain_result_free(&r);
	/* 1 at a launch is CUDA 13's oversized block; before 10.1 it was a launch not configured */
	r = scan("CUDA error 1 after kernel<<<1, 2048>>> launch\n");
	assert_string_equal(r.m[0].finding, "launch-out-of-resources");
	explain_result_free(&r);
	r = scan("loaded libcudart.so.9.0\nCUDA error 1 after kernel<<<1, 2048>>> launch\n");
	assert_string_equal(r.m[0].finding, "cuda-error");
	assert_string_equal(r.m[0].error->name, "cudaErrorMissingConfiguration");
	assert_false(r.m[0].invalid_value_launch);
	explain_result_free(&r);
	r = scan("error: cudart64_100.dll loaded\nCUDA error 4 in kernel launch\n");
	assert_string_equal(r.m[0].finding, "kernel-exception");
	assert_string_equal(r.m[0].error->name, "cudaErrorLaunchFailure");
	explain_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_before_10_1),
		cmocka_unit_test(bad_tables_are_refused),
		cmocka_unit_test(release_markers),
		cmocka_unit_test(old_release_lines),
		cmocka_unit_test(a_named_error_wins),
		cmocka_unit_test(an_old_only_number_gets_its_old_meaning),
		cmocka_unit_test(a_number_of_both_eras),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
