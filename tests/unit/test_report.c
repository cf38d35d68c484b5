/* report + renderers: the JSON contract, text and Markdown shapes, exit-code inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render.h"
#include "report/finding_write.h"
#include "report/report.h"
#include "report/report_internal.h"
#include "util/err.h"

/* What the renderer writes: stdout, then what went to the rest (stderr) after "--stderr--\n"
 * when anything did. */
static char *render_to_string(const struct report *r, enum output_format fmt, int verbosity)
{
	char *buf = NULL, *ebuf = NULL, *all;
	size_t len = 0, elen = 0;
	FILE *f = open_memstream(&buf, &len), *e = open_memstream(&ebuf, &elen);
	struct render_opts o = { fmt, false, verbosity, 0, e };

	assert_non_null(f);
	assert_non_null(e);
	assert_int_equal(render_report(r, &o, f), 0);
	fclose(f);
	fclose(e);
	if (!elen) {
		free(ebuf);
		return buf;
	}
	all = malloc(len + elen + 16);
	assert_non_null(all);
	sprintf(all, "%s--stderr--\n%s", buf, ebuf);
	free(buf);
	free(ebuf);
	return all;
}

static void fill(struct report *r)
{
	const char *hdr[] = { "arch", "kind" };
	const char *row[] = { "sm_90", "sass|elf" };
	struct finding *f;

	assert_int_equal(report_init(r, "test"), 0);
	report_section(r, "Driver");
	report_kv(r, "version", "%s", "580.159.04");
	report_kv(r, "cuda version", "%d.%d", 13, 0);
	report_table(r, 2, hdr);
	report_table_row(r, row);
	f = report_add_finding(r, SEV_ERROR, "no-driver", "libcuda.so.1", "libcuda.so.1 cannot be %s", "loaded");
	assert_non_null(f);
	finding_evidence(f, "dlopen: %s", "libcuda.so.1: cannot open shared object file");
	finding_why(f, "The driver API lives in libcuda.");
	finding_fix(f, "sudo apt-get install nvidia-driver");
	report_add_finding(r, SEV_OK, "nvml-ok", "", "NVML answered");
	report_json_set(r, "driver", json_pack("{s:s}", "version", "580.159.04"));
}

static void test_json_contract(void **state)
{
	struct report r;
	json_t *root, *f0;
	json_error_t jerr;
	char *s;

	(void)state;
	fill(&r);
	s = render_to_string(&r, FMT_JSON, 0);
	root = json_loads(s, 0, &jerr);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "tool")), "cudoctor");
	assert_string_equal(json_string_value(json_object_get(root, "command")), "test");
	assert_non_null(json_object_get(root, "version"));
	assert_int_equal(json_array_size(json_object_get(root, "findings")), 2);
	f0 = json_array_get(json_object_get(root, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "id")), "no-driver");
	assert_string_equal(json_string_value(json_object_get(f0, "severity")), "error");
	assert_string_equal(json_string_value(json_object_get(f0, "title")), "libcuda.so.1 cannot be loaded");
	assert_int_equal(json_array_size(json_object_get(f0, "evidence")), 1);
	assert_int_equal(json_array_size(json_object_get(f0, "fix")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "driver"), "version")),
			    "580.159.04");
	assert_true(report_has_errors(&r));
	assert_true(report_has_finding(&r, "nvml-ok"));
	assert_false(report_has_finding(&r, "no-device"));
	json_decref(root);
	free(s);
	report_free(&r);
}

static void test_text_and_markdown(void **state)
{
	struct report r;
	char *s;

	(void)state;
	fill(&r);
	s = render_to_string(&r, FMT_TEXT, 0);
	assert_non_null(strstr(s, "Driver\n"));
	assert_non_null(strstr(s, "  version       580.159.04\n"));   /* keys aligned in a run */
	assert_non_null(strstr(s, "  cuda version  13.0\n"));
	assert_non_null(strstr(s, "  sm_90  sass|elf\n"));
	assert_non_null(strstr(s, "error no-driver: libcuda.so.1 cannot be loaded"));
	assert_non_null(strstr(s, "fix: sudo apt-get install nvidia-driver"));
	assert_non_null(strstr(s, "1 error, 0 warnings, 0 info, 1 ok"));
	assert_null(strstr(s, "\033["));                               /* no color when asked */
	free(s);
	s = render_to_string(&r, FMT_TEXT, -1); /* quiet, no answer: nothing on stdout, the findings on stderr */
	assert_string_equal(s, "--stderr--\nerror no-driver: libcuda.so.1 cannot be loaded [libcuda.so.1]\n");
	free(s);
	s = render_to_string(&r, FMT_MARKDOWN, 0);
	assert_non_null(strstr(s, "### Driver"));
	assert_non_null(strstr(s, "- **version:** 580.159.04"));
	assert_non_null(strstr(s, "| sm_90 | sass\\|elf |"));         /* pipes escaped in tables */
	assert_non_null(strstr(s, "- **ERROR** `no-driver`"));
	assert_non_null(strstr(s, "```sh"));
	free(s);
	report_free(&r);
}

/* -q with answer lines: the answers on stdout, then one line per warn and error finding on
 * stderr, errors first; ok and info findings and every section stay out, JSON does not change.
 * A command whose findings are its answer (explain) puts them on stdout, once. */
static void test_answer_findings(void **state)
{
	struct report r;
	char *s, *before;

	(void)state;
	fill(&r);
	report_add_finding(&r, SEV_WARN, "ecc-errors", "GPU 0 (NVIDIA H200)", "3 corrected ECC errors");
	report_add_finding(&r, SEV_INFO, "clocks-throttled", "GPU 0 (NVIDIA H200)", "idle");
	before = render_to_string(&r, FMT_JSON, -1);
	assert_int_equal(report_answer(&r, "GPU 0 (NVIDIA H200): sm_90"), CD_OK);
	s = render_to_string(&r, FMT_TEXT, -1);
	assert_string_equal(s, "GPU 0 (NVIDIA H200): sm_90\n"
			       "--stderr--\n"
			       "error no-driver: libcuda.so.1 cannot be loaded [libcuda.so.1]\n"
			       "warn ecc-errors: 3 corrected ECC errors [GPU 0 (NVIDIA H200)]\n");
	free(s);
	s = render_to_string(&r, FMT_JSON, -1);
	assert_string_equal(s, before);
	free(s);
	free(before);
	report_free(&r);

	fill(&r);
	report_add_finding(&r, SEV_INFO, "clocks-throttled", "GPU 0 (NVIDIA H200)", "idle");
	assert_int_equal(report_answer_findings(&r, SEV_INFO), CD_OK);
	s = render_to_string(&r, FMT_TEXT, -1);
	assert_string_equal(s, "error no-driver: libcuda.so.1 cannot be loaded [libcuda.so.1]\n"
			       "info clocks-throttled: idle [GPU 0 (NVIDIA H200)]\n");
	free(s);
	report_free(&r);
}

/* One description, two outputs: the text body and the JSON keys come from the same calls. */
static void test_records(void **state)
{
	static const char *const hdr[] = { "arch", "kind" };
	struct report r;
	struct report_rec top, gpus, g, tab, row;
	json_t *root, *o, *aliases = json_pack("[s, s]", "AD106", "RTX 4060 Ti 16GB");
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_field(&top, NULL, "topic", rv_str("gpu"));
	report_field(&top, NULL, "query", rv_str(NULL));
	report_rec_array(&top, "gpus", &gpus);
	report_rec_item(&gpus, &g);
	report_rec_section(&g, "%s", "NVIDIA GeForce RTX 4060 Ti");
	report_fieldf(&g, "compute capability", "compute_capability", rv_str("8.9"), "%s (sm_89), %s",
		      "8.9", "Ada Lovelace");
	report_field(&g, "also called", "aliases", rv_json(aliases));
	report_field(&g, "released", "year", rv_int(2023));
	report_field(&g, "uncertain", "uncertain", rv_bool(false));
	report_fieldf(&g, "only text", NULL, rv_json(json_pack("{s:i}", "x", 1)), "%s", "shown"); /* freed */
	assert_int_equal(report_rec_end(&g), CD_OK);
	assert_int_equal(report_rec_end(&gpus), CD_OK);
	report_rec_table(&top, "images", 2, hdr, &tab);
	report_rec_item(&tab, &row);
	report_field(&row, "kind", "kind", rv_str("sass"));  /* cells by header, not by call order */
	report_field(&row, "arch", "sm", rv_str("sm_89"));
	report_rec_text(&row, REPORT_TEXT_NONE);
	report_field(&row, "size", "bytes", rv_int(4096)); /* JSON only from here */
	assert_int_equal(report_rec_end(&row), CD_OK);
	assert_int_equal(report_rec_end(&tab), CD_OK);
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_false(r.oom);

	s = render_to_string(&r, FMT_TEXT, 0);
	assert_string_equal(s, "NVIDIA GeForce RTX 4060 Ti\n"
			       "  compute capability  8.9 (sm_89), Ada Lovelace\n"
			       "  also called         AD106, RTX 4060 Ti 16GB\n"
			       "  released            2023\n"
			       "  uncertain           no\n"
			       "  only text           shown\n"
			       "  arch   kind\n"
			       "  sm_89  sass\n");
	free(s);
	s = render_to_string(&r, FMT_JSON, 0);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "topic")), "gpu");
	assert_true(json_is_null(json_object_get(root, "query")));
	o = json_array_get(json_object_get(root, "gpus"), 0);
	assert_int_equal(json_object_size(o), 4);
	assert_string_equal(json_string_value(json_object_get(o, "compute_capability")), "8.9");
	assert_int_equal(json_array_size(json_object_get(o, "aliases")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "year")), 2023);
	assert_true(json_is_false(json_object_get(o, "uncertain")));
	o = json_array_get(json_object_get(root, "images"), 0);
	assert_int_equal(json_object_size(o), 3);
	assert_string_equal(json_string_value(json_object_get(o, "sm")), "sm_89");
	assert_int_equal(json_integer_value(json_object_get(o, "bytes")), 4096);
	json_decref(root);
	free(s);
	report_free(&r);
}

/* A table that shows its first rows and lists every row in JSON (report_rec_item_json), and
 * plain values pushed onto an array (report_rec_push). */
static void test_record_json_rows_and_values(void **state)
{
	static const char *const hdr[] = { "pair", "busbw" };
	struct report r;
	struct report_rec top, tab, row, ev, obj;
	json_t *root, *a;
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_table(&top, "pairs", 2, hdr, &tab);
	for (int i = 0; i < 3; i++) {
		if (i < 2)
			report_rec_item(&tab, &row);
		else
			report_rec_item_json(&tab, &row);
		report_fieldf(&row, "pair", "pair", rv_int(i), "0 - %d", i + 1);
		report_fieldf(&row, "busbw", "busbw_gbs", rv_real(40.0 + i), "%.3g GB/s", 40.0 + i);
		assert_int_equal(report_rec_end(&row), CD_OK);
	}
	assert_int_equal(report_rec_end(&tab), CD_OK);
	report_rec_array(&top, "evidence", &ev);
	report_rec_push(&ev, rv_str("matched: CUDA error: out of memory"));
	report_rec_push(&ev, rv_int(7));
	report_rec_push(&ev, rv_null());
	assert_int_equal(report_rec_end(&ev), CD_OK);
	report_rec_object(&top, "not_a_list", &obj);
	report_rec_push(&obj, rv_str("x"));
	assert_int_equal(report_rec_end(&obj), CD_EUSAGE);
	assert_int_equal(report_rec_end(&top), CD_EUSAGE);

	s = render_to_string(&r, FMT_TEXT, 0);
	assert_string_equal(s, "  pair   busbw\n"
			       "  0 - 1  40 GB/s\n"
			       "  0 - 2  41 GB/s\n");
	free(s);
	s = render_to_string(&r, FMT_JSON, 0);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	a = json_object_get(root, "pairs");
	assert_int_equal(json_array_size(a), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 2), "pair")), 2);
	assert_true(json_real_value(json_object_get(json_array_get(a, 2), "busbw_gbs")) == 42.0);
	a = json_object_get(root, "evidence");
	assert_int_equal(json_array_size(a), 3);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "matched: CUDA error: out of memory");
	assert_int_equal(json_integer_value(json_array_get(a, 1)), 7);
	assert_true(json_is_null(json_array_get(a, 2)));
	assert_int_equal(json_object_size(json_object_get(root, "not_a_list")), 0);
	json_decref(root);
	free(s);
	report_free(&r);
}

/* A struct written through its field table: JSON every keyed field (null when its bit is
 * unset or its kind says unknown), text the fields of the view, a row's cells by label, and
 * the values kept for the metrics. */
struct thing {
	unsigned long long valid[1];
	long long bytes, ordinal;
	bool on, quiet;
	char name[16], words[32];
	const char *source;
};

enum { T_BYTES, T_ON };

static bool thing_calc(const void *obj, struct field_value *v)
{
	const struct thing *t = obj;

	if (t->ordinal < 0)
		return false;
	snprintf(v->buf, sizeof v->buf, "#%lld", t->ordinal);
	v->kind = FV_STR;
	v->s = v->buf;
	return true;
}

static const struct field_metric thing_bytes_metric = { "test_bytes", "gauge", "Bytes.", 0, NULL, NULL };

static const struct field thing_fields[] = {
	{ .key = "bytes", .label = "size", .kind = FK_LLONG, .unit = FU_BYTES, .off = offsetof(struct thing, bytes),
	  .valid = T_BYTES, .views = FIELD_BRIEF | FIELD_FULL, .metric = &thing_bytes_metric },
	{ .key = "ordinal", .label = "ordinal", .kind = FK_LLONG, .off = offsetof(struct thing, ordinal),
	  .valid = FIELD_ALWAYS, .views = FIELD_BRIEF | FIELD_FULL, .flags = FIELD_NEG_UNKNOWN, .prom_label = "ord" },
	{ .key = "on", .label = "mode", .kind = FK_BOOL, .off = offsetof(struct thing, on), .valid = T_ON,
	  .views = FIELD_FULL, .flags = FIELD_ON_OFF, .unknown = "unknown" },
	{ .key = "quiet", .label = "quiet", .kind = FK_BOOL, .off = offsetof(struct thing, quiet), .valid = FIELD_ALWAYS,
	  .views = FIELD_FULL, .flags = FIELD_QUIET },
	{ .key = "name", .label = "name", .kind = FK_CHARS, .off = offsetof(struct thing, name), .valid = FIELD_ALWAYS,
	  .views = FIELD_BRIEF | FIELD_FULL },
	{ .key = "words", .label = "words", .kind = FK_WORDS, .off = offsetof(struct thing, words),
	  .valid = FIELD_ALWAYS, .views = FIELD_FULL, .flags = FIELD_QUIET },
	{ .key = "source", .label = NULL, .kind = FK_CSTR, .off = offsetof(struct thing, source), .valid = FIELD_ALWAYS },
	{ .key = NULL, .label = "tag", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_FULL, .get = thing_calc },
};

static const struct field_table thing_table = { "things[]", thing_fields, sizeof thing_fields / sizeof thing_fields[0],
						offsetof(struct thing, valid), "test_thing_info", "A thing." };

static void test_field_tables(void **state)
{
	struct thing a = { .valid = { 1ULL << T_BYTES | 1ULL << T_ON }, .bytes = 8LL << 30, .ordinal = 0, .on = true,
			   .name = "first", .words = "  x  y ", .source = "NVML" };
	struct thing b = { .valid = { 0 }, .bytes = 5, .ordinal = -1, .quiet = false, .name = "" };
	const char *hdr[8];
	size_t nh = report_fields_headers(&thing_table, FIELD_BRIEF, hdr, 8);
	struct report r;
	struct report_rec top, list, it, tab;
	json_t *root, *o;
	char *s, buf[64];

	(void)state;
	assert_int_equal(nh, 3);
	assert_string_equal(hdr[0], "size");
	assert_string_equal(hdr[2], "name");
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_array(&top, "things", &list);
	report_rec_item(&list, &it);
	report_fields(&it, &thing_table, &a, FIELD_FULL);
	assert_int_equal(report_rec_end(&it), CD_OK);
	report_rec_item(&list, &it);
	report_fields(&it, &thing_table, &b, FIELD_FULL);
	assert_int_equal(report_rec_end(&it), CD_OK);
	assert_int_equal(report_rec_end(&list), CD_OK);
	report_rec_table(&top, NULL, nh, hdr, &tab); /* text only: no JSON, no facts */
	report_rec_item(&tab, &it);
	report_fields(&it, &thing_table, &b, FIELD_BRIEF);
	assert_int_equal(report_rec_end(&it), CD_OK);
	assert_int_equal(report_rec_end(&tab), CD_OK);
	assert_int_equal(report_rec_end(&top), CD_OK);

	s = render_to_string(&r, FMT_TEXT, 0);
	assert_string_equal(s, "  size     8 GiB\n"
			       "  ordinal  0\n"
			       "  mode     on\n"
			       "  name     first\n"
			       "  words    x, y\n"
			       "  tag      #0\n"
			       "  mode     unknown\n"
			       "  size  ordinal  name\n"
			       "  -     -        -\n");
	free(s);
	s = render_to_string(&r, FMT_JSON, 0);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	o = json_array_get(json_object_get(root, "things"), 0);
	assert_int_equal(json_object_size(o), 7);
	assert_int_equal(json_integer_value(json_object_get(o, "bytes")), 8LL << 30);
	assert_true(json_is_true(json_object_get(o, "on")));
	assert_true(json_is_false(json_object_get(o, "quiet")));
	assert_int_equal(json_array_size(json_object_get(o, "words")), 2);
	assert_string_equal(json_string_value(json_object_get(o, "source")), "NVML");
	o = json_array_get(json_object_get(root, "things"), 1);
	assert_true(json_is_null(json_object_get(o, "bytes")));   /* its bit is unset */
	assert_true(json_is_null(json_object_get(o, "ordinal"))); /* negative: unknown */
	assert_true(json_is_null(json_object_get(o, "name")));
	assert_true(json_is_null(json_object_get(o, "source")));
	assert_int_equal(json_array_size(json_object_get(o, "words")), 0);
	json_decref(root);
	free(s);

	/* the records with JSON are kept for the metrics, the text-only one is not */
	assert_int_equal(r.n_facts, 2);
	assert_true(r.facts[0].num[0] == (double)(8LL << 30));
	assert_string_equal(r.facts[0].label[1], "0");
	assert_true(r.facts[1].num[0] != r.facts[1].num[0]); /* NaN: unknown */
	assert_null(r.facts[1].label[1]);
	assert_string_equal(field_text(&thing_table, &thing_fields[0], &a, buf, sizeof buf), "8 GiB");
	assert_null(field_text(&thing_table, &thing_fields[0], &b, buf, sizeof buf));
	assert_ptr_equal(field_find(&thing_table, "source"), &thing_fields[6]);
	report_free(&r);
}

/* Values appended to an array record: JSON only, in order, strings made safe text; a value
 * outside an array is the record's error. */
static void test_record_values(void **state)
{
	struct report r;
	struct report_rec top, list, obj;
	json_t *a;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_array(&top, "names", &list);
	report_rec_push(&list, rv_str("k\x01"));
	report_rec_push(&list, rv_real(1.5));
	report_rec_push(&list, rv_null());
	assert_int_equal(report_rec_end(&list), CD_OK);
	report_rec_array(&top, "none", &list); /* an empty list is [] */
	assert_int_equal(report_rec_end(&list), CD_OK);
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_int_equal(r.n_items, 0); /* no text */
	a = json_object_get(r.data, "names");
	assert_int_equal(json_array_size(a), 3);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "k\\x01");
	assert_true(json_real_value(json_array_get(a, 1)) == 1.5);
	assert_true(json_is_null(json_array_get(a, 2)));
	assert_int_equal(json_array_size(json_object_get(r.data, "none")), 0);
	report_free(&r);

	/* a list: JSON an array of its items (a name may hold blanks), text joined by ", "; a
	 * value read from a report goes in as a copy */
	json_t *read = json_pack("{s:s}", "node", "n1");
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_field(&top, "also called", "aliases", rv_list("RTX 4090 D\nAD102\n", "\n"));
	report_field(&top, NULL, "empty", rv_list("", " "));
	report_field(&top, NULL, "node", rv_json_copy(json_object_get(read, "node")));
	report_field(&top, NULL, "date", rv_json_copy(json_object_get(read, "date")));
	assert_int_equal(report_rec_end(&top), CD_OK);
	a = json_object_get(r.data, "aliases");
	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "RTX 4090 D");
	assert_int_equal(json_array_size(json_object_get(r.data, "empty")), 0);
	assert_string_equal(json_string_value(json_object_get(r.data, "node")), "n1");
	assert_true(json_is_null(json_object_get(r.data, "date")));
	assert_string_equal(r.items[0].b, "RTX 4090 D, AD102");
	report_free(&r);
	assert_string_equal(json_string_value(json_object_get(read, "node")), "n1"); /* still the reader's */
	json_decref(read);

	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_object(&top, "driver", &obj);
	report_rec_push(&obj, rv_int(1)); /* an object's values have keys */
	assert_int_equal(report_rec_end(&obj), CD_EUSAGE);
	assert_int_equal(report_rec_end(&top), CD_EUSAGE);
	report_rec_top(&top, &r);
	report_rec_array(&top, "bad", &list);
	report_rec_push(&list, rv_json(NULL)); /* a value the JSON library did not make */
	assert_int_equal(report_rec_end(&list), CD_EINTERNAL);
	assert_true(r.internal);
	report_free(&r);
}

/* The first failure is kept, later writes are ignored, and the ends hand it up. */
static void test_record_errors(void **state)
{
	static const char *const hdr[] = { "arch", "kind" };
	struct report r;
	struct report_rec top, tab, row, obj;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_table(&top, "images", 2, hdr, &tab);
	report_rec_item(&tab, &row);
	report_field(&row, "size", NULL, rv_int(1));        /* no such column */
	report_field(&row, "arch", "sm", rv_str("sm_90"));  /* ignored after the failure */
	assert_int_equal(report_rec_end(&row), CD_EUSAGE);
	assert_int_equal(report_rec_end(&tab), CD_EUSAGE);
	assert_int_equal(report_rec_end(&top), CD_EUSAGE);
	assert_int_equal(r.items[0].nrows, 1);               /* the header only: no half row */
	assert_false(r.oom);
	report_free(&r);

	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_object(&top, "driver", &obj);
	report_field(&obj, "sources", "sources", rv_json(json_object())); /* an object has no text */
	assert_int_equal(report_rec_end(&obj), CD_EUSAGE);
	report_free(&r);

	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	/* a value the JSON library did not make: strings cannot be refused, so it is a bug, said
	 * as one and never taken for a lack of memory */
	report_field(&top, "aliases", "aliases", rv_json(NULL));
	report_field(&top, "year", "year", rv_int(2023));
	/* every opener of a failed record opens nothing: no JSON key, no table, the error kept */
	report_rec_object(&top, "driver", &obj);
	report_rec_array(&top, "gpus", &tab);
	report_rec_item(&tab, &row);
	assert_int_equal(report_rec_end(&row), CD_EINTERNAL);
	assert_int_equal(report_rec_end(&tab), CD_EINTERNAL);
	assert_int_equal(report_rec_end(&obj), CD_EINTERNAL);
	report_rec_table(&top, "images", 2, hdr, &tab);
	assert_int_equal(report_rec_end(&tab), CD_EINTERNAL);
	assert_int_equal(report_rec_end(&top), CD_EINTERNAL);
	assert_true(r.internal);
	assert_false(r.oom);
	assert_null(json_object_get(r.data, "year"));
	assert_int_equal(json_object_size(r.data), 0);
	assert_int_equal(r.n_items, 0);
	report_free(&r);
}

/* A field table's FIELD_COMMAND field is a command to copy, alone of the record's fields;
 * an FK_CSTR "" is a value with FIELD_EMPTY_KNOWN (JSON "", no text under FIELD_QUIET). */
struct build_row {
	const char *install, *notes, *missing;
};

static const struct field build_row_fields[] = {
	{ .key = "install", .label = "install", .kind = FK_CSTR, .off = offsetof(struct build_row, install),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_COMMAND },
	{ .key = "notes", .label = "notes", .kind = FK_CSTR, .off = offsetof(struct build_row, notes),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN | FIELD_QUIET },
	{ .key = "missing", .label = "missing", .kind = FK_CSTR, .off = offsetof(struct build_row, missing),
	  .valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_QUIET },
};

static const struct field_table build_row_table = { "builds[]", build_row_fields, 3, -1, NULL, NULL };

static void test_field_command(void **state)
{
	struct build_row b = { "pip install jax[cuda12]", "", "" };
	struct report r;
	struct report_rec top;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_fields(&top, &build_row_table, &b, FIELD_ALL);
	report_field(&top, "note", NULL, rv_str("plain"));
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_int_equal(r.n_items, 2);
	assert_string_equal(r.items[0].a, "install");
	assert_true(r.items[0].command);
	assert_false(r.items[1].command); /* the record's own mode is back */
	assert_string_equal(json_string_value(json_object_get(r.data, "notes")), "");
	assert_true(json_is_null(json_object_get(r.data, "missing")));
	report_free(&r);
}

/* A command in a key/value (report_kv_command, or a record's fields after
 * report_rec_commands) is printed whole at any width; a plain value wraps. Markdown puts
 * the command in one code span. */
static void test_commands_are_never_wrapped(void **state)
{
	static const char cmd[] = "pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128";
	static const char text[] = "a plain value long enough to be wrapped at forty columns for sure";
	struct render_opts o = { FMT_TEXT, false, 0, 40, NULL };
	struct report r;
	struct report_rec top;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	assert_int_equal(report_kv_command(&r, "pip", "%s", cmd), CD_OK);
	report_rec_top(&top, &r);
	report_rec_commands(&top, true);
	report_field(&top, "nvcc", "nvcc", rv_str("-gencode arch=compute_86,code=sm_86 -gencode arch=compute_120,code=sm_120"));
	report_rec_commands(&top, false);
	report_field(&top, "note", NULL, rv_str(text));
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(render_report(&r, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  pip   pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128\n"));
	assert_non_null(strstr(buf, "  nvcc  -gencode arch=compute_86,code=sm_86 -gencode arch=compute_120,code=sm_120\n"));
	assert_null(strstr(buf, text)); /* the plain value is wrapped */
	assert_non_null(strstr(buf, "  note  a plain value long enough to be\n"));
	free(buf);
	buf = NULL;
	o.format = FMT_MARKDOWN;
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(render_report(&r, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "- **pip:** `pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu128`\n"));
	free(buf);
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_contract),
		cmocka_unit_test(test_text_and_markdown),
		cmocka_unit_test(test_answer_findings),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_record_json_rows_and_values),
		cmocka_unit_test(test_field_tables),
		cmocka_unit_test(test_record_values),
		cmocka_unit_test(test_record_errors),
		cmocka_unit_test(test_field_command),
		cmocka_unit_test(test_commands_are_never_wrapped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
