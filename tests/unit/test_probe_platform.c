/* probe/platform and probe/driver_info: CUDA_VISIBLE_DEVICES parsing, WSL2 and container
 * trees under a test root, device nodes, and where the driver version comes from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/driver_info.h"
#include "probe/platform.h"
#include "probe_tree.h"
#include "util/err.h"

static void test_visible_parse(void **state)
{
	struct visible_devices v;
	char many[400] = "";

	(void)state;
	visible_devices_parse(NULL, &v);
	assert_false(v.set);
	visible_devices_parse("", &v);
	assert_true(v.set);
	assert_int_equal(v.n, 0);
	visible_devices_parse("   ", &v);
	assert_int_equal(v.n, 0);
	visible_devices_parse(" 0, 1 ", &v);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.tok[0].kind, VIS_INDEX);
	assert_int_equal(v.tok[1].index, 1);
	assert_string_equal(v.tok[1].text, "1");
	visible_devices_parse("GPU-8f2b1c,MIG-4f7e9a2b-1c3d-5e6f-7a8b-9c0d1e2f3a4b,cuda:1,-1,,7", &v);
	assert_int_equal(v.n, 6);
	assert_int_equal(v.tok[0].kind, VIS_GPU_UUID);
	assert_int_equal(v.tok[1].kind, VIS_MIG_UUID);
	assert_int_equal(v.tok[2].kind, VIS_INVALID);
	assert_int_equal(v.tok[3].kind, VIS_INVALID);
	assert_string_equal(v.tok[3].text, "-1");
	assert_int_equal(v.tok[4].kind, VIS_INVALID);
	assert_string_equal(v.tok[4].text, "");
	assert_int_equal(v.tok[5].index, 7);
	for (int i = 0; i < 70; i++)
		strcat(many, "1,");
	visible_devices_parse(many, &v);
	assert_int_equal(v.n, VISIBLE_MAX_TOKENS);
	assert_true(v.truncated);
	/* a huge index does not overflow */
	visible_devices_parse("99999999999999999999999", &v);
	assert_int_equal(v.tok[0].kind, VIS_INDEX);
	assert_true(v.tok[0].index >= 100000);
}

static void clear_env(void)
{
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("CUDA_DEVICE_ORDER");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("container");
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("LIBRARY_PATH");
}

static void test_wsl_tree(void **state)
{
	char root[64], err[CD_ERRMSG];
	struct platform_info p;

	(void)state;
	clear_env();
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 12.2.0) #1 SMP\n", 0);
	tree_file(root, "usr/lib/wsl/lib/libcuda.so.1", "\177ELF", 0);
	tree_file(root, "usr/lib/wsl/lib/libcuda.so", "\177ELF", 0);
	tree_file(root, "dev/dxg", "", 0);
	assert_int_equal(platform_probe(&p, root, err), CD_OK);
	assert_true(p.wsl);
	assert_true(p.wsl_lib_dir);
	assert_true(p.wsl_libcuda1);
	assert_false(p.wsl_libcuda1_symlink); /* Windows mounts copies */
	assert_true(p.wsl_dxg);
	assert_false(p.wsl_libcuda_unversioned); /* not in any search path */
	assert_int_equal(p.n_nodes, 0);          /* WSL has no /dev/nvidia* */

	setenv("LD_LIBRARY_PATH", "/usr/lib/wsl/lib", 1);
	assert_int_equal(platform_probe(&p, root, err), CD_OK);
	assert_true(p.wsl_libcuda_unversioned);
	clear_env();
	tree_remove(root);
}

static void test_container_and_nodes(void **state)
{
	char root[64], err[CD_ERRMSG];
	struct platform_info p;

	(void)state;
	clear_env();
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "proc/version", "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP\n", 0);
	tree_file(root, ".dockerenv", "", 0);
	tree_file(root, "dev/nvidiactl", "", 0);
	tree_file(root, "dev/nvidia0", "", 0);
	tree_file(root, "dev/nvidia1", "", 0);
	tree_file(root, "dev/nvidia-caps/nvidia-cap1", "", 0);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	assert_int_equal(platform_probe(&p, root, err), CD_OK);
	assert_false(p.wsl);
	assert_string_equal(p.container, "docker");
	assert_int_equal(p.n_nodes, 4);
	assert_string_equal(p.nodes[0].path, "/dev/nvidiactl");
	assert_true(p.nodes[0].exists);
	assert_string_equal(p.nodes[1].path, "/dev/nvidia-uvm");
	assert_false(p.nodes[1].exists);
	assert_string_equal(p.nodes[2].path, "/dev/nvidia0");
	assert_string_equal(p.nodes[3].path, "/dev/nvidia1");
	assert_true(p.nodes[3].accessible);
	assert_true(p.visible.set);
	assert_int_equal(p.visible.tok[0].index, 1);
	assert_string_equal(p.device_order, "PCI_BUS_ID");
	clear_env();
	tree_remove(root);

	/* a bare machine: no nodes at all is reported as a missing /dev/nvidia0 */
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "proc/1/cgroup", "0::/kubepods/besteffort/pod1234/abcd\n", 0);
	assert_int_equal(platform_probe(&p, root, err), CD_OK);
	assert_string_equal(p.container, "kubernetes");
	assert_int_equal(p.n_nodes, 3);
	assert_string_equal(p.nodes[2].path, "/dev/nvidia0");
	assert_false(p.nodes[2].exists);
	tree_remove(root);
}

static void test_driver_version_sources(void **state)
{
	char root[64];
	static struct gpu_probe p;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	tree_file(root, "proc/driver/nvidia/version",
		  "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U22-I3-B13-02-5)  Tue Sep 23 09:55:41 UTC 2025\n"
		  "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n", 0);
	memset(&p, 0, sizeof p);
	p.cuda_loaded = true;
	snprintf(p.cuda_path, sizeof p.cuda_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04");
	snprintf(p.cuda_how, sizeof p.cuda_how, "loader search");
	driver_mark(&p, DF_CUDA_INIT);
	p.cuda_init_result = 0;
	snprintf(p.cuda_init_result_name, sizeof p.cuda_init_result_name, "CUDA_SUCCESS");
	driver_mark(&p, DF_CUDA_VERSION);
	p.cuda_driver_version = 13000;
	driver_info_collect(&p, root);
	assert_string_equal(p.user_driver_version, "580.159.04");
	assert_string_equal(p.user_driver_version_source, "libcuda file name");
	assert_true(driver_has(&p, DF_KMOD));
	assert_string_equal(p.kmod_version, "580.95.05");
	assert_true(p.kmod_open);
	assert_int_equal(p.cuda_driver_version, 13000);
	assert_false(p.compat_lib);

	/* NVML's answer stays whatever the file name says */
	driver_mark(&p, DF_VERSION);
	snprintf(p.user_driver_version, sizeof p.user_driver_version, "580.159.03");
	p.user_driver_version_source = DRIVER_FROM_NVML;
	snprintf(p.cuda_path, sizeof p.cuda_path, "/usr/local/cuda-12.8/compat/libcuda.so.1");
	driver_info_collect(&p, root);
	assert_string_equal(p.user_driver_version_source, "NVML");
	assert_string_equal(p.user_driver_version, "580.159.03");
	assert_true(p.compat_lib);

	/* no libcuda at all: the kernel module still names the driver */
	memset(&p, 0, sizeof p);
	snprintf(p.cuda_load_error, sizeof p.cuda_load_error, "libcuda.so.1: cannot open shared object file: No such file or directory");
	driver_info_collect(&p, root);
	assert_false(p.cuda_loaded);
	assert_string_equal(p.user_driver_version, "580.95.05");
	assert_string_equal(p.user_driver_version_source, "/proc/driver/nvidia/version");
	assert_non_null(strstr(p.cuda_load_error, "cannot open"));
	tree_remove(root);

	/* and nothing at all */
	assert_non_null(tree_new(root, sizeof root));
	driver_info_collect(&p, root);
	assert_false(driver_has(&p, DF_KMOD));
	assert_string_equal(p.user_driver_version, "");
	tree_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visible_parse),
		cmocka_unit_test(test_wsl_tree),
		cmocka_unit_test(test_container_and_nodes),
		cmocka_unit_test(test_driver_version_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
