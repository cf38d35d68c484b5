/* docs/findings.md and the code name the same ids: every id the code can emit has a heading
 * there (the ids written as literals after a severity in src/, report_add_finding(r, SEV_X,
 * "id", ...) and finding_make, and every id of the catalogue kb/findings.tsv), and every id
 * heading there is one of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emitted_ids.h"
#include "util/err.h"
#include "util/file.h"

static char *doc;
static int checked;
/* every id found in the code and the catalogue, for the way back */
static char known[1024][64];
static size_t n_known;

static void remember(const char *id, size_t n)
{
	for (size_t i = 0; i < n_known; i++)
		if (strlen(known[i]) == n && strncmp(known[i], id, n) == 0)
			return;
	if (n_known < sizeof known / sizeof known[0] && n < sizeof known[0]) {
		memcpy(known[n_known], id, n);
		known[n_known++][n] = '\0';
	}
}

static void check_id(const char *id, size_t n, const char *where)
{
	char heading[160];
	const char *p;
	bool found = false;

	if (n == 0 || n >= 100)
		return;
	remember(id, n);
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

static void check_emitted(const char *id, size_t n, const char *where, void *arg)
{
	(void)arg;
	check_id(id, n, where);
}

static void test_every_emitted_id_is_documented(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/docs/findings.md", 4 << 20, &doc, NULL, err), CD_OK);
	emitted_ids(CUDOCTOR_SOURCE_DIR, check_emitted, NULL);
	assert_true(checked >= 20); /* the scan found the literals at all */
	free(doc);
}

/* Every heading that is an id ("### id", "## id (arch)") names an id the code or the catalogue has. */
static void test_every_documented_id_is_emitted(void **state)
{
	char err[CD_ERRMSG];
	size_t headings = 0;

	(void)state;
	if (n_known == 0)
		test_every_emitted_id_is_documented(state);
	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/docs/findings.md", 4 << 20, &doc, NULL, err), CD_OK);
	for (const char *p = doc; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;
		size_t n = 0;
		bool found = false;

		if (strncmp(q, "## ", 3) != 0 && strncmp(q, "### ", 4) != 0)
			continue;
		q += q[2] == ' ' ? 3 : 4;
		q += *q == '`';
		while ((q[n] >= 'a' && q[n] <= 'z') || (q[n] >= '0' && q[n] <= '9') || q[n] == '-')
			n++;
		/* a section heading ("## Driver and platform") is not an id */
		if (n == 0 || !(q[n] == '\n' || q[n] == '`' || (q[n] == ' ' && q[n + 1] == '(')))
			continue;
		headings++;
		for (size_t i = 0; i < n_known && !found; i++)
			found = strlen(known[i]) == n && strncmp(known[i], q, n) == 0;
		if (!found)
			fail_msg("docs/findings.md documents '%.*s', which neither the code nor kb/findings.tsv emits", (int)n, q);
	}
	assert_true(headings >= 60);
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
		cmocka_unit_test(test_every_documented_id_is_emitted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
