/* util: versions, strings, files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file.h"
#include "util/str.h"
#include "util/units.h"
#include "util/utf16.h"
#include "util/version.h"

static void test_version_parse(void **state)
{
	struct version v;

	(void)state;
	assert_int_equal(version_parse("550.54.14", &v), CD_OK);
	assert_int_equal(v.major, 550);
	assert_int_equal(v.minor, 54);
	assert_int_equal(v.patch, 14);
	assert_int_equal(v.parts, 3);
	assert_int_equal(version_parse("V12.4.131 (build)", &v), CD_OK);
	assert_int_equal(v.major, 12);
	assert_int_equal(v.minor, 4);
	assert_int_equal(version_parse("12", &v), CD_OK);
	assert_int_equal(v.parts, 1);
	assert_int_equal(version_parse("12.", &v), CD_OK);
	assert_int_equal(v.parts, 1);
	assert_int_equal(version_parse("abc", &v), CD_EFORMAT);
	assert_int_equal(version_parse("", &v), CD_EFORMAT);
	assert_int_equal(version_parse(NULL, &v), CD_EFORMAT);
	assert_int_equal(version_parse("99999999999999", &v), CD_EFORMAT);
}

static void test_version_cuda_int(void **state)
{
	struct version v = version_from_cuda_int(12040), w;

	(void)state;
	assert_int_equal(v.major, 12);
	assert_int_equal(v.minor, 4);
	assert_int_equal(version_to_cuda_int(&v), 12040);
	v = version_from_cuda_int(13000);
	assert_int_equal(v.major, 13);
	assert_int_equal(v.minor, 0);
	version_parse("12.8", &w);
	assert_true(version_cmp(&v, &w) > 0);
	assert_true(version_cmp(&w, &v) < 0);
	assert_int_equal(version_cmp(&v, &v), 0);
}

static void test_version_format(void **state)
{
	struct version v;
	char b[32];

	(void)state;
	version_parse("12.4.127", &v);
	assert_string_equal(version_format(&v, 2, b, sizeof b), "12.4");
	assert_string_equal(version_format(&v, 3, b, sizeof b), "12.4.127");
	version_parse("12", &v);
	assert_string_equal(version_format(&v, 2, b, sizeof b), "12");
	version_parse("470.57.02", &v);
	assert_string_equal(version_format(&v, 3, b, sizeof b), "470.57.02");
	version_parse("528.02", &v); /* a Windows driver: the zero belongs to the version */
	assert_string_equal(version_format(&v, 3, b, sizeof b), "528.02");
	v = version_from_cuda_int(13000);
	assert_string_equal(version_format(&v, 2, b, sizeof b), "13.0");
	memset(&v, 0, sizeof v);
	assert_string_equal(version_format(&v, 2, b, sizeof b), "unknown");
}

/* One spelling of sizes for every command, and the parsers of what users type. */
static void test_units(void **state)
{
	uint64_t v;
	char b[UNITS_BUF];

	(void)state;
	assert_string_equal(units_fmt_bytes(0, b, sizeof b), "0 bytes");
	assert_string_equal(units_fmt_bytes(1000, b, sizeof b), "1000 bytes");
	assert_string_equal(units_fmt_bytes(1023, b, sizeof b), "1023 bytes");
	assert_string_equal(units_fmt_bytes(1024, b, sizeof b), "1 KiB");
	assert_string_equal(units_fmt_bytes(1536, b, sizeof b), "1.5 KiB");
	assert_string_equal(units_fmt_bytes(512ull << 20, b, sizeof b), "512 MiB");
	assert_string_equal(units_fmt_bytes(1ull << 30, b, sizeof b), "1 GiB");
	assert_string_equal(units_fmt_bytes(150117318656ull, b, sizeof b), "139.8 GiB"); /* an H200 */
	assert_string_equal(units_fmt_bytes((1ull << 30) - (1ull << 10), b, sizeof b), "1 GiB");
	assert_string_equal(units_fmt_bytes(UINT64_MAX, b, sizeof b), "16 EiB");
	assert_string_equal(units_fmt_count(8030261248ull, b, sizeof b), "8,030,261,248");
	assert_string_equal(units_fmt_count(0, b, sizeof b), "0");
	assert_int_equal(units_parse_count("8e9", &v), CD_OK);
	assert_int_equal(v, 8000000000ull);
	assert_int_equal(units_parse_count("7B", &v), CD_OK);
	assert_int_equal(v, 7000000000ull);
	assert_int_equal(units_parse_count("128k", &v), CD_OK);
	assert_int_equal(v, 128000);
	assert_int_equal(units_parse_count("-1", &v), CD_EUSAGE);
	assert_int_equal(units_parse_count("12 apples", &v), CD_EUSAGE);
	assert_int_equal(units_parse_size("80GiB", &v), CD_OK);
	assert_int_equal(v, 80ull << 30);
	assert_int_equal(units_parse_size("24GB", &v), CD_OK);
	assert_int_equal(v, 24000000000ull);
	assert_int_equal(units_parse_size("1e30", &v), CD_EUSAGE);
}

static void test_strbuf(void **state)
{
	struct strbuf sb;
	char *s;

	(void)state;
	sb_init(&sb);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(sb_printf(&sb, "%d,", i), CD_OK);
	assert_int_equal(sb_append(&sb, "end"), CD_OK);
	s = sb_detach(&sb);
	assert_non_null(s);
	assert_true(str_starts_with(s, "0,1,2,"));
	assert_true(str_ends_with(s, "999,end"));
	assert_false(str_ends_with("x", "longer"));
	assert_true(str_contains_ci("CUDA Error: No Kernel Image", "no kernel image"));
	free(s);
	s = cd_strdup("  padded \n");
	assert_string_equal(str_trim(s), "padded");
	free(s);
}

static int cmp_names(const void *a, const void *b)
{
	return str_natcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_natural_order(void **state)
{
	const char *archs[] = { "sm_120", "sm_100", "sm_75", "sm_90a", "sm_80", "sm_90", "sm_100f", "sm_121a", "sm_9" };
	const char *sorted[] = { "sm_9", "sm_75", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120", "sm_121a" };

	(void)state;
	qsort(archs, sizeof archs / sizeof archs[0], sizeof archs[0], cmp_names);
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		assert_string_equal(archs[i], sorted[i]);
	assert_int_equal(str_natcmp("sm_90", "sm_90"), 0);
	assert_true(str_natcmp("libcudart.so.9", "libcudart.so.12") < 0);
	assert_true(str_natcmp("sm_090", "sm_90") == 0); /* leading zeros name the same number */
	assert_true(str_natcmp("compute_120", "sm_75") < 0); /* text before numbers */
	assert_true(str_natcmp("sm_", "sm_75") < 0);
}

static void test_wildcard_match(void **state)
{
	char many_a[4096], pattern[64];

	(void)state;
	assert_true(str_wildcard_match("*.dll", "cublas64_12.dll", false));
	assert_false(str_wildcard_match("*.dll", "cublas64_12.DLL", false));
	assert_true(str_wildcard_match("*.dll", "cublas64_12.DLL", true));
	assert_true(str_wildcard_match("cu*64_??.dll", "cudart64_12.dll", false));
	assert_false(str_wildcard_match("cu*64_??.dll", "cudart64_1.dll", false));
	assert_true(str_wildcard_match("*", "", false));
	assert_false(str_wildcard_match("?", "", false));
	assert_true(str_wildcard_match("a*b*c", "aXbYbZc", false));
	assert_false(str_wildcard_match("a*b*c", "aXbYbZ", false));
	/* a pattern that makes a backtracking matcher exponential stays within length^2 steps */
	memset(many_a, 'a', sizeof many_a - 1);
	many_a[sizeof many_a - 1] = '\0';
	snprintf(pattern, sizeof pattern, "*a*a*a*a*a*a*a*a*a*a*b");
	assert_false(str_wildcard_match(pattern, many_a, false));
}

/* UTF-16 as Windows PowerShell 5.1 writes it, cut into pieces at every offset: the same
 * UTF-8 (a pair, a lone surrogate made U+FFFD, the mark dropped) */
static void test_utf16_pieces(void **state)
{
	/* FF FE, "a", U+00E9, U+65E5, U+1F600 (a pair), a lone low surrogate, "\r\n" */
	static const unsigned char le[] = { 0xFF, 0xFE, 'a', 0, 0xE9, 0, 0xE5, 0x65, 0x3D, 0xD8, 0x00, 0xDE,
					    0x00, 0xDC, '\r', 0, '\n', 0 };
	static const char want[] = "a\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\xef\xbf\xbd\r\n";
	unsigned char be[sizeof le];
	char out[UTF16_UTF8_MAX(sizeof le) * 2];
	struct utf16_stream u;

	(void)state;
	for (size_t i = 0; i < sizeof le; i += 2) {
		be[i] = le[i + 1];
		be[i + 1] = le[i];
	}
	for (int order = 0; order < 2; order++) {
		const unsigned char *in = order ? be : le;

		for (size_t cut = 2; cut < sizeof le; cut++) { /* the mark is in the first piece */
			size_t w;

			utf16_init(&u);
			assert_true(utf16_detect(&u, in, cut));
			w = utf16_to_utf8(&u, in, cut, out);
			w += utf16_to_utf8(&u, in + cut, sizeof le - cut, out + w);
			assert_int_equal(w, strlen(want));
			assert_memory_equal(out, want, w);
		}
	}
	utf16_init(&u);
	assert_false(utf16_detect(&u, (const unsigned char *)"CUDA error", 10));
	/* a whole report file, as diff and fleet read one: plain, behind a UTF-8 mark, UTF-16 */
	{
		static const unsigned char plain[] = "{}", bom8[] = "\xef\xbb\xbf{}", wide[] = "\xff\xfe{\0}\0";
		const unsigned char *text;
		char *owned;
		size_t len;

		assert_int_equal(utf16_text_as_utf8(plain, 2, &owned, &text, &len), CD_OK);
		assert_null(owned);
		assert_ptr_equal(text, plain);
		assert_int_equal(len, 2);
		assert_int_equal(utf16_text_as_utf8(bom8, 5, &owned, &text, &len), CD_OK);
		assert_null(owned);
		assert_memory_equal(text, "{}", 2);
		assert_int_equal(len, 2);
		assert_int_equal(utf16_text_as_utf8(wide, 6, &owned, &text, &len), CD_OK);
		assert_non_null(owned);
		assert_int_equal(len, 2);
		assert_memory_equal(text, "{}", 2);
		free(owned);
		assert_int_equal(utf16_text_as_utf8(NULL, 0, &owned, &text, &len), CD_OK);
		assert_int_equal(len, 0);
	}
}

static void test_file_errors_name_the_path(void **state)
{
	struct mapped_file mf;
	char err[CD_ERRMSG];
	char *text;

	(void)state;
	assert_int_equal(file_map("/nonexistent/file.so", &mf, err), CD_EIO);
	assert_non_null(strstr(err, "/nonexistent/file.so"));
	assert_int_equal(file_map("/tmp", &mf, err), CD_EIO);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(file_map(CUDOCTOR_SOURCE_DIR "/CMakeLists.txt", &mf, err), CD_OK);
	assert_true(mf.size > 100);
	assert_memory_equal(mf.data, "# cudoctor", 10);
	file_unmap(&mf);
	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/CMakeLists.txt", 10, &text, NULL, err), CD_OK);
	assert_string_equal(text, "# cudoctor");
	free(text);
	assert_true(path_is_dir("/tmp"));
	assert_false(path_is_file("/tmp"));
}

/* Optimal string alignment: a swap of neighbours is one edit, each row from the two before it. */
static void test_edit_distance(void **state)
{
	char long_word[STR_EDIT_MAX + 2];

	(void)state;
	assert_int_equal(str_edit_distance("doctor", "doctor"), 0);
	assert_int_equal(str_edit_distance("docter", "doctor"), 1);
	assert_int_equal(str_edit_distance("dcotor", "doctor"), 1); /* swap */
	assert_int_equal(str_edit_distance("", "json"), 4);
	assert_int_equal(str_edit_distance("jsn", "json"), 1);
	assert_int_equal(str_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(str_edit_distance("ca", "abc"), 3); /* OSA: no edit of a swapped pair */
	memset(long_word, 'a', sizeof long_word - 1);
	long_word[sizeof long_word - 1] = '\0';
	assert_true(str_edit_distance(long_word, "a") == SIZE_MAX);
	assert_int_equal(str_typo_reach(4), 1);
	assert_int_equal(str_typo_reach(5), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_version_cuda_int),
		cmocka_unit_test(test_version_format),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_natural_order),
		cmocka_unit_test(test_wildcard_match),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_utf16_pieces),
		cmocka_unit_test(test_file_errors_name_the_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
