/* Field tables (util/field.h) written through records (report_fields, report_one_*): each kind and
 * unit, the three ways a value that is not valid shows, a table row filled by an object
 * nested in it, and a JSON-only record outside any report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fields.h"
#include "facts/driver.h"
#include "facts/gpu.h"
#include "facts/platform.h"
#include "facts/python.h"
#include "facts/runtime.h"
#include "facts/toolkit.h"
#include "facts/topology.h"
#include "explain/text_platform.h"
#include "facts/windows.h"
#include "mem/context_cost.h"
#include "mem/estimate.h"
#include "mem/model.h"
#include "mem/probe.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"

struct thing {
	int ordinal;
	unsigned count;
	uint64_t size;
	int64_t headroom;
	bool on, has_temp;
	int temp;
	double ms;
	char name[16];
	int state;
	int flag;
	char note[8];
};

static const char *state_name(int v)
{
	return v == 1 ? "up" : v == 0 ? "down" : NULL;
}

static const char *shout(const void *obj, char *buf, size_t cap)
{
	const struct thing *t = obj;

	if (!t->name[0])
		return NULL;
	snprintf(buf, cap, "%s!", t->name);
	return buf;
}

#define T(m) offsetof(struct thing, m)
enum { F_ORDINAL, F_COUNT, F_SIZE, F_HEADROOM, F_ON, F_TEMP, F_MS, F_NAME, F_STATE, F_FLAG, F_NOTE, F_SHOUT, F_N };
static const struct field fields[F_N] = {
	[F_ORDINAL] = { "cuda_ordinal", "ordinal", FK_INT, .off = T(ordinal), .views = FIELD_ALL,
			.flags = FIELD_NEG_UNKNOWN, .unknown = "?" },
	[F_COUNT] = { "count", "count", FK_UINT, .off = T(count), .views = FIELD_ALL },
	[F_SIZE] = { "size_bytes", "size", FK_ULLONG, .unit = FU_BYTES, .off = T(size), .views = FIELD_ALL },
	[F_HEADROOM] = { "headroom_bytes", "headroom", FK_LLONG, .unit = FU_BYTES, .off = T(headroom),
			.views = FIELD_ALL },
	[F_ON] = { "on", "on", FK_BOOL, .off = T(on), .views = FIELD_ALL },
	[F_TEMP] = { "temperature_c", "temperature", FK_INT, .off = T(temp), .flag = T(has_temp), .views = FIELD_ALL,
			.flags = FIELD_IF_FLAG, .unknown = "N/A" },
	[F_MS] = { "elapsed_ms", NULL, FK_DOUBLE, .off = T(ms) },
	[F_NAME] = { "name", "name", FK_CHARS, .off = T(name), .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN },
	[F_STATE] = { "state", "state", FK_NAMED, .off = T(state), .views = FIELD_ALL, .name = state_name,
			.unknown = "?" },
	[F_FLAG] = { "flag", "flag", FK_INT, .unit = FU_YESNO, .off = T(flag), .views = FIELD_ALL },
	[F_NOTE] = { "note", "note", FK_CHARS, .off = T(note), .views = FIELD_ALL,
			.flags = FIELD_ZERO_UNKNOWN | FIELD_OMIT },
	[F_SHOUT] = { "shout", "shout", FK_TEXT, .views = FIELD_ALL, .string = shout },
};
#undef T
static const struct field_table table = { .name = "thing", .fields = fields, .n = F_N, .valid_off = -1 };

static char *text_of(const struct report *r)
{
	struct render_opts o = { FMT_TEXT, false, 0, 0, NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(render_report(r, &o, f), 0);
	fclose(f);
	return buf;
}

static void test_valid_fields(void **state)
{
	struct thing t = { 1, 7, 3ull << 30, -(512ll << 20), true, true, 41, 2.5, "H200", 1, 1, "hot" };
	struct report r;
	struct report_rec top;
	json_t *d;
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_fields(&top, &table, &t, FIELD_FULL);
	assert_int_equal(report_rec_end(&top), CD_OK);
	d = r.data;
	assert_int_equal(json_integer_value(json_object_get(d, "cuda_ordinal")), 1);
	assert_int_equal(json_integer_value(json_object_get(d, "size_bytes")), 3ll << 30);
	assert_int_equal(json_integer_value(json_object_get(d, "headroom_bytes")), -(512ll << 20));
	assert_true(json_is_true(json_object_get(d, "on")));
	assert_true(json_real_value(json_object_get(d, "elapsed_ms")) == 2.5);
	assert_string_equal(json_string_value(json_object_get(d, "state")), "up");
	assert_int_equal(json_integer_value(json_object_get(d, "flag")), 1); /* a number in JSON */
	assert_string_equal(json_string_value(json_object_get(d, "shout")), "H200!");
	s = text_of(&r);
	assert_string_equal(s, "  ordinal      1\n"
			       "  count        7\n"
			       "  size         3 GiB\n"
			       "  headroom     -512 MiB\n"
			       "  on           yes\n"
			       "  temperature  41\n"
			       "  name         H200\n"
			       "  state        up\n"
			       "  flag         yes\n"
			       "  note         hot\n"
			       "  shout        H200!\n");
	free(s);
	report_free(&r);
}

static void test_fields_not_valid(void **state)
{
	struct thing t = { -1, 0, 0, 0, false, false, 99, 0, "", 7, 0, "" };
	struct report r;
	struct report_rec top;
	json_t *d;
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_one_field(&top, &table, F_ORDINAL, &t);       /* null, "?" */
	report_one_field(&top, &table, F_TEMP, &t);          /* null, its own unknown text */
	report_one_field(&top, &table, F_STATE, &t);         /* no name for 7: null */
	report_one_field(&top, &table, F_NOTE, &t);          /* left out */
	report_one_field(&top, &table, F_SHOUT, &t);         /* null, no text */
	report_one_fieldf(&top, &table, F_TEMP, &t, "%d C", t.temp); /* the sentence is not used */
	assert_int_equal(report_rec_end(&top), CD_OK);
	d = r.data;
	assert_true(json_is_null(json_object_get(d, "cuda_ordinal")));
	assert_true(json_is_null(json_object_get(d, "temperature_c")));
	assert_true(json_is_null(json_object_get(d, "state")));
	assert_null(json_object_get(d, "note"));
	assert_true(json_is_null(json_object_get(d, "shout")));
	s = text_of(&r);
	assert_string_equal(s, "  ordinal      ?\n"
			       "  temperature  N/A\n"
			       "  state        ?\n"
			       "  temperature  N/A\n");
	free(s);
	report_free(&r);
}

static void test_own_text_and_json_only(void **state)
{
	struct thing t = { 0, 3, 80ull << 30, 0, false, true, 50, 0, "A100", 0, 0, "" };
	struct report r;
	struct report_rec top;
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_one_fieldf(&top, &table, F_SIZE, &t, "%s, %u of them", "80 GiB each", t.count);
	report_one_json(&top, &table, F_COUNT, &t);
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_int_equal(json_integer_value(json_object_get(r.data, "size_bytes")), 80ll << 30);
	assert_int_equal(json_integer_value(json_object_get(r.data, "count")), 3);
	s = text_of(&r);
	assert_string_equal(s, "  size  80 GiB each, 3 of them\n");
	free(s);
	report_free(&r);
}

/* An object opened in a row fills the row's cells; an array in it is JSON only. */
static void test_object_in_a_row(void **state)
{
	static const char *const hdr[] = { "name", "temperature", "state" };
	struct thing t = { 0, 0, 0, 0, false, true, 63, 0, "H200", 0, 0, "" };
	struct report r;
	struct report_rec top, tab, row, obj, arr, it;
	json_t *o;
	char *s;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_rec_table(&top, "gpus", 3, hdr, &tab);
	report_rec_item(&tab, &row);
	report_one_field(&row, &table, F_NAME, &t);
	report_rec_object(&row, "sensors", &obj);
	report_one_field(&obj, &table, F_TEMP, &t);
	assert_int_equal(report_rec_end(&obj), CD_OK);
	report_rec_array(&row, "links", &arr);
	report_rec_item(&arr, &it);
	report_field(&it, "state", "state", rv_str("down")); /* JSON only: not the row's cell */
	assert_int_equal(report_rec_end(&it), CD_OK);
	assert_int_equal(report_rec_end(&arr), CD_OK);
	report_field(&row, "state", NULL, rv_str("up"));
	assert_int_equal(report_rec_end(&row), CD_OK);
	assert_int_equal(report_rec_end(&tab), CD_OK);
	assert_int_equal(report_rec_end(&top), CD_OK);
	o = json_array_get(json_object_get(r.data, "gpus"), 0);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "H200");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "sensors"), "temperature_c")), 63);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(o, "links"), 0), "state")),
			    "down");
	s = text_of(&r);
	assert_string_equal(s, "  name  temperature  state\n"
			       "  H200  63           up\n");
	free(s);
	report_free(&r);
}

/* A record over a caller's object: the fields' JSON alone, and no report needed. */
static void test_json_only_record(void **state)
{
	struct thing t = { 2, 0, 0, 0, true, false, 0, 0, "RTX", 0, 0, "" };
	struct report_rec w;
	json_t *o = json_object();

	(void)state;
	report_rec_json(&w, o);
	report_rec_section(&w, "%s", "ignored");
	report_fields(&w, &table, &t, FIELD_FULL);
	assert_int_equal(report_rec_end(&w), CD_OK);
	assert_int_equal(json_integer_value(json_object_get(o, "cuda_ordinal")), 2);
	assert_true(json_is_null(json_object_get(o, "temperature_c")));
	assert_null(json_object_get(o, "note"));
	json_decref(o);
	report_rec_json(&w, NULL); /* an allocation that failed is the record's error */
	assert_int_equal(report_rec_end(&w), CD_ENOMEM);
}

/* A string from a damaged input that is not UTF-8 still goes into JSON, and into the text,
 * as safe text: each stray byte escaped, the well-formed characters kept. */
static void test_string_not_utf8(void **state)
{
	struct report r;
	struct report_rec top;

	(void)state;
	assert_int_equal(report_init(&r, "test"), 0);
	report_rec_top(&top, &r);
	report_field(&top, "kernel", "name", rv_str("k\xff\xc3(\xed\xa0\x80_\xc3\xa9"));
	assert_int_equal(report_rec_end(&top), CD_OK);
	assert_false(r.oom);
	assert_string_equal(json_string_value(json_object_get(r.data, "name")),
			    "k\\xff\\xc3(\\xed\\xa0\\x80_\xc3\xa9");
	assert_string_equal(r.items[0].b, "k\\xff\\xc3(\\xed\\xa0\\x80_\xc3\xa9");
	report_free(&r);
}

/* Every key of every field table is named, as `key` or with its path (`toolkits[].path`), in
 * its command's section of docs/json.md (the driver and GPU tables are also checked both ways, row by row, by
 * test_json_doc). */
static void test_tables_documented(void **state)
{
	static const struct {
		const char *section;
		const struct field_table *t;
	} tables[] = {
		{ "## driver and GPU facts", &driver_field_table },
		{ "## driver and GPU facts", &driver_nvml_field_table },
		{ "## driver and GPU facts", &gpu_field_table },
		{ "## driver and GPU facts", &gpu_process_field_table },
		{ "## driver and GPU facts", &gpu_mig_field_table },
		{ "## doctor", &platform_field_table },
		{ "## doctor", &device_node_field_table },
		{ "## doctor", &py_env_field_table },
		{ "## doctor", &py_framework_field_table },
		{ "## doctor", &py_wheel_field_table },
		{ "## doctor", &toolkit_field_table },
		{ "## doctor", &runtime_field_table },
		{ "## doctor", &win_side_field_table },
		{ "## doctor", &win_toolkit_field_table },
		{ "## doctor", &win_dll_load_field_table },
		{ "## arch", &win_exe_dll_field_table },
		{ "## topo", &topo_gpu_field_table },
		{ "## topo", &topo_nvlink_field_table },
		{ "## topo", &topo_pair_field_table },
		{ "## topo", &topo_pair_cuda_field_table },
		{ "## topo", &topo_pair_nvml_field_table },
		{ "## topo", &topo_nic_field_table },
		{ "## topo", &topo_probe_field_table },
		{ "## mem", &mem_model_field_table },
		{ "## mem", &mem_opts_field_table },
		{ "## mem", &mem_estimate_field_table },
		{ "## mem", &mem_fit_field_table },
		{ "## mem", &mem_probe_field_table },
		{ "## mem", &mem_demo_field_table },
		{ "## mem", &mem_context_cost_field_table },
		{ "## check", &check_load_gpu_field_table },
		{ "## kb, gencode, explain", &text_platform_field_table },
	};
	static char doc[1 << 20], missing[8192];
	FILE *f = fopen(CUDOCTOR_SOURCE_DIR "/docs/json.md", "r");
	size_t len, used = 0;

	(void)state;
	assert_non_null(f);
	len = fread(doc, 1, sizeof(doc) - 1, f);
	doc[len] = '\0';
	fclose(f);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char *start = strstr(doc, tables[i].section), *end, save;

		if (!start)
			fail_msg("docs/json.md has no section %s", tables[i].section);
		end = strstr(start + 3, "\n## ");
		end = end ? end : doc + len;
		save = *end;
		*end = '\0';
		for (size_t k = 0; k < tables[i].t->n; k++) {
			const char *key = tables[i].t->fields[k].key;
			char quoted[128], pathed[256];

			if (!key) /* text only */
				continue;
			/* `key`, or its path from the report's top: `toolkits[].path` */
			snprintf(quoted, sizeof(quoted), "`%s`", key);
			snprintf(pathed, sizeof(pathed), "`%s.%s`", tables[i].t->name, key);
			if (!strstr(start, quoted) && !strstr(start, pathed) && used < sizeof missing)
				used += (size_t)snprintf(missing + used, sizeof missing - used, "\n%s (%s) under %s", quoted,
							 tables[i].t->name, tables[i].section);
		}
		*end = save;
	}
	if (used)
		fail_msg("not documented in docs/json.md:%s", missing);
}

/* An enum-indexed table has no hole: every entry has a key or a label. */
static void test_tables_whole(void **state)
{
	static const struct field_table *const tables[] = {
		&topo_gpu_field_table, &topo_nvlink_field_table, &topo_pair_field_table, &topo_pair_cuda_field_table,
		&topo_pair_nvml_field_table, &topo_nic_field_table, &topo_probe_field_table, &mem_model_field_table,
		&mem_opts_field_table, &mem_estimate_field_table, &mem_fit_field_table, &mem_probe_field_table,
		&mem_demo_field_table, &mem_context_cost_field_table,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (size_t k = 0; k < tables[i]->n; k++)
			if (!tables[i]->fields[k].key && !tables[i]->fields[k].label)
				fail_msg("%s has a hole at %zu", tables[i]->name, k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_fields),
		cmocka_unit_test(test_fields_not_valid),
		cmocka_unit_test(test_own_text_and_json_only),
		cmocka_unit_test(test_object_in_a_row),
		cmocka_unit_test(test_json_only_record),
		cmocka_unit_test(test_string_not_utf8),
		cmocka_unit_test(test_tables_documented),
		cmocka_unit_test(test_tables_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
