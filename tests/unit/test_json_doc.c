/* docs/json.md against the field tables it documents: every key of the driver and GPU
 * tables has a row of its type under its table's marker and every row there names a key of
 * the table (or a nested object or array that has a table of its own); the renamed-keys
 * table is the compatibility table itself. Both ways, so a key added, renamed or dropped in
 * code or docs alone fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/driver.h"
#include "facts/gpu.h"
#include "report/json_compat.h"
#include "util/err.h"
#include "util/file.h"

static char *doc;

static const struct field_table *const tables[] = {
	&driver_field_table, &driver_nvml_field_table, &gpu_field_table, &gpu_process_field_table, &gpu_mig_field_table,
};
#define N_TABLES (sizeof tables / sizeof tables[0])

/* The text documenting table name: from its marker to the next marker or heading. */
static char *section(const char *name)
{
	char marker[128];
	const char *s, *e, *h;

	snprintf(marker, sizeof marker, "<!-- fields: %s -->", name);
	s = strstr(doc, marker);
	if (!s)
		fail_msg("docs/json.md has no %s", marker);
	s += strlen(marker);
	e = s + strlen(s);
	if ((h = strstr(s, "<!--")) && h < e)
		e = h;
	if ((h = strstr(s, "\n#")) && h < e)
		e = h;
	return strndup(s, (size_t)(e - s));
}

/* The type a row must name for a field of this kind; NULL when computed (any). */
static const char *doc_type(const struct field *f)
{
	switch (f->kind) {
	case FK_LLONG: case FK_ULLONG: case FK_INT: case FK_UINT: return "int";
	case FK_BOOL: return "bool";
	case FK_CHARS: case FK_CSTR: case FK_NAMED: case FK_TEXT: return "string";
	case FK_DOUBLE: return "number";
	case FK_DIMS: return "[int, int, int]";
	case FK_WORDS: case FK_ITEMS: return "[string]";
	case FK_CALC: return NULL;
	}
	return NULL;
}

/* For each "| `a`, `b` | type | ..." row of text: calls back with each key and the row's
 * type cell. */
static void rows(const char *text, void (*each)(const char *key, const char *type, void *user), void *user)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char cell[1024], type[256], key[128];
		const char *c, *t;
		size_t n;

		if (strncmp(l, "| `", 3) != 0)
			continue;
		n = strcspn(l + 1, "|");
		snprintf(cell, sizeof cell, "%.*s", (int)n, l + 1);
		t = l + 1 + n + 1;
		/* the type cell ends at the first '|' that is no "\|" */
		size_t tn = 0;
		while (t[tn] && t[tn] != '\n' && !(t[tn] == '|' && (tn == 0 || t[tn - 1] != '\\')))
			tn++;
		snprintf(type, sizeof type, "%.*s", (int)tn, t);
		for (c = strchr(cell, '`'); c; c = strchr(c + 1, '`')) {
			const char *e = strchr(c + 1, '`');
			if (!e)
				break;
			snprintf(key, sizeof key, "%.*s", (int)(e - c - 1), c + 1);
			each(key, type, user);
			c = e;
		}
	}
}

struct check {
	const struct field_table *t;
	char missing[4096];
};

static bool has_nested(const struct field_table *t, const char *key)
{
	char name[128];

	for (size_t i = 0; i < N_TABLES; i++) {
		snprintf(name, sizeof name, "%s.%s", t->name, key);
		if (strcmp(tables[i]->name, name) == 0)
			return true;
		snprintf(name, sizeof name, "%s.%s[]", t->name, key);
		if (strcmp(tables[i]->name, name) == 0)
			return true;
	}
	return false;
}

static void doc_key(const char *key, const char *type, void *user)
{
	struct check *c = user;
	const struct field *f = field_find(c->t, key);

	if (!f && !has_nested(c->t, key))
		fail_msg("docs/json.md documents %s.%s, which %s does not write", c->t->name, key, c->t->name);
	if (f && doc_type(f) && !strstr(type, doc_type(f)))
		fail_msg("docs/json.md gives %s.%s the type '%s'; the table writes %s", c->t->name, key, type, doc_type(f));
}

static void find_key(const char *key, const char *type, void *user)
{
	const char **want = user;

	(void)type;
	if (*want && strcmp(key, *want) == 0)
		*want = NULL;
}

static void test_fact_rows_match_the_tables(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_TABLES; i++) {
		struct check c = { .t = tables[i] };
		char *text = section(tables[i]->name);

		rows(text, doc_key, &c);
		for (size_t k = 0; k < tables[i]->n; k++) {
			const char *want = tables[i]->fields[k].key;
			if (!want)
				continue;
			rows(text, find_key, &want);
			if (want)
				fail_msg("%s.%s is written but not documented in docs/json.md", tables[i]->name,
					 tables[i]->fields[k].key);
		}
		free(text);
	}
}

/* The renamed-keys table lists the compatibility table's rows, in its order. */
static void test_renamed_keys_are_the_compat_table(void **state)
{
	const char *s = strstr(doc, "<!-- renamed keys -->");
	size_t n = 0;

	(void)state;
	assert_non_null(s);
	for (const char *l = s; l && *l && !(l[0] == '\n' && l[1] == '\n'); l = strchr(l + 1, '\n')) {
		char want[512];

		size_t len = strcspn(l + 1, "\n");
		if (strncmp(l, "\n| ", 3) != 0 || !memchr(l + 1, '`', len))
			continue;
		if (n >= n_json_renames)
			fail_msg("docs/json.md lists more renamed keys than src/report/json_compat.c");
		snprintf(want, sizeof want, "\n| %s | `%s` | `%s` |\n", json_renames[n].command, json_renames[n].from,
			 json_renames[n].to);
		if (strncmp(l, want, strlen(want)) != 0)
			fail_msg("docs/json.md's renamed key %zu is not%s", n, want);
		n++;
	}
	assert_int_equal(n, n_json_renames);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fact_rows_match_the_tables),
		cmocka_unit_test(test_renamed_keys_are_the_compat_table),
	};
	char err[CD_ERRMSG];

	if (file_read_text(CUDOCTOR_SOURCE_DIR "/docs/json.md", 4 << 20, &doc, NULL, err) != CD_OK) {
		fprintf(stderr, "docs/json.md: %s\n", err);
		return 1;
	}
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(doc);
	return rc;
}
