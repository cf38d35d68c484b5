/* The docs say what the code does: the man page holds every command's current --help text
 * (regenerate with tools/gen_man.py), and the README shows every command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

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

/* Undo the two escapes tools/gen_man.py applies: "\e" for a backslash, "\&" before a dot. */
static void unroff(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] == 'e') {
			*w++ = '\\';
			r++;
		} else if (r[0] == '\\' && r[1] == '&') {
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static struct run_result help_of(const char *cmd)
{
	const char *argv[] = { CUDOCTOR_BINARY, cmd, "--help", NULL };
	struct run_result r;

	if (!cmd) {
		argv[1] = "--help";
		argv[2] = NULL;
	}
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	return r;
}

static void test_man_page_and_readme_cover_every_command(void **state)
{
	char *man = read_doc(CUDOCTOR_SOURCE_DIR "/docs/cudoctor.1");
	char *readme = read_doc(CUDOCTOR_SOURCE_DIR "/README.md");
	struct run_result top = help_of(NULL);
	char *line, *save = NULL;
	bool in_cmds = false;
	int n = 0;

	(void)state;
	unroff(man);
	for (line = strtok_r(top.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32], example[64];
		struct run_result h;

		if (strncmp(line, "commands:", 9) == 0) {
			in_cmds = true;
			continue;
		}
		if (!in_cmds)
			continue;
		if (strncmp(line, "  ", 2) != 0)
			break; /* the block after the command list */
		if (line[2] == ' ')
			continue;
		if (sscanf(line, " %31s", name) != 1)
			continue;
		h = help_of(name);
		/* trailing newline differences do not matter */
		while (*h.out && h.out[strlen(h.out) - 1] == '\n')
			h.out[strlen(h.out) - 1] = '\0';
		if (!strstr(man, h.out))
			fail_msg("docs/cudoctor.1 lacks the current `cudoctor %s --help`; run tools/gen_man.py build/cudoctor > docs/cudoctor.1", name);
		snprintf(example, sizeof(example), "cudoctor %s", name);
		if (!strstr(readme, example))
			fail_msg("README.md shows no example of `%s`", example);
		run_result_free(&h);
		n++;
	}
	assert_true(n >= 1);
	run_result_free(&top);
	free(man);
	free(readme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_page_and_readme_cover_every_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
