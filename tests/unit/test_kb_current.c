/* The kb against the releases it describes: its newest torch, JAX, CuPy, TensorFlow and CUDA
 * are no older than tests/kb_current.tsv pins, every row of every table cites a public page,
 * and the facts of the last refresh answer where users ask them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/embedded.h"
#include "kb/frameworks.h"
#include "kb/kb.h"
#include "testlib.h"
#include "util/err.h"
#include "util/version.h"

#define PINNED CUDOCTOR_SOURCE_DIR "/tests/kb_current.tsv"

static int load(void **state)
{
	char err[CD_ERRMSG] = "";

	(void)state;
	if (kb_load(err) != CD_OK || kb_fw_load(err) != CD_OK) {
		print_error("kb: %s\n", err);
		return -1;
	}
	return 0;
}

/* dotted numbers only ("current" is no release) */
static bool release_of(const char *text, struct version *v)
{
	return text[0] >= '0' && text[0] <= '9' && version_parse(text, v) == CD_OK;
}

static void newer(struct version *best, bool *found, const struct version *v)
{
	if (!*found || version_cmp(v, best) > 0)
		*best = *v;
	*found = true;
}

/* The kb's newest release of name (within series when it has parts: "2.14" is 2.14.x). */
static bool kb_newest(const char *name, const struct version *series, struct version *best)
{
	bool found = false;

	if (strcmp(name, "torch") == 0) {
		for (size_t i = 0; i < kb_torch_count(); i++)
			if (!series->parts || kb_torch_release_matches(kb_torch_at(i), series))
				newer(best, &found, &kb_torch_at(i)->release_v);
	} else if (strcmp(name, "cuda") == 0) {
		for (size_t i = 0; i < kb_toolkit_count(); i++)
			newer(best, &found, &kb_toolkit_at(i)->release);
	} else {
		for (size_t i = 0; i < kb_fw_count(); i++) {
			const struct kb_fw_build *b = kb_fw_at(i);
			struct version v;

			if (strcmp(b->framework, name) == 0 && release_of(b->release, &v))
				newer(best, &found, &v);
		}
	}
	return found;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	assert_true(n < (1 << 16) - 1);
	fclose(f);
	return buf;
}

static void newest_releases_are_pinned(void **state)
{
	char *text = read_text(PINNED), *save = NULL;
	size_t checked = 0;

	(void)state;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char what[64], name[32] = "", series_text[16] = "", pin[32], a[16], b[16];
		struct version series = { 0 }, want, have;

		if (line[0] == '#' || strncmp(line, "what\t", 5) == 0)
			continue;
		if (sscanf(line, "%63[^\t]\t%31[^\t]", what, pin) != 2)
			fail_msg("tests/kb_current.tsv: malformed line '%s'", line);
		if (sscanf(what, "%31s %15s", name, series_text) == 2)
			assert_int_equal(version_parse(series_text, &series), CD_OK);
		assert_true(release_of(pin, &want));
		if (!kb_newest(name, &series, &have))
			fail_msg("the kb has no %s release; tests/kb_current.tsv pins %s", what, pin);
		if (version_cmp(&have, &want) < 0)
			fail_msg("the kb's newest %s is %s; the index has %s (tests/kb_current.tsv): refresh the kb",
				 what, version_format(&have, 3, a, sizeof(a)), version_format(&want, 3, b, sizeof(b)));
		checked++;
	}
	free(text);
	assert_true(checked >= 5);
}

/* Whether key (one entry of a source list) is a public page: a URL, or a sources.tsv key whose
 * explanation has one. Unknown keys fail here, whichever table cites them. */
static bool public_source(const char *key, const char *where)
{
	const struct kb_source *s;

	if (strncmp(key, "https://", 8) == 0)
		return true;
	if (!(s = kb_source_find(key)))
		fail_msg("%s cites %s, which kb/sources.tsv does not explain", where, key);
	return strstr(s->what, "https://") != NULL;
}

/* column index of name in a tab-separated header line, -1 none */
static int column(const char *header, const char *name)
{
	int col = 0;

	for (const char *p = header; *p; col++) {
		size_t k = strcspn(p, "\t");

		if (k == strlen(name) && strncmp(p, name, k) == 0)
			return col;
		p += k + (p[k] == '\t');
	}
	return -1;
}

/* field col of a line, copied into out */
static void field(const char *line, int col, char *out, size_t n)
{
	const char *p = line;
	size_t k;

	for (int c = 0; c < col && *p; c++)
		p += strcspn(p, "\t") + (p[strcspn(p, "\t")] == '\t');
	k = strcspn(p, "\t");
	snprintf(out, n, "%.*s", (int)k, p);
}

static void every_row_cites_a_public_page(void **state)
{
	size_t rows = 0, tables = 0;

	(void)state;
	for (size_t t = 0; t < kb_blob_count && kb_blobs[t].name; t++) {
		const struct kb_blob *blob = &kb_blobs[t];
		char *text, *save = NULL, *header;
		int src, notes;
		size_t line_no = 1;

		if (!strstr(blob->name, ".tsv") || strcmp(blob->name, "sources.tsv") == 0)
			continue;
		text = strdup((const char *)blob->data);
		assert_non_null(text);
		header = strtok_r(text, "\n", &save);
		src = column(header, "source");
		notes = column(header, "notes");
		if (src < 0)
			fail_msg("%s has no source column", blob->name);
		tables++;
		for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char list[4096], where[128], note[2048];
			bool pub = false;

			line_no++;
			field(line, src, list, sizeof(list));
			snprintf(where, sizeof(where), "%s row %zu (%.40s)", blob->name, line_no, line);
			for (char *s2 = NULL, *key = strtok_r(list, ";", &s2); key; key = strtok_r(NULL, ";", &s2))
				pub |= public_source(key, where);
			if (!pub)
				fail_msg("%s cites no public page", where);
			if (notes >= 0) {
				field(line, notes, note, sizeof(note));
				if (strstr(note, "unsourced"))
					fail_msg("%s says it is unsourced: %s", where, note);
			}
			rows++;
		}
		free(text);
	}
	print_message("%zu rows in %zu tables, each citing a public page\n", rows, tables);
	assert_true(tables >= 18);
	assert_true(rows > 1000);
}

/* The frameworks a refresh added: CuPy and TensorFlow rows as plan and doctor read JAX's */
static void cupy_and_tensorflow_builds(void **state)
{
	const struct kb_fw_build *cupy13 = NULL, *tf = NULL;

	(void)state;
	for (size_t i = 0; i < kb_fw_count(); i++) {
		const struct kb_fw_build *b = kb_fw_at(i);

		if (!strcmp(b->framework, "cupy") && !strcmp(b->variant, "cuda13x"))
			cupy13 = b;
		if (!strcmp(b->framework, "tensorflow"))
			tf = b;
	}
	assert_non_null(cupy13);
	assert_int_equal(cupy13->min_cc, 75); /* CUDA 13 builds nothing older */
	assert_int_equal(cupy13->cuda.major, 13);
	assert_false(cupy13->has_min_driver); /* CUDA 13's floor, from toolkits.tsv */
	assert_non_null(tf);
	assert_int_equal(tf->cuda.major, 12);
	assert_int_equal(tf->min_cc, 60); /* the 2.21.0 wheel's oldest SASS is sm_60 */
}

/* CUDA 13.5: the archs nvcc 13.5.37 accepts, PTX ISA 9.5, and the driver that JITs it */
static void cuda_13_5(void **state)
{
	struct version v = { 13, 5, 0, 2 };
	const struct kb_toolkit *t = kb_toolkit_find(&v);
	const struct kb_ptx_isa *p = kb_ptx_isa_find(9, 5);
	const struct kb_driver_branch *b;
	struct kb_arch sm107 = { 107, 0 }, sm101 = { 101, 0 };
	bool exact;

	(void)state;
	assert_non_null(t);
	assert_true(t->has_min_driver && t->archs_known);
	assert_string_equal(t->min_driver_text, "620.70.06");
	assert_true(kb_toolkit_accepts(t, sm107));
	assert_false(kb_toolkit_accepts(t, sm101));
	assert_int_equal(t->ptx_major * 10 + t->ptx_minor, 95);
	assert_non_null(p);
	assert_true(p->has_min_driver);
	assert_string_equal(p->min_driver_text, "620.70.06");
	assert_int_equal(kb_driver_branch_of(&t->min_driver, &b, &exact), CD_OK);
	assert_int_equal(b->branch, 620);
}

/* explain names the driver a CUDA 13.5 build's PTX needs, from the file it was given */
static void explain_names_the_driver_of_a_13_5_build(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "--binary", CUDOCTOR_SOURCE_DIR "/tests/unit/ptx/k_isa95.ptx",
			       "--gpu", "sm_120", "--driver", "610.43.02",
			       "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.", NULL };
	const char *env[] = { "COLUMNS=9999", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "ptx-too-new"));
	assert_non_null(strstr(r.out, "PTX ISA 9.5; a driver JITs it from 620.70.06"));
	run_result_free(&r);
}

/* Xids of NVIDIA's catalogue the table lacked: 158 is explained as itself, not as Xid 79 */
static void catalogue_xids(void **state)
{
	static const int added[] = { 54, 110, 151, 158, 159 };
	const char *argv[] = { CUDOCTOR_BINARY, "explain", "--offline",
			       "NVRM: Xid (PCI:0000:01:00): 158, pid=1234, name=python, GPU fatal timeout", NULL };
	const char *env[] = { "COLUMNS=9999", NULL };
	struct run_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++)
		assert_non_null(kb_xid_find(added[i]));
	assert_string_equal(kb_xid_find(158)->bucket, "RESET_GPU");
	assert_string_equal(kb_xid_find(54)->bucket, "CHECK_MECHANICALS");
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "Xid 158: GPU Fatal Timeout"));
	assert_null(strstr(r.out, "not in cudoctor's table"));
	assert_null(strstr(r.out, "Xid 79"));
	run_result_free(&r);
}

/* RTX Spark (N1X), a GB10-class Windows on Arm part */
static void rtx_spark(void **state)
{
	struct gpu_spec g;
	char err[CD_ERRMSG] = "";

	(void)state;
	if (kb_parse_gpu_spec("RTX Spark", &g, err) != CD_OK)
		fail_msg("RTX Spark: %s", err);
	assert_int_equal(g.cc_major * 10 + g.cc_minor, 121);
	assert_int_equal(kb_parse_gpu_spec("N1X", &g, err), CD_OK);
	assert_int_equal(g.cc_major * 10 + g.cc_minor, 121);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(newest_releases_are_pinned),
		cmocka_unit_test(every_row_cites_a_public_page),
		cmocka_unit_test(cupy_and_tensorflow_builds),
		cmocka_unit_test(cuda_13_5),
		cmocka_unit_test(explain_names_the_driver_of_a_13_5_build),
		cmocka_unit_test(catalogue_xids),
		cmocka_unit_test(rtx_spark),
	};

	return cmocka_run_group_tests(tests, load, NULL);
}
