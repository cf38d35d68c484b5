/* cudoctor diff: two reports made through the fake drivers (another driver, another GPU,
 * a failing cuInit) compared in text and JSON; bad and mismatched inputs named, exit 2/3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "probe_tree.h"
#include "testlib.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static char root[64], a_json[128], b_json[128], c_json[128], dev_json[128];

/* `cudoctor --json COMMAND` through the fakes with up to two extra settings, into path */
static int make_report(const char *command, const char *path, const char *e1, const char *e2)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "--output", path, command, NULL };
	const char *env[] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "FAKE_GPUS=", "FAKE_NVML_DRIVER_VERSION=",
			      "FAKE_CUDA_INIT_RESULT=", e1, e2, NULL };
	struct run_result r;
	int rc;

	if (testlib_run(argv, env, NULL, &r) != 0)
		return -1;
	rc = r.status <= 1 ? 0 : -1;
	run_result_free(&r);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	snprintf(a_json, sizeof a_json, "%s/a.json", root);
	snprintf(b_json, sizeof b_json, "%s/b.json", root);
	snprintf(c_json, sizeof c_json, "%s/c.json", root);
	snprintf(dev_json, sizeof dev_json, "%s/devices.json", root);
	if (make_report("doctor", a_json, NULL, NULL) ||
	    make_report("doctor", b_json, "FAKE_NVML_DRIVER_VERSION=550.54.14",
			"FAKE_GPUS=NVIDIA GeForce RTX 4090:8.9:24GiB") ||
	    make_report("doctor", c_json, "FAKE_CUDA_INIT_RESULT=999", NULL) ||
	    make_report("devices", dev_json, NULL, NULL))
		return -1;
	return tree_file(root, "old.json", "{\"tool\": \"cudoctor\", \"version\": \"0.0.9\", \"command\": \"doctor\", "
				 "\"findings\": [], \"driver\": {\"version\": \"535.104.05\"}}\n", 0) ||
	       tree_file(root, "broken.json", "{\"tool\": \"cudoctor\", \"command\": ", 0) ||
	       tree_file(root, "other.json", "{\"name\": \"not a report\"}\n", 0);
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static struct run_result diff(const char *a, const char *b, const char *flag)
{
	const char *argv[] = { CUDOCTOR_BINARY, "diff", a, b, flag, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static json_t *change(json_t *changes, const char *area, const char *kind, const char *item_part, const char *field)
{
	size_t i;
	json_t *c;

	json_array_foreach(changes, i, c) {
		const char *item = json_string_value(json_object_get(c, "item"));
		const char *f = json_string_value(json_object_get(c, "field"));

		if (!strcmp(json_string_value(json_object_get(c, "area")), area) &&
		    !strcmp(json_string_value(json_object_get(c, "change")), kind) && item && strstr(item, item_part) &&
		    (!field || (f && !strcmp(f, field))))
			return c;
	}
	return NULL;
}

static void test_driver_and_gpu_changes(void **state)
{
	struct run_result t = diff(a_json, b_json, "--color=never"), j = diff(a_json, b_json, "--json");
	json_t *root_j, *changes, *c;

	(void)state;
	assert_int_equal(t.status, 0);
	assert_non_null(strstr(t.out, "Comparing doctor reports"));
	assert_non_null(strstr(t.out, "\nDriver\n  changed  version: 580.159.04 -> 550.54.14\n"));
	assert_non_null(strstr(t.out, "removed  GPU-0bacaf01-bdea-739f-7cf7-2d72701204ec (NVIDIA H200)"));
	assert_non_null(strstr(t.out, "(NVIDIA GeForce RTX 4090)"));
	assert_int_equal(j.status, 0);
	root_j = json_loads(j.out, 0, NULL);
	assert_non_null(root_j);
	assert_string_equal(json_string_value(json_object_get(root_j, "compared_command")), "doctor");
	changes = json_object_get(root_j, "changes");
	c = change(changes, "driver", "changed", "driver", "version");
	assert_non_null(c);
	assert_string_equal(json_string_value(json_object_get(c, "before")), "580.159.04");
	assert_string_equal(json_string_value(json_object_get(c, "after")), "550.54.14");
	assert_non_null(change(changes, "gpus", "removed", "NVIDIA H200", NULL));
	assert_non_null(change(changes, "gpus", "added", "NVIDIA GeForce RTX 4090", NULL));
	assert_null(change(changes, "toolkits", "added", "", NULL)); /* the same toolkits on both sides */
	json_decref(root_j);
	run_result_free(&t);
	run_result_free(&j);
}

static void test_findings_and_no_change(void **state)
{
	struct run_result j = diff(a_json, c_json, "--json"), same = diff(a_json, a_json, "-q");
	char old[128];
	json_t *root_j;

	(void)state;
	assert_int_equal(j.status, 0);
	root_j = json_loads(j.out, 0, NULL);
	assert_non_null(root_j);
	/* cuInit failing on the second machine: the findings say so */
	assert_non_null(change(json_object_get(root_j, "changes"), "findings", "added", "", NULL));
	assert_non_null(change(json_object_get(root_j, "changes"), "driver", "changed", "driver", NULL));
	json_decref(root_j);
	run_result_free(&j);
	/* a report without a header compares too */
	snprintf(old, sizeof old, "%s/old.json", root);
	j = diff(old, a_json, "--json");
	assert_int_equal(j.status, 0);
	root_j = json_loads(j.out, 0, NULL);
	assert_non_null(root_j);
	assert_true(json_is_null(json_object_get(json_object_get(root_j, "a"), "node")));
	assert_non_null(change(json_object_get(root_j, "changes"), "driver", "changed", "driver", "version"));
	json_decref(root_j);
	assert_int_equal(same.status, 0);
	assert_string_equal(same.out, "0 changes\n");
	run_result_free(&j);
	run_result_free(&same);
}

/* A report of 0.1.0 (tests/compat/, the old spelling) against one of today made on the same
 * fake driver: the driver and the GPUs read the same; nothing shows as changed for a key
 * that was only renamed. */
static void test_old_release_reports(void **state)
{
	static const char *const commands[] = { "doctor", "devices" };
	static const char *const renamed_only[] = { "version", "cuda_version", "loaded", "init_result_name",
						    "cuda_ordinal", "mig_mode_current", NULL };

	(void)state;
	for (size_t c = 0; c < 2; c++) {
		char old[256], now[128];
		const char *argv[] = { CUDOCTOR_BINARY, "--json", "--anonymize", "--output", now, commands[c], NULL };
		const char *env[] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "CUDOCTOR_NODE=oldnode",
				      "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB",
				      "FAKE_NVML_MIG_DEVICES=1:1g.18gb:18GiB;1:3g.71gb:71GiB", "FAKE_NVML_PERSISTENCE=1:1",
				      "FAKE_NVML_DRIVER_VERSION=", "FAKE_CUDA_INIT_RESULT=", NULL };
		struct run_result r;
		json_t *root_j, *changes, *ch;
		size_t i;

		snprintf(old, sizeof old, CUDOCTOR_SOURCE_DIR "/tests/compat/%s-0.1.0.json", commands[c]);
		snprintf(now, sizeof now, "%s/now-%s.json", root, commands[c]);
		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
		run_result_free(&r);
		r = diff(old, now, "--json");
		assert_int_equal(r.status, 0);
		assert_non_null(root_j = json_loads(r.out, 0, NULL));
		changes = json_object_get(root_j, "changes");
		assert_null(change(changes, "gpus", "added", "", NULL));
		assert_null(change(changes, "gpus", "removed", "", NULL));
		json_array_foreach(changes, i, ch) {
			const char *field = json_string_value(json_object_get(ch, "field"));
			const char *area = json_string_value(json_object_get(ch, "area"));
			/* the header's version is cudoctor's own, which did change since 0.1.0 */
			if (area && strcmp(area, "machine") == 0 && field && strcmp(field, "version") == 0) {
				assert_string_equal(json_string_value(json_object_get(ch, "before")), "0.1.0");
				continue;
			}
			for (size_t k = 0; field && renamed_only[k]; k++)
				if (strcmp(field, renamed_only[k]) == 0)
					fail_msg("%s: %s shows as changed: %s", commands[c], field, r.out);
		}
		json_decref(root_j);
		run_result_free(&r);
	}
}

static void test_bad_inputs(void **state)
{
	char broken[128], other[128], fifo[128];
	struct run_result r;

	(void)state;
	snprintf(broken, sizeof broken, "%s/broken.json", root);
	snprintf(other, sizeof other, "%s/other.json", root);
	snprintf(fifo, sizeof fifo, "%s/fifo", root);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	r = diff(a_json, "/nonexistent/b.json", NULL);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "/nonexistent/b.json"));
	run_result_free(&r);
	/* both bad: both named, not the first alone */
	r = diff("/nonexistent/a.json", "/nonexistent/b.json", NULL);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.err, "cudoctor diff: /nonexistent/a.json: No such file or directory\n"
				   "cudoctor diff: /nonexistent/b.json: No such file or directory\n");
	run_result_free(&r);
	r = diff("/dev/null", a_json, NULL);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "/dev/null: a character device"));
	run_result_free(&r);
	r = diff(broken, a_json, NULL);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "broken.json: not JSON (line 1"));
	run_result_free(&r);
	r = diff(a_json, other, NULL);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "other.json: not a cudoctor report"));
	run_result_free(&r);
	r = diff(a_json, fifo, NULL); /* named and skipped, never waited on */
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "fifo"));
	run_result_free(&r);
	r = diff(a_json, dev_json, NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "is a 'doctor' report and "));
	assert_non_null(strstr(r.err, "Try 'cudoctor diff --help'."));
	run_result_free(&r);
	r = diff(a_json, NULL, NULL);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
}

/* A report Windows PowerShell wrote: `cudoctor --json doctor > a.json` is UTF-16LE behind a
 * byte order mark in PowerShell 5.1, and Out-File -Encoding utf8 puts a UTF-8 mark first;
 * both read as the report (they were "not JSON") */
static void test_windows_shell_encodings(void **state)
{
	char u16[128], u8[128];
	FILE *in, *o16, *o8;
	int c;

	(void)state;
	snprintf(u16, sizeof u16, "%s/a-utf16.json", root);
	snprintf(u8, sizeof u8, "%s/a-utf8bom.json", root);
	assert_non_null(in = fopen(a_json, "rb"));
	assert_non_null(o16 = fopen(u16, "wb"));
	assert_non_null(o8 = fopen(u8, "wb"));
	fputs("\xff\xfe", o16);
	fputs("\xef\xbb\xbf", o8);
	while ((c = fgetc(in)) != EOF) { /* the report is ASCII: a UTF-16 unit per byte */
		fputc(c, o16);
		fputc(0, o16);
		fputc(c, o8);
	}
	fclose(in);
	fclose(o16);
	fclose(o8);
	for (int i = 0; i < 2; i++) {
		struct run_result r = diff(i ? u8 : u16, a_json, "-q");

		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, "0 changes\n");
		run_result_free(&r);
	}
	unlink(u16);
	unlink(u8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_and_gpu_changes),
		cmocka_unit_test(test_findings_and_no_change),
		cmocka_unit_test(test_old_release_reports),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_windows_shell_encodings),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
