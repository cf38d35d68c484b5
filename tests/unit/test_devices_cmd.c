/* `cudoctor devices` end to end with the fake drivers: exit codes, findings, the JSON
 * contract (every key documented in docs/json.md), the text table, the loader search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static bool str_ends_with_test(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

/* Runs `cudoctor [--json] devices` with the fakes and extra env (NULL-terminated). */
static struct run_result devices(bool json, const char *e1, const char *e2, const char *e3)
{
	const char *argv_json[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
	const char *argv_text[] = { CUDOCTOR_BINARY, "--color=never", "devices", NULL };
	/* the caller's own FAKE_* / CUDA_* settings must not leak in */
	const char *env[] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "FAKE_GPUS=", e1, e2, e3, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(json ? argv_json : argv_text, env, NULL, &r), 0);
	return r;
}

/* The value of the first "  LABEL  VALUE" line of a text report (static storage). */
static const char *kv_value(const char *out, const char *label)
{
	static char value[256];
	const char *l = out;
	size_t n = strlen(label);

	for (; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l + strspn(l, " ");
		if (strncmp(p, label, n) != 0 || p[n] != ' ' || p[n + 1] != ' ')
			continue;
		p += n + strspn(p + n, " ");
		snprintf(value, sizeof value, "%.*s", (int)strcspn(p, "\n"), p);
		return value;
	}
	return "";
}

static json_t *parse(const struct run_result *r)
{
	json_error_t e;
	json_t *j = json_loads(r->out, 0, &e);

	if (!j)
		fail_msg("not JSON (%s): %s", e.text, r->out);
	return j;
}

static bool has_finding(json_t *j, const char *id, const char *severity)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(j, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
		    (!severity || strcmp(json_string_value(json_object_get(f, "severity")), severity) == 0))
			return true;
	return false;
}

/* `cudoctor -q devices` with the fakes and extra env (NULL-terminated). */
static struct run_result devices_quiet(const char *e1, const char *e2, const char *e3)
{
	const char *argv[] = { CUDOCTOR_BINARY, "-q", "devices", NULL };
	const char *env[] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "FAKE_GPUS=", e1, e2, e3, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

/* -q is a line per GPU on stdout (the GPU, its arch, memory, the driver), the warn and error
 * findings one line each on stderr; nothing else */
static void test_quiet_is_a_line_per_gpu_and_the_findings(void **state)
{
	struct run_result one = devices_quiet(NULL, NULL, NULL);
	struct run_result two = devices_quiet("FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4060 Ti:8.9:8GiB",
					      "CUDA_VISIBLE_DEVICES=0", "FAKE_NVML_ECC=0:0:3:0:3");
	struct run_result nocuda = devices_quiet("FAKE_CUDA_INIT_RESULT=100", NULL, NULL);
	struct run_result none = devices_quiet("CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
					       "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL);

	(void)state;
	assert_int_equal(one.status, 0);
	assert_string_equal(one.out, "GPU 0 (NVIDIA H200): sm_90, 141 GiB, driver 580.159.04\n");
	assert_int_equal(two.status, 1);
	assert_string_equal(two.out, "GPU 0 (NVIDIA H200): sm_90, 141 GiB, driver 580.159.04\n"
				     "NVML device 1 (NVIDIA GeForce RTX 4060 Ti): sm_89, 8 GiB, driver 580.159.04\n");
	assert_string_equal(two.err, "error ecc-errors: The GPU reported 3 uncorrectable ECC error(s) since the driver "
				     "loaded [GPU 0 (NVIDIA H200)]\n");
	/* CUDA sees nothing, NVML the GPU: the GPU by NVML's index, and why CUDA does not */
	assert_int_equal(nocuda.status, 1);
	assert_string_equal(nocuda.out, "NVML device 0 (NVIDIA H200): sm_90, 141 GiB, driver 580.159.04\n");
	assert_string_equal(nocuda.err, "error no-device: The driver works but CUDA sees no GPU [cuInit]\n");
	assert_int_equal(none.status, 1);
	assert_string_equal(none.out, "no GPU: 0 seen by CUDA, 0 by NVML\n");
	assert_true(strncmp(none.err, "error no-driver: ", 17) == 0);
	assert_null(strstr(none.err, "evidence:"));
	run_result_free(&nocuda);
	run_result_free(&one);
	run_result_free(&two);
	run_result_free(&none);
}

static void test_default_h200(void **state)
{
	struct run_result r = devices(true, NULL, NULL, NULL);
	json_t *j, *g;

	(void)state;
	assert_int_equal(r.status, 0);
	j = parse(&r);
	assert_string_equal(json_string_value(json_object_get(j, "command")), "devices");
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
	json_t *cu = json_object_get(j, "driver");
	assert_string_equal(json_string_value(json_object_get(cu, "version")), "580.159.04");
	assert_string_equal(json_string_value(json_object_get(cu, "version_source")), "NVML");
	assert_string_equal(json_string_value(json_object_get(cu, "how")), "CUDOCTOR_LIBCUDA");
	assert_string_equal(json_string_value(json_object_get(cu, "cuda_version")), "13.0");
	assert_int_equal(json_array_size(json_object_get(cu, "missing_symbols")), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(cu, "nvml"), "missing_symbols")), 0);
	assert_true(str_ends_with_test(json_string_value(json_object_get(cu, "library_path")), "/libcuda.so.1"));
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "name")), "NVIDIA H200");
	assert_string_equal(json_string_value(json_object_get(g, "compute_capability")), "9.0");
	assert_string_equal(json_string_value(json_object_get(g, "sm_arch")), "sm_90");
	assert_int_equal(json_integer_value(json_object_get(g, "memory_total_bytes")), 141LL << 30);
	assert_int_equal(json_integer_value(json_object_get(g, "clock_rate_khz")), 1980000);
	assert_int_equal(json_integer_value(json_object_get(g, "shared_memory_per_block_optin_bytes")), 232448);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(g, "max_block_dim"), 2)), 64);
	assert_true(json_is_true(json_object_get(g, "ecc_enabled")));
	assert_int_equal(json_integer_value(json_object_get(g, "pcie_link_gen_max")), 5);
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "clock_event_reason_names"), 0)),
			    "gpu_idle");
	assert_true(json_is_null(json_object_get(g, "retired_pages_pending"))); /* Hopper: not supported */
	json_decref(j);
	run_result_free(&r);
}

/* Every key the command emits must be documented in docs/json.md's devices section. */
static void test_every_key_is_documented(void **state)
{
	struct run_result r = devices(true, "FAKE_NVML_PROCS=0:1234:2GiB", NULL, NULL);
	char *doc = NULL, *section;
	size_t len = 0;
	FILE *f = fopen(CUDOCTOR_SOURCE_DIR "/docs/json.md", "r");
	json_t *j, *v;
	const char *key;

	(void)state;
	assert_non_null(f);
	assert_int_equal(getdelim(&doc, &len, '\0', f) > 0, 1);
	fclose(f);
	section = strstr(doc, "## driver and GPU facts");
	assert_non_null(section);
	char *end = strstr(section + 3, "\n## ");
	if (end)
		*end = '\0';
	j = parse(&r);
	const json_t *const objects[] = { json_object_get(j, "driver"), json_object_get(json_object_get(j, "driver"), "nvml") };
	for (size_t i = 0; i < 2; i++)
		json_object_foreach((json_t *)objects[i], key, v) {
			char quoted[128];
			snprintf(quoted, sizeof(quoted), "`%s`", key);
			if (!strstr(section, quoted))
				fail_msg("driver%s.%s is not documented in docs/json.md", i ? ".nvml" : "", key);
		}
	json_object_foreach(json_array_get(json_object_get(j, "gpus"), 0), key, v) {
		char quoted[128];
		snprintf(quoted, sizeof(quoted), "`%s`", key);
		if (!strstr(section, quoted))
			fail_msg("gpus[].%s is not documented in docs/json.md", key);
	}
	json_object_foreach(json_array_get(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "processes"), 0),
			    key, v) {
		char quoted[128];
		snprintf(quoted, sizeof(quoted), "`%s`", key);
		if (!strstr(section, quoted))
			fail_msg("processes[].%s is not documented in docs/json.md", key);
	}
	json_decref(j);
	free(doc);
	run_result_free(&r);
}

#define MIG_TWO "FAKE_NVML_MIG_DEVICES=0:1g.18gb:18GiB:20MiB;0:3g.71gb:71GiB"

/* MIG on with two instances: JSON lists both with their own memory (every key documented),
 * the text shows them as a table under the GPU. */
static void test_mig_two_instances(void **state)
{
	struct run_result r = devices(true, MIG_TWO, NULL, NULL);
	json_t *j, *g, *m, *v;
	const char *key;
	char *doc = NULL, *section;
	size_t len = 0;
	FILE *f = fopen(CUDOCTOR_SOURCE_DIR "/docs/json.md", "r");

	(void)state;
	assert_int_equal(r.status, 0);
	j = parse(&r);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	assert_int_equal(json_array_size(json_object_get(g, "mig_devices")), 2);
	m = json_array_get(json_object_get(g, "mig_devices"), 0);
	assert_int_equal(json_integer_value(json_object_get(m, "index")), 0);
	assert_int_equal(json_integer_value(json_object_get(m, "gpu_instance_id")), 1);
	assert_int_equal(json_integer_value(json_object_get(m, "compute_instance_id")), 0);
	assert_string_equal(json_string_value(json_object_get(m, "name")), "NVIDIA H200 MIG 1g.18gb");
	assert_true(strncmp(json_string_value(json_object_get(m, "uuid")), "MIG-", 4) == 0);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_total_bytes")), 18LL << 30);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_used_bytes")), 20LL << 20);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_free_bytes")), (18LL << 30) - (20LL << 20));
	m = json_array_get(json_object_get(g, "mig_devices"), 1);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_total_bytes")), 71LL << 30);
	assert_int_equal(json_integer_value(json_object_get(m, "gpu_instance_id")), 2);
	/* the keys of a MIG device are documented with the devices keys */
	assert_non_null(f);
	assert_int_equal(getdelim(&doc, &len, '\0', f) > 0, 1);
	fclose(f);
	section = strstr(doc, "## driver and GPU facts");
	assert_non_null(section);
	char *end = strstr(section + 3, "\n## ");
	if (end)
		*end = '\0';
	json_object_foreach(json_array_get(json_object_get(g, "mig_devices"), 0), key, v) {
		char quoted[128];
		snprintf(quoted, sizeof(quoted), "`%s`", key);
		if (!strstr(section, quoted))
			fail_msg("mig_devices[].%s is not documented in docs/json.md", key);
	}
	free(doc);
	json_decref(j);
	run_result_free(&r);

	r = devices(false, MIG_TWO, NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(kv_value(r.out, "MIG mode"), "on");
	assert_non_null(strstr(r.out, "NVIDIA H200 MIG 1g.18gb"));
	assert_non_null(strstr(r.out, "NVIDIA H200 MIG 3g.71gb"));
	assert_non_null(strstr(r.out, " 18 GiB "));
	assert_non_null(strstr(r.out, " 71 GiB"));
	assert_non_null(strstr(r.out, "2/0"));
	run_result_free(&r);
}

/* MIG on without instances: an empty list, said in the text; MIG off: null. */
static void test_mig_none_and_off(void **state)
{
	struct run_result r = devices(true, "FAKE_NVML_MIG=0:1:1", NULL, NULL);
	json_t *j, *g;

	(void)state;
	j = parse(&r);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_array(json_object_get(g, "mig_devices")));
	assert_int_equal(json_array_size(json_object_get(g, "mig_devices")), 0);
	json_decref(j);
	run_result_free(&r);
	r = devices(false, "FAKE_NVML_MIG=0:1:1", NULL, NULL);
	assert_non_null(strstr(r.out, "MIG devices: none"));
	run_result_free(&r);

	r = devices(true, NULL, NULL, NULL);
	j = parse(&r);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_false(json_object_get(g, "mig_mode_current")));
	assert_true(json_is_null(json_object_get(g, "mig_devices")));
	json_decref(j);
	run_result_free(&r);
}

/* An NVML without the MIG device calls: the mode shows, the instances are unknown. */
static void test_mig_without_symbols(void **state)
{
	struct run_result r = devices(true, "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/nomig/libnvidia-ml.so.1", MIG_TWO, NULL);
	json_t *j, *g;

	(void)state;
	assert_int_equal(r.status, 0);
	j = parse(&r);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	assert_true(json_is_null(json_object_get(g, "mig_devices")));
	assert_int_equal(json_array_size(json_object_get(g, "errors")), 0);
	json_decref(j);
	run_result_free(&r);
	r = devices(false, "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/nomig/libnvidia-ml.so.1", MIG_TWO, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "MIG devices: not listed"));
	assert_null(strstr(r.out, "1g.18gb"));
	run_result_free(&r);
}

static void test_no_driver(void **state)
{
	struct run_result r = devices(true, "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", NULL, NULL);
	json_t *j;

	(void)state;
	assert_int_equal(r.status, 1);
	j = parse(&r);
	assert_true(has_finding(j, "no-driver", "error"));
	assert_true(json_is_false(json_object_get(json_object_get(j, "driver"), "loaded")));
	/* NVML still lists the GPU, not visible to CUDA */
	json_t *g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_null(json_object_get(g, "cuda_ordinal")));
	assert_int_equal(json_integer_value(json_object_get(g, "nvml_index")), 0);
	json_decref(j);
	run_result_free(&r);
}

static void check_init(const char *value, const char *id, const char *fix_word)
{
	char env[64];
	struct run_result r;
	json_t *j;

	snprintf(env, sizeof(env), "FAKE_CUDA_INIT_RESULT=%s", value);
	r = devices(true, env, NULL, NULL);
	assert_int_equal(r.status, 1);
	j = parse(&r);
	assert_true(has_finding(j, id, "error"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "driver"), "init_result")), atoi(value));
	assert_non_null(strstr(r.out, fix_word));
	json_decref(j);
	run_result_free(&r);
}

static void test_cuinit_results(void **state)
{
	(void)state;
	/* the ids doctor gives too (tests/unit/test_driver_findings_agree.c) */
	check_init("100", "no-device", "nvidia-smi -L");
	check_init("999", "driver-init-failed", "nvidia_uvm");
	check_init("804", "forward-compat-unsupported", "compat");
	check_init("802", "system-not-ready", "nvidia-fabricmanager");
	check_init("34", "driver-init-failed", "stubs");
}

static void test_eight_gpus_text_table(void **state)
{
	struct run_result r = devices(false,
				      "FAKE_GPUS=NVIDIA GeForce RTX 4060 Ti:8.9:8GiB;NVIDIA GeForce RTX 5060 Ti:12.0:16GiB;"
				      "Tesla V100-SXM2-16GB:7.0:16GiB;NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB;"
				      "NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB;NVIDIA A100-SXM4-80GB:8.0:80GiB",
				      NULL, NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "GPU 0 (NVIDIA GeForce RTX 4060 Ti)"));
	assert_non_null(strstr(r.out, "GPU 1 (NVIDIA GeForce RTX 5060 Ti)"));
	assert_non_null(strstr(r.out, "12.0 (sm_120)"));
	assert_non_null(strstr(r.out, "GPU 2 (Tesla V100-SXM2-16GB)"));
	assert_non_null(strstr(r.out, "7.0 (sm_70)"));
	assert_non_null(strstr(r.out, "GPU 7 (NVIDIA A100-SXM4-80GB)"));
	assert_string_equal(kv_value(r.out, "CUDA devices"), "8");
	assert_string_equal(kv_value(r.out, "NVML devices"), "8");
	assert_non_null(strstr(r.out, "max grid dims"));
	assert_non_null(strstr(r.out, "(2147483647, 65535, 65535)"));
	assert_null(strstr(r.out, "GPU 8 "));
	run_result_free(&r);
}

static void test_nvml_mismatch_is_a_warning(void **state)
{
	struct run_result r = devices(true, "FAKE_NVML_INIT_RESULT=18", NULL, NULL);
	json_t *j;

	(void)state;
	assert_int_equal(r.status, 0); /* warn only: CUDA facts are complete */
	j = parse(&r);
	assert_true(has_finding(j, "nvml-unavailable", "warn"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j, "driver"), "nvml"),
								  "init_result_name")),
			    "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	json_t *g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_null(json_object_get(g, "nvml_index")));
	assert_int_equal(json_integer_value(json_object_get(g, "multiprocessor_count")), 132);
	assert_true(json_is_null(json_object_get(g, "power_draw_mw")));
	json_decref(j);
	run_result_free(&r);
}

static void test_health_findings_end_to_end(void **state)
{
	struct run_result r = devices(true, "FAKE_NVML_ECC=0:0:2:0:2", "FAKE_NVML_REMAPPED=0:0:1:1:0",
				      "FAKE_NVML_CLOCK_REASONS=0:0x40");
	json_t *j;

	(void)state;
	assert_int_equal(r.status, 1);
	j = parse(&r);
	assert_true(has_finding(j, "ecc-errors", "error"));
	assert_true(has_finding(j, "retired-pages-pending", "warn"));
	assert_true(has_finding(j, "clocks-throttled", "warn"));
	assert_false(has_finding(j, "pcie-link-degraded", NULL));
	json_decref(j);
	run_result_free(&r);
}

/* Without the override the libraries are found as the CUDA runtime finds them. */
static void test_loader_search_uses_ld_library_path(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=", "CUDOCTOR_LIBNVML=", "LD_LIBRARY_PATH=" CUDOCTOR_FAKES_DIR, NULL };
	struct run_result r;
	json_t *j;

	(void)state;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	j = parse(&r);
	json_t *d = json_object_get(j, "driver"), *nv = json_object_get(d, "nvml");
	assert_string_equal(json_string_value(json_object_get(d, "how")), "loader search");
	assert_string_equal(json_string_value(json_object_get(nv, "how")), "loader search");
	assert_non_null(strstr(json_string_value(json_object_get(nv, "library_path")), "tests/fakes"));
	json_decref(j);
	run_result_free(&r);
}

static void test_usage_errors(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "devices", "--frobnicate", NULL };
	const char *argv2[] = { CUDOCTOR_BINARY, "devices", "extra", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--frobnicate"));
	run_result_free(&r);
	assert_int_equal(testlib_run(argv2, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_h200),
		cmocka_unit_test(test_every_key_is_documented),
		cmocka_unit_test(test_mig_two_instances),
		cmocka_unit_test(test_mig_none_and_off),
		cmocka_unit_test(test_mig_without_symbols),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_cuinit_results),
		cmocka_unit_test(test_eight_gpus_text_table),
		cmocka_unit_test(test_nvml_mismatch_is_a_warning),
		cmocka_unit_test(test_health_findings_end_to_end),
		cmocka_unit_test(test_loader_search_uses_ld_library_path),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_quiet_is_a_line_per_gpu_and_the_findings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
