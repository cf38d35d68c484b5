/* `cudoctor topo` end to end through the fake drivers: NVSwitch, NVLink-pair and PCIe-only
 * layouts of 1 to 8 GPUs, each topo finding (p2p-unsupported, nvlink-down, numa-affinity,
 * pcie-link-degraded), NICs and NUMA placement from a fake sysfs tree, the JSON contract. */
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
#include <unistd.h>

#include "testlib.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define H200 "NVIDIA H200:9.0:141GiB"
#define A100 "NVIDIA A100-SXM4-80GB:8.0:80GiB"

/* `cudoctor [--json] topo` with the fakes; e[] are extra NAME=value settings (up to 6). */
static struct run_result topo(bool json, const char *gpus, const char *layout, const char *const *e)
{
	const char *argv_json[] = { CUDOCTOR_BINARY, "--json", "topo", NULL };
	const char *argv_text[] = { CUDOCTOR_BINARY, "--color=never", "topo", NULL };
	char g[1024], l[64];
	const char *env[16] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "FAKE_TOPO_NVLINKS=", "FAKE_TOPO_NVLINK_DOWN=",
				"FAKE_P2P_DENY=", "CUDOCTOR_HOST_ROOT=/nonexistent", "FAKE_NVML_PCIE=", g, l };
	size_t n = 10;
	struct run_result r;

	snprintf(g, sizeof g, "FAKE_GPUS=%s", gpus);
	snprintf(l, sizeof l, "FAKE_TOPO=%s", layout);
	for (size_t i = 0; e && e[i] && n < 15; i++)
		env[n++] = e[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(json ? argv_json : argv_text, env, NULL, &r), 0);
	return r;
}

static json_t *parse(const struct run_result *r)
{
	json_error_t e;
	json_t *j = json_loads(r->out, 0, &e);

	if (!j)
		fail_msg("not JSON (%s): %s / %s", e.text, r->out, r->err);
	return j;
}

static int count_findings(json_t *j, const char *id, const char *severity)
{
	size_t i;
	json_t *f;
	int n = 0;

	json_array_foreach(json_object_get(j, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 &&
		    (!severity || strcmp(json_string_value(json_object_get(f, "severity")), severity) == 0))
			n++;
	return n;
}

static const json_t *finding(json_t *j, const char *id)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(j, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
			return f;
	return NULL;
}

static bool finding_mentions(const json_t *f, const char *text)
{
	char *dump = json_dumps(f, 0);
	bool yes = dump && strstr(dump, text);

	free(dump);
	return yes;
}

static json_t *pair(json_t *j, int a, int b)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(json_object_get(j, "topology"), "pairs"), i, p)
		if (json_integer_value(json_object_get(p, "a")) == a && json_integer_value(json_object_get(p, "b")) == b)
			return p;
	fail_msg("no pair %d -> %d", a, b);
	return NULL;
}

static const char *pstr(json_t *p, const char *key)
{
	return json_string_value(json_object_get(p, key));
}

static double theory_gbs(json_t *p)
{
	return json_real_value(json_object_get(json_object_get(p, "theory"), "gbs_per_direction"));
}

static char *repeat(const char *gpu, int n)
{
	static char buf[1024];

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ";" : "", gpu);
	return buf;
}

/* `cudoctor -q topo` with the fakes, as topo() sets them up */
static struct run_result topo_quiet(const char *gpus, const char *layout, const char *extra)
{
	const char *argv[] = { CUDOCTOR_BINARY, "-q", "topo", NULL };
	char g[1024], l[64];
	const char *env[] = { LIBCUDA, LIBNVML, "CUDA_VISIBLE_DEVICES=", "FAKE_TOPO_NVLINKS=", "FAKE_TOPO_NVLINK_DOWN=",
			      "FAKE_P2P_DENY=", "CUDOCTOR_HOST_ROOT=/nonexistent", "FAKE_NVML_PCIE=", g, l, extra, NULL };
	struct run_result r;

	snprintf(g, sizeof g, "FAKE_GPUS=%s", gpus);
	snprintf(l, sizeof l, "FAKE_TOPO=%s", layout);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

/* -q: a line per pair (link, what it should carry, P2P) on stdout, the warn and error findings on stderr;
 * one GPU says there is nothing to judge rather than printing nothing */
static void test_quiet_is_the_pairs_and_the_findings(void **state)
{
	struct run_result one = topo_quiet(H200, "pcie", NULL);
	struct run_result four = topo_quiet(repeat(A100, 4), "nvlink-pairs", "FAKE_TOPO_NVLINK_DOWN=2:0");

	(void)state;
	assert_int_equal(one.status, 0);
	assert_string_equal(one.out, "1 GPU: no links to judge\n");
	assert_int_equal(four.status, 0);
	assert_string_equal(four.out,
			    "GPU0 - GPU1: NV12, NVLink 3: 12 links x 25 GB/s = 300 GB/s per direction, P2P yes\n"
			    "GPU0 - GPU2: NODE, PCIe Gen4 x16: 31.5 GB/s per direction, P2P yes\n"
			    "GPU0 - GPU3: NODE, PCIe Gen4 x16: 31.5 GB/s per direction, P2P yes\n"
			    "GPU1 - GPU2: NODE, PCIe Gen4 x16: 31.5 GB/s per direction, P2P yes\n"
			    "GPU1 - GPU3: NODE, PCIe Gen4 x16: 31.5 GB/s per direction, P2P yes\n"
			    "GPU2 - GPU3: NV11, NVLink 3: 11 links x 25 GB/s = 275 GB/s per direction, P2P yes\n");
	/* the finding on stderr, a line */
	assert_string_equal(four.err, "warn nvlink-down: 11 of 12 NVLinks active [GPU 2 (NVIDIA A100-SXM4-80GB)]\n");
	run_result_free(&one);
	run_result_free(&four);
}

static void test_one_gpu_no_pair(void **state)
{
	struct run_result r = topo(false, H200, "pcie", NULL);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "no pair: 1 GPU"));
	assert_non_null(strstr(r.out, "GPU0  X"));
	run_result_free(&r);
	r = topo(true, H200, "nvswitch", NULL);
	json_t *j = parse(&r);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "topology"), "pairs")), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "topology"), "gpus")), 1);
	/* alone on the switch: links up, nothing to judge */
	assert_int_equal(count_findings(j, "nvlink-down", NULL), 0);
	assert_int_equal(count_findings(j, "p2p-unsupported", NULL), 0);
	json_decref(j);
	run_result_free(&r);
}

static void test_nvswitch_eight(void **state)
{
	struct run_result r = topo(true, repeat(H200, 8), "nvswitch", NULL);
	json_t *j = parse(&r);

	(void)state;
	assert_int_equal(r.status, 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "topology"), "pairs")), 56);
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++) {
			if (a == b)
				continue;
			json_t *p = pair(j, a, b);
			assert_string_equal(pstr(p, "link"), "NV18");
			assert_true(json_is_true(json_object_get(p, "via_nvswitch")));
			/* NVLink 4: 18 x 25 GB/s per direction */
			assert_true(theory_gbs(p) == 450.0);
			assert_true(json_is_true(json_object_get(json_object_get(p, "cuda"), "can_access_peer")));
			assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "cuda"), "native_atomic_supported")), 1);
			assert_string_equal(pstr(json_object_get(p, "nvml_p2p"), "nvlink"), "OK");
		}
	assert_int_equal(count_findings(j, "p2p-unsupported", NULL) + count_findings(j, "nvlink-down", NULL), 0);
	json_t *g0 = json_array_get(json_object_get(json_object_get(j, "topology"), "gpus"), 0);
	assert_int_equal(json_integer_value(json_object_get(g0, "nvlinks_to_nvswitch")), 18);
	assert_string_equal(pstr(json_array_get(json_object_get(g0, "nvlinks"), 0), "remote_type"), "nvswitch");
	/* GPUs 4-7 sit on the second NUMA node: CPUs 32-63 */
	assert_string_equal(pstr(json_array_get(json_object_get(json_object_get(j, "topology"), "gpus"), 5), "cpu_affinity"),
			    "32-63");
	json_decref(j);
	run_result_free(&r);
}

static void test_nvlink_pairs(void **state)
{
	struct run_result r = topo(true, repeat(A100, 4), "nvlink-pairs", NULL);
	json_t *j = parse(&r);

	(void)state;
	json_t *p01 = pair(j, 0, 1), *p02 = pair(j, 0, 2), *p23 = pair(j, 2, 3);
	assert_string_equal(pstr(p01, "link"), "NV12");
	assert_false(json_is_true(json_object_get(p01, "via_nvswitch")));
	assert_true(theory_gbs(p01) == 300.0);
	assert_string_equal(pstr(p23, "link"), "NV12");
	/* no NVLink between the pairs: the PCIe path and the PCIe Gen4 x16 theory */
	assert_string_equal(pstr(p02, "link"), "NODE");
	assert_string_equal(pstr(json_object_get(p02, "theory"), "kind"), "pcie");
	assert_true(theory_gbs(p02) > 31.4 && theory_gbs(p02) < 31.6);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p02, "cuda"), "native_atomic_supported")), 0);
	assert_int_equal(count_findings(j, "p2p-unsupported", NULL) + count_findings(j, "nvlink-down", NULL), 0);
	json_decref(j);
	run_result_free(&r);
	r = topo(false, repeat(A100, 4), "nvlink-pairs", NULL);
	assert_non_null(strstr(r.out, "GPU0  X     NV12  NODE  NODE"));
	run_result_free(&r);
}

static void test_pcie_sys_pair_unsupported(void **state)
{
	struct run_result r = topo(true, repeat(H200, 5), "pcie", NULL);
	json_t *j = parse(&r);

	(void)state;
	assert_string_equal(pstr(pair(j, 0, 1), "link"), "PXB");
	assert_string_equal(pstr(pair(j, 0, 4), "link"), "SYS");
	assert_false(json_is_true(json_object_get(json_object_get(pair(j, 0, 4), "cuda"), "can_access_peer")));
	/* GPU4 cannot reach GPUs 0-3 across the CPU interconnect: info, with NVML's reason */
	assert_int_equal(count_findings(j, "p2p-unsupported", "info"), 4);
	assert_int_equal(count_findings(j, "p2p-unsupported", "warn"), 0);
	assert_true(finding_mentions(finding(j, "p2p-unsupported"), "IOH topology not supported"));
	/* NVML's reason is in the title itself, filled from the catalogue row */
	assert_non_null(strstr(json_string_value(json_object_get(finding(j, "p2p-unsupported"), "title")),
			       ": IOH topology not supported"));
	json_decref(j);
	run_result_free(&r);
}

static void test_p2p_disabled_on_nvlink(void **state)
{
	const char *e[] = { "FAKE_P2P_DENY=0-1:4", NULL };
	struct run_result r = topo(true, repeat(H200, 2), "nvswitch", e);
	json_t *j = parse(&r);

	(void)state;
	assert_int_equal(count_findings(j, "p2p-unsupported", "warn"), 1);
	assert_true(finding_mentions(finding(j, "p2p-unsupported"), "disabled by registry key"));
	assert_true(finding_mentions(finding(j, "p2p-unsupported"), "cuDeviceCanAccessPeer 0"));
	assert_string_equal(pstr(json_object_get(pair(j, 1, 0), "nvml_p2p"), "read"), "disabled by registry key");
	assert_int_equal(r.status, 0);
	json_decref(j);
	run_result_free(&r);
}

static void test_nvlink_down(void **state)
{
	const char *one_down[] = { "FAKE_TOPO_NVLINK_DOWN=1:3", NULL };
	const char *twelve[] = { "FAKE_TOPO_NVLINKS=12", NULL };
	const char *rtx_down[] = { "FAKE_TOPO_NVLINK_DOWN=0:2", NULL };
	struct run_result r = topo(true, repeat(H200, 2), "nvswitch", one_down);
	json_t *j = parse(&r);

	(void)state;
	assert_int_equal(count_findings(j, "nvlink-down", "warn"), 1);
	assert_true(finding_mentions(finding(j, "nvlink-down"), "17 of 18 NVLinks active"));
	assert_true(finding_mentions(finding(j, "nvlink-down"), "inactive: 3"));
	assert_true(finding_mentions(finding(j, "nvlink-down"), "GPU 1"));
	assert_string_equal(pstr(pair(j, 0, 1), "link"), "NV17");
	json_decref(j);
	run_result_free(&r);

	/* every link up, but fewer than an H200 has */
	r = topo(true, repeat(H200, 2), "nvswitch", twelve);
	j = parse(&r);
	assert_int_equal(count_findings(j, "nvlink-down", "warn"), 2);
	assert_true(finding_mentions(finding(j, "nvlink-down"), "12 of 18 NVLinks active"));
	json_decref(j);
	run_result_free(&r);

	/* one GPU of a baseboard given alone (every link down): nothing to judge against */
	const char *all_down[] = { "FAKE_TOPO_NVLINK_DOWN=0:0;0:1;0:2;0:3;0:4;0:5;0:6;0:7;0:8;0:9;0:10;0:11;0:12;0:13;0:14;0:15;0:16;0:17", NULL };
	r = topo(true, H200, "nvswitch", all_down);
	j = parse(&r);
	assert_int_equal(count_findings(j, "nvlink-down", NULL), 0);
	json_decref(j);
	run_result_free(&r);
	/* the same with two GPUs: the second one's fabric shows the first is cut off */
	r = topo(true, repeat(H200, 2), "nvswitch", all_down);
	j = parse(&r);
	assert_int_equal(count_findings(j, "nvlink-down", NULL), 1);
	assert_true(finding_mentions(finding(j, "nvlink-down"), "0 of 18 NVLinks active"));
	json_decref(j);
	run_result_free(&r);

	/* a bridged GeForce pair: the model is not in the table, only an inactive link counts */
	r = topo(true, repeat("NVIDIA GeForce RTX 3090:8.6:24GiB", 2), "nvlink-pairs", NULL);
	j = parse(&r);
	assert_int_equal(count_findings(j, "nvlink-down", NULL), 0);
	assert_true(theory_gbs(pair(j, 0, 1)) == 4 * 14.0625);
	json_decref(j);
	run_result_free(&r);
	r = topo(true, repeat("NVIDIA GeForce RTX 3090:8.6:24GiB", 2), "nvlink-pairs", rtx_down);
	j = parse(&r);
	assert_int_equal(count_findings(j, "nvlink-down", NULL), 1);
	assert_true(finding_mentions(finding(j, "nvlink-down"), "3 of 4 NVLinks active"));
	json_decref(j);
	run_result_free(&r);
}

static void test_pcie_link_degraded(void **state)
{
	/* GPU 1 trained x8 of x16; the GPU is idle, so only the width counts */
	const char *e[] = { "FAKE_NVML_PCIE=1:5:8:5:16", NULL };
	struct run_result r = topo(true, repeat(H200, 2), "pcie", e);
	json_t *j = parse(&r);

	(void)state;
	assert_int_equal(count_findings(j, "pcie-link-degraded", "warn"), 1);
	assert_true(finding_mentions(finding(j, "pcie-link-degraded"), "GPU 1"));
	json_decref(j);
	run_result_free(&r);
}

/* ---- a fake sysfs tree: one PCIe switch with GPU0 and an InfiniBand NIC, on NUMA node 1 ---- */

static char hostroot[256], sysroot[300]; /* a host laid out in a directory, and its /sys */

static void put(const char *rel, const char *text)
{
	char path[512], dir[1100];

	snprintf(path, sizeof path, "%s/%s", sysroot, rel);
	snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(dir), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *rel, const char *target)
{
	char path[512], cmd[2400];

	snprintf(path, sizeof path, "%s/%s", sysroot, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\" && ln -sfn '%s/%s' '%s'", path, sysroot, target, path);
	assert_int_equal(system(cmd), 0);
}

static void make_sysfs(const char *gpu_cpus)
{
	const char *sw = "devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	char rel[512];

	snprintf(hostroot, sizeof hostroot, "/tmp/cudoctor-topo-%d", (int)getpid());
	snprintf(sysroot, sizeof sysroot, "%s/sys", hostroot);
	snprintf(rel, sizeof rel, "rm -rf '%s'", hostroot);
	assert_int_equal(system(rel), 0);
	snprintf(rel, sizeof rel, "%s/0000:02:00.0/0000:18:00.0/numa_node", sw);
	put(rel, "1\n");
	snprintf(rel, sizeof rel, "%s/0000:02:00.0/0000:18:00.0/local_cpulist", sw);
	put(rel, gpu_cpus);
	snprintf(rel, sizeof rel, "%s/0000:02:01.0/0000:19:00.0/numa_node", sw);
	put(rel, "1\n");
	snprintf(rel, sizeof rel, "%s/0000:02:00.0/0000:18:00.0", sw);
	link_to("bus/pci/devices/0000:18:00.0", rel);
	snprintf(rel, sizeof rel, "%s/0000:02:01.0/0000:19:00.0", sw);
	link_to("class/infiniband/mlx5_0/device", rel);
	link_to("class/net/ib0/device", rel);   /* the same port as a net interface: listed once */
	put("devices/system/node/node0/cpulist", "0-3999\n");
	put("devices/system/node/node1/cpulist", "4000-4095\n");
}

static void drop_sysfs(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", hostroot);
	assert_int_equal(system(cmd), 0);
}

static void test_numa_affinity_and_nics(void **state)
{
	char root[300];
	const char *e[] = { root, NULL };
	struct run_result r;
	json_t *j;

	(void)state;
	/* no machine runs this process on CPUs 4000-4095: a GPU local to them is on another node */
	make_sysfs("4000-4095\n");
	snprintf(root, sizeof root, "CUDOCTOR_HOST_ROOT=%s", hostroot);
	r = topo(true, H200, "pcie", e);
	j = parse(&r);
	assert_int_equal(count_findings(j, "numa-affinity", "warn"), 1);
	assert_true(finding_mentions(finding(j, "numa-affinity"), "numactl --cpunodebind=1 --membind=1"));
	assert_true(finding_mentions(finding(j, "numa-affinity"), "(NUMA node 0)"));
	json_t *t = json_object_get(j, "topology");
	json_t *g0 = json_array_get(json_object_get(t, "gpus"), 0);
	assert_int_equal(json_integer_value(json_object_get(g0, "numa_node")), 1);
	assert_string_equal(pstr(g0, "local_cpus"), "4000-4095");
	assert_int_equal(json_array_size(json_object_get(t, "nics")), 1);
	json_t *nic = json_array_get(json_object_get(t, "nics"), 0);
	assert_string_equal(pstr(nic, "name"), "mlx5_0");
	assert_string_equal(pstr(nic, "pci_bus_id"), "0000:19:00.0");
	assert_string_equal(json_string_value(json_array_get(json_object_get(nic, "gpus"), 0)), "PIX");
	json_decref(j);
	run_result_free(&r);
	r = topo(false, H200, "pcie", e);
	assert_non_null(strstr(r.out, "NIC0: mlx5_0 (0000:19:00.0)"));
	assert_non_null(strstr(r.out, "GPU0  X     PIX"));
	run_result_free(&r);
	drop_sysfs();

	/* NVML's memory affinity is the node nvidia-smi shows; it wins over sysfs (which says -1
	 * on one-node machines and many VMs) */
	make_sysfs("4000-4095\n");
	const char *e2[] = { root, "FAKE_NVML_NUMA=0", NULL };
	r = topo(true, H200, "pcie", e2);
	j = parse(&r);
	g0 = json_array_get(json_object_get(json_object_get(j, "topology"), "gpus"), 0);
	assert_int_equal(json_integer_value(json_object_get(g0, "numa_node")), 0);
	json_decref(j);
	run_result_free(&r);
	drop_sysfs();

	/* a GPU whose CPUs include this process's: no finding */
	make_sysfs("0-4095\n");
	r = topo(true, H200, "pcie", e);
	j = parse(&r);
	assert_int_equal(count_findings(j, "numa-affinity", NULL), 0);
	json_decref(j);
	run_result_free(&r);
	drop_sysfs();
}

static void test_nvml_topology_unsupported(void **state)
{
	const char *e[] = { "FAKE_NVML_NOT_SUPPORTED=topology", NULL };
	struct run_result r = topo(true, repeat(H200, 2), "nvswitch", e);
	json_t *j = parse(&r);

	(void)state;
	assert_int_equal(r.status, 0);
	json_t *p = pair(j, 0, 1);
	assert_true(json_is_null(json_object_get(p, "pcie_path")));
	assert_true(json_is_null(json_object_get(json_object_get(p, "nvml_p2p"), "read")));
	/* CUDA still answers */
	assert_true(json_is_true(json_object_get(json_object_get(p, "cuda"), "can_access_peer")));
	json_decref(j);
	run_result_free(&r);
}

static void test_usage_and_no_driver(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "topo", "extra", NULL };
	const char *env[] = { LIBCUDA, LIBNVML, NULL };
	const char *none[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL };
	const char *argv_json[] = { CUDOCTOR_BINARY, "--json", "topo", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "topo takes no arguments (got 'extra')"));
	run_result_free(&r);
	assert_int_equal(testlib_run(argv_json, none, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	json_t *j = parse(&r);
	assert_int_equal(count_findings(j, "no-driver", "error"), 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "topology"), "gpus")), 0);
	json_decref(j);
	run_result_free(&r);
}

/* Every key of the topology object is named in docs/json.md. */
static void check_keys(json_t *o, const char *doc)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		char quoted[128];
		snprintf(quoted, sizeof quoted, "`%s`", k);
		if (!strstr(doc, quoted))
			fail_msg("topology key %s is not documented in docs/json.md", k);
		if (json_is_object(v))
			check_keys(v, doc);
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			check_keys(json_array_get(v, 0), doc);
	}
}

static void test_json_keys_documented(void **state)
{
	const char *e[] = { "FAKE_TOPO_NVLINK_DOWN=0:1", NULL };
	struct run_result r = topo(true, repeat(H200, 2), "nvlink-pairs", e);
	json_t *j = parse(&r);
	FILE *f = fopen(CUDOCTOR_SOURCE_DIR "/docs/json.md", "r");
	static char doc[1 << 20];
	size_t n;

	(void)state;
	assert_non_null(f);
	n = fread(doc, 1, sizeof doc - 1, f);
	doc[n] = '\0';
	fclose(f);
	assert_non_null(strstr(doc, "## topo"));
	check_keys(json_object_get(j, "topology"), strstr(doc, "## topo"));
	json_decref(j);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_gpu_no_pair),
		cmocka_unit_test(test_nvswitch_eight),
		cmocka_unit_test(test_nvlink_pairs),
		cmocka_unit_test(test_pcie_sys_pair_unsupported),
		cmocka_unit_test(test_p2p_disabled_on_nvlink),
		cmocka_unit_test(test_nvlink_down),
		cmocka_unit_test(test_pcie_link_degraded),
		cmocka_unit_test(test_numa_affinity_and_nics),
		cmocka_unit_test(test_nvml_topology_unsupported),
		cmocka_unit_test(test_usage_and_no_driver),
		cmocka_unit_test(test_json_keys_documented),
		cmocka_unit_test(test_quiet_is_the_pairs_and_the_findings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
