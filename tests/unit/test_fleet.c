/* The fleet's judgement: host lists, median/MAD, the report reader on real reports of the
 * built cudoctor (run against tests/fakes) and on bad ones, and `cudoctor fleet FILE...`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "fleet/hostlist.h"
#include "fleet/judge.h"
#include "fleet/names.h"
#include "fleet/stats.h"
#include "report/render.h"
#include "rules/catalogue.h"
#include "safe_check.h"
#include "testlib.h"
#include "util/err.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define TWO_H200 "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB"

static char dir[64];

static void hostlist_is(const char *const *names, size_t n, const char *want)
{
	char *got = NULL;
	assert_int_equal(fleet_hostlist(names, n, &got), CD_OK);
	assert_string_equal(got, want);
	free(got);
}

static void test_hostlist(void **state)
{
	const char *a[] = { "node17", "node03", "node04", "node05", "node03", "node09" };
	const char *b[] = { "gpu9", "gpu10", "gpu11", "login", "gpu8" };
	const char *c[] = { "node007" };
	const char *d[] = { "a1b2", "a1b3", "rack2-n01", "rack2-n02", "rack1-n01" };
	(void)state;
	hostlist_is(a, 6, "node[03-05,09,17]");
	/* digit counts stay apart, so node9 never reads as node09 */
	hostlist_is(b, 5, "gpu[8-9],gpu[10-11],login");
	hostlist_is(c, 1, "node007");
	hostlist_is(d, 5, "a1b[2-3],rack1-n01,rack2-n[01-02]");
	hostlist_is(NULL, 0, "");
	assert_true(fleet_name_cmp("node2", "node10") < 0);
}

static void test_spread(void **state)
{
	double v[] = { 10, 11, 9, 10, 50, 10, 11 };
	struct fleet_spread s;
	(void)state;
	assert_int_equal(fleet_spread_of(v, 7, &s), CD_OK);
	assert_true(s.median == 10);
	assert_true(s.mad == 1); /* |x-10|: 0 1 1 0 40 0 1 -> median 1 */
	assert_true(fabs(s.scale - 1.4826) < 1e-9);
	assert_true(fleet_robust_z(&s, 50) > FLEET_OUTLIER_Z);
	assert_true(fabs(fleet_robust_z(&s, 11)) < FLEET_OUTLIER_Z);
	/* identical values: the 1% floor, so a 0.5% wobble is no outlier and a 10% drop is */
	double w[] = { 100, 100, 100, 100 };
	assert_int_equal(fleet_spread_of(w, 4, &s), CD_OK);
	assert_true(fabs(fleet_robust_z(&s, 99.5)) < FLEET_OUTLIER_Z);
	assert_true(fleet_robust_z(&s, 90) < -FLEET_OUTLIER_Z);
}

/* Runs the built cudoctor with the fakes and extra environment; returns stdout (caller frees). */
static char *cudoctor(const char *const argv_tail[], const char *const extra[], int *status)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	const char *env[32];
	size_t n = 0, a = 1;
	struct run_result res;
	char *out;

	for (size_t i = 0; argv_tail[i] && a + 1 < 16; i++)
		argv[a++] = argv_tail[i];
	argv[a] = NULL;
	env[n++] = "CUDOCTOR_LIBCUDA=" FAKE_CUDA;
	env[n++] = "CUDOCTOR_LIBNVML=" FAKE_NVML;
	env[n++] = "CUDA_VISIBLE_DEVICES=";
	env[n++] = "CUDOCTOR_NODE=";
	for (size_t i = 0; extra && extra[i] && n + 1 < 32; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	if (status)
		*status = res.status;
	out = res.out;
	res.out = NULL;
	run_result_free(&res);
	return out;
}

static void save(const char *name, const char *text)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* node01-02 alike, node03 an older driver, node04 ECC errors (devices), node05 one GPU. */
static int setup(void **state)
{
	static const char *const doctor[] = { "--json", "doctor", NULL }, *const devices[] = { "--json", "devices", NULL };
	/* each report records its node (the report header's node: CUDOCTOR_NODE, else the hostname) */
	const char *const same1[] = { TWO_H200, "CUDOCTOR_NODE=node01", NULL };
	const char *const same2[] = { TWO_H200, "CUDOCTOR_NODE=node02", NULL };
	const char *const old[] = { TWO_H200, "FAKE_NVML_DRIVER_VERSION=535.104.05", "FAKE_CUDA_DRIVER_VERSION=12020",
				    "CUDOCTOR_NODE=node03", NULL };
	const char *const ecc[] = { TWO_H200, "FAKE_NVML_ECC=1:0:4:0:4", "CUDOCTOR_NODE=node04", NULL };
	const char *const one[] = { "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "CUDOCTOR_NODE=node05", NULL };
	char *s;
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-fleet-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	save("node01.json", s = cudoctor(doctor, same1, NULL)), free(s);
	save("node02.json", s = cudoctor(doctor, same2, NULL)), free(s);
	save("node03.json", s = cudoctor(doctor, old, NULL)), free(s);
	save("node04.json", s = cudoctor(devices, ecc, NULL)), free(s);
	save("node05.json", s = cudoctor(doctor, one, NULL)), free(s);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static json_t *fleet_json(const char *const files[], int *status)
{
	const char *argv[24] = { "--json", "fleet" };
	char paths[20][256];
	size_t a = 2;
	json_error_t je;
	json_t *j;
	char *out;

	for (size_t i = 0; files[i] && a + 1 < 24; i++) {
		snprintf(paths[i], sizeof paths[i], "%s/%s", dir, files[i]);
		argv[a++] = paths[i];
	}
	argv[a] = NULL;
	out = cudoctor(argv, NULL, status);
	j = json_loads(out, 0, &je);
	if (!j)
		fail_msg("fleet --json is not JSON (%s): %.300s", je.text, out);
	free(out);
	return j;
}

static const json_t *finding(const json_t *j, const char *id, const char *subject)
{
	size_t i;
	const json_t *f;
	json_array_foreach(json_object_get(j, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
		    (!subject || strcmp(json_string_value(json_object_get(f, "subject")), subject) == 0))
			return f;
	return NULL;
}

static const char *summary_of(const json_t *j, const char *fact)
{
	size_t i;
	const json_t *h;
	json_array_foreach(json_object_get(j, "heterogeneity"), i, h)
		if (strcmp(json_string_value(json_object_get(h, "fact")), fact) == 0)
			return json_string_value(json_object_get(h, "summary"));
	return NULL;
}

static bool has_string(const json_t *arr, const char *want)
{
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), want) == 0)
			return true;
	return false;
}

static void test_offline_fleet(void **state)
{
	const char *const files[] = { "node01.json", "node02.json", "node03.json", "node04.json", "node05.json", NULL };
	const json_t *f;
	int status;
	json_t *j = fleet_json(files, &status);
	(void)state;
	assert_int_equal(status, 1); /* node03 and node04 have errors */
	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 5);
	assert_string_equal(json_string_value(json_object_get(j, "node_list")), "node[01-05]");
	assert_string_equal(summary_of(j, "driver"), "535.104.05 on node03; 580.159.04 on the other 4");
	assert_string_equal(summary_of(j, "gpus"), "1x NVIDIA H200 on node05; 2x NVIDIA H200 on the other 4");
	assert_non_null(finding(j, "fleet-heterogeneous", "driver"));
	assert_non_null(f = finding(j, "ecc-errors", "node04"));
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	assert_true(has_string(json_object_get(f, "fix"),
			       "scontrol update nodename='node04' state=drain reason='cudoctor: ecc-errors'"));
	assert_non_null(f = finding(j, "toolkit-newer-than-driver", "node03"));
	assert_true(has_string(json_object_get(j, "slurm"),
			       "scontrol update nodename='node04' state=drain reason='cudoctor: ecc-errors'"));
	assert_null(finding(j, "fleet-report-skipped", NULL));
	json_decref(j);
}

/* A report re-dated (header.date) and saved under name. */
static void save_dated(const char *name, const char *report, const char *date)
{
	json_t *j = json_loads(report, 0, NULL);
	char *text;

	assert_non_null(j);
	assert_int_equal(json_object_set_new(json_object_get(j, "header"), "date", json_string(date)), 0);
	assert_non_null(text = json_dumps(j, 0));
	save(name, text);
	free(text);
	json_decref(j);
}

/* Several reports of one node: the newest of each command is used, an older one is named
 * and left out, and a fact two kept reports state differently is the newer one's; the node
 * is never a mix of a January driver and a February one. */
static void test_same_node_newest(void **state)
{
	static const char *const doctor[] = { "--json", "doctor", NULL }, *const devices[] = { "--json", "devices", NULL };
	const char *const old[] = { TWO_H200, "FAKE_NVML_DRIVER_VERSION=535.104.05", "FAKE_CUDA_DRIVER_VERSION=12020",
				    "CUDOCTOR_NODE=node03", NULL };
	const char *const now[] = { TWO_H200, "CUDOCTOR_NODE=node03", NULL };
	const char *const files[] = { "node01.json", "n3-feb.json", "n3-jan.json", "n3-dev-jan.json", NULL };
	const json_t *f;
	char *s;
	int status;
	json_t *j;
	(void)state;
	save_dated("n3-jan.json", s = cudoctor(doctor, old, NULL), "2026-01-01T00:00:00Z"), free(s);
	save_dated("n3-dev-jan.json", s = cudoctor(devices, old, NULL), "2026-01-15T00:00:00Z"), free(s);
	save_dated("n3-feb.json", s = cudoctor(doctor, now, NULL), "2026-02-01T00:00:00Z"), free(s);
	j = fleet_json(files, &status);
	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 2);
	assert_null(finding(j, "fleet-heterogeneous", "driver"));
	assert_non_null(strstr(summary_of(j, "driver"), "580.159.04"));
	assert_null(strstr(summary_of(j, "driver"), "535"));
	/* January's doctor finding about its old driver is gone with its report */
	assert_null(finding(j, "toolkit-newer-than-driver", "node03"));
	assert_non_null(f = finding(j, "fleet-report-skipped", NULL));
	s = json_dumps(f, 0);
	assert_non_null(strstr(s, "node03's doctor report of 2026-01-01T00:00:00Z"));
	assert_non_null(strstr(s, "superseded by its newer doctor report (2026-02-01T00:00:00Z)"));
	free(s);
	json_decref(j);
}

/* Bad inputs are named and skipped, the rest still judged. */
static void test_bad_reports(void **state)
{
	const char *const files[] = { "node01.json", "cut.json", "other.json", "newer.json", "arch.json",
				      "badfind.json", "missing.json", "empty.json", NULL };
	const json_t *f, *e;
	size_t i;
	int status, seen = 0;
	char *good, *cut;
	json_t *j;
	FILE *fp;
	char path[256];
	(void)state;
	snprintf(path, sizeof path, "%s/node01.json", dir);
	assert_non_null(fp = fopen(path, "r"));
	good = calloc(1, 1 << 20);
	assert_true(fread(good, 1, (1 << 20) - 1, fp) > 100);
	fclose(fp);
	cut = strdup(good);
	cut[strlen(cut) / 2] = '\0';
	save("cut.json", cut);
	/* nvidia-smi's own JSON-ish output is not ours */
	save("other.json", "{\"driver_version\": \"580.159.04\", \"gpus\": []}\n");
	char *newer = strdup(good), *at = strstr(newer, "\"version\": \"");
	assert_non_null(at);
	memcpy(at + 12, "9", 1);
	save("newer.json", newer);
	save("arch.json", "{\"tool\": \"cudoctor\", \"version\": \"0.1.0\", \"command\": \"arch\", \"findings\": []}");
	save("empty.json", "");
	save("badfind.json", "{\"tool\": \"cudoctor\", \"version\": \"0.1.0\", \"command\": \"doctor\", \"findings\": [{\"id\": \"x\", \"severity\": \"fatal\"}]}");
	j = fleet_json(files, &status);
	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 1);
	assert_non_null(f = finding(j, "fleet-report-skipped", NULL));
	json_array_foreach(json_object_get(j, "skipped"), i, e) {
		const char *src = json_string_value(json_object_get(e, "source")), *why = json_string_value(json_object_get(e, "reason"));
		if (strstr(src, "cut.json"))
			assert_non_null(strstr(why, "truncated JSON")), seen++;
		else if (strstr(src, "other.json"))
			assert_non_null(strstr(why, "not a cudoctor report")), seen++;
		else if (strstr(src, "newer.json"))
			assert_non_null(strstr(why, "newer major version")), seen++;
		else if (strstr(src, "arch.json"))
			assert_non_null(strstr(why, "'arch' report")), seen++;
		else if (strstr(src, "badfind.json"))
			assert_non_null(strstr(why, "severity 'fatal'")), seen++;
		else if (strstr(src, "missing.json")) /* the file is the source; the reason names it no more */
			assert_string_equal(why, "No such file or directory"), seen++;
		else if (strstr(src, "empty.json")) /* jansson called it "wrong arguments" */
			assert_string_equal(why, "an empty file, not a report"), seen++;
	}
	assert_int_equal(seen, 7);
	json_decref(j);
	free(good);
	free(cut);
	free(newer);
}

/* A rank's bundle: the node named inside wins over the fallback; its failure is judged. */
static void test_bundle_and_outliers(void **state)
{
	struct fleet f;
	struct report r;
	struct fleet_judge_opts o = { 6, 3 };
	char err[CD_ERRMSG], buf[1024];
	json_t *j;
	(void)state;
	fleet_init(&f);
	for (int i = 1; i <= 6; i++) {
		double bw = i == 4 ? 310.0 : 530.0 + i;
		snprintf(buf, sizeof buf,
			 "{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"fleet-node\",\"node\":\"gpu%02d\","
			 "\"failure\":%s,\"reports\":[{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"lab\","
			 "\"findings\":[],\"fleet_gpu\":0,\"labs\":[{\"name\":\"bandwidth\",\"verdict\":\"confirmed\","
			 "\"measurements\":[{\"label\":\"device copy\",\"value\":%g,\"unit\":\"GB/s\"}]}]}]}",
			 i, i == 2 ? "\"devices: out of memory\"" : "null", bw);
		assert_int_equal(fleet_read_report(&f, (const unsigned char *)buf, strlen(buf), "fallback", err), CD_OK);
	}
	assert_int_equal(f.n_nodes, 6);
	assert_string_equal(f.nodes[0].name, "gpu01");
	assert_int_equal(fleet_missing(&f, "gpu07"), CD_OK);
	assert_int_equal(report_init(&r, "fleet"), CD_OK);
	assert_int_equal(fleet_judge(&f, &o, &r), CD_OK);
	assert_non_null(report_find(&r, "fleet-node-missing"));
	assert_string_equal(report_find(&r, "fleet-node-missing")->subject, "gpu07");
	assert_string_equal(report_find(&r, "fleet-node-failed")->subject, "gpu02");
	assert_non_null(report_find(&r, "fleet-outlier"));
	assert_string_equal(report_find(&r, "fleet-outlier")->subject, "gpu04");
	assert_non_null(strstr(report_find(&r, "fleet-outlier")->evidence[0], "gpu04 GPU 0: 310 GB/s"));
	assert_non_null(strstr(report_find(&r, "fleet-outlier")->evidence[0], "below the median"));
	assert_non_null(j = report_to_json(&r));
	assert_int_equal(json_array_size(json_object_get(j, "outliers")), 1);
	json_decref(j);
	report_free(&r);
	/* a nested bundle and a name that is no host name are refused */
	snprintf(buf, sizeof buf, "{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"doctor\",\"node\":\"a b\",\"findings\":[]}");
	assert_int_equal(fleet_read_report(&f, (const unsigned char *)buf, strlen(buf), "x", err), CD_EFORMAT);
	assert_non_null(strstr(err, "not a host name"));
	fleet_free(&f);
}

static void test_names(void **state)
{
	char label63[70], label64[70], id65[70], long253[260], long254[260];
	(void)state;
	memset(label63, 'a', 63), label63[63] = 0;
	memset(label64, 'a', 64), label64[64] = 0;
	memset(id65, 'a', FLEET_ID_MAX + 1), id65[FLEET_ID_MAX + 1] = 0;
	for (size_t i = 0; i < 254; i++)
		long253[i] = long254[i] = i % 2 ? '.' : 'n';
	long253[253] = long254[254] = 0;
	long254[253] = 'n';
	assert_true(fleet_node_name_ok("node01"));
	assert_true(fleet_node_name_ok("gpu-17.rack3.example.org"));
	assert_true(fleet_node_name_ok("3com")); /* RFC 1123: a label may start with a digit */
	assert_true(fleet_node_name_ok(label63));
	assert_true(fleet_node_name_ok(long253));
	assert_false(fleet_node_name_ok(label64));
	assert_false(fleet_node_name_ok(long254));
	assert_false(fleet_node_name_ok(""));
	assert_false(fleet_node_name_ok("n$(touch PWNED)"));
	assert_false(fleet_node_name_ok("n`id`"));
	assert_false(fleet_node_name_ok("a;reboot"));
	assert_false(fleet_node_name_ok("n'x"));
	assert_false(fleet_node_name_ok("node_01"));
	assert_false(fleet_node_name_ok("-n"));
	assert_false(fleet_node_name_ok("n-"));
	assert_false(fleet_node_name_ok("a..b"));
	assert_false(fleet_node_name_ok(".a"));
	assert_false(fleet_node_name_ok("a."));
	assert_false(fleet_node_name_ok("n\x1b[2J"));
	assert_false(fleet_node_name_ok("../../etc/x"));
	assert_true(fleet_finding_id_ok("ecc-errors"));
	assert_true(fleet_finding_id_ok("sm-89-needs-cuda-11-8"));
	assert_false(fleet_finding_id_ok(""));
	assert_false(fleet_finding_id_ok("ECC"));
	assert_false(fleet_finding_id_ok("wsl-libcuda/copy"));
	assert_false(fleet_finding_id_ok("x\"; rm -rf ~; echo \""));
	assert_true(fleet_finding_id_ok(label64));
	assert_false(fleet_finding_id_ok(id65));
}

/* lines (one per '\n') run by sh in a scratch directory with a scontrol and an srun on PATH
 * that write each argument on its own line to args.log; returns that log. */
static char *run_in_sandbox(const char *lines)
{
	char scratch[128], path[256], cmd[512];
	static const char fake[] = "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> \"$LOG\"\n";
	struct run_result res;
	FILE *f;
	char *log = calloc(1, 1 << 16);

	snprintf(scratch, sizeof scratch, "%s/sandbox", dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/bin", scratch, scratch);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/bin/%s", scratch, i ? "srun" : "scontrol");
		assert_non_null(f = fopen(path, "w"));
		fputs(fake, f);
		fclose(f);
		assert_int_equal(chmod(path, 0755), 0);
	}
	snprintf(path, sizeof path, "%s/lines.sh", scratch);
	assert_non_null(f = fopen(path, "w"));
	fputs(lines, f);
	fclose(f);
	{
		/* sh -n first: every line parses as one command */
		const char *check[] = { "/bin/sh", "-n", path, NULL };
		assert_int_equal(testlib_run(check, NULL, NULL, &res), 0);
		assert_int_equal(res.status, 0);
		run_result_free(&res);
	}
	snprintf(cmd, sizeof cmd, "cd %s && PATH=%s/bin:/usr/bin:/bin LOG=%s/args.log sh lines.sh", scratch, scratch, scratch);
	{
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
		assert_int_equal(res.status, 0);
		run_result_free(&res);
	}
	snprintf(path, sizeof path, "%s/PWNED", scratch);
	assert_int_not_equal(access(path, F_OK), 0); /* nothing injected ran */
	snprintf(path, sizeof path, "%s/args.log", scratch);
	assert_non_null(f = fopen(path, "r"));
	assert_true(fread(log, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return log;
}

/* What the drain and srun lines interpolate is single-quoted: words a report or a rank could
 * hold reach scontrol as one argument each, and nothing in them runs. */
static void test_drain_lines_quoted(void **state)
{
	char *a = fleet_drain_line("n$(touch PWNED)", "x\"; touch PWNED; echo \""), *b = fleet_drain_line("n`touch PWNED`", "it's; touch PWNED");
	char lines[1024], *log;
	struct finding_vars v;
	struct report r;
	struct finding *fd;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(b, "scontrol update nodename='n`touch PWNED`' state=drain reason='cudoctor: it'\\''s; touch PWNED'");
	assert_int_equal(report_init(&r, "fleet"), CD_OK);
	/* the srun line of a catalogue row, its node list filled from a report */
	finding_vars_init(&v);
	finding_var(&v, "nodes", "%s", "n[1-2];touch PWNED");
	assert_non_null(fd = finding_make(&r, SEV_CATALOGUE, "fleet-node-missing", "", &v));
	snprintf(lines, sizeof lines, "%s\n%s\n%s\n", a, b, fd->fix[0]);
	log = run_in_sandbox(lines);
	assert_string_equal(log, "update\nnodename=n$(touch PWNED)\nstate=drain\nreason=cudoctor: x\"; touch PWNED; echo \"\n"
				 "update\nnodename=n`touch PWNED`\nstate=drain\nreason=cudoctor: it's; touch PWNED\n"
				 "-w\nn[1-2];touch PWNED\ncudoctor\ndoctor\n");
	free(log);
	report_free(&r);
	free(a);
	free(b);
}

/* node01's report with json changed by edit, saved as name */
static void save_edited(const char *name, void (*edit)(json_t *))
{
	char path[256];
	json_t *j;
	char *text;
	snprintf(path, sizeof path, "%s/node01.json", dir);
	assert_non_null(j = json_load_file(path, 0, NULL));
	edit(j);
	assert_non_null(text = json_dumps(j, 0));
	save(name, text);
	free(text);
	json_decref(j);
}

static void node_injected(json_t *j)
{
	json_object_set_new(json_object_get(j, "header"), "node", json_string("n$(touch PWNED)"));
}

static void id_injected(json_t *j)
{
	json_object_set_new(json_object_get(j, "header"), "node", json_string("node21"));
	json_array_append_new(json_object_get(j, "findings"),
			      json_pack("{s:s, s:s, s:s, s:[]}", "id", "x\"; touch PWNED; echo \"", "severity", "error",
					"title", "t", "fix"));
}

/* Valid names and ids, every other text hostile: escape sequences, a C1 control, a bidi
 * override, a fix line that is a command of its own. */
static void text_hostile(json_t *j)
{
	json_object_set_new(json_object_get(j, "header"), "node", json_string("node22"));
	json_object_set_new(json_object_get(j, "driver"), "version", json_string("580\x1b[2J.1"));
	json_array_append_new(json_object_get(j, "findings"),
			      json_pack("{s:s, s:s, s:s, s:[s, s]}", "id", "ecc-errors", "severity", "error", "title",
					"bad \x1b[31mtitle\xc2\x9b\xe2\x80\xae", "fix", "rm -rf / # \x1b]0;x\x07",
					"'; touch PWNED; '"));
}

/* Reports with shell in their node name or finding id are refused, naming the file and the
 * field, and the others are still judged; hostile text in the rest is shown safely; the lines
 * printed to run (text, Markdown, JSON) run nothing injected; a node's own fix lines are
 * relayed as what that node says. */
static void test_hostile_reports(void **state)
{
	const char *files[] = { "node01.json", "evil-node.json", "evil-id.json", "node22.json", NULL };
	char paths[4][256], lines[8192] = "", *log;
	const json_t *e, *f;
	size_t i, n = 0;
	int status;
	json_t *j;
	(void)state;
	save_edited("evil-node.json", node_injected);
	save_edited("evil-id.json", id_injected);
	save_edited("node22.json", text_hostile);
	j = fleet_json(files, &status);
	assert_int_equal(status, 1);
	assert_true(json_strings_safe(j));
	assert_string_equal(json_string_value(json_object_get(j, "node_list")), "node[01,22]");
	json_array_foreach(json_object_get(j, "skipped"), i, e) {
		const char *src = json_string_value(json_object_get(e, "source")), *why = json_string_value(json_object_get(e, "reason"));
		if (strstr(src, "evil-node.json"))
			assert_string_equal(why, "node name 'n$(touch PWNED)' (header.node) is not a host name (RFC 1123: "
						 "letters, digits, '-', '.')"), n++;
		if (strstr(src, "evil-id.json"))
			assert_non_null(strstr(why, "].id 'x\"; touch PWNED; echo \"' is not a finding id")), n++;
	}
	assert_int_equal(n, 2);
	assert_non_null(f = finding(j, "ecc-errors", "node22"));
	assert_string_equal(json_string_value(json_object_get(f, "title")),
			    "bad \\x1b[31mtitle\\u009b\\u202e (1 of 2 nodes)");
	assert_true(has_string(json_object_get(f, "fix"), "node node22 says: rm -rf / # \\x1b]0;x\\x07"));
	assert_true(has_string(json_object_get(f, "fix"), "node node22 says: '; touch PWNED; '"));
	assert_string_equal(summary_of(j, "driver"), "580.159.04 on node01; 580\\x1b[2J.1 on node22");
	/* every line meant to be run, from the JSON's slurm array and every finding's fix */
	json_array_foreach(json_object_get(j, "slurm"), i, e)
		strcat(strcat(lines, json_string_value(e)), "\n");
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		size_t k;
		json_array_foreach(json_object_get(f, "fix"), k, e)
			if (strncmp(json_string_value(e), "scontrol ", 9) == 0 || strncmp(json_string_value(e), "srun ", 5) == 0)
				strcat(strcat(lines, json_string_value(e)), "\n");
	}
	json_decref(j);
	/* and the text and Markdown renderings: safe to print, their lines the JSON's */
	for (int md = 0; md < 2; md++) {
		const char *argv[8] = { md ? "--markdown" : "fleet", md ? "fleet" : paths[0] };
		size_t a = md ? 2 : 1;
		char *out, *p;
		for (size_t k = 0; files[k]; k++) {
			snprintf(paths[k], sizeof paths[k], "%s/%s", dir, files[k]);
			argv[a++] = paths[k];
		}
		argv[a] = NULL;
		out = cudoctor(argv, NULL, &status);
		assert_int_equal(status, 1);
		assert_true(safe_printed(out));
		for (p = strstr(out, "scontrol update"); p; p = strstr(p + 1, "scontrol update")) {
			size_t len = strcspn(p, "`\n");
			if (strncmp(p, "scontrol update nodename=NODE", 29) == 0)
				continue; /* the resume line's placeholder */
			char one[512];
			snprintf(one, sizeof one, "%.*s\n", (int)len, p);
			assert_non_null(strstr(lines, one));
		}
		assert_non_null(strstr(out, "node node22 says: '; touch PWNED; '"));
		free(out);
	}
	log = run_in_sandbox(lines);
	assert_non_null(strstr(log, "update\nnodename=node22\nstate=drain\nreason=cudoctor: ecc-errors\n"));
	free(log);
}

/* The value a fix converges on is one a node has: three nodes that see no GPU are told to
 * find out why, not the one healthy node to drop its GPUs; among present values the
 * most common wins, and a node whose report does not state a fact is told nothing. */
static const struct finding *hetero(const struct report *r, const char *subject)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].id, "fleet-heterogeneous") == 0 && strcmp(r->findings[i].subject, subject) == 0)
			return &r->findings[i];
	return NULL;
}

static void test_broken_majority(void **state)
{
	static const char *const gpus[] = { "8x NVIDIA H200", "none", "none", "none", "8x NVIDIA H200" };
	static const char *const torch[] = { "2.5.1 (CUDA 12.4)", "none", "2.4.0 (CUDA 12.1)", "none", NULL };
	struct fleet f;
	struct report r;
	struct fleet_judge_opts o = { -1, 0 };
	const struct finding *fd;
	char name[16];
	(void)state;
	fleet_init(&f);
	for (int i = 0; i < 5; i++) {
		struct fleet_node *n;
		snprintf(name, sizeof name, "n%d", i + 1);
		assert_non_null(n = fleet_node_get(&f, name));
		assert_int_equal(fleet_node_fact(n, FF_GPUS, gpus[i]), CD_OK);
		if (torch[i])
			assert_int_equal(fleet_node_fact(n, FF_TORCH, torch[i]), CD_OK);
	}
	assert_int_equal(report_init(&r, "fleet"), CD_OK);
	assert_int_equal(fleet_judge(&f, &o, &r), CD_OK);
	assert_non_null(fd = hetero(&r, fleet_fact_label(FF_GPUS)));
	assert_int_equal(fd->n_fix, 1);
	assert_null(strstr(fd->fix[0], "bring"));
	assert_non_null(strstr(fd->fix[0], "n[2-4]"));
	assert_non_null(fd = hetero(&r, fleet_fact_label(FF_TORCH)));
	assert_int_equal(fd->n_fix, 2);
	/* a tie between two present values: one of them is the target, never "none" */
	assert_non_null(strstr(fd->fix[0], "bring n"));
	assert_null(strstr(fd->fix[0], "to none"));
	assert_null(strstr(fd->fix[0], "n5"));
	assert_non_null(strstr(fd->fix[1], "n[2,4]"));
	report_free(&r);
	fleet_free(&f);
}

/* 10,000 nodes judged in well under a second: the grouping is sort-based. */
static void test_many_nodes(void **state)
{
	struct fleet f;
	struct report r;
	struct fleet_judge_opts o = { -1, 0 };
	char name[32];
	(void)state;
	fleet_init(&f);
	for (int i = 0; i < 10000; i++) {
		struct fleet_node *n;
		snprintf(name, sizeof name, "n%05d", i);
		assert_non_null(n = fleet_node_get(&f, name));
		assert_int_equal(fleet_node_fact(n, FF_DRIVER, i % 97 ? "580.159.04" : "535.104.05"), CD_OK);
		if (i % 500 == 0)
			assert_int_equal(fleet_node_finding(n, "ecc-errors", SEV_ERROR, "ECC", "nvidia-smi -q"), CD_OK);
		assert_int_equal(fleet_node_sample(n, "bandwidth: copy", "GB/s", 0, i == 77 ? 100.0 : 500.0 + i % 7), CD_OK);
	}
	assert_true(fleet_node_get(&f, "n00042") == &f.nodes[42]);
	assert_int_equal(report_init(&r, "fleet"), CD_OK);
	assert_int_equal(fleet_judge(&f, &o, &r), CD_OK);
	assert_string_equal(report_find(&r, "ecc-errors")->subject, "n[00000,00500,01000,01500,02000,02500,03000,03500,04000,04500,05000,05500,06000,06500,07000,07500,08000,08500,09000,09500]");
	assert_string_equal(report_find(&r, "fleet-outlier")->subject, "n00077");
	report_free(&r);
	fleet_free(&f);
}

/* A node's `check --json` report (the fakes give its header and deployment findings) with
 * load rows of two H200s added: bench/results/h200_2026-12-02b.md's memory test (3988 GB/s)
 * and GEMM stress (bf16 8192^3, 679.0 TFLOP/s median), bench/results/final_h200.txt's pinned
 * copies (54.8 / 55.2 GB/s), each GPU off by `jitter` percent as repeated runs differ, and the
 * GEMM rate of GPU slow_gpu (-1: none) at 60%, what a GPU whose SM clock a hardware slowdown
 * holds down shows. */
static void save_check(const char *node, double jitter, int slow_gpu, bool memory_errors)
{
	static const char *const check[] = { "--json", "check", "--no-load", NULL };
	char env_node[64], name[96];
	const char *const env[] = { TWO_H200, env_node, NULL };
	json_t *j, *load, *rows;
	char *out, *text;

	snprintf(env_node, sizeof env_node, "CUDOCTOR_NODE=%s", node);
	out = cudoctor(check, env, NULL);
	assert_non_null(j = json_loads(out, 0, NULL));
	free(out);
	assert_non_null(rows = json_array());
	for (int g = 0; g < 2; g++) {
		double k = 1 + jitter / 100 * (g ? -1 : 1);
		json_t *row = json_pack("{s:i, s:I, s:i, s:f, s:s, s:i, s:f, s:i, s:f, s:f}", "gpu_index", g, "bytes",
					(json_int_t)141 << 30, "errors", memory_errors && g == 0 ? 3 : 0,
					"bandwidth_bytes_per_s", 3988e9 * k, "gemm_dtype", "bf16", "gemm_n", 8192,
					"gemm_flops", 679.0e12 * k * (g == slow_gpu ? 0.6 : 1), "gemm_mismatches", 0,
					"copy_h2d_bytes_per_s", 54.8e9 * k, "copy_d2h_bytes_per_s", 55.2e9 * k);
		assert_non_null(row);
		assert_int_equal(json_array_append_new(rows, row), 0);
	}
	assert_non_null(load = json_pack("{s:f, s:s, s:o, s:b}", "budget_s", 300.0, "state", "run", "gpus", rows,
					 "xids_checked", 1));
	assert_int_equal(json_object_set_new(j, "load", load), 0);
	if (memory_errors)
		assert_int_equal(json_array_append_new(json_object_get(j, "findings"),
						       json_pack("{s:s, s:s, s:s, s:s, s:[s], s:s, s:[s]}", "id",
								 "load-memory-errors", "severity", "error", "subject",
								 "GPU 0 (NVIDIA H200)", "title",
								 "3 of 18911262720 memory words read back wrong", "evidence",
								 "offset 0x800", "why", "-", "fix", "drain the node")),
				 0);
	assert_non_null(text = json_dumps(j, 0));
	snprintf(name, sizeof name, "%s.check.json", node);
	save(name, text);
	free(text);
	json_decref(j);
}

/* check reports of six nodes: the GEMM rate of node04's GPU 1 at 60% of its peers' is a slow
 * GPU (fleet-check-slow, an error naming node and GPU, with its drain line, also in the Slurm
 * lines); node05's memory errors drain it under load-memory-errors with the GPU named; the
 * others' jitter of up to 0.4% is nothing */
static void test_check_reports(void **state)
{
	const char *const files[] = { "node01.check.json", "node02.check.json", "node03.check.json",
				      "node04.check.json", "node05.check.json", "node06.check.json", NULL };
	const json_t *f, *row;
	int status;
	size_t i;
	bool seen = false;
	json_t *j;

	(void)state;
	save_check("node01", 0.1, -1, false);
	save_check("node02", 0.4, -1, false);
	save_check("node03", 0.0, -1, false);
	save_check("node04", 0.2, 1, false);
	save_check("node05", 0.3, -1, true);
	save_check("node06", 0.2, -1, false);
	j = fleet_json(files, &status);
	assert_int_equal(status, 1);
	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 6);
	assert_non_null(f = finding(j, "fleet-check-slow", "node04"));
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "GEMM bf16 8192^3: 1 of 12 GPUs far below"));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "evidence"), 0)),
			       "node04 GPU 1: 406.6 TFLOP/s, 40.1% below the median"));
	assert_true(has_string(json_object_get(f, "fix"),
			       "scontrol update nodename='node04' state=drain reason='cudoctor: fleet-check-slow'"));
	assert_true(has_string(json_object_get(j, "slurm"),
			       "scontrol update nodename='node04' state=drain reason='cudoctor: fleet-check-slow'"));
	assert_non_null(f = finding(j, "load-memory-errors", "node05"));
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "GPU 0 (NVIDIA H200): 3 of"));
	assert_true(has_string(json_object_get(j, "slurm"),
			       "scontrol update nodename='node05' state=drain reason='cudoctor: load-memory-errors'"));
	/* no other check number is off: the memory test, the copies */
	assert_null(finding(j, "fleet-outlier", NULL));
	json_array_foreach(json_object_get(j, "outliers"), i, row) {
		assert_string_equal(json_string_value(json_object_get(row, "metric")), "check: GEMM bf16 8192^3");
		assert_string_equal(json_string_value(json_object_get(row, "node")), "node04");
		assert_int_equal(json_integer_value(json_object_get(row, "gpu")), 1);
		seen = true;
	}
	assert_true(seen);
	json_decref(j);
}

/* A venv whose torch carries no code for the node's GPU, as doctor reads it on node: old
 * torch 2.5.1+cu124's libtorch_cuda.so (PyPI's wheel, fetched once into the test cache) on an
 * RTX 5090. False when the wheel cannot be fetched (no network: said on stderr). */
static bool save_old_torch_report(const char *node)
{
	const char *home = getenv("HOME");
	char cache[512], venv[512], site[700], e_venv[600], e_node[64], file[64], cmd[8192];
	static const char *const doctor[] = { "--json", "doctor", NULL };
	struct run_result res;
	char *s;

	snprintf(cache, sizeof cache, "%s/.cache/cudoctor-test/torch-2.5.1", home && *home ? home : "/tmp");
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/fetch_member.py", "torch",
			       "2.5.1", "cp311-cp311-manylinux1_x86_64", cache, "torch/version.py",
			       "torch/lib/libtorch_cuda.so", NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status != 0) {
		fprintf(stderr, "note: torch 2.5.1 not fetched (exit %d): %s", res.status, res.err);
		assert_int_equal(res.status, 77);
		run_result_free(&res);
		return false;
	}
	run_result_free(&res);
	snprintf(venv, sizeof venv, "%s/venv-%s", dir, node);
	snprintf(site, sizeof site, "%s/lib/python3.11/site-packages", venv);
	snprintf(cmd, sizeof cmd,
		 "mkdir -p '%s/torch/lib' '%s/torch-2.5.1.dist-info' && echo 'home = /usr/bin' > '%s/pyvenv.cfg' && "
		 "cp '%s/version.py' '%s/torch/' && echo 'Name: torch' > '%s/torch-2.5.1.dist-info/METADATA' && "
		 "ln -sf '%s/libtorch_cuda.so' '%s/torch/lib/libtorch_cuda.so'",
		 site, site, venv, cache, site, site, cache, site);
	assert_int_equal(system(cmd), 0);
	snprintf(e_venv, sizeof e_venv, "VIRTUAL_ENV=%s", venv);
	snprintf(e_node, sizeof e_node, "CUDOCTOR_NODE=%s", node);
	const char *const env[] = { "FAKE_GPUS=NVIDIA GeForce RTX 5090:12.0:32GiB", "FAKE_NVML_DRIVER_VERSION=580.95.05",
				    "FAKE_CUDA_DRIVER_VERSION=13000", "PATH=/nonexistent", "CUDA_HOME=", "CUDA_PATH=",
				    "CUDACXX=", "LD_LIBRARY_PATH=", "CONDA_PREFIX=", e_venv, e_node, NULL };
	snprintf(file, sizeof file, "%s.json", node);
	save(file, s = cudoctor(doctor, env, NULL));
	free(s);
	return true;
}

/* Why: "fleet would drain healthy nodes for a Python environment". Two nodes whose only error
 * is their venv's torch (framework-cannot-run) are listed as environment and never drained;
 * the node with ECC errors still is. */
static void test_fleet_would_drain_healthy_nodes_for_a_python_environment(void **state)
{
	const char *const files[] = { "torch01.json", "torch02.json", "node04.json", NULL };
	const json_t *f, *e;
	char *slurm;
	size_t i;
	int status;
	json_t *j;
	(void)state;
	if (!save_old_torch_report("torch01") || !save_old_torch_report("torch02"))
		skip();
	j = fleet_json(files, &status);
	assert_non_null(f = finding(j, "framework-cannot-run", "torch[01-02]"));
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	json_array_foreach(json_object_get(f, "fix"), i, e)
		assert_null(strstr(json_string_value(e), "scontrol"));
	assert_non_null(strstr(json_string_value(json_object_get(f, "why")), "never by draining the node"));
	slurm = json_dumps(json_object_get(j, "slurm"), 0);
	assert_string_equal(slurm, "[\"scontrol update nodename='node04' state=drain reason='cudoctor: ecc-errors'\"]");
	free(slurm);
	assert_int_equal(json_array_size(json_object_get(j, "environment")), 1);
	e = json_array_get(json_object_get(j, "environment"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "nodes")), "torch[01-02]");
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "ids"), 0)), "framework-cannot-run");
	assert_int_equal(json_array_size(json_object_get(e, "ids")), 1);
	/* each node's findings carry their scope */
	json_array_foreach(json_object_get(j, "nodes"), i, e) {
		const json_t *x;
		size_t k, seen = 0;
		json_array_foreach(json_object_get(e, "findings"), k, x) {
			const char *id = json_string_value(json_object_get(x, "id"));
			const char *scope = json_string_value(json_object_get(x, "scope"));
			if (strcmp(id, "framework-cannot-run") == 0)
				assert_string_equal(scope, "environment"), seen++;
			else if (strcmp(id, "ecc-errors") == 0)
				assert_string_equal(scope, "node"), seen++;
		}
		assert_int_equal(seen, 1);
	}
	json_decref(j);
	/* the text: no drain line names them; the environment section does */
	{
		const char *argv[] = { "fleet", NULL, NULL, NULL, NULL };
		char paths[3][256];
		char *out;
		for (size_t k = 0; k < 3; k++) {
			snprintf(paths[k], sizeof paths[k], "%s/%s", dir, files[k]);
			argv[k + 1] = paths[k];
		}
		out = cudoctor(argv, NULL, &status);
		assert_null(strstr(out, "nodename='torch"));
		assert_non_null(strstr(out, "Environment (not the node's health: never drained)\n  torch[01-02]: framework-cannot-run\n"));
		free(out);
	}
}

/* Every input skipped: no node read is no healthy fleet; the run says so and exits 3. */
static void test_nothing_read_is_not_clean(void **state)
{
	const char *const files[] = { "other2.json", "empty2.json", NULL };
	int status;
	json_t *j;

	(void)state;
	save("other2.json", "{\"driver_version\": \"580.159.04\", \"gpus\": []}\n");
	save("empty2.json", "");
	j = fleet_json(files, &status);
	assert_int_equal(json_integer_value(json_object_get(j, "node_count")), 0);
	assert_int_equal(status, 3);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_offline_fleet),
		cmocka_unit_test(test_bad_reports),
		cmocka_unit_test(test_nothing_read_is_not_clean),
		cmocka_unit_test(test_same_node_newest),
		cmocka_unit_test(test_bundle_and_outliers),
		cmocka_unit_test(test_many_nodes),
		cmocka_unit_test(test_broken_majority),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_drain_lines_quoted),
		cmocka_unit_test(test_hostile_reports),
		cmocka_unit_test(test_check_reports),
		cmocka_unit_test(test_fleet_would_drain_healthy_nodes_for_a_python_environment),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
