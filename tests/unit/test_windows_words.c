/* Windows' words where the question is Windows': an error text from Windows (WinError 126, 127,
 * 1455: texts of the corpus, tests/explain, each with the report it comes from in its .expect)
 * is explained by Windows' DLL search, not by Linux's loader, sonames and LD_LIBRARY_PATH, by
 * either build (the exe's answers are compared with these in test_windows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

/* explain --offline --json of tests/explain/NAME.txt; its one finding with id */
static json_t *explained(const char *name, const char *id, json_t **report)
{
	char path[512], err[CD_ERRMSG], *text = NULL;
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "explain", "--offline", NULL };
	struct run_result r;
	json_t *f;
	size_t i;

	snprintf(path, sizeof path, "%s/tests/explain/%s.txt", CUDOCTOR_SOURCE_DIR, name);
	assert_int_equal(file_read_text(path, 1 << 20, &text, NULL, err), CD_OK);
	assert_int_equal(testlib_run(argv, NULL, text, &r), 0);
	free(text);
	if (!(*report = json_loads(r.out, 0, NULL)))
		fail_msg("%s: not JSON: %.300s", name, r.out);
	run_result_free(&r);
	json_array_foreach(json_object_get(*report, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
			return f;
	fail_msg("%s: no %s finding", name, id);
	return NULL;
}

/* Whether any of the finding's title, why and fix lines holds word. */
static const char *says(json_t *f, const char *word)
{
	const char *keys[] = { "title", "why" };
	json_t *line;
	size_t i;

	for (size_t k = 0; k < 2; k++)
		if (strstr(json_string_value(json_object_get(f, keys[k])), word))
			return json_string_value(json_object_get(f, keys[k]));
	json_array_foreach(json_object_get(f, "fix"), i, line)
		if (strstr(json_string_value(line), word))
			return json_string_value(line);
	return NULL;
}

static void no_linux_words(const char *name, json_t *f)
{
	static const char *const linux_words[] = { "soname", "LD_LIBRARY_PATH", "ldconfig", "ld.so", "loader's path",
						   "libcudart.so", "export " };
	for (size_t i = 0; i < sizeof linux_words / sizeof linux_words[0]; i++) {
		const char *line = says(f, linux_words[i]);
		if (line)
			fail_msg("text %s from Windows, explained with Linux's '%s': %s", name, linux_words[i], line);
	}
}

/* Why: "the WinError 126 explanation speaks of sonames and LD_LIBRARY_PATH". The texts name
 * the DLL; the answer names Windows' search order and the WinError it explains. */
static void test_winerror_126_explanation_speaks_of_sonames_and_ld_library_path(void **state)
{
	static const struct {
		const char *text, *id, *error;
	} cases[] = {
		{ "890", "library-missing", "WinError 126" },         /* ChatGLM3 #69 */
		{ "893", "library-missing", "WinError 126" },
		{ "886", "library-version-mismatch", "WinError 127" }, /* torch's c10_cuda.dll */
		{ "821", "windows-pagefile-too-small", "WinError 1455" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *report, *f = explained(cases[i].text, cases[i].id, &report);

		no_linux_words(cases[i].text, f);
		if (!says(f, cases[i].error))
			fail_msg("text %s: the explanation does not name %s", cases[i].text, cases[i].error);
		if (strcmp(cases[i].id, "windows-pagefile-too-small") != 0 && !says(f, "System32"))
			fail_msg("text %s: the explanation does not give Windows' search order", cases[i].text);
		json_decref(report);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_winerror_126_explanation_speaks_of_sonames_and_ld_library_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
