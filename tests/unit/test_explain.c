/* explain's matcher on the corpus of real error texts in tests/explain/ (each from a
 * public issue, its URL in the .expect file): the findings must be exactly the expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "util/err.h"
#include "util/file.h"

#define CORPUS CUDOCTOR_SOURCE_DIR "/tests/explain"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "expect: a b c" -> whether every id is among the matches and nothing else is */
static bool same_findings(const char *expect, const struct explain_result *r, char *why, size_t n)
{
	char ids[256];
	size_t want = 0;
	char *save = NULL;

	snprintf(ids, sizeof(ids), "%s", expect);
	for (char *id = strtok_r(ids, " \n", &save); id; id = strtok_r(NULL, " \n", &save)) {
		bool found = false;

		want++;
		for (size_t i = 0; i < r->n; i++)
			found |= strcmp(r->m[i].finding, id) == 0;
		if (!found) {
			snprintf(why, n, "missing %s", id);
			return false;
		}
	}
	if (want != r->n) {
		size_t used = (size_t)snprintf(why, n, "got %zu findings:", r->n);

		for (size_t i = 0; i < r->n && used < n; i++)
			used += (size_t)snprintf(why + used, n - used, " %s", r->m[i].finding);
		return false;
	}
	return true;
}

static void whole_corpus(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	char *names[1024];
	size_t n = 0, failed = 0, sourced = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL && n < 1024) {
		size_t len = strlen(e->d_name);

		if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[512], *text = NULL, *expect = NULL, *line, why[512], err[CD_ERRMSG];
		size_t len, elen;
		struct explain_result r;

		snprintf(path, sizeof(path), "%s/%s", CORPUS, names[i]);
		assert_int_equal(file_read_text(path, 1 << 20, &text, &len, err), CD_OK);
		strcpy(path + strlen(path) - 4, ".expect");
		assert_int_equal(file_read_text(path, 4096, &expect, &elen, err), CD_OK);
		sourced += strstr(expect, "source: https://github.com/") != NULL;
		line = strstr(expect, "expect: ");
		assert_non_null(line);
		line[strcspn(line, "\n")] = '\0';
		assert_int_equal(explain_text(text, len, &r, err), CD_OK);
		if (!same_findings(line + 8, &r, why, sizeof(why))) {
			print_error("%s: %s\n", names[i], why);
			failed++;
		}
		explain_result_free(&r);
		free(text);
		free(expect);
		free(names[i]);
	}
	print_message("%zu corpus texts, %zu from GitHub issues, %zu failed\n", n, sourced, failed);
	assert_true(sourced >= 60);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
