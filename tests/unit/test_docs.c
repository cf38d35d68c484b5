/* The docs say what the code does: the man page is what tools/gen_man.py makes from the
 * binary's own option tables today, it has every section and fits 80 columns under man,
 * and the README shows every command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

static char *read_doc(const char *path)
{
	char *text = NULL;
	char err[CD_ERRMSG];

	assert_int_equal(file_read_text(path, 4 << 20, &text, NULL, err), CD_OK);
	return text;
}

static void test_man_page_is_current(void **state)
{
	const char *argv[] = { "/usr/bin/python3", CUDOCTOR_SOURCE_DIR "/tools/gen_man.py", CUDOCTOR_BINARY, NULL };
	char *man = read_doc(CUDOCTOR_SOURCE_DIR "/docs/cudoctor.1");
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	if (strcmp(r.out, man) != 0)
		fail_msg("docs/cudoctor.1 is not what the tables make now; run "
			 "tools/gen_man.py build/cudoctor > docs/cudoctor.1");
	for (const char *const *s = (const char *const[]){ ".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION",
							     ".SH GLOBAL OPTIONS", ".SH COMMANDS", ".SH EXIT STATUS",
							     ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES",
							     ".SH SEE ALSO", NULL };
	     *s; s++)
		if (!strstr(man, *s))
			fail_msg("docs/cudoctor.1 lacks %s", *s);
	/* one entry per option: gencode's --gpu and mem estimate's --gpu-memory */
	assert_non_null(strstr(man, ".TP\n\\fB\\-g\\fR, \\fB\\-\\-gpu\\fR \\fISPEC\\fR\n"));
	assert_non_null(strstr(man, "\\fB\\-\\-gpu\\-memory\\fR \\fISIZE\\fR"));
	run_result_free(&r);
	free(man);
}

static void test_man_page_fits_80_columns(void **state)
{
	const char *argv[] = { "/usr/bin/man", "-l", CUDOCTOR_SOURCE_DIR "/docs/cudoctor.1", NULL };
	const char *env[] = { "MANWIDTH=80", "MAN_KEEP_FORMATTING=", "MANPAGER=cat", "PAGER=cat", NULL };
	struct run_result r;
	size_t lines = 0;

	(void)state;
	if (access("/usr/bin/man", X_OK) != 0)
		skip();
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	for (char *line = r.out, *nl; *line; line = nl + 1, lines++) {
		size_t cols = 0;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		for (char *c = line; c < nl; c++)
			cols += ((unsigned char)*c & 0xc0) != 0x80;
		if (cols > 80)
			fail_msg("man -l docs/cudoctor.1: line %zu has %zu columns", lines + 1, cols);
	}
	assert_true(lines > 200);
	run_result_free(&r);
}

static void test_readme_shows_every_command(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "completion", "complete", "--", "cudoctor", "", NULL };
	char *readme = read_doc(CUDOCTOR_SOURCE_DIR "/README.md");
	struct run_result r;
	char *save = NULL;
	int n = 0;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	for (char *name = strtok_r(r.out, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		char example[64];

		snprintf(example, sizeof(example), "cudoctor %s", name);
		if (!strstr(readme, example))
			fail_msg("README.md shows no example of `%s`", example);
		n++;
	}
	assert_true(n >= 9);
	run_result_free(&r);
	free(readme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_page_is_current),
		cmocka_unit_test(test_man_page_fits_80_columns),
		cmocka_unit_test(test_readme_shows_every_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
