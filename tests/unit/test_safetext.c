/* util/safetext: untrusted bytes into valid, visible UTF-8 cut at character boundaries.
 * Real texts: a Chinese CUDA OOM line, a tqdm bar, an ANSI colour sequence, the Trojan
 * Source bidi override (CVE-2021-42574); jansson (which refuses invalid UTF-8) checks every
 * result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/safetext.h"

static const char *safe(const char *in, size_t len, size_t cap, unsigned flags)
{
	static char out[4096];
	json_t *j;
	size_t n = safe_text(out, cap, in, len, flags);
	assert_true(n < cap);
	assert_int_equal(strlen(out), n);
	/* valid UTF-8 whatever came in */
	j = json_stringn(out, n);
	assert_non_null(j);
	json_decref(j);
	return out;
}

static void test_plain_text_is_copied(void **state)
{
	const char *oom = "torch.OutOfMemoryError: CUDA out of memory. 尝试分配 20.00 MiB (GPU 0; 显存不足)";
	const char *bar = "Epoch 1:  45%|████▌     | 450/1000 [00:12<00:15, 36.10it/s]";
	(void)state;
	assert_string_equal(safe(oom, strlen(oom), 4096, 0), oom);
	assert_string_equal(safe(bar, strlen(bar), 4096, 0), bar);
	assert_true(safe_text_is_clean(oom, strlen(oom), 0));
	assert_true(safe_text_is_clean(bar, strlen(bar), 0));
	assert_string_equal(safe("", 0, 8, 0), "");
}

static void test_controls_are_visible(void **state)
{
	const char colour[] = "\x1b[31mRuntimeError\x1b[0m: CUDA error";
	const char bidi[] = "access_level = \"user\xe2\x80\xae \xe2\x81\xa6// admin\xe2\x81\xa9 \xe2\x81\xa6\"";
	const char c1[] = "a\xc2\x9b" "2Jb"; /* U+009B: CSI in an 8-bit-aware terminal */
	const char lines[] = "line one\n\tline two\r\n";
	(void)state;
	assert_string_equal(safe(colour, strlen(colour), 4096, 0), "\\x1b[31mRuntimeError\\x1b[0m: CUDA error");
	assert_false(safe_text_is_clean(colour, strlen(colour), 0));
	assert_string_equal(safe(bidi, strlen(bidi), 4096, 0),
			    "access_level = \"user\\u202e \\u2066// admin\\u2069 \\u2066\"");
	assert_string_equal(safe(c1, strlen(c1), 4096, 0), "a\\u009b2Jb");
	assert_string_equal(safe(lines, strlen(lines), 4096, 0), "line one\\x0a\\x09line two\\x0d\\x0a");
	assert_string_equal(safe(lines, strlen(lines), 4096, SAFE_TEXT_KEEP_NEWLINES), "line one\n\tline two\\x0d\n");
	assert_string_equal(safe("a\0b", 3, 4096, 0), "a\\x00b");
}

static void test_invalid_utf8_bytes(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{ "\xff", 1, "\\xff" },
		{ "\x80x", 2, "\\x80x" },                        /* a stray continuation byte */
		{ "\xc0\x80", 2, "\\xc0\\x80" },                 /* overlong NUL */
		{ "\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf" },        /* overlong '/' */
		{ "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },        /* a surrogate */
		{ "\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80" }, /* above U+10FFFF */
		{ "ab\xe6\x98", 4, "ab\\xe6\\x98" },             /* a CJK character cut short */
		{ "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" },   /* an emoji stays */
		{ "\xef\xbf\xbf", 3, "\xef\xbf\xbf" },           /* U+FFFF is well-formed */
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_string_equal(safe(cases[i].in, cases[i].len, 4096, 0), cases[i].want);
}

static void test_cut_at_boundaries(void **state)
{
	const char *cjk = "显存不足显存不足"; /* 8 characters of 3 bytes */
	const char *esc = "\x1b\x1b\x1b\x1b";
	(void)state;
	/* room for 10 bytes: 2 characters (6) and "..." (3); never a part of the third */
	assert_string_equal(safe(cjk, strlen(cjk), 11, 0), "显存...");
	assert_string_equal(safe(cjk, strlen(cjk), 12, 0), "显存...");
	assert_string_equal(safe(cjk, strlen(cjk), 13, 0), "显存不...");
	/* exactly fits: no "..." */
	assert_string_equal(safe(cjk, strlen(cjk), 25, 0), cjk);
	/* an escape is never cut either */
	assert_string_equal(safe(esc, 4, 10, 0), "\\x1b...");
	assert_string_equal(safe(esc, 4, 17, 0), "\\x1b\\x1b\\x1b\\x1b");
	/* tiny buffers */
	assert_string_equal(safe(cjk, strlen(cjk), 1, 0), "");
	assert_string_equal(safe(cjk, strlen(cjk), 3, 0), "");
	assert_string_equal(safe(cjk, strlen(cjk), 4, 0), "...");
	{
		char c = 'x';
		assert_int_equal(safe_text(&c, 0, "abc", 3, 0), 0);
		assert_int_equal(c, 'x');
	}
}

static void test_dup_and_large_input(void **state)
{
	size_t n = 8u << 20;
	char *big = malloc(n), *s;
	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)(i * 131 + 7);
	s = safe_text_dup(big, n, 320, 0);
	assert_non_null(s);
	assert_true(strlen(s) <= 320);
	assert_int_equal(strcmp(s + strlen(s) - 3, "..."), 0);
	free(s);
	s = safe_text_dup(big, n, (size_t)-1, 0); /* all of it, every byte accounted for */
	assert_non_null(s);
	{
		json_t *j = json_string(s);
		assert_non_null(j);
		json_decref(j);
	}
	free(s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_is_copied),
		cmocka_unit_test(test_controls_are_visible),
		cmocka_unit_test(test_invalid_utf8_bytes),
		cmocka_unit_test(test_cut_at_boundaries),
		cmocka_unit_test(test_dup_and_large_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
