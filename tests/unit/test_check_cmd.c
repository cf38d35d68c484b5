/* `cudoctor check` end to end with the fake drivers and a host laid out under
 * CUDOCTOR_HOST_ROOT (dev/kmsg, proc/modules): exit codes, which GPU an Xid names, the
 * findings doctor shares, the JSON against docs/cudoctor.schema.json. */
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
#include <sys/stat.h>

#include "testlib.h"

static char root[] = "/tmp/cudoctor-check-XXXXXX";
static char root_env[128];

/* The caller's CUDA variables must not leak in: each one check judges is unset */
#define QUIET_ENV                                                                                        \
	"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",                                          \
		"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "CUDA_VISIBLE_DEVICES=",    \
		"FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB", "FAKE_NVML_PERSISTENCE=0:1;1:1", \
		"CUDA_LAUNCH_BLOCKING=", "CUDA_DEVICE_MAX_CONNECTIONS=", "CUDA_CACHE_DISABLE=",          \
		"CUDA_MODULE_LOADING=", "CUDA_INJECTION64_PATH=", "CUDA_FORCE_PTX_JIT=",                 \
		"CUDA_DISABLE_PTX_JIT=", "CUDA_DEVICE_WAITS_ON_EXCEPTION=", "CUDA_AUTO_BOOST=", root_env

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int make_root(void **state)
{
	char path[256];

	(void)state;
	if (!mkdtemp(root))
		return -1;
	snprintf(root_env, sizeof root_env, "CUDOCTOR_HOST_ROOT=%s", root);
	snprintf(path, sizeof path, "%s/dev", root);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/proc", root);
	mkdir(path, 0755);
	return 0;
}

static int remove_root(void **state)
{
	const char *argv[] = { "/bin/rm", "-rf", root, NULL };
	struct run_result r;

	(void)state;
	if (testlib_run(argv, NULL, NULL, &r) == 0)
		run_result_free(&r);
	return 0;
}

static struct run_result run(const char *cmd, const char *extra)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", cmd, NULL };
	const char *env[] = { QUIET_ENV, extra, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static json_t *parse(const struct run_result *r)
{
	json_error_t e;
	json_t *j = json_loads(r->out, 0, &e);

	if (!j)
		fail_msg("not JSON (%s): %s\nstderr: %s", e.text, r->out, r->err);
	return j;
}

/* The first finding with id (and severity, unless NULL), or NULL */
static json_t *finding(json_t *j, const char *id, const char *severity)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(j, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
		    (!severity || strcmp(json_string_value(json_object_get(f, "severity")), severity) == 0))
			return f;
	return NULL;
}

static bool evidence_has(json_t *f, const char *s)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(f, "evidence"), i, e)
		if (strstr(json_string_value(e), s))
			return true;
	return false;
}

static void schema_valid(const struct run_result *r)
{
	char path[256], script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result v;

	snprintf(path, sizeof path, "%s/report.json", root);
	{
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(r->out, f);
		fclose(f);
	}
	snprintf(script, sizeof script, "exec python3 '%s/tests/unit/schema_check.py' '%s/docs/cudoctor.schema.json' '%s'",
		 CUDOCTOR_SOURCE_DIR, CUDOCTOR_SOURCE_DIR, path);
	assert_int_equal(testlib_run(argv, NULL, NULL, &v), 0);
	if (v.status != 0)
		fail_msg("check's JSON does not validate: %s", v.err);
	run_result_free(&v);
}

/* A clean host: nothing in the log, nvidia loaded, no variable set: exit 0 */
static void test_clean_host(void **state)
{
	struct run_result r;
	json_t *j, *log;

	(void)state;
	write_file("dev/kmsg", "6,1,1000,-;Linux version 6.8.0\n6,2,2000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.65.06\n");
	write_file("proc/modules", "nvidia_uvm 1437696 0 - Live 0x0\nnvidia 54439936 1 nvidia_uvm, Live 0x0\n");
	r = run("check", NULL);
	j = parse(&r);
	if (r.status != 0)
		fail_msg("exit %d on a clean host: %s", r.status, r.out);
	log = json_object_get(j, "kernel_log");
	assert_string_equal(json_string_value(json_object_get(log, "state")), "read");
	assert_int_equal(json_integer_value(json_object_get(log, "n_events")), 0);
	assert_int_equal(json_array_size(json_object_get(log, "events")), 0);
	assert_true(json_is_true(json_object_get(json_object_get(j, "modules"), "nvidia")));
	assert_true(json_is_false(json_object_get(json_object_get(j, "modules"), "nouveau")));
	assert_null(finding(j, "xid-errors", NULL));
	assert_null(finding(j, "cuda-env", NULL));
	schema_valid(&r);
	json_decref(j);
	run_result_free(&r);
}

/* NVSentinel's Xid 79 line (https://github.com/NVIDIA/NVSentinel/issues/155) with the bus of
 * the fake's second GPU (0x28), and an application's Xid 13 (https://github.com/leptonai/gpud/pull/46)
 * on the first: an error on GPU 1, a warning on GPU 0, exit 1; doctor says the same */
static void test_xid_names_its_gpu(void **state)
{
	struct run_result r, d;
	json_t *j, *f, *ev;

	(void)state;
	write_file("dev/kmsg",
		   "4,10,5000000,-;NVRM: Xid (PCI:0000:18:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n"
		   " SUBSYSTEM=pci\n"
		   "4,11,7000000,-;NVRM: Xid (PCI:0000:28:00): 79, GPU has fallen off the bus\n");
	write_file("proc/modules", "nvidia 54439936 1 nvidia_uvm, Live 0x0\n");
	r = run("check", NULL);
	j = parse(&r);
	assert_int_equal(r.status, 1);
	f = finding(j, "xid-errors", "error");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "GPU 1 (NVIDIA H200)");
	assert_true(evidence_has(f, "Xid 79, logged 1 time (7.000 s after boot): GPU has fallen off the bus"));
	assert_true(evidence_has(f, "action: drain the node and reboot"));
	f = finding(j, "xid-errors", "warn");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "GPU 0 (NVIDIA H200)");
	ev = json_array_get(json_object_get(json_object_get(j, "kernel_log"), "events"), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "xid")), 79);
	assert_int_equal(json_integer_value(json_object_get(ev, "gpu_index")), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "first_usec")), 7000000);
	assert_true(json_is_null(json_object_get(ev, "pid")));
	schema_valid(&r);
	json_decref(j);
	run_result_free(&r);
	d = run("doctor", NULL);
	j = parse(&d);
	assert_int_equal(d.status, 1);
	f = finding(j, "xid-errors", "error");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "GPU 1 (NVIDIA H200)");
	json_decref(j);
	run_result_free(&d);
}

/* nouveau loaded, a variable set, the log restricted: each is named */
static void test_nouveau_env_restricted(void **state)
{
	struct run_result r;
	json_t *j, *f;
	char path[256];

	(void)state;
	write_file("proc/modules", "nouveau 2760704 0 - Live 0x0\nnvidia 54439936 1 nvidia_uvm, Live 0x0\n");
	/* a directory where the device should be reads as a failed read */
	snprintf(path, sizeof path, "%s/dev/kmsg", root);
	remove(path);
	assert_int_equal(mkdir(path, 0755), 0);
	r = run("check", "CUDA_LAUNCH_BLOCKING=1");
	j = parse(&r);
	assert_int_equal(r.status, 1);
	assert_non_null(finding(j, "nouveau-loaded", "error"));
	f = finding(j, "cuda-env", "warn");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "CUDA_LAUNCH_BLOCKING");
	assert_non_null(finding(j, "kernel-log-unread", "info"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kernel_log"), "state")), "read failed");
	schema_valid(&r);
	json_decref(j);
	run_result_free(&r);
	/* doctor names nouveau and the variable, not the unread log */
	r = run("doctor", "CUDA_LAUNCH_BLOCKING=1");
	j = parse(&r);
	assert_non_null(finding(j, "nouveau-loaded", "error"));
	assert_non_null(finding(j, "cuda-env", "warn"));
	assert_null(finding(j, "kernel-log-unread", NULL));
	json_decref(j);
	run_result_free(&r);
	assert_int_equal(rmdir(path), 0);
}

/* No driver: the driver rules say so, the host checks still run, exit 1 */
static void test_no_driver(void **state)
{
	struct run_result r;
	json_t *j;

	(void)state;
	write_file("dev/kmsg", "");
	write_file("proc/modules", "");
	r = run("check", "CUDOCTOR_LIBCUDA=/nonexistent");
	j = parse(&r);
	assert_int_equal(r.status, 1);
	assert_non_null(finding(j, "no-driver", "error"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kernel_log"), "state")), "read");
	json_decref(j);
	run_result_free(&r);
}

static struct run_result run_args(const char *opt, const char *val, const char *extra)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "check", opt, val, NULL };
	const char *env[] = { QUIET_ENV, extra, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

/* The load part: run by default in 5 minutes, absent with --no-load; run, each CUDA GPU
 * gets a row (the fake driver loads no module, so each row names the failed call) and the
 * kernel log is read again; without a driver one line says why nothing ran; a bad
 * --duration or --gemm, or --no-load beside a budget or --gemm, is a usage error */
static void test_load_part(void **state)
{
	struct run_result r;
	json_t *j, *load, *gpus;

	(void)state;
	write_file("dev/kmsg", "6,1,1000,-;Linux version 6.8.0\n");
	write_file("proc/modules", "nvidia 1 0 - Live 0x0\nnvidia_uvm 1 0 - Live 0x0\n");
	r = run_args("--no-load", NULL, NULL);
	j = parse(&r);
	assert_null(json_object_get(j, "load"));
	json_decref(j);
	run_result_free(&r);

	r = run("check", NULL);
	j = parse(&r);
	load = json_object_get(j, "load");
	assert_non_null(load);
	assert_true(json_real_value(json_object_get(load, "budget_s")) == 300.0);
	assert_int_equal(json_array_size(json_object_get(load, "gpus")), 2);
	json_decref(j);
	run_result_free(&r);

	r = run_args("--load", NULL, NULL);
	j = parse(&r);
	assert_true(json_real_value(json_object_get(json_object_get(j, "load"), "budget_s")) == 300.0);
	json_decref(j);
	run_result_free(&r);

	r = run_args("--no-load", "--quick", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--no-load and --quick contradict each other"));
	run_result_free(&r);

	r = run_args("--gemm", "bf16,fp8", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--gemm: 'fp8' is not a type"));
	assert_string_equal(r.out, "");
	run_result_free(&r);

	r = run_args("--gemm=all", "--no-load", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--no-load and --gemm contradict each other"));
	run_result_free(&r);

	r = run_args("--quick", NULL, NULL);
	j = parse(&r);
	schema_valid(&r);
	load = json_object_get(j, "load");
	assert_non_null(load);
	assert_string_equal(json_string_value(json_object_get(load, "state")), "run");
	assert_true(json_real_value(json_object_get(load, "budget_s")) == 60.0);
	assert_true(json_is_true(json_object_get(load, "xids_checked")));
	gpus = json_object_get(load, "gpus");
	assert_int_equal(json_array_size(gpus), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(gpus, 1), "gpu_index")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(gpus, 0), "error")), "cuModuleLoadData"));
	json_decref(j);
	run_result_free(&r);

	r = run_args("--duration", "30", "CUDOCTOR_LIBCUDA=/nonexistent");
	j = parse(&r);
	schema_valid(&r);
	load = json_object_get(j, "load");
	assert_string_equal(json_string_value(json_object_get(load, "state")), "not run");
	assert_true(json_real_value(json_object_get(load, "budget_s")) == 30.0);
	assert_non_null(strstr(json_string_value(json_object_get(load, "why")), "need a GPU that CUDA can use"));
	json_decref(j);
	run_result_free(&r);

	r = run_args("--duration", "0.5s", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--duration wants seconds from 1 to 86400, not '0.5s'"));
	run_result_free(&r);
}

/* The load's progress line: on a terminal (tests/unit/pty_run.py, the delay moved to 0 s) it
 * names the GPU, the test and the seconds of the budget, and is erased at the end; piped,
 * stderr holds none of it. The fake driver loads no kernels, so each GPU stops at opening. */
static void test_progress_line(void **state)
{
	const char *pty_argv[] = { "/usr/bin/python3", CUDOCTOR_SOURCE_DIR "/tests/unit/pty_run.py", "err", "0",
				   CUDOCTOR_BINARY, "check", NULL };
	const char *argv[] = { CUDOCTOR_BINARY, "check", NULL };
	const char *env[] = { QUIET_ENV, "CUDOCTOR_PROGRESS_AFTER=0", NULL };
	struct run_result t, p;

	(void)state;
	write_file("dev/kmsg", "6,1,1000,-;Linux version 6.8.0\n");
	write_file("proc/modules", "nvidia 1 0 - Live 0x0\nnvidia_uvm 1 0 - Live 0x0\n");
	assert_int_equal(testlib_run(pty_argv, env, NULL, &t), 0);
	assert_non_null(strstr(t.out, "\r\033[Kcheck: GPU 0 (1 of 2), opening the GPU, 0 of 300 s"));
	assert_true(strlen(t.out) >= 4 && strcmp(t.out + strlen(t.out) - 4, "\r\033[K") == 0);
	assert_int_equal(testlib_run(argv, env, NULL, &p), 0);
	assert_null(strstr(p.err, "check: GPU"));
	run_result_free(&t);
	run_result_free(&p);
}

/* cudoctor [GLOBAL] check --no-load with the fakes (and extra, an environment entry). */
static struct run_result run_no_load(const char *global, const char *extra)
{
	const char *argv[] = { CUDOCTOR_BINARY, global ? global : "check", global ? "check" : "--no-load",
			       global ? "--no-load" : NULL, NULL };
	const char *env[] = { QUIET_ENV, extra, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

/* The line of text whose label is label in the block after heading (NULL when none). */
static char *kv_value(const char *out, const char *heading, const char *label, char *buf, size_t cap)
{
	const char *p = strstr(out, heading), *end;

	if (!p || !(p = strstr(p, label)))
		return NULL;
	p += strlen(label);
	p += strspn(p, " ");
	end = p + strcspn(p, "\n");
	snprintf(buf, cap, "%.*s", (int)(end - p), p);
	return buf;
}

/* Why: "check --no-load on a healthy GPU says nothing about the GPU: no GPU line, no verdict,
 * -q prints nothing, JSON has no GPU keys". Each GPU gets its health facts and a verdict line
 * in text, -q and JSON; an Xid 79 on the second makes that one's verdict an error, naming it. */
static void test_check_no_load_on_a_healthy_gpu_says_nothing_about_the_gpu(void **state)
{
	struct run_result r;
	json_t *j, *g;
	char buf[256];
	size_t i;

	(void)state;
	write_file("dev/kmsg", "6,1,1000,-;Linux version 6.8.0\n");
	write_file("proc/modules", "nvidia_uvm 1437696 0 - Live 0x0\nnvidia 54439936 1 nvidia_uvm, Live 0x0\n");
	r = run_no_load(NULL, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nGPU 0 (NVIDIA H200)\n"));
	assert_string_equal(kv_value(r.out, "\nGPU 0 (NVIDIA H200)\n", "  temperature", buf, sizeof buf), "34 C");
	assert_string_equal(kv_value(r.out, "\nGPU 0 (NVIDIA H200)\n", "  PCI bus id", buf, sizeof buf), "0000:18:00.0");
	assert_string_equal(kv_value(r.out, "\nGPU 0 (NVIDIA H200)\n", "  verdict", buf, sizeof buf), "ok");
	assert_string_equal(kv_value(r.out, "\nGPU 1 (NVIDIA H200)\n", "  verdict", buf, sizeof buf), "ok");
	run_result_free(&r);

	r = run_no_load("-q", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "GPU 0 (NVIDIA H200): ok\nGPU 1 (NVIDIA H200): ok\n");
	run_result_free(&r);

	r = run_no_load("--json", NULL);
	j = parse(&r);
	schema_valid(&r);
	assert_int_equal(json_array_size(json_object_get(j, "gpus")), 2);
	json_array_foreach(json_object_get(j, "gpus"), i, g) {
		assert_string_equal(json_string_value(json_object_get(g, "verdict")), "ok");
		assert_int_equal(json_array_size(json_object_get(g, "verdict_findings")), 0);
		assert_int_equal(json_integer_value(json_object_get(g, "cuda_ordinal")), (json_int_t)i);
		assert_int_equal(json_integer_value(json_object_get(g, "temperature_gpu_c")), 34);
		assert_true(json_is_false(json_object_get(g, "gpu_lost")));
	}
	json_decref(j);
	run_result_free(&r);

	/* GPU 1 fell off the bus (NVSentinel's line, https://github.com/NVIDIA/NVSentinel/issues/155) */
	write_file("dev/kmsg", "4,11,7000000,-;NVRM: Xid (PCI:0000:28:00): 79, GPU has fallen off the bus\n");
	r = run_no_load("-q", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "GPU 0 (NVIDIA H200): ok\nGPU 1 (NVIDIA H200): error: xid-errors\n");
	assert_non_null(strstr(r.err, "xid-errors"));
	run_result_free(&r);
	r = run_no_load("--json", NULL);
	j = parse(&r);
	g = json_array_get(json_object_get(j, "gpus"), 1);
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "error");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "verdict_findings"), 0)), "xid-errors");
	json_decref(j);
	run_result_free(&r);

	/* no driver library at all: no GPU, and stdout says so */
	r = run_no_load("-q", "CUDOCTOR_LIBCUDA=/nonexistent");
	{
		const char *argv[] = { CUDOCTOR_BINARY, "-q", "check", "--no-load", NULL };
		const char *env[] = { QUIET_ENV, "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };

		run_result_free(&r);
		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	}
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "no GPU listed by NVML or CUDA\n");
	assert_non_null(strstr(r.err, "no-driver"));
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_host),
		cmocka_unit_test(test_xid_names_its_gpu),
		cmocka_unit_test(test_nouveau_env_restricted),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_load_part),
		cmocka_unit_test(test_progress_line),
		cmocka_unit_test(test_check_no_load_on_a_healthy_gpu_says_nothing_about_the_gpu),
	};

	return cmocka_run_group_tests(tests, make_root, remove_root);
}
