/* The fleet's judgement (fleet/judge.c, outliers.c) on fleets built in memory, with no report
 * read: the JSON keys and types of docs/json.md's fleet section, the text it prints beside
 * them, and a measurement with more outliers than the text's table shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/judge.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"

static char *render(const struct report *r, enum output_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render_opts o = { fmt, false, 0, 0, NULL };

	assert_non_null(f);
	assert_int_equal(render_report(r, &o, f), 0);
	fclose(f);
	return buf;
}

static json_t *judged(const struct fleet *f, int expected, struct report *r, char **text)
{
	struct fleet_judge_opts o = { expected, 30 };
	json_error_t je;
	json_t *j;
	char *s;

	assert_int_equal(report_init(r, "fleet"), CD_OK);
	assert_int_equal(fleet_judge(f, &o, r), CD_OK);
	*text = render(r, FMT_TEXT);
	s = render(r, FMT_JSON);
	j = json_loads(s, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %.300s", je.text, s);
	free(s);
	return j;
}

/* Lines of text's section (from its title to the next blank line) that start with prefix. */
static size_t lines_in(const char *text, const char *section, const char *prefix)
{
	const char *p = strstr(text, section), *end;
	size_t n = 0;

	assert_non_null(p);
	end = strstr(p, "\n\n");
	for (p = strchr(p, '\n'); p && (!end || p < end); p = strchr(p + 1, '\n'))
		n += strncmp(p + 1, prefix, strlen(prefix)) == 0;
	return n;
}

static bool evidence_has(const json_t *j, const char *id, const char *line)
{
	size_t i, k;
	const json_t *f, *e;

	json_array_foreach(json_object_get(j, "findings"), i, f) {
		if (strcmp(json_string_value(json_object_get(f, "id")), id) != 0)
			continue;
		json_array_foreach(json_object_get(f, "evidence"), k, e)
			if (strcmp(json_string_value(e), line) == 0)
				return true;
	}
	return false;
}

#define COPY "bandwidth: device-to-device copy"
#define OFF 35 /* GPUs far below the others, more than the text's 10 rows of a measurement */

/* 40 nodes of two GPUs: GPU 1 of the first 35 copies at 40-74 GB/s, the other 45 GPUs at
 * 100-102. Every outlier is in JSON; the text's table shows the 10 farthest, its finding says
 * how many more JSON has. */
static void test_outliers_past_the_text_rows(void **state)
{
	struct fleet f;
	struct report r;
	char name[32], *text;
	json_t *j, *o;
	size_t i;

	(void)state;
	fleet_init(&f);
	for (int n = 0; n < 40; n++) {
		struct fleet_node *nd;

		snprintf(name, sizeof name, "gpu%02d", n);
		assert_non_null(nd = fleet_node_get(&f, name));
		assert_int_equal(fleet_node_sample(nd, COPY, "GB/s", 0, 100 + n % 3), CD_OK);
		assert_int_equal(fleet_node_sample(nd, COPY, "GB/s", 1, n < OFF ? 40 + n : 100 + n % 3), CD_OK);
	}
	j = judged(&f, -1, &r, &text);
	assert_int_equal(json_array_size(json_object_get(j, "outliers")), OFF);
	json_array_foreach(json_object_get(j, "outliers"), i, o) {
		assert_string_equal(json_string_value(json_object_get(o, "metric")), COPY);
		assert_int_equal(json_integer_value(json_object_get(o, "gpu")), 1);
	}
	assert_int_equal(lines_in(text, "\nOutliers (median and MAD per measurement)\n", "  " COPY), 10);
	/* the farthest first: gpu00 at 40 GB/s is in the text, gpu34 at 74 only in JSON */
	assert_non_null(strstr(text, "  " COPY "  gpu00"));
	assert_null(strstr(text, "  " COPY "  gpu34"));
	assert_true(evidence_has(j, "fleet-outlier", "and 25 more (--json lists them)"));
	json_decref(j);
	free(text);
	report_free(&r);
	fleet_free(&f);
}

static void has_keys(const json_t *o, const char *const keys[])
{
	assert_true(json_is_object(o));
	for (size_t i = 0; keys[i]; i++)
		if (!json_object_get(o, keys[i]))
			fail_msg("no key %s", keys[i]);
}

/* Four nodes: n1-n2 alike with an ECC error (drains) and a CPU-only torch (never drains), n3
 * an older driver whose collection failed, n4 without a driver fact; one expected node sent
 * nothing and one file was skipped. */
static void test_judgement_keys_and_text(void **state)
{
	static const char *const node_keys[] = { "name", "failure", "facts", "findings", "samples", NULL };
	static const char *const finding_keys[] = { "id", "severity", "scope", NULL };
	static const char *const het_keys[] = { "fact", "uniform", "summary", "groups", NULL };
	static const char *const group_keys[] = { "value", "nodes", "count", NULL };
	struct fleet f;
	struct fleet_node *nd[4];
	struct report r;
	char *text;
	const json_t *x, *y, *facts;
	json_t *j;
	size_t i, k;

	(void)state;
	fleet_init(&f);
	for (int n = 0; n < 4; n++) {
		char name[8];

		snprintf(name, sizeof name, "n%d", n + 1);
		assert_non_null(nd[n] = fleet_node_get(&f, name));
		assert_int_equal(fleet_node_fact(nd[n], FF_GPUS, "8x NVIDIA H200"), CD_OK);
	}
	for (int n = 0; n < 2; n++) {
		assert_int_equal(fleet_node_fact(nd[n], FF_DRIVER, "580.159.04"), CD_OK);
		assert_int_equal(fleet_node_finding(nd[n], "ecc-errors", SEV_ERROR, "ECC errors", "reboot"), CD_OK);
		assert_int_equal(fleet_node_finding(nd[n], "torch-cpu-only", SEV_ERROR, "CPU torch", ""), CD_OK);
	}
	assert_int_equal(fleet_node_fact(nd[2], FF_DRIVER, "535.104.05"), CD_OK);
	assert_int_equal(fleet_node_failed(nd[2], "cuInit timed out"), CD_OK);
	assert_int_equal(fleet_node_sample(nd[3], COPY, "GB/s", 0, 100), CD_OK);
	assert_int_equal(fleet_missing(&f, "n5"), CD_OK);
	assert_int_equal(fleet_skip(&f, "bad.json", "not JSON"), CD_OK);
	j = judged(&f, 5, &r, &text);

	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 4);
	assert_int_equal(json_integer_value(json_object_get(j, "expected_nodes")), 5);
	assert_string_equal(json_string_value(json_object_get(j, "node_list")), "n[1-4]");
	assert_int_equal(json_array_size(json_object_get(j, "nodes")), 4);
	json_array_foreach(json_object_get(j, "nodes"), i, x) {
		has_keys(x, node_keys);
		facts = json_object_get(x, "facts");
		assert_int_equal(json_object_size(facts), FF_COUNT);
		for (int ff = 0; ff < FF_COUNT; ff++)
			assert_non_null(json_object_get(facts, fleet_fact_key((enum fleet_fact)ff)));
		assert_true(json_is_null(json_object_get(facts, "toolkit")));
		assert_string_equal(json_string_value(json_object_get(facts, "gpus")), "8x NVIDIA H200");
		json_array_foreach(json_object_get(x, "findings"), k, y)
			has_keys(y, finding_keys);
		assert_true(json_is_integer(json_object_get(x, "samples")));
	}
	x = json_array_get(json_object_get(j, "nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "name")), "n1");
	assert_true(json_is_null(json_object_get(x, "failure")));
	y = json_array_get(json_object_get(x, "findings"), 1);
	assert_string_equal(json_string_value(json_object_get(y, "id")), "torch-cpu-only");
	assert_string_equal(json_string_value(json_object_get(y, "severity")), "error");
	assert_string_equal(json_string_value(json_object_get(y, "scope")), "environment");
	x = json_array_get(json_object_get(j, "nodes"), 2);
	assert_string_equal(json_string_value(json_object_get(x, "failure")), "cuInit timed out");
	x = json_array_get(json_object_get(j, "nodes"), 3);
	assert_true(json_is_null(json_object_get(json_object_get(x, "facts"), "driver")));
	assert_int_equal(json_integer_value(json_object_get(x, "samples")), 1);

	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "missing"), 0)), "n5");
	x = json_array_get(json_object_get(j, "skipped"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "source")), "bad.json");
	assert_string_equal(json_string_value(json_object_get(x, "reason")), "not JSON");

	/* driver: 535 on n3, not reported on n4, 580 on n1-n2; GPUs alike */
	assert_int_equal(json_array_size(json_object_get(j, "heterogeneity")), 2);
	json_array_foreach(json_object_get(j, "heterogeneity"), i, x) {
		has_keys(x, het_keys);
		json_array_foreach(json_object_get(x, "groups"), k, y)
			has_keys(y, group_keys);
	}
	x = json_array_get(json_object_get(j, "heterogeneity"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "fact")), "driver");
	assert_true(json_is_false(json_object_get(x, "uniform")));
	assert_string_equal(json_string_value(json_object_get(x, "summary")),
			    "535.104.05 on n3; not reported on n4; 580.159.04 on the other 2");
	y = json_array_get(json_object_get(x, "groups"), 1);
	assert_true(json_is_null(json_object_get(y, "value")));
	assert_string_equal(json_string_value(json_object_get(y, "nodes")), "n4");
	assert_int_equal(json_integer_value(json_object_get(y, "count")), 1);
	x = json_array_get(json_object_get(j, "heterogeneity"), 1);
	assert_true(json_is_true(json_object_get(x, "uniform")));
	assert_int_equal(json_array_size(json_object_get(x, "groups")), 1);

	assert_int_equal(json_array_size(json_object_get(j, "slurm")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "slurm"), 0)),
			    "scontrol update nodename='n[1-2]' state=drain reason='cudoctor: ecc-errors'");
	assert_int_equal(json_array_size(json_object_get(j, "environment")), 1);
	x = json_array_get(json_object_get(j, "environment"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "nodes")), "n[1-2]");
	assert_int_equal(json_array_size(json_object_get(x, "ids")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(x, "ids"), 0)), "torch-cpu-only");
	assert_true(json_is_array(json_object_get(j, "outliers")));

	/* the text says the same, and nothing of the nodes' objects */
	assert_memory_equal(text, "Fleet\n  nodes      4 reported of 5 started\n  node list  n[1-4]\n", 63);
	assert_non_null(strstr(text, "\n  driver  535.104.05 on n3; not reported on n4; 580.159.04 on the other 2\n"));
	assert_non_null(strstr(text, "\nSlurm\n  scontrol update nodename='n[1-2]' state=drain reason='cudoctor: ecc-errors'\n"
				     "  after the fix, on each: scontrol update nodename=NODE state=resume\n"));
	assert_non_null(strstr(text, "\nEnvironment (not the node's health: never drained)\n  n[1-2]: torch-cpu-only\n"));
	assert_null(strstr(text, "cuda_runtime"));
	json_decref(j);
	free(text);
	report_free(&r);
	fleet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outliers_past_the_text_rows),
		cmocka_unit_test(test_judgement_keys_and_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
