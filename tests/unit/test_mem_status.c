/* `cudoctor mem status` through the fake libcuda/NVML: processes and their memory,
 * oom-other-process, MIG, no driver; and on the real PyTorch OOM texts of
 * tests/explain/, the same classification as explain's matcher (one classifier,
 * src/rules/oom.c, behind both). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "explain/explain.h"
#include "report/json_compat.h"
#include "rules/oom.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

#define FAKE_CUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static json_t *status_json(const char *procs, const char *extra_env, const char *oom_file, int *exit_status)
{
	char penv[256], xenv[256];
	snprintf(penv, sizeof penv, "FAKE_NVML_PROCS=%s", procs ? procs : "");
	snprintf(xenv, sizeof xenv, "%s", extra_env ? extra_env : "FAKE_UNUSED=");
	const char *env[] = {FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA H100 80GB HBM3:9.0:80GiB", penv, xenv, NULL};
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "status", oom_file ? "--oom" : NULL, oom_file, NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	json_t *j = json_loads(r.out, 0, NULL);
	if (!j)
		fail_msg("exit %d, not JSON: %.300s / %.300s", r.status, r.out, r.err);
	*exit_status = r.status;
	run_result_free(&r);
	return j;
}

static const char *first_finding(json_t *j, const char *id)
{
	json_t *fs = json_object_get(j, "findings");
	for (size_t i = 0; i < json_array_size(fs); i++) {
		const char *fid = json_string_value(json_object_get(json_array_get(fs, i), "id"));
		if (!id || strcmp(fid, id) == 0)
			return fid;
	}
	return NULL;
}

static json_t *finding_object(json_t *j, const char *id)
{
	json_t *fs = json_object_get(j, "findings");
	for (size_t i = 0; i < json_array_size(fs); i++)
		if (strcmp(json_string_value(json_object_get(json_array_get(fs, i), "id")), id) == 0)
			return json_array_get(fs, i);
	return NULL;
}

static void processes_and_other_process_finding(void **state)
{
	int st;
	(void)state;
	json_t *j = status_json("0:4242:30GiB;0:777:2GiB", NULL, NULL, &st);
	assert_int_equal(st, 0); /* a warning, not an error */
	json_t *g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_int_equal(json_integer_value(json_object_get(g, "nvml_memory_total_bytes")), 80ll << 30);
	json_t *procs = json_object_get(g, "processes");
	assert_int_equal(json_array_size(procs), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(procs, 0), "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(procs, 0), "used_memory_bytes")), 30ll << 30);
	/* PID 4242 is (almost surely) not a process here: said so, not misattributed */
	const char *cmd = json_string_value(json_object_get(json_array_get(procs, 0), "command"));
	assert_true(strstr(cmd, "PID namespace") != NULL || strstr(cmd, "not readable") != NULL || cmd[0] != '(');
	if (!first_finding(j, "oom-other-process"))
		fail_msg("no oom-other-process in %s", json_dumps(j, 0));
	json_decref(j);

	/* 512 MiB of 80 GiB is not a large share (threshold max(1 GiB, 10 %)) */
	j = status_json("0:4242:512MiB", NULL, NULL, &st);
	assert_null(first_finding(j, "oom-other-process"));
	json_decref(j);
	/* 7 GiB: over 1 GiB but under 10 % of 80 GiB */
	j = status_json("0:4242:7GiB", NULL, NULL, &st);
	assert_null(first_finding(j, "oom-other-process"));
	json_decref(j);
}

/* The GPU facts mem status shows have devices' keys and values, on the same fakes: a GPU
 * hidden from CUDA, a MIG GPU with a MIG process, and one whose NVML lists nothing. */
static void gpu_facts_as_devices_names_them(void **state)
{
	static const char *const keys[] = { "name", "cuda_ordinal", "nvml_index", "nvml_memory_total_bytes",
					    "memory_used_bytes", "memory_free_bytes", "memory_reserved_bytes",
					    "mig_mode_current", "mig_devices", NULL };
	static const char *const pkeys[] = { "pid", "used_memory_bytes", "gpu_instance_id", "compute_instance_id",
					     NULL };
	const char *env[] = { FAKE_CUDA, FAKE_NVML,
			      "FAKE_GPUS=NVIDIA H100 80GB HBM3:9.0:80GiB;NVIDIA H200:9.0:141GiB;NVIDIA A100-SXM4-80GB:8.0:80GiB",
			      "CUDA_VISIBLE_DEVICES=0,2", "FAKE_NVML_PROCS=0:4242:30GiB;2:77:na",
			      "FAKE_NVML_MIG_DEVICES=2:1g.10gb:10GiB:1GiB", NULL };
	const char *status[] = { CUDOCTOR_BINARY, "--json", "mem", "status", NULL };
	const char *devices[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
	struct run_result rs, rd;
	json_t *js, *jd, *g, *d = NULL, *each;
	size_t i, n = 0;

	(void)state;
	assert_int_equal(testlib_run(status, env, NULL, &rs), 0);
	assert_int_equal(testlib_run(devices, env, NULL, &rd), 0);
	js = json_loads(rs.out, 0, NULL);
	jd = json_loads(rd.out, 0, NULL);
	if (!js || !jd)
		fail_msg("not JSON: %.300s / %.300s", rs.out, rd.out);
	json_array_foreach(json_object_get(js, "gpus"), i, g) {
		size_t k;

		d = NULL;
		json_array_foreach(json_object_get(jd, "gpus"), k, each) /* by NVML index: unique here */
			if (json_equal(json_object_get(each, "nvml_index"), json_object_get(g, "nvml_index")))
				d = each;
		assert_non_null(d);
		for (const char *const *key = keys; *key; key++) {
			json_t *a = json_object_get(g, *key), *b = json_object_get(d, *key);

			if (!a && strcmp(*key, "mig_devices") == 0)
				continue; /* listed only while MIG is on */
			if (!a || !b || !json_equal(a, b))
				fail_msg("GPU %zu: %s is %s in mem status, %s in devices", i, *key,
					 a ? json_dumps(a, JSON_ENCODE_ANY) : "missing", b ? json_dumps(b, JSON_ENCODE_ANY) : "missing");
		}
		for (size_t p = 0; p < json_array_size(json_object_get(g, "processes")); p++)
			for (const char *const *key = pkeys; *key; key++) {
				json_t *a = json_object_get(json_array_get(json_object_get(g, "processes"), p), *key);
				json_t *b = json_object_get(json_array_get(json_object_get(d, "processes"), p), *key);

				if (!a || !b || !json_equal(a, b))
					fail_msg("GPU %zu process %zu: %s differs from devices'", i, p, *key);
			}
		n++;
	}
	assert_int_equal(n, 3);
	/* the hidden GPU has no CUDA ordinal; NVML cannot say how much the MIG process holds */
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(js, "gpus"), 2), "cuda_ordinal")));
	json_decref(js);
	json_decref(jd);
	run_result_free(&rs);
	run_result_free(&rd);
}

/* A mem status report of 0.1.0 (tests/compat/, the old spelling), upgraded as diff and fleet
 * read it, says what today's says on the same fakes; diff finds no change in the GPUs. */
static void old_release_report(void **state)
{
	static const char *const keys[] = { "gpu", "name", "cuda_ordinal", "nvml_memory_total_bytes", "memory_used_bytes",
					    "memory_free_bytes", "memory_reserved_bytes", "mig_mode_current", NULL };
	const char *old = CUDOCTOR_SOURCE_DIR "/tests/compat/mem-status-0.1.0.json";
	char now[64];
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "--anonymize", "--output", now, "mem", "status", NULL };
	const char *env[] = { FAKE_CUDA, FAKE_NVML, "CUDA_VISIBLE_DEVICES=", "CUDOCTOR_NODE=oldnode",
			      "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB",
			      "FAKE_NVML_MIG_DEVICES=1:1g.18gb:18GiB;1:3g.71gb:71GiB", "FAKE_NVML_PERSISTENCE=1:1", NULL };
	const char *diff[] = { CUDOCTOR_BINARY, "--json", "diff", old, now, NULL };
	struct run_result r;
	json_t *a, *b, *d, *ch;
	size_t i;

	(void)state;
	snprintf(now, sizeof now, "/tmp/cudoctor-mem-status-%d.json", (int)getpid());
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	run_result_free(&r);
	assert_non_null(a = json_load_file(old, 0, NULL));
	assert_non_null(b = json_load_file(now, 0, NULL));
	assert_int_equal(report_json_upgrade(a), CD_OK);
	assert_int_equal(json_array_size(json_object_get(a, "gpus")), 2);
	for (i = 0; i < 2; i++)
		for (const char *const *key = keys; *key; key++) {
			json_t *x = json_object_get(json_array_get(json_object_get(a, "gpus"), i), *key);
			json_t *y = json_object_get(json_array_get(json_object_get(b, "gpus"), i), *key);

			if (!x || !y || !json_equal(x, y))
				fail_msg("GPU %zu: %s differs between 0.1.0's report (upgraded) and today's", i, *key);
		}
	assert_int_equal(testlib_run(diff, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(d = json_loads(r.out, 0, NULL));
	json_array_foreach(json_object_get(d, "changes"), i, ch)
		if (strcmp(json_string_value(json_object_get(ch, "area")), "gpus") == 0)
			fail_msg("diff sees a GPU change: %s", r.out);
	json_decref(d);
	json_decref(a);
	json_decref(b);
	run_result_free(&r);
	unlink(now);
}

/* -q: a line per GPU (used, free of total, processes) on stdout, the warning on stderr; no sections */
static void quiet_is_a_line_per_gpu_and_the_warning(void **state)
{
	const char *env[] = {FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA H100 80GB HBM3:9.0:80GiB", "FAKE_NVML_PROCS=0:4242:30GiB", NULL};
	const char *argv[] = {CUDOCTOR_BINARY, "-q", "mem", "status", NULL};
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "GPU 0 (NVIDIA H100 80GB HBM3): used 30 GiB, free 49.6 GiB of 80 GiB, 1 process\n");
	assert_string_equal(r.err, "warn oom-other-process: other processes hold 30 GiB of 80 GiB [GPU 0 (NVIDIA H100 80GB HBM3)]\n");
	run_result_free(&r);
}

static void own_process_resolves_to_command_line(void **state)
{
	int st;
	char procs[64];
	(void)state;
	/* the test's own PID is in this namespace: its command line is shown */
	snprintf(procs, sizeof procs, "0:%d:1GiB", (int)getpid());
	json_t *j = status_json(procs, NULL, NULL, &st);
	json_t *p = json_array_get(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "processes"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(p, "command")), "test_mem_status"));
	json_decref(j);
}

static void mig_mode_and_no_driver(void **state)
{
	int st;
	(void)state;
	json_t *j = status_json(NULL, "FAKE_NVML_MIG=0:1:1", NULL, &st);
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "mig_mode_current")));
	json_decref(j);

	const char *env[] = {"CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL};
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "status", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	j = json_loads(r.out, 0, NULL);
	/* neither libcuda nor NVML: the shared driver rules' no-driver, about libcuda */
	json_t *f = finding_object(j, "no-driver");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "libcuda.so.1");
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "No NVIDIA driver"));
	json_decref(j);
	run_result_free(&r);

	/* NVML without libcuda is no-driver too, as in doctor and devices (NVML's count as evidence) */
	const char *nvml_only[] = {"CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", FAKE_NVML, NULL};
	assert_int_equal(testlib_run(argv, nvml_only, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	j = json_loads(r.out, 0, NULL);
	f = finding_object(j, "no-driver");
	assert_non_null(f);
	char *ev = json_dumps(json_object_get(f, "evidence"), 0);
	assert_non_null(strstr(ev, "NVML"));
	free(ev);
	json_decref(j);
	run_result_free(&r);
}

/* MIG slices with their own memory (JSON and text); none; NVML that cannot list them. */
static void mig_slices_with_their_memory(void **state)
{
	int st;
	(void)state;
	json_t *j = status_json(NULL, "FAKE_NVML_MIG_DEVICES=0:1g.10gb:10GiB:1GiB;0:3g.40gb:40GiB", NULL, &st);
	json_t *g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	json_t *migs = json_object_get(g, "mig_devices");
	assert_int_equal(json_array_size(migs), 2);
	json_t *m = json_array_get(migs, 0);
	assert_string_equal(json_string_value(json_object_get(m, "name")), "NVIDIA H100 80GB HBM3 MIG 1g.10gb");
	assert_int_equal(json_integer_value(json_object_get(m, "memory_total_bytes")), 10ll << 30);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_used_bytes")), 1ll << 30);
	assert_int_equal(json_integer_value(json_object_get(m, "memory_free_bytes")), 9ll << 30);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(migs, 1), "memory_total_bytes")), 40ll << 30);
	json_decref(j);

	const char *env[] = {FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA H100 80GB HBM3:9.0:80GiB",
			     "FAKE_NVML_MIG_DEVICES=0:1g.10gb:10GiB:1GiB;0:3g.40gb:40GiB", NULL};
	const char *argv[] = {CUDOCTOR_BINARY, "--color=never", "mem", "status", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "NVIDIA H100 80GB HBM3 MIG 3g.40gb"));
	assert_non_null(strstr(r.out, " 10 GiB "));
	assert_non_null(strstr(r.out, " 1 GiB "));
	run_result_free(&r);

	j = status_json(NULL, "FAKE_NVML_MIG=0:1:1", NULL, &st);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_array(json_object_get(g, "mig_devices")));
	assert_int_equal(json_array_size(json_object_get(g, "mig_devices")), 0);
	json_decref(j);

	const char *env_nomig[] = {FAKE_CUDA, "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/nomig/libnvidia-ml.so.1",
				   "FAKE_GPUS=NVIDIA H100 80GB HBM3:9.0:80GiB", "FAKE_NVML_MIG=0:1:1", NULL};
	const char *argv_json[] = {CUDOCTOR_BINARY, "--json", "mem", "status", NULL};
	assert_int_equal(testlib_run(argv_json, env_nomig, NULL, &r), 0);
	j = json_loads(r.out, 0, NULL);
	assert_non_null(j);
	g = json_array_get(json_object_get(j, "gpus"), 0);
	assert_true(json_is_true(json_object_get(g, "mig_mode_current")));
	assert_true(json_is_null(json_object_get(g, "mig_devices")));
	json_decref(j);
	run_result_free(&r);

	/* MIG off: no slices key */
	j = status_json(NULL, NULL, NULL, &st);
	assert_null(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "mig_devices"));
	json_decref(j);
}

/* explain's classification of the message in a file, or NULL if it has no OOM message mem
 * status reads (PyTorch's, TensorFlow's/XLA's; llama.cpp's log is read by explain alone) */
static const char *explain_oom_class(const char *path, char *buf, size_t cap)
{
	char *text = NULL, err[CD_ERRMSG];
	size_t len = 0;
	struct explain_result res = {0};
	const char *out = NULL;
	assert_int_equal(file_read_text(path, 1 << 20, &text, &len, err), CD_OK);
	assert_int_equal(explain_text(text, len, &res, err), CD_OK);
	for (size_t i = 0; i < res.n && !out; i++)
		if (res.m[i].has_oom && res.m[i].oom.n.form != OOM_FORM_GGML) {
			snprintf(buf, cap, "%s", oom_class_finding(oom_classify(&res.m[i].oom.n)));
			out = buf;
		}
	explain_result_free(&res);
	free(text);
	return out;
}

static void agrees_with_explain_on_real_messages(void **state)
{
	char dir[4200], path[4500], want[64];
	size_t compared = 0, classes = 0;
	bool seen[4] = {false};
	(void)state;
	snprintf(dir, sizeof dir, "%s/tests/explain", CUDOCTOR_SOURCE_DIR);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!str_ends_with(de->d_name, ".txt"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (!explain_oom_class(path, want, sizeof want))
			continue;
		int st;
		/* run together: no other process on the fake GPU */
		json_t *j = status_json(NULL, NULL, path, &st);
		const char *got = json_string_value(json_object_get(json_object_get(j, "oom_message"), "classification"));
		if (!got || strcmp(got, want) != 0)
			fail_msg("%s: explain says %s, mem status says %s", de->d_name, want, got ? got : "(none)");
		if (strcmp(want, "oom-capacity") == 0) seen[0] = true;
		if (strcmp(want, "oom-other-process") == 0) seen[1] = true;
		if (strcmp(want, "oom-fragmentation") == 0) seen[2] = true;
		compared++;
		json_decref(j);
	}
	closedir(d);
	for (int i = 0; i < 3; i++)
		classes += seen[i];
	assert_true(compared >= 5);
	assert_true(classes >= 2);
}

/* A message without process lines, a co-tenant NVML sees: mem status adds it, and the
 * same classifier turns the verdict to oom-other-process. */
static void live_co_tenant_added_to_a_bare_message(void **state)
{
	char path[4300];
	int st;
	(void)state;
	snprintf(path, sizeof path, "%s/oom_bare.txt", CUDOCTOR_BUILD_DIR);
	FILE *f = fopen(path, "w");
	fputs("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
	      "of 79.19 GiB of which 1.05 GiB is free. Of the allocated memory 10.20 GiB is allocated by PyTorch, "
	      "and 120.00 MiB is reserved by PyTorch but unallocated.\n", f);
	fclose(f);
	json_t *j = status_json("0:31337:60GiB", NULL, path, &st);
	json_t *om = json_object_get(j, "oom_message");
	assert_string_equal(json_string_value(json_object_get(om, "classification")), "oom-other-process");
	assert_string_equal(json_string_value(json_object_get(om, "others_from")), "NVML now");
	assert_int_equal(st, 1);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(processes_and_other_process_finding),
		cmocka_unit_test(gpu_facts_as_devices_names_them),
		cmocka_unit_test(old_release_report),
		cmocka_unit_test(own_process_resolves_to_command_line),
		cmocka_unit_test(mig_mode_and_no_driver),
		cmocka_unit_test(mig_slices_with_their_memory),
		cmocka_unit_test(agrees_with_explain_on_real_messages),
		cmocka_unit_test(live_co_tenant_added_to_a_bare_message),
		cmocka_unit_test(quiet_is_a_line_per_gpu_and_the_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
