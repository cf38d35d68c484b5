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
#include "report/report.h"

static char *render_to_string(const struct report *r, enum output_format fmt, int verbosity)
{
	struct render_opts o = { fmt, false, verbosity };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(render_report(r, &o, f), 0);
	fclose(f);
	return buf;
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
	s = render_to_string(&r, FMT_TEXT, -1);                         /* quiet: findings only */
	assert_null(strstr(s, "Driver"));
	assert_null(strstr(s, "nvml-ok"));
	assert_non_null(strstr(s, "no-driver"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_contract),
		cmocka_unit_test(test_text_and_markdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
