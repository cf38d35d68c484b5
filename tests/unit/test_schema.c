/* docs/cudoctor.schema.json against every command's --json output made through the fake
 * drivers (two GPUs), checked by tests/unit/schema_check.py (python jsonschema, draft
 * 2020-12); and a report that breaks the contract is refused, so the check can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define SCHEMA CUDOCTOR_SOURCE_DIR "/docs/cudoctor.schema.json"
#define CHECK CUDOCTOR_SOURCE_DIR "/tests/unit/schema_check.py"
#define ARCH_FIX CUDOCTOR_FIXTURES_DIR "/arch"

static char dir[] = "/tmp/cudoctor-schema-XXXXXX";

static const char *const env[] = {
	"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1", "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
	"FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4090:8.9:24GiB", "CUDA_VISIBLE_DEVICES=",
	"FAKE_NVML_ECC=0:1:0:4:0", NULL,
};

/* cudoctor --json -o DIR/NAME.json ARGS...; the report exists afterwards */
static void report(const char *name, const char *const *args, const char *const *extra_env)
{
	const char *argv[24] = { CUDOCTOR_BINARY, "--json", "-o" };
	const char *e[16];
	char out[256];
	struct run_result r;
	size_t n = 4, k = 0;

	snprintf(out, sizeof out, "%s/%s.json", dir, name);
	argv[3] = out;
	for (; *args && n < 23; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	for (size_t i = 0; env[i]; i++)
		e[k++] = env[i];
	for (size_t i = 0; extra_env && extra_env[i] && k < 15; i++)
		e[k++] = extra_env[i];
	e[k] = NULL;
	assert_int_equal(testlib_run(argv, e, NULL, &r), 0);
	if (access(out, R_OK) != 0)
		fail_msg("cudoctor --json %s wrote no report (exit %d): %s", name, r.status, r.err);
	run_result_free(&r);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int make_reports(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int remove_reports(void **state)
{
	const char *argv[] = { "/bin/rm", "-rf", dir, NULL };
	struct run_result r;

	(void)state;
	if (testlib_run(argv, NULL, NULL, &r) == 0)
		run_result_free(&r);
	return 0;
}

static struct run_result check(const char *files)
{
	char script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result r;

	snprintf(script, sizeof script, "exec python3 '%s' '%s' %s", CHECK, SCHEMA, files);
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static void test_every_command_validates(void **state)
{
	static const char *const commands[] = { "doctor", "devices", "check", "topo", "arch", "explain", "gencode", "plan",
						"diff", "kb", "mem", "lab" };
	const char *no_driver[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };
	const char *older[] = { "FAKE_NVML_DRIVER_VERSION=575.51.03", "FAKE_CUDA_DRIVER_VERSION=12090", NULL };
	char a[256], b[256], files[512];
	struct run_result r;

	(void)state;
	report("doctor", ARGS("doctor"), NULL);
	report("doctor_no_driver", ARGS("doctor"), no_driver);
	report("devices", ARGS("devices"), NULL);
	report("devices_no_driver", ARGS("devices"), no_driver);
	report("check", ARGS("check"), NULL);
	report("topo", ARGS("topo"), NULL);
	if (access(ARCH_FIX "/k_sm90.fatbin", R_OK) == 0)
		report("arch", ARGS("arch", ARCH_FIX "/k_sm90.fatbin", ARCH_FIX "/k.ptx", ARCH_FIX "/libk.a",
				    "/nonexistent"), NULL);
	else
		report("arch", ARGS("arch", "--gpu", "sm_90", "/nonexistent"), NULL);
	report("explain", ARGS("explain", "CUDA error: no kernel image is available for execution on the device"), NULL);
	report("explain_offline", ARGS("explain", "--offline", "RuntimeError: CUDA error: out of memory"), NULL);
	report("gencode", ARGS("gencode", "--gpu", "H200", "--gpu", "RTX 4090"), NULL);
	report("plan", ARGS("plan", "--gpu", "H200", "--gpu", "RTX 4090"), NULL);
	report("plan_amd", ARGS("plan", "--gpu", "RX 7900 XTX", "--gpu", "780M"), NULL);
	report("arch_amd", ARGS("arch", "--gpu", "gfx1100", "--gpu", "sm_90", CUDOCTOR_SOURCE_DIR "/tests/fuzz/corpus/hipfb/ccob_v2_zlib",
				CUDOCTOR_SOURCE_DIR "/tests/fuzz/corpus/hipfb/code_object_gfx90a"), NULL);
	report("kb_gpu", ARGS("kb", "gpu", "H200"), NULL);
	report("kb_toolkit", ARGS("kb", "toolkit", "13.0"), NULL);
	report("kb_driver", ARGS("kb", "driver", "580"), NULL);
	report("kb_error", ARGS("kb", "error", "209"), NULL);
	report("kb_torch", ARGS("kb", "torch", "2.9"), NULL);
	report("kb_framework", ARGS("kb", "framework"), NULL);
	report("mem_estimate", ARGS("mem", "estimate", "--params", "7B"), NULL);
	report("mem_status", ARGS("mem", "status"), NULL);
	report("mem_probe", ARGS("mem", "probe"), NULL);
	report("lab_list", ARGS("lab", "list"), NULL);
	report("older", ARGS("doctor"), older);
	snprintf(a, sizeof a, "%s/doctor.json", dir);
	snprintf(b, sizeof b, "%s/older.json", dir);
	report("diff", ARGS("diff", a, b), NULL);
	snprintf(files, sizeof files, "'%s'/*.json", dir);
	r = check(files);
	if (r.status != 0)
		fail_msg("reports that do not validate:\n%s", r.err);
	/* every command with a JSON report was among them */
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		char ok[64];

		snprintf(ok, sizeof ok, "ok %s ", commands[i]);
		if (!strstr(r.out, ok))
			fail_msg("no %s report was checked:\n%s", commands[i], r.out);
	}
	run_result_free(&r);
}

/* A report that breaks the contract in one place each: the checker names the place. */
static void test_a_broken_report_is_refused(void **state)
{
	static const char *const breaks[][2] = {
		{ "\"severity\": \"fatal\"", "findings/0/severity" },
		{ "\"tool\": \"other\"", "tool" },
	};
	char path[256], files[300];
	struct run_result r;

	(void)state;
	for (size_t i = 0; i < sizeof breaks / sizeof breaks[0]; i++) {
		FILE *f;

		snprintf(path, sizeof path, "%s/broken%zu.json.bad", dir, i);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "{\"tool\": \"cudoctor\", \"version\": \"0\", \"command\": \"gencode\", \"header\": {\"version\": \"0\", "
			   "\"os\": null, \"kernel\": null, \"glibc\": null, \"cpu\": null, \"date\": \"2025-01-01T00:00:00Z\", "
			   "\"hostname\": null, \"node\": null}, \"findings\": [{\"id\": \"x\", %s, \"title\": \"t\", "
			   "\"evidence\": [], \"fix\": []}], %s, \"targets\": [], \"toolkit\": \"13.0\", \"nvcc\": null, "
			   "\"cmake\": null, \"torch\": null}\n",
			i == 0 ? breaks[0][0] : "\"severity\": \"error\"", i == 1 ? breaks[1][0] : "\"tool\": \"cudoctor\"");
		assert_int_equal(fclose(f), 0);
		snprintf(files, sizeof files, "'%s'", path);
		r = check(files);
		assert_int_equal(r.status, 1);
		if (!strstr(r.err, breaks[i][1]))
			fail_msg("the error does not name %s: %s", breaks[i][1], r.err);
		run_result_free(&r);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_validates),
		cmocka_unit_test(test_a_broken_report_is_refused),
	};

	return cmocka_run_group_tests(tests, make_reports, remove_reports);
}
