/* Every finding id the code can emit is catalogued in docs/findings.md: the ids written as
 * literals after a severity in src/ (report_add_finding(r, SEV_X, "id", ...)) and the ids of
 * the explain table kb/findings.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file.h"

static char *doc;
static int checked;

static void check_id(const char *id, size_t n, const char *where)
{
	char heading[160];
	const char *p;
	bool found = false;

	if (n == 0 || n >= 100)
		return;
	/* a heading line "## id", "### id" or "### `id`" */
	for (p = doc; (p = strstr(p, "#")) != NULL; p++) {
		if (p != doc && p[-1] != '\n')
			continue;
		while (*p == '#')
			p++;
		while (*p == ' ' || *p == '`')
			p++;
		if (strncmp(p, id, n) == 0 && (p[n] == '\n' || p[n] == ' ' || p[n] == '`')) {
			found = true;
			break;
		}
	}
	snprintf(heading, sizeof(heading), "%.*s", (int)n, id);
	if (!found)
		fail_msg("finding id '%s' (%s) has no heading in docs/findings.md", heading, where);
	checked++;
}

static void scan_source(const char *path)
{
	char err[CD_ERRMSG], *text = NULL;
	const char *p;

	assert_int_equal(file_read_text(path, 1 << 20, &text, NULL, err), CD_OK);
	for (p = text; (p = strstr(p, "SEV_")) != NULL; p++) {
		const char *q = p + 4;
		while (isupper((unsigned char)*q))
			q++;
		while (*q == ',' || *q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (*q != '"')
			continue;
		const char *id = q + 1, *e = id;
		while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-')
			e++;
		if (*e == '"')
			check_id(id, (size_t)(e - id), path);
	}
	free(text);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (path_is_dir(path))
			walk(path);
		else if (strstr(de->d_name, ".c") && de->d_name[strlen(de->d_name) - 1] == 'c')
			scan_source(path);
	}
	closedir(d);
}

static void test_every_emitted_id_is_documented(void **state)
{
	char err[CD_ERRMSG], *tsv = NULL;

	(void)state;
	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/docs/findings.md", 4 << 20, &doc, NULL, err), CD_OK);
	walk(CUDOCTOR_SOURCE_DIR "/src");
	assert_true(checked >= 20); /* the scan found the literals at all */
	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/kb/findings.tsv", 4 << 20, &tsv, NULL, err), CD_OK);
	for (char *line = strchr(tsv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		size_t n = strcspn(line + 1, "\t\n/"); /* a variant row "id/case" is its id's */
		if (line[1] != '#')
			check_id(line + 1, n, "kb/findings.tsv");
	}
	free(tsv);
	free(doc);
}

static void test_headings_are_recognised(void **state)
{
	(void)state;
	doc = strdup("## no-driver\n### `no-device`\n");
	checked = 0;
	check_id("no-driver", 9, "test");
	check_id("no-device", 9, "test");
	assert_int_equal(checked, 2);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headings_are_recognised),
		cmocka_unit_test(test_every_emitted_id_is_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
