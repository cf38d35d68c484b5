/* The catalogue of finding texts (kb/findings.tsv, rules/catalogue.h): how a row's templates
 * fill, that every row reads whole with nothing known, that every id the code makes from it has
 * a row, that every id emitted anywhere in src/ has one, and that no id of the catalogue is given
 * a text anywhere else in src/. */
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

#include "emitted_ids.h"
#include "kb/kb.h"
#include "report/report.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/file.h"

static const char *fill(const char *tmpl, const struct finding_vars *v)
{
	static char out[1024];

	if (!catalogue_fill(tmpl, v, out, sizeof out))
		return "(left out)";
	return out;
}

static void test_templates(void **state)
{
	struct finding_vars v;

	(void)state;
	finding_vars_init(&v);
	finding_var(&v, "driver", "%s", "535.54.03");
	finding_flag(&v, "wsl", false);
	finding_flag(&v, "container", true);
	/* a value, and a value a later set replaces */
	assert_string_equal(fill("driver {driver} here", &v), "driver 535.54.03 here");
	finding_var(&v, "driver", "%s", "580.65.06");
	assert_string_equal(fill("{driver}", &v), "580.65.06");
	/* optional segments: kept when every value in them is known, else the other branch */
	assert_string_equal(fill("X{? ({driver})}Y", &v), "X (580.65.06)Y");
	assert_string_equal(fill("X{? ({nothing})}Y", &v), "XY");
	assert_string_equal(fill("{?a {nothing}|b}", &v), "b");
	assert_string_equal(fill("{?a {driver}|b}", &v), "a 580.65.06");
	assert_string_equal(fill("{?outer{? {nothing}} {driver}|no}", &v), "outer 580.65.06");
	/* a fallback stands in outside a segment, never inside one */
	assert_true(catalogue_has_fallback("driver_version"));
	assert_string_equal(fill("cudoctor kb driver {driver_version}", &v),
			    "cudoctor kb driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)");
	assert_string_equal(fill("{?kb {driver_version}|none}", &v), "none");
	/* an unknown value without a fallback leaves the fix line out */
	assert_string_equal(fill("cudoctor explain {nothing}", &v), "(left out)");
	/* conditions: kept unless known to fail */
	assert_string_equal(fill("{+wsl}ls /usr/lib/wsl/lib", &v), "(left out)");
	assert_string_equal(fill("{-wsl}nvidia-smi", &v), "nvidia-smi");
	assert_string_equal(fill("{+container}docker run --gpus all", &v), "docker run --gpus all");
	assert_string_equal(fill("{-wsl}{-container}lsmod", &v), "(left out)");
	assert_string_equal(fill("{+unknown_flag}kept", &v), "kept");
	assert_string_equal(fill("{-unknown_flag}kept", &v), "kept");
	/* braces that start no template are text; a value is never filled again */
	assert_string_equal(fill("awk '/x /{print $NF; exit}'", &v), "awk '/x /{print $NF; exit}'");
	assert_string_equal(fill("{? unbalanced", &v), "{? unbalanced");
	finding_var(&v, "evil", "%s", "{driver}");
	assert_string_equal(fill("{evil}", &v), "{driver}");
	/* names in a template, each once */
	{
		char names[8][32];

		assert_int_equal(catalogue_names("{+wsl}{a} {?{b}|{a}}", names, 8), 3);
		assert_string_equal(names[0], "wsl");
		assert_string_equal(names[2], "b");
	}
}

/* No "{name}" nor "{?" is left in a filled text; a name with a digit, which no template takes,
 * counts too, so that a misspelt flag is caught rather than printed. */
static void no_template_left(const char *id, const char *what, const char *text)
{
	for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
		const char *q = p + 1 + (p[1] == '?' || p[1] == '+' || p[1] == '-');
		size_t n = 0;

		if (p[1] == '?')
			fail_msg("%s: its %s keeps a template: %s", id, what, text);
		while ((q[n] >= 'a' && q[n] <= 'z') || (n && q[n] >= '0' && q[n] <= '9') || q[n] == '_')
			n++;
		if (n && q[n] == '}')
			fail_msg("%s: its %s keeps a placeholder: %s", id, what, text);
	}
}

/* Every row reads whole with nothing of a machine known: its title and why fill (their values
 * sit in optional segments or have a fallback), and each fix line either fills or is left out. */
static void test_rows_fill_with_nothing_known(void **state)
{
	char err[CD_ERRMSG], out[1024];

	(void)state;
	assert_int_equal(kb_load(err), CD_OK);
	assert_true(kb_finding_count() >= 45);
	for (size_t i = 0; i < kb_finding_count(); i++) {
		const struct kb_finding *x = kb_finding_at(i);
		size_t kept = 0;

		if (!catalogue_fill(x->title, NULL, out, sizeof out) || !out[0])
			fail_msg("%s: its title needs a value it has no fallback for: %s", x->finding, x->title);
		no_template_left(x->finding, "title", out);
		if (!catalogue_fill(x->why, NULL, out, sizeof out) || !out[0])
			fail_msg("%s: its why needs a value it has no fallback for: %s", x->finding, x->why);
		no_template_left(x->finding, "why", out);
		for (size_t k = 0; k < x->n_fix; k++)
			if (catalogue_fill(x->fix[k], NULL, out, sizeof out)) {
				no_template_left(x->finding, "fix", out);
				kept++;
			}
		if (!kept)
			fail_msg("%s: no fix line is left with nothing known", x->finding);
	}
}

static void test_finding_make(void **state)
{
	struct report r;
	struct finding_vars v;
	const struct finding *f;

	(void)state;
	assert_int_equal(report_init(&r, "test"), CD_OK);
	finding_vars_init(&v);
	finding_var(&v, "ecc_count", "%d", 3);
	finding_var(&v, "ecc_since", "%s", "since the driver loaded");
	assert_non_null(finding_make(&r, SEV_CATALOGUE, "ecc-errors", "GPU 0", &v));
	/* a case of an id: the id, that row's text and severity */
	assert_non_null(finding_make(&r, SEV_CATALOGUE, "wsl-libcuda/copy", "/usr/lib/wsl/lib/libcuda.so.1", NULL));
	assert_null(finding_make(&r, SEV_CATALOGUE, "no-such-id", "x", NULL));
	assert_int_equal(r.n_findings, 2);
	f = &r.findings[0];
	assert_string_equal(f->id, "ecc-errors");
	assert_int_equal(f->severity, SEV_ERROR);
	assert_string_equal(f->title, "The GPU reported 3 uncorrectable ECC error(s) since the driver loaded");
	assert_non_null(strstr(f->why, "double-bit"));
	assert_true(f->n_fix >= 2);
	f = &r.findings[1];
	assert_string_equal(f->id, "wsl-libcuda");
	assert_int_equal(f->severity, SEV_INFO);
	assert_non_null(strstr(f->title, "is a copy, not a symbolic link"));
	report_free(&r);
}

/* A {text} fix line is prose: its values go in as they are, a control character refused; the
 * same value in a command line is quoted. finding_make_as emits an id with another row's text. */
static void test_text_lines(void **state)
{
	struct finding_vars v;
	struct report r;
	const struct finding *f;
	char out[256], refused[32];

	(void)state;
	finding_vars_init(&v);
	finding_var(&v, "nodes", "%s", "gpu[01-02]");
	finding_var(&v, "value", "%s", "580.65.06 (R580)");
	assert_int_equal(catalogue_fix_shell(NULL, "{text}bring {nodes} to {value}", &v), CATALOGUE_TEXT);
	assert_int_equal(catalogue_fix_shell(NULL, "{-windows}{text}bring {nodes}", &v), CATALOGUE_TEXT);
	assert_int_equal(catalogue_fill_fix(NULL, "{text}bring {nodes} to {value}", &v, out, sizeof out, refused), CD_OK);
	assert_string_equal(out, "bring gpu[01-02] to 580.65.06 (R580)");
	assert_int_equal(catalogue_fill_fix(NULL, "{-windows}srun -w {nodes} true", &v, out, sizeof out, refused), CD_OK);
	assert_string_equal(out, "srun -w 'gpu[01-02]' true");
	/* the mark names no value, and a line without a known value is left out as any other */
	{
		char names[4][32];

		assert_int_equal(catalogue_names("{text}bring {nodes}", names, 4), 1);
		assert_string_equal(names[0], "nodes");
	}
	assert_int_equal(catalogue_fill_fix(NULL, "{text}{?as on {target}}", &v, out, sizeof out, refused), CD_ENOTFOUND);
	/* a line break would make a line of its own: refused, the line left out */
	finding_var(&v, "value", "%s", "1\nrm -rf /");
	assert_int_equal(catalogue_fill_fix(NULL, "{text}bring {nodes} to {value}", &v, out, sizeof out, refused),
			 CD_EFORMAT);
	assert_string_equal(refused, "value");
	assert_string_equal(out, "");

	assert_int_equal(report_init(&r, "test"), CD_OK);
	finding_vars_init(&v);
	finding_var(&v, "title", "%s", "the GPU has fallen off the bus");
	finding_var(&v, "count", "%d", 2);
	finding_var(&v, "total", "%d", 8);
	finding_var(&v, "said_nodes_a", "%s", "gpu[01-02]");
	finding_var(&v, "said_a", "%s", "nvidia-smi -q | grep 'x'");
	assert_non_null(f = finding_make_as(&r, SEV_ERROR, "fleet-grouped", "gpu-lost", "gpu[01-02]", &v));
	assert_string_equal(f->id, "gpu-lost");
	assert_string_equal(f->title, "the GPU has fallen off the bus (2 of 8 nodes)");
	assert_int_equal(f->severity, SEV_ERROR);
	assert_true(f->n_fix >= 1);
	assert_string_equal(f->fix[0], "node gpu[01-02] says: nvidia-smi -q | grep 'x'");
	report_free(&r);
}

/* ---- the source: every finding_make id has a row; no catalogue id gets a text elsewhere ---- */

static int bad;

/* The string literal at p (after spaces), into id; false when there is none. */
static bool literal_at(const char *p, char *id, size_t n)
{
	size_t k = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p++ != '"')
		return false;
	while (*p && *p != '"' && k + 1 < n)
		id[k++] = *p++;
	id[k] = '\0';
	return *p == '"';
}

/* The third argument of a call at p ("finding_make(r, SEV_X, "id", ..."): after two commas. */
static bool third_literal(const char *p, char *id, size_t n)
{
	int commas = 0, depth = 0;

	for (p = strchr(p, '('); p && *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return false;
		else if (*p == ',' && depth == 1 && ++commas == 2)
			return literal_at(p + 1, id, n);
	}
	return false;
}

static bool in_catalogue(const char *id)
{
	char base[64];

	snprintf(base, sizeof base, "%.*s", (int)strcspn(id, "/"), id);
	for (size_t i = 0; i < kb_finding_count(); i++) {
		const char *f = kb_finding_at(i)->finding;

		if (strncmp(f, base, strlen(base)) == 0 && (f[strlen(base)] == '\0' || f[strlen(base)] == '/'))
			return true;
	}
	return false;
}

static void scan(const char *path, size_t *made)
{
	char *text = NULL, id[96];

	assert_int_equal(file_read_text(path, 4 << 20, &text, NULL, NULL), CD_OK);
	/* finding_make(r, sev, "row", ...) and finding_make_as(r, sev, "row", id, ...) */
	for (const char *p = strstr(text, "finding_make"); p; p = strstr(p + 1, "finding_make")) {
		if ((strncmp(p, "finding_make(", 13) != 0 && strncmp(p, "finding_make_as(", 16) != 0) ||
		    !third_literal(p, id, sizeof id))
			continue;
		(*made)++;
		if (!kb_finding_find(id)) {
			print_error("%s: %.*s(\"%s\") has no row in kb/findings.tsv\n", path, (int)strcspn(p, "("), p, id);
			bad++;
		}
	}
	for (const char *p = strstr(text, "report_add_finding("); p; p = strstr(p + 1, "report_add_finding(")) {
		if (third_literal(p, id, sizeof id) && in_catalogue(id)) {
			print_error("%s: %s is in the catalogue but gets its text here (report_add_finding)\n", path, id);
			bad++;
		}
	}
	free(text);
}

static void walk(const char *dir, size_t *made)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (path_is_dir(path))
			walk(path, made);
		else if (n > 2 && strcmp(de->d_name + n - 2, ".c") == 0)
			scan(path, made);
	}
	closedir(d);
}

static void test_sources_use_the_catalogue(void **state)
{
	char err[CD_ERRMSG], id[96];
	size_t made = 0;

	(void)state;
	assert_int_equal(kb_load(err), CD_OK);
	/* the scanner reads calls as the code writes them */
	assert_true(third_literal("finding_make(r, SEV_CATALOGUE, \"no-driver\", s, &v)", id, sizeof id));
	assert_string_equal(id, "no-driver");
	assert_false(third_literal("finding_make(r, sev, row, s, &v)", id, sizeof id));
	assert_true(in_catalogue("wsl-libcuda"));
	assert_false(in_catalogue("no-such"));
	bad = 0;
	walk(CUDOCTOR_SOURCE_DIR "/src", &made);
	assert_true(made >= 5);
	assert_int_equal(bad, 0);
}

struct emitted {
	size_t seen, unlisted;
};

static void emitted_in_src(const char *id, size_t n, const char *where, void *arg)
{
	struct emitted *e = arg;
	char one[72];

	if (n == 0 || n >= sizeof one)
		return;
	snprintf(one, sizeof one, "%.*s", (int)n, id);
	e->seen++;
	if (!in_catalogue(one)) {
		print_error("%s: emits '%s', which has no row in kb/findings.tsv\n", where, one);
		e->unlisted++;
	}
}

static void test_every_emitted_id_has_a_row(void **state)
{
	struct emitted e = { 0 };
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(kb_load(err), CD_OK);
	assert_true(in_catalogue("gpu-lost"));
	assert_false(in_catalogue("gpu-lost-forever"));
	emitted_ids_in_dir(CUDOCTOR_SOURCE_DIR "/src", emitted_in_src, &e);
	assert_true(e.seen >= 50); /* the scan found the emitting calls at all */
	assert_int_equal(e.unlisted, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_rows_fill_with_nothing_known),
		cmocka_unit_test(test_finding_make),
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_sources_use_the_catalogue),
		cmocka_unit_test(test_every_emitted_id_has_a_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
