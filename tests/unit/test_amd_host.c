/* doctor and devices on AMD machines laid out under CUDOCTOR_HOST_ROOT (no ROCm, no GPU
 * needed): an RX 7900 XTX desktop, an MI300X node of two GPUs, a user missing from the render
 * group, an /dev without the nodes (a container started without --device), and an
 * HSA_OVERRIDE_GFX_VERSION that maps a 780M to a target the installed torch does not carry;
 * text and --json, with the findings each calls for. The KFD properties are as the kernel
 * writes them (gfx_target_version 110000 is gfx1100, 90402 gfx942, 0 a CPU node). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hip_fixtures.h"
#include "probe_tree.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static char root[64];

/* KFD's properties of a GPU node (as /sys/class/kfd/kfd/topology/nodes/N/properties reads). */
static void gpu_node(const char *host, int node, unsigned gfx_version, unsigned device, unsigned simd, unsigned simd_per_cu,
		     int render, const char *card, const char *vram, const char *product)
{
	char rel[256], text[2048];
	snprintf(rel, sizeof rel, "%s/sys/class/kfd/kfd/topology/nodes/%d/properties", host, node);
	snprintf(text, sizeof text,
		 "cpu_cores_count 0\nsimd_count %u\nmem_banks_count 1\ncaches_count 0\nio_links_count 1\ncpu_core_id_base 0\n"
		 "simd_id_base 2147487744\nmax_waves_per_simd 16\nlds_size_in_kb 64\ngds_size_in_kb 0\nnum_gws 64\n"
		 "wave_front_size 32\narray_count 12\nsimd_arrays_per_engine 2\ncu_per_simd_array 8\nsimd_per_cu %u\n"
		 "max_slots_scratch_cu 32\ngfx_target_version %u\nvendor_id 4098\ndevice_id %u\nlocation_id 768\n"
		 "domain 0\ndrm_render_minor %d\nhive_id 0\nnum_sdma_engines 2\nnum_sdma_xgmi_engines 0\n"
		 "num_sdma_queues_per_engine 6\nnum_cp_queues 8\nmax_engine_clk_fcompute 2526\nlocal_mem_size 0\n"
		 "fw_version 2250\ncapability 1082097280\ndebug_prop 1495\nsdma_fw_version 21\nunique_id 3236134367926937881\n"
		 "num_xcc 1\nmax_engine_clk_ccompute 4768\n",
		 simd, simd_per_cu, gfx_version, device, render);
	tree_file(root, rel, text, 0);
	snprintf(rel, sizeof rel, "%s/sys/class/drm/%s/device/drm/renderD%d", host, card, render);
	tree_mkdirs(root, rel, 1);
	snprintf(rel, sizeof rel, "%s/sys/class/drm/%s/device/mem_info_vram_total", host, card);
	tree_file(root, rel, vram, 0);
	if (product) {
		snprintf(rel, sizeof rel, "%s/sys/class/drm/%s/device/product_name", host, card);
		tree_file(root, rel, product, 0);
	}
	snprintf(rel, sizeof rel, "%s/dev/dri/renderD%d", host, render);
	tree_file(root, rel, "", 0);
}

/* A host under root/host: a CPU node 0, amdgpu loaded, /dev/kfd, the user alice (uid and
 * primary gid other than this process's) and an /etc/group whose name for the nodes' group
 * (this process's gid, which owns the files made here) is render, alice in it or not. */
static void host(const char *name, bool in_render, bool nodes)
{
	char rel[256], text[512];
	unsigned gid = (unsigned)getegid(), uid = (unsigned)geteuid();
	snprintf(rel, sizeof rel, "%s/sys/class/kfd/kfd/topology/nodes/0/properties", name);
	tree_file(root, rel, "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\ndevice_id 0\n", 0);
	snprintf(rel, sizeof rel, "%s/sys/module/amdgpu/initstate", name);
	tree_file(root, rel, "live\n", 0);
	snprintf(rel, sizeof rel, "%s/etc/passwd", name);
	snprintf(text, sizeof text, "root:x:0:0:root:/root:/bin/bash\nalice:x:%u:%u::/home/alice:/bin/bash\n", uid + 1, gid + 1);
	tree_file(root, rel, text, 0);
	snprintf(rel, sizeof rel, "%s/etc/group", name);
	/* render first: this process's gid may be 0, root's */
	snprintf(text, sizeof text, "render:x:%u:%s\nroot:x:0:\nvideo:x:%u:alice\nalice:x:%u:\n", gid,
		 in_render ? "alice" : "", gid + 2, gid + 1);
	tree_file(root, rel, text, 0);
	if (nodes) {
		snprintf(rel, sizeof rel, "%s/dev/kfd", name);
		tree_file(root, rel, "", 0);
	}
	snprintf(rel, sizeof rel, "%s/opt/rocm-6.4.1/.info/version", name);
	tree_file(root, rel, "6.4.1-120\n", 0);
}

/* The nodes of a host made 0660 (crw-rw---- as udev makes them). */
static void nodes_0660(const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s/dev/kfd", root, name);
	chmod(p, 0660);
	for (int m = 128; m <= 136; m += 8) {
		snprintf(p, sizeof p, "%s/%s/dev/dri/renderD%d", root, name, m);
		chmod(p, 0660);
	}
}

static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	host("xtx", true, true);
	gpu_node("xtx", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	nodes_0660("xtx");
	host("mi300x", true, true);
	gpu_node("mi300x", 2, 90402, 29857, 1216, 4, 128, "card0", "206141652992\n", "AMD Instinct MI300X\n");
	gpu_node("mi300x", 3, 90402, 29857, 1216, 4, 136, "card8", "206141652992\n", "AMD Instinct MI300X\n");
	nodes_0660("mi300x");
	host("norender", false, true);
	gpu_node("norender", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	nodes_0660("norender");
	host("container", true, false);
	gpu_node("container", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	/* the desktop with an NVIDIA card beside it on the PCI bus, its driver missing */
	host("hybrid", true, true);
	gpu_node("hybrid", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	nodes_0660("hybrid");
	tree_file(root, "hybrid/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n", 0);
	tree_file(root, "hybrid/sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n", 0);
	tree_file(root, "hybrid/sys/bus/pci/devices/0000:03:00.0/vendor", "0x1002\n", 0);
	tree_file(root, "hybrid/sys/bus/pci/devices/0000:03:00.0/class", "0x030000\n", 0);
	/* AMD's DKMS driver of ROCm 6.3 (amdgpu-dkms 6.10.5.60304 writes 6.10.5), under ROCm 7.2
	 * (outside its window: 6.1 to 7.0) and under ROCm 6.4 (inside) */
	host("dkms_old", true, true);
	gpu_node("dkms_old", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	nodes_0660("dkms_old");
	tree_file(root, "dkms_old/sys/module/amdgpu/version", "6.10.5\n", 0);
	tree_file(root, "dkms_old/opt/rocm-7.2.0/.info/version", "7.2.0-43\n", 0);
	host("dkms_ok", true, true);
	gpu_node("dkms_ok", 1, 110000, 29772, 192, 2, 128, "card1", "25753026560\n", NULL);
	nodes_0660("dkms_ok");
	tree_file(root, "dkms_ok/sys/module/amdgpu/version", "6.12.12\n", 0);
	/* a 780M (gfx1103) whose venv's torch carries gfx1030 and gfx90a only */
	host("apu", true, true);
	gpu_node("apu", 1, 110003, 5567, 24, 2, 128, "card0", "536870912\n", NULL);
	nodes_0660("apu");
	static const char *const ids[] = {"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx1030",
					   "hipv4-amdgcn-amd-amdhsa--gfx90a"};
	struct buf b = make_bundle(ids, 3);
	char p[PATH_MAX];
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\n", 0);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py", "__version__ = '2.8.0+rocm6.4'\nhip = '6.4.43483'\ncuda = None\n", 0);
	tree_file(root, "venv/lib/python3.11/site-packages/torch-2.8.0+rocm6.4.dist-info/METADATA", "Name: torch\n", 0);
	tree_mkdirs(root, "venv/lib/python3.11/site-packages/torch/lib/x", 0);
	snprintf(p, sizeof p, "%s/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so", root);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(b.p, 1, b.n, f) != b.n)
		return -1;
	fclose(f);
	free(b.p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* `cudoctor [--json] CMD` on host name (its CUDOCTOR_HOST_ROOT) as alice, no NVIDIA driver;
 * extra: one more NAME=value. */
static void run(const char *name, const char *cmd, bool json, const char *extra, struct run_result *res)
{
	char e_root[PATH_MAX], e_venv[PATH_MAX];
	const char *argv[] = {CUDOCTOR_BINARY, json ? "--json" : cmd, json ? cmd : NULL, NULL};
	const char *env[] = {e_root, "USER=alice", "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent",
			     "CUDOCTOR_LIBHIP=/nonexistent", "HSA_OVERRIDE_GFX_VERSION=", "HIP_VISIBLE_DEVICES=",
			     "ROCR_VISIBLE_DEVICES=", "HSA_XNACK=", "PATH=/nonexistent", e_venv, extra, NULL};
	snprintf(e_root, sizeof e_root, "CUDOCTOR_HOST_ROOT=%s/%s", root, name);
	snprintf(e_venv, sizeof e_venv, "VIRTUAL_ENV=%s/venv", root);
	if (strcmp(name, "apu") != 0)
		snprintf(e_venv, sizeof e_venv, "VIRTUAL_ENV=");
	assert_int_equal(testlib_run(argv, env, NULL, res), 0);
}

static json_t *run_json(const char *name, const char *cmd, const char *extra)
{
	struct run_result res;
	json_error_t je;
	run(name, cmd, true, extra, &res);
	json_t *j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("%s on %s printed no JSON (exit %d): %s", cmd, name, res.status, res.err);
	run_result_free(&res);
	return j;
}

static json_t *finding(json_t *j, const char *id)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "findings"), i, f) if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0) return f;
	return NULL;
}

static bool fix_has(json_t *f, const char *text)
{
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(f, "fix"), i, x) if (strstr(json_string_value(x), text)) return true;
	return false;
}

static void rx_7900_xtx(void **state)
{
	(void)state;
	struct run_result res;
	json_t *j = run_json("xtx", "devices", NULL), *amd = json_object_get(j, "amd"), *g = json_array_get(json_object_get(amd, "gpus"), 0);
	assert_non_null(g);
	assert_int_equal(json_array_size(json_object_get(amd, "gpus")), 1); /* node 0 is the CPU */
	assert_string_equal(json_string_value(json_object_get(g, "gfx")), "gfx1100");
	assert_int_equal(json_integer_value(json_object_get(g, "gfx_target_version")), 110000);
	assert_int_equal(json_integer_value(json_object_get(g, "node")), 1);
	assert_int_equal(json_integer_value(json_object_get(g, "vram_bytes")), 25753026560LL);
	assert_int_equal(json_integer_value(json_object_get(g, "compute_units")), 96);
	assert_string_equal(json_string_value(json_object_get(g, "card")), "card1");
	assert_string_equal(json_string_value(json_object_get(amd, "rocm_version")), "6.4.1-120");
	assert_true(json_is_true(json_object_get(amd, "amdgpu_module")));
	assert_string_equal(json_string_value(json_object_get(amd, "user")), "alice");
	json_t *n = json_array_get(json_object_get(amd, "nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "path")), "/dev/kfd");
	assert_string_equal(json_string_value(json_object_get(n, "group")), "render");
	assert_true(json_is_true(json_object_get(n, "opens")));
	assert_null(finding(j, "rocm-kfd-access"));
	json_decref(j);

	run("xtx", "doctor", false, NULL, &res);
	assert_non_null(strstr(res.out, "AMD GPUs"));
	assert_non_null(strstr(res.out, "gfx1100"));
	assert_non_null(strstr(res.out, "24 GiB"));
	assert_null(strstr(res.out, "rocm-kfd-access"));
	run_result_free(&res);
}

static void mi300x_node(void **state)
{
	(void)state;
	json_t *j = run_json("mi300x", "doctor", NULL), *gpus = json_object_get(json_object_get(j, "amd"), "gpus");
	assert_int_equal(json_array_size(gpus), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *g = json_array_get(gpus, i);
		assert_string_equal(json_string_value(json_object_get(g, "gfx")), "gfx942");
		assert_string_equal(json_string_value(json_object_get(g, "product")), "AMD Instinct MI300X");
		assert_int_equal(json_integer_value(json_object_get(g, "vram_bytes")), 206141652992LL);
		assert_int_equal(json_integer_value(json_object_get(g, "compute_units")), 304);
	}
	assert_int_equal(json_integer_value(json_object_get(json_array_get(gpus, 1), "render_minor")), 136);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "amd"), "nodes")), 3); /* kfd and two render nodes */
	json_decref(j);
	/* ROCR_VISIBLE_DEVICES naming a third GPU */
	j = run_json("mi300x", "doctor", "ROCR_VISIBLE_DEVICES=0,2");
	json_t *f = finding(j, "amd-visible-devices");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "names a GPU this machine does not have"));
	json_decref(j);
}

static void missing_render_group(void **state)
{
	(void)state;
	struct run_result res;
	json_t *j = run_json("norender", "doctor", NULL), *f = finding(j, "rocm-kfd-access");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "subject")), "/dev/kfd");
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "cannot be opened by alice"));
	assert_true(fix_has(f, "sudo usermod -aG render alice"));
	json_t *n = json_array_get(json_object_get(json_object_get(j, "amd"), "nodes"), 0);
	assert_int_equal(json_integer_value(json_object_get(n, "user_in_group")), 0);
	assert_true(json_is_false(json_object_get(n, "opens")));
	json_decref(j);
	run("norender", "devices", false, NULL, &res);
	assert_non_null(strstr(res.out, "rocm-kfd-access"));
	run_result_free(&res);
	/* a container started without --device=/dev/kfd */
	j = run_json("container", "doctor", NULL);
	f = finding(j, "rocm-kfd-access");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "does not exist"));
	assert_true(fix_has(f, "--device=/dev/kfd"));
	json_decref(j);
}

static void override_not_in_torch(void **state)
{
	(void)state;
	/* without the override: the 780M has no code in this torch */
	json_t *j = run_json("apu", "doctor", NULL), *rows = json_object_get(j, "will_it_run_amd"), *row = json_array_get(rows, 0);
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "result")), "no-image");
	assert_non_null(strstr(json_string_value(json_object_get(row, "framework")), "torch 2.8.0+rocm6.4"));
	json_t *f = finding(j, "rocm-gfx-target-missing");
	assert_non_null(f);
	assert_true(fix_has(f, "HSA_OVERRIDE_GFX_VERSION cannot help"));
	json_decref(j);
	/* HSA_OVERRIDE_GFX_VERSION=11.0.0: taken for gfx1100, which the torch does not carry either */
	j = run_json("apu", "doctor", "HSA_OVERRIDE_GFX_VERSION=11.0.0");
	row = json_array_get(json_object_get(j, "will_it_run_amd"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "result")), "no-image");
	assert_non_null(strstr(json_string_value(json_object_get(row, "verdict")), "HSA_OVERRIDE_GFX_VERSION=11.0.0"));
	f = finding(j, "rocm-gfx-target-missing");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "gfx1100"));
	f = finding(j, "amd-override-set");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "take this gfx1103 for gfx1100"));
	json_decref(j);
	/* an override of another family (RDNA2's 10.3.0 on RDNA3.x) */
	j = run_json("apu", "doctor", "HSA_OVERRIDE_GFX_VERSION=9.0.10");
	assert_non_null(finding(j, "rocm-gfx-override-wrong"));
	json_decref(j);
}

/* HIP through dlopen (the fake libamdhip64): its version and count, and a HIP that sees none */
static void hip_runtime(void **state)
{
	(void)state;
	json_t *j = run_json("xtx", "devices", "CUDOCTOR_LIBHIP=" CUDOCTOR_FAKES_DIR "/libamdhip64.so.1"),
	       *amd = json_object_get(j, "amd");
	assert_true(json_is_true(json_object_get(amd, "hip_loaded")));
	assert_int_equal(json_integer_value(json_object_get(amd, "hip_runtime_version")), 60443483);
	assert_int_equal(json_integer_value(json_object_get(amd, "hip_device_count")), 1);
	assert_null(finding(j, "amd-hip-no-device"));
	json_decref(j);
	/* the count fails (hipErrorNoDevice) though KFD shows the GPU */
	struct run_result res;
	char e_root[PATH_MAX];
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "doctor", NULL};
	snprintf(e_root, sizeof e_root, "CUDOCTOR_HOST_ROOT=%s/xtx", root);
	const char *env[] = {e_root, "USER=alice", "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent",
			     "CUDOCTOR_LIBHIP=" CUDOCTOR_FAKES_DIR "/libamdhip64.so.1", "FAKE_HIP_ERROR=100",
			     "HIP_VISIBLE_DEVICES=", "ROCR_VISIBLE_DEVICES=", "PATH=/nonexistent", "VIRTUAL_ENV=", NULL};
	json_error_t je;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	j = json_loads(res.out, 0, &je);
	assert_non_null(j);
	json_t *f = finding(j, "amd-hip-no-device");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "evidence"), 0)), "hipError_t 100"));
	json_decref(j);
	run_result_free(&res);
}

/* `cudoctor [-q] ARGS` on host name as run() does, its exit status and output */
static int run_args(const char *name, const char *const *args, struct run_result *res)
{
	char e_root[PATH_MAX];
	const char *argv[8] = {CUDOCTOR_BINARY};
	const char *env[] = {e_root, "USER=alice", "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent",
			     "CUDOCTOR_LIBHIP=/nonexistent", "HSA_OVERRIDE_GFX_VERSION=", "HIP_VISIBLE_DEVICES=",
			     "ROCR_VISIBLE_DEVICES=", "PATH=/nonexistent", "VIRTUAL_ENV=", NULL};
	for (size_t i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	snprintf(e_root, sizeof e_root, "CUDOCTOR_HOST_ROOT=%s/%s", root, name);
	assert_int_equal(testlib_run(argv, env, NULL, res), 0);
	return res->status;
}

/* An AMD machine with nothing NVIDIA: the missing NVIDIA driver is a fact, not no-driver, and
 * no command exits 1 for it; with an NVIDIA card on the PCI bus it stays no-driver. */
static void amd_only_machine(void **state)
{
	(void)state;
	struct run_result res;
	static const char *const doctor_json[] = {"--json", "doctor", NULL}, *const devices_json[] = {"--json", "devices", NULL};
	json_t *j = run_json("xtx", "doctor", NULL);
	assert_null(finding(j, "no-driver"));
	assert_true(json_is_true(json_object_get(json_object_get(j, "amd"), "amd_only")));
	json_decref(j);
	assert_int_equal(run_args("xtx", doctor_json, &res), 0);
	run_result_free(&res);
	run("xtx", "doctor", false, NULL, &res);
	assert_non_null(strstr(res.out, "no NVIDIA GPU: this is an AMD machine"));
	assert_null(strstr(res.out, "none (no driver)"));
	run_result_free(&res);
	assert_int_equal(run_args("xtx", devices_json, &res), 0);
	run_result_free(&res);
	static const struct {
		const char *args[4], *answer;
	} cmds[] = {
		{{"-q", "devices", NULL}, "no NVIDIA GPU: an AMD machine"},
		{{"-q", "check", "--no-load", NULL}, "no NVIDIA GPU: an AMD machine"},
		{{"-q", "mem", "status", NULL}, "no NVIDIA GPU: an AMD machine"},
		{{"-q", "topo", NULL}, "no NVIDIA GPU: an AMD machine"},
		/* plan with no --gpu plans the AMD GPUs here */
		{{"plan", NULL}, "download.pytorch.org/whl/rocm"},
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		int status = run_args("xtx", cmds[i].args, &res);
		if (status != 0 || !strstr(res.out, cmds[i].answer) || strstr(res.err, "no-driver"))
			fail_msg("%s %s: exit %d, out '%s', err '%s'", cmds[i].args[0], cmds[i].args[1] ? cmds[i].args[1] : "",
				 status, res.out, res.err);
		run_result_free(&res);
	}
	/* an NVIDIA card on the bus: the driver's absence is the error it always was */
	j = run_json("hybrid", "doctor", NULL);
	assert_non_null(finding(j, "no-driver"));
	assert_true(json_is_false(json_object_get(json_object_get(j, "amd"), "amd_only")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "amd"), "nvidia_pci_gpus")), 1);
	json_decref(j);
	assert_int_equal(run_args("hybrid", doctor_json, &res), 1);
	run_result_free(&res);
}

/* ROCm's user space against AMD's support window of the DKMS driver (kb/amdgpu_drivers.tsv) */
static void driver_window(void **state)
{
	(void)state;
	json_t *j = run_json("dkms_old", "doctor", NULL), *f = finding(j, "rocm-driver-window"),
	       *w = json_object_get(json_object_get(j, "amd"), "driver_window");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "warn");
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "ROCm 7.2.0-43"));
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "amdgpu driver 6.3"));
	assert_string_equal(json_string_value(json_object_get(w, "driver")), "6.3");
	assert_true(json_is_false(json_object_get(w, "inside")));
	json_decref(j);
	j = run_json("dkms_ok", "doctor", NULL);
	w = json_object_get(json_object_get(j, "amd"), "driver_window");
	assert_null(finding(j, "rocm-driver-window"));
	assert_string_equal(json_string_value(json_object_get(w, "driver")), "6.4");
	assert_true(json_is_true(json_object_get(w, "inside")));
	json_decref(j);
	/* the kernel's own amdgpu writes no version: nothing to judge */
	j = run_json("xtx", "doctor", NULL);
	assert_true(json_is_null(json_object_get(json_object_get(j, "amd"), "driver_window")));
	assert_null(finding(j, "rocm-driver-window"));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rx_7900_xtx),
		cmocka_unit_test(mi300x_node),
		cmocka_unit_test(missing_render_group),
		cmocka_unit_test(override_not_in_torch),
		cmocka_unit_test(hip_runtime),
		cmocka_unit_test(amd_only_machine),
		cmocka_unit_test(driver_window),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
