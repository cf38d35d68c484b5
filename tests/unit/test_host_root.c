/* One variable roots every host file cudoctor reads: a whole host laid out in a directory
 * (os-release, the kernel module's /proc file, sysfs with a GPU's NUMA node and local CPUs,
 * /dev nodes) and named by $CUDOCTOR_HOST_ROOT is what doctor and topo report, with the fake
 * driver libraries answering for the GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static char root[128], root_env[160];

static void put(const char *rel, const char *text)
{
	char path[512], cmd[700];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void link_to(const char *rel, const char *target)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\" && ln -sfn '%s/%s' '%s/%s'", root, rel, root, target,
		 root, rel);
	assert_int_equal(system(cmd), 0);
}

/* A host with one H200 at 0000:18:00.0 behind a PCIe switch on NUMA node 1, the open kernel
 * module 575.57.08 (not what the fake NVML says, so the report shows which one it read),
 * every NVIDIA device node, and an os-release of its own. */
static int setup(void **state)
{
	const char *gpu = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:18:00.0";
	char rel[256];

	(void)state;
	snprintf(root, sizeof root, "/tmp/cudoctor-host-%d", (int)getpid());
	snprintf(root_env, sizeof root_env, "CUDOCTOR_HOST_ROOT=%s", root);
	put("etc/os-release", "NAME=\"Testix\"\nID=testix\nVERSION_ID=\"7.1\"\nPRETTY_NAME=\"Testix 7.1 (laid out)\"\n");
	put("proc/driver/nvidia/version",
	    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build  "
	    "(dvs-builder@U22-I3-AE18-23-3)  Thu Mar  6 2025\nGCC version:  gcc version 12.3.0\n");
	put("proc/version", "Linux version 6.8.0-testix (builder@testix) #1 SMP\n");
	put("dev/nvidiactl", "");
	put("dev/nvidia-uvm", "");
	put("dev/nvidia0", "");
	snprintf(rel, sizeof rel, "%s/numa_node", gpu);
	put(rel, "1\n");
	snprintf(rel, sizeof rel, "%s/local_cpulist", gpu);
	put(rel, "4000-4095\n");
	link_to("sys/bus/pci/devices/0000:18:00.0", gpu);
	put("sys/devices/system/node/node0/cpulist", "0-3999\n");
	put("sys/devices/system/node/node1/cpulist", "4000-4095\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static json_t *run_json(const char *command, const char *host_env)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", command, NULL };
	const char *env[] = { LIBCUDA, LIBNVML, host_env, "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "CUDA_VISIBLE_DEVICES=",
			      "FAKE_NVML_DRIVER_VERSION=580.159.04", NULL };
	struct run_result r;
	json_error_t e;
	json_t *j;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	j = json_loads(r.out, 0, &e);
	if (!j)
		fail_msg("%s --json is no JSON (%s): %.300s", command, e.text, r.out);
	run_result_free(&r);
	return j;
}

static const char *str_at(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		fail_msg("no string at %s", key);
	return s;
}

/* A device node of doctor's platform facts by path, or NULL. */
static const json_t *node(const json_t *doctor, const char *path)
{
	const json_t *nodes = json_object_get(json_object_get(doctor, "platform"), "device_nodes"), *n;
	size_t i;

	json_array_foreach(nodes, i, n)
		if (strcmp(str_at(n, "path"), path) == 0)
			return n;
	return NULL;
}

static void test_doctor_reads_the_laid_out_host(void **state)
{
	json_t *j = run_json("doctor", root_env), *d;

	(void)state;
	assert_string_equal(str_at(json_object_get(j, "header"), "os"), "Testix 7.1 (laid out)");
	assert_string_equal(str_at(json_object_get(j, "header"), "os_id"), "testix");
	d = json_object_get(j, "driver");
	assert_string_equal(str_at(d, "kernel_module_version"), "575.57.08");
	assert_true(json_is_true(json_object_get(d, "kernel_module_open")));
	assert_non_null(node(j, "/dev/nvidiactl"));
	assert_true(json_is_true(json_object_get(node(j, "/dev/nvidiactl"), "exists")));
	assert_true(json_is_true(json_object_get(node(j, "/dev/nvidia-uvm"), "exists")));
	json_decref(j);
	/* the same command with the root pointing nowhere: nothing of the laid-out host */
	j = run_json("doctor", "CUDOCTOR_HOST_ROOT=/nonexistent");
	assert_true(json_is_null(json_object_get(json_object_get(j, "header"), "os")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "driver"), "kernel_module_version")));
	assert_true(json_is_false(json_object_get(node(j, "/dev/nvidiactl"), "exists")));
	json_decref(j);
}

static void test_topo_reads_the_laid_out_sysfs(void **state)
{
	json_t *j = run_json("topo", root_env), *g;

	(void)state;
	g = json_array_get(json_object_get(json_object_get(j, "topology"), "gpus"), 0);
	assert_non_null(g);
	assert_int_equal(json_integer_value(json_object_get(g, "numa_node")), 1);
	assert_string_equal(str_at(g, "local_cpus"), "4000-4095");
	assert_string_equal(str_at(json_object_get(j, "header"), "os_id"), "testix");
	json_decref(j);
	j = run_json("topo", "CUDOCTOR_HOST_ROOT=/nonexistent");
	g = json_array_get(json_object_get(json_object_get(j, "topology"), "gpus"), 0);
	assert_true(json_is_null(json_object_get(g, "numa_node")));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doctor_reads_the_laid_out_host),
		cmocka_unit_test(test_topo_reads_the_laid_out_sysfs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
