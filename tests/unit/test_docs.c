/* The docs say what the code does: the man page is what tools/gen_man.py makes from the
 * binary's own option tables today, it has every section and fits 80 columns under man,
 * and the README shows every command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Why: "README: 4,700 words; its first command installs the wheel of ./dist, which a clone does not
 * have; `make run` appears after 40 lines about auditwheel and glibc". The first screen (40
 * lines) has the two commands and five example commands, the first command shown works from
 * a clone, and the whole is under 1,500 words (as wc -w counts them). */
static void test_readme_4700_words_first_command_installs_dist_whl(void **state)
{
	char *readme = read_doc(CUDOCTOR_SOURCE_DIR "/README.md"), *first_cmd = NULL;
	size_t words = 0, lines = 0, examples = 0;
	bool in_word = false, make_run = false, make_check = false;

	(void)state;
	for (const char *p = readme; *p; p++) {
		bool space = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
		words += !space && !in_word;
		in_word = !space;
	}
	if (words >= 1500)
		fail_msg("README.md has %zu words; a newcomer's page has fewer than 1,500", words);
	for (char *line = readme, *nl; *line && lines < 40; line = nl + 1, lines++) {
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		if (strncmp(line, "    ", 4) == 0 && !first_cmd)
			first_cmd = line + 4;
		make_run |= strncmp(line, "    make run", 11) == 0;
		make_check |= strncmp(line, "    make check", 13) == 0;
		examples += strncmp(line, "    cudoctor ", 13) == 0;
	}
	assert_true(make_run);
	assert_true(make_check);
	if (examples < 5)
		fail_msg("README.md's first 40 lines show %zu cudoctor commands, not five", examples);
	assert_non_null(first_cmd);
	if (strstr(first_cmd, "dist/") || strstr(first_cmd, ".whl"))
		fail_msg("README.md's first command needs what a clone does not have: %s", first_cmd);
	free(readme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_page_is_current),
		cmocka_unit_test(test_man_page_fits_80_columns),
		cmocka_unit_test(test_readme_shows_every_command),
		cmocka_unit_test(test_readme_4700_words_first_command_installs_dist_whl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
