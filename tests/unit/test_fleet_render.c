/* Rank 0's NCCL sections of `cudoctor fleet --nccl` and `--nccl=pairs` (cmd/fleet/nccl_render.c,
 * pairs_render.c) on made-up results of 4 ranks on 2 nodes: the text, the JSON keys of
 * docs/json.md and the findings, with no MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/fleet/fleet.h"
#include "fleet/fleet.h"
#include "fleet/pairs.h"
#include "report/render.h"
#include "report/report.h"

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

/* The text's body, from its first section to the findings. */
static char *body(const struct report *r)
{
	char *s = render(r, FMT_TEXT), *end = strstr(s, "\nFindings\n");

	if (end)
		end[1] = '\0';
	return s;
}

static void dump(const char *name, const struct report *r)
{
	const char *dir = getenv("FLEET_RENDER_DUMP");
	char path[512], *t, *j;
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	t = render(r, FMT_TEXT);
	j = render(r, FMT_JSON);
	fprintf(f, "%s\n----\n%s\n", t, j);
	free(t);
	free(j);
	fclose(f);
}

static const char *const nodes[4] = { "node01", "node01", "node02", "node02" };

static void test_allreduce(void **state)
{
	struct fleet_nccl_rank ranks[4];
	struct fleet_nccl_result res = { .ranks = ranks, .n_ranks = 4 };
	struct report r;
	json_t *root, *o;
	char *s;

	(void)state;
	memset(ranks, 0, sizeof ranks);
	res.plan = (struct fleet_nccl_plan){ .go = 1, .nranks = 4, .n_sizes = 2, .bytes = { 1 << 20, 256 << 20 } };
	for (int i = 0; i < 4; i++) {
		snprintf(ranks[i].node, sizeof ranks[i].node, "%s", nodes[i]);
		snprintf(ranks[i].nccl, sizeof ranks[i].nccl, "2.21.5");
		ranks[i].device = i % 2;
		ranks[i].seconds[0] = 1e-4 * (i + 1);
		ranks[i].seconds[1] = 0.01 * (i == 2 ? 3 : 1);
	}
	ranks[3].wrong = 1;
	assert_int_equal(report_init(&r, "fleet"), 0);
	assert_int_equal(fleet_nccl_render(&r, &res), 0);
	dump("allreduce", &r);
	s = body(&r);
	assert_string_equal(s, "NCCL all-reduce across 4 ranks (float, sum)\n"
			       "     1 MiB  algbw     2.62 GB/s  busbw     3.93 GB/s  slowest rank 3 (node02)\n"
			       "   256 MiB  algbw     8.95 GB/s  busbw    13.42 GB/s  slowest rank 2 (node02)\n"
			       "  rank 0 (node01, GPU 0): verified\n"
			       "  rank 1 (node01, GPU 1): verified\n"
			       "  rank 2 (node02, GPU 0): verified\n"
			       "  rank 3 (node02, GPU 1): wrong result\n"
			       "\n");
	free(s);
	assert_true(report_has_finding(&r, "fleet-nccl-failed"));
	s = render(&r, FMT_JSON);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	o = json_object_get(root, "nccl");
	assert_int_equal(json_integer_value(json_object_get(o, "nranks")), 4);
	assert_true(json_is_true(json_object_get(o, "ran")));
	assert_null(json_object_get(o, "why"));
	assert_int_equal(json_array_size(json_object_get(o, "sizes")), 2);
	o = json_array_get(json_object_get(o, "sizes"), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "bytes")), 256 << 20);
	assert_true(json_is_real(json_object_get(o, "seconds")));
	assert_int_equal(json_integer_value(json_object_get(o, "slowest_rank")), 2);
	o = json_array_get(json_object_get(json_object_get(root, "nccl"), "ranks"), 3);
	assert_string_equal(json_string_value(json_object_get(o, "node")), "node02");
	assert_int_equal(json_integer_value(json_object_get(o, "device")), 1);
	assert_string_equal(json_string_value(json_object_get(o, "nccl")), "2.21.5");
	assert_string_equal(json_string_value(json_object_get(o, "error")), "");
	assert_int_equal(json_integer_value(json_object_get(o, "wrong_sizes")), 1);
	assert_int_equal(json_array_size(json_object_get(o, "seconds")), 2);
	json_decref(root);
	free(s);
	report_free(&r);

	res.plan.go = 0;
	snprintf(res.plan.why, sizeof res.plan.why, "rank 2 (node02): no libnccl.so.2");
	assert_int_equal(report_init(&r, "fleet"), 0);
	assert_int_equal(fleet_nccl_render(&r, &res), 0);
	dump("allreduce-not-run", &r);
	s = body(&r);
	assert_string_equal(s, "NCCL all-reduce across 4 ranks (float, sum)\n"
			       "  not run: rank 2 (node02): no libnccl.so.2\n"
			       "\n");
	free(s);
	s = render(&r, FMT_JSON);
	root = json_loads(s, 0, NULL);
	o = json_object_get(root, "nccl");
	assert_true(json_is_false(json_object_get(o, "ran")));
	assert_string_equal(json_string_value(json_object_get(o, "why")), "rank 2 (node02): no libnccl.so.2");
	assert_int_equal(json_array_size(json_object_get(o, "sizes")), 0);
	assert_int_equal(json_array_size(json_object_get(o, "ranks")), 0);
	json_decref(root);
	free(s);
	report_free(&r);
}

/* 10 ranks on 5 nodes, every round: rank 7 slow in every pair, the pair of rank 0 in round 1
 * failed; 45 pairs, more than the text's 30 rows. */
#define NR 10
static void test_pairs(void **state)
{
	struct fleet_nccl_rank ranks[NR];
	struct fleet_pairs_rec recs[(NR - 1) * NR];
	struct fleet_pairs_result res = { .ranks = ranks, .recs = recs, .rounds_done = NR - 1 };
	struct report r;
	json_t *root, *o, *p;
	char *s;

	(void)state;
	memset(ranks, 0, sizeof ranks);
	memset(recs, 0, sizeof recs);
	res.plan = (struct fleet_pairs_plan){ .go = 1, .nranks = NR, .rounds = NR - 1, .bytes = 64 << 20 };
	for (int i = 0; i < NR; i++)
		snprintf(ranks[i].node, sizeof ranks[i].node, "node%02d", i / 2 + 1);
	for (int k = 0; k < NR - 1; k++)
		for (int a = 0; a < NR; a++) {
			struct fleet_pairs_rec *x = &recs[k * NR + a];
			x->partner = fleet_pairs_partner(NR, k, a);
			x->seconds = a == 7 || x->partner == 7 ? 0.02 : 0.005 + 0.0001 * ((a + x->partner + k) % 4);
		}
	snprintf(recs[0].error, sizeof recs[0].error, "ncclAllReduce: unhandled system error (2)");
	assert_int_equal(report_init(&r, "fleet"), 0);
	assert_int_equal(fleet_pairs_render(&r, &res), 0);
	dump("pairs", &r);
	s = render(&r, FMT_JSON);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	o = json_object_get(root, "nccl_pairs");
	assert_int_equal(json_integer_value(json_object_get(o, "nranks")), NR);
	assert_true(json_is_true(json_object_get(o, "ran")));
	assert_true(json_is_null(json_object_get(o, "why")));
	assert_true(json_is_null(json_object_get(o, "stopped")));
	assert_int_equal(json_integer_value(json_object_get(o, "bytes")), 64 << 20);
	assert_int_equal(json_integer_value(json_object_get(o, "rounds_done")), NR - 1);
	p = json_object_get(json_object_get(o, "classes"), "intra-node");
	assert_int_equal(json_integer_value(json_object_get(p, "pairs")), 5);
	assert_true(json_is_boolean(json_object_get(p, "judged")));
	assert_true(json_is_real(json_object_get(p, "median_busbw_gbs")));
	assert_true(json_is_real(json_object_get(p, "mad_gbs")));
	assert_int_equal(json_array_size(json_object_get(o, "pairs")), 45);
	p = json_array_get(json_object_get(o, "pairs"), 0); /* the failed pair first */
	assert_true(json_is_null(json_object_get(p, "busbw_gbs")));
	assert_true(json_is_null(json_object_get(p, "percent_of_median")));
	assert_true(json_is_null(json_object_get(p, "robust_z")));
	assert_false(json_is_true(json_object_get(p, "slow")));
	assert_non_null(strstr(json_string_value(json_object_get(p, "error")), "unhandled system error"));
	p = json_array_get(json_object_get(o, "pairs"), 1);
	assert_true(json_is_real(json_object_get(p, "busbw_gbs")));
	assert_true(json_is_real(json_object_get(p, "seconds")));
	assert_string_equal(json_string_value(json_object_get(p, "error")), "");
	p = json_array_get(json_object_get(o, "slow_nodes"), 0);
	assert_int_equal(json_array_size(json_object_get(o, "slow_nodes")), 1);
	assert_string_equal(json_string_value(json_object_get(p, "node")), "node04");
	assert_int_equal(json_integer_value(json_object_get(p, "pairs")), 17);
	assert_int_equal(json_integer_value(json_object_get(p, "slow_pairs")), 9);
	assert_true(json_is_real(json_object_get(p, "percent_of_median")));
	assert_string_equal(json_string_value(json_object_get(p, "class")), "inter-node");
	json_decref(root);
	free(s);
	assert_true(report_has_finding(&r, "fleet-nccl-failed"));
	assert_true(report_has_finding(&r, "fleet-nccl-slow-node"));
	s = body(&r);
	assert_non_null(strstr(s, "NCCL pairs across 10 ranks: 9 of 9 rounds, a 64 MiB all-reduce per pair (float, sum)\n"
				  "  intra-node pairs: 5, median busbw 13.2 GB/s, MAD 0.253\n"
				  "  inter-node pairs: 39, median busbw 12.9 GB/s, MAD 0.253\n"
				  "  slow node node04: 9 of 17 pairs at 26% of the median inter-node busbw\n"
				  "  round  pair                     class       busbw      of median  robust z  verdict\n"
				  "  1      0 (node01) - 9 (node05)  inter-node  -          -          -         failed\n"
				  "  1      2 (node02) - 7 (node04)  inter-node  3.36 GB/s  26%        -25.5     slow\n"));
	assert_non_null(strstr(s, "  1      4 (node03) - 5 (node03)  intra-node  13.2 GB/s  100%       +0.0      ok\n"
				  "  3      2 (node02) - 9 (node05)  inter-node  13.2 GB/s  102%       +0.7      ok\n"
				  "  4      0 (node01) - 6 (node04)  inter-node  13.2 GB/s  102%       +0.7      ok\n"
				  "  4      1 (node01) - 5 (node03)  inter-node  13.2 GB/s  102%       +0.7      ok\n"
				  "  and 15 more pairs (--json lists them)\n\n"));
	{
		size_t rows = 0;
		for (const char *q = s; (q = strstr(q, " GB/s  ")) != NULL; q++)
			rows++;
		assert_int_equal(rows, 29); /* 30 rows, one of them failed */
	}
	free(s);
	report_free(&r);

	res.plan.go = 0;
	snprintf(res.plan.why, sizeof res.plan.why, "one rank");
	assert_int_equal(report_init(&r, "fleet"), 0);
	assert_int_equal(fleet_pairs_render(&r, &res), 0);
	dump("pairs-not-run", &r);
	s = body(&r);
	assert_string_equal(s, "NCCL pairs across 10 ranks\n"
			       "  not run: one rank\n"
			       "\n");
	free(s);
	report_free(&r);
}

/* One node's bundle as a rank sends it (collect.c): doctor's, devices' and a lab's report on
 * the fake driver, the lab's with the GPU it ran on. */
static void test_collect_node(void **state)
{
	static struct cd_run run; /* a fresh run context, as main.c's */
	struct cd_globals g;
	struct fleet_opts o;
	char err[CD_ERRMSG] = "", *json = NULL;
	json_t *root, *reps;

	(void)state;
	memset(&g, 0, sizeof g);
	memset(&o, 0, sizeof o);
	g.run = &run;
	o.labs[o.n_labs++] = "hello";
	setenv("CUDOCTOR_LIBCUDA", CUDOCTOR_FAKES_DIR "/libcuda.so.1", 1);
	setenv("CUDOCTOR_LIBNVML", CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", 1);
	setenv("CUDOCTOR_HOST_ROOT", "/nonexistent", 1);
	setenv("FAKE_GPUS", "NVIDIA H200:9.0:141GiB", 1);
	assert_int_equal(fleet_collect_node("node07", &o, &g, &json, err), CD_OK);
	root = json_loads(json, 0, NULL);
	assert_non_null(root);
	assert_string_equal(json_string_value(json_object_get(root, "tool")), "cudoctor");
	assert_non_null(json_string_value(json_object_get(root, "version")));
	assert_string_equal(json_string_value(json_object_get(root, "command")), "fleet-node");
	assert_string_equal(json_string_value(json_object_get(root, "node")), "node07");
	assert_true(json_is_null(json_object_get(root, "failure")));
	reps = json_object_get(root, "reports");
	assert_int_equal(json_array_size(reps), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(reps, 0), "command")), "doctor");
	assert_null(json_object_get(json_array_get(reps, 0), "fleet_gpu"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(reps, 1), "command")), "devices");
	assert_string_equal(json_string_value(json_object_get(json_array_get(reps, 2), "command")), "lab");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(reps, 2), "fleet_gpu")), 0);
	assert_true(json_is_array(json_object_get(json_array_get(reps, 1), "gpus")));
	json_decref(root);
	free(json);
	cd_run_close(&run);
}

static char *slurp(const char *path)
{
	static char text[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* --prometheus DIR: a node's file from a rank's bundle (a failure, a finding, a lab's
 * measurements, one with a quote in its label), and a node expected that sent nothing. */
static void test_prometheus_files(void **state)
{
	static const char bundle[] =
		"{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"fleet-node\",\"node\":\"gpu02\","
		"\"failure\":\"devices: out of memory\",\"reports\":[{\"tool\":\"cudoctor\",\"version\":\"0.1.0\","
		"\"command\":\"lab\",\"findings\":[{\"id\":\"lab-refuted\",\"severity\":\"warn\",\"title\":\"x\"}],"
		"\"fleet_gpu\":0,\"labs\":[{\"name\":\"bandwidth\",\"verdict\":\"confirmed\",\"measurements\":["
		"{\"label\":\"device \\\"copy\\\"\",\"value\":530.25,\"unit\":\"GB/s\"},"
		"{\"label\":\"n\",\"value\":2048,\"unit\":\"\"}]}]}]}";
	struct fleet f;
	char dir[64], path[128], err[CD_ERRMSG];

	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-fleet-prom-%d", (int)getpid());
	fleet_init(&f);
	assert_int_equal(fleet_read_report(&f, (const unsigned char *)bundle, strlen(bundle), "x", err), CD_OK);
	assert_int_equal(fleet_missing(&f, "gpu09"), CD_OK);
	assert_int_equal(fleet_write_prometheus(&f, dir, NULL, err), CD_OK);
	snprintf(path, sizeof path, "%s/gpu02.prom", dir);
	assert_string_equal(slurp(path),
		"# HELP cudoctor_node_reported 1 when the node's report reached the fleet\n"
		"# TYPE cudoctor_node_reported gauge\n"
		"cudoctor_node_reported{node=\"gpu02\"} 1\n"
		"# HELP cudoctor_node_collect_failed 1 when the node could not collect its report\n"
		"# TYPE cudoctor_node_collect_failed gauge\n"
		"cudoctor_node_collect_failed{node=\"gpu02\"} 1\n"
		"# HELP cudoctor_node_info the node's stack, as labels\n"
		"# TYPE cudoctor_node_info gauge\n"
		"cudoctor_node_info{node=\"gpu02\",driver=\"\",driver_cuda=\"\",gpus=\"\",toolkit=\"\",cuda_runtime=\"\","
		"pytorch=\"\",nccl=\"\",mig_mode=\"\",persistence_mode=\"\",ecc_mode=\"\"} 1\n"
		"# HELP cudoctor_finding one finding of the node's report\n"
		"# TYPE cudoctor_finding gauge\n"
		"cudoctor_finding{node=\"gpu02\",id=\"lab-refuted\",severity=\"warn\"} 1\n"
		"# HELP cudoctor_findings findings of the node's report by severity\n"
		"# TYPE cudoctor_findings gauge\n"
		"cudoctor_findings{node=\"gpu02\",severity=\"info\"} 0\n"
		"cudoctor_findings{node=\"gpu02\",severity=\"warn\"} 1\n"
		"cudoctor_findings{node=\"gpu02\",severity=\"error\"} 0\n"
		"# HELP cudoctor_lab_measurement a lab's measurement on one GPU of the node\n"
		"# TYPE cudoctor_lab_measurement gauge\n"
		"cudoctor_lab_measurement{node=\"gpu02\",gpu=\"0\",measurement=\"bandwidth: device \\\"copy\\\"\","
		"unit=\"GB/s\"} 530.25\n"
		"cudoctor_lab_measurement{node=\"gpu02\",gpu=\"0\",measurement=\"bandwidth: n\",unit=\"\"} 2048\n");
	unlink(path);
	snprintf(path, sizeof path, "%s/gpu09.prom", dir);
	assert_string_equal(slurp(path), "# HELP cudoctor_node_reported 1 when the node's report reached the fleet\n"
					 "# TYPE cudoctor_node_reported gauge\n"
					 "cudoctor_node_reported{node=\"gpu09\"} 0\n");
	unlink(path);
	rmdir(dir);
	fleet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_collect_node),
		cmocka_unit_test(test_prometheus_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
