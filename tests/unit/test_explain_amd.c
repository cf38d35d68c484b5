/* explain on AMD texts: hipErrorNoBinaryForGpu and "invalid device function" with --binary name
 * the target the file misses, judged on --gpu or on the AMD GPUs of a host laid out under
 * CUDOCTOR_HOST_ROOT; and "Invalid argument" from reading /dev/kfd, which a working install
 * prints, is not rocm-kfd-access's failure, while rocminfo's failing open still is. Each text is
 * a real report's, with its URL beside it. */
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

#include "hip_fixtures.h"
#include "probe_tree.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static char root[64], lib[PATH_MAX], venv[PATH_MAX];

/* https://github.com/ROCm/legacy-rocm-build/issues/2061 */
static const char no_binary[] = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n";
/* https://github.com/pytorch/pytorch/issues/147626 */
static const char invalid_function[] =
	"RuntimeError: HIP error: invalid device function\n"
	"HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
	"incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n";
/* https://github.com/ROCm/legacy-rocm-build/issues/2232: "After permissions were fixed, I see
 * \"cat: /dev/kfd: Invalid argument\" and my ROCm install works." */
static const char cat_kfd[] = "cat: /dev/kfd: Invalid argument\n";
/* https://github.com/ROCm/legacy-rocm-build/issues/6166 (rocminfo on an RX 9070 XT) */
static const char rocminfo_kfd[] = "ROCk module is loaded\nUnable to open /dev/kfd read-write: Invalid argument\n"
				   "x1unix is member of render group\n";

/* An ELF shared object whose one section, .hip_fatbin at 4096, holds bundle: what a ROCm build's
 * library holds, for the walk that keeps only ELF and PE modules. */
static struct buf elf_with(const struct buf *bundle)
{
	static const char names[] = "\0.hip_fatbin\0.shstrtab";
	struct buf e = {0};
	static const unsigned char zero[4096];
	uint64_t str_off = 4096 + bundle->n, sh_off = (str_off + sizeof names + 7) & ~(uint64_t)7;

	put(&e, "\x7f" "ELF\x02\x01\x01", 7);
	put(&e, zero, 9);
	put16(&e, 3), put16(&e, 62), put32(&e, 1), put64(&e, 0), put64(&e, 0), put64(&e, sh_off), put32(&e, 0);
	put16(&e, 64), put16(&e, 56), put16(&e, 0), put16(&e, 64), put16(&e, 3), put16(&e, 2);
	put(&e, zero, 4096 - e.n);
	put(&e, bundle->p, bundle->n);
	put(&e, names, sizeof names);
	put(&e, zero, sh_off - e.n);
	put(&e, zero, 64); /* section 0 */
	put32(&e, 1), put32(&e, 1), put64(&e, 2), put64(&e, 4096), put64(&e, 4096), put64(&e, bundle->n);
	put32(&e, 0), put32(&e, 0), put64(&e, 4096), put64(&e, 0);
	put32(&e, 13), put32(&e, 3), put64(&e, 0), put64(&e, 0), put64(&e, str_off), put64(&e, sizeof names);
	put32(&e, 0), put32(&e, 0), put64(&e, 1), put64(&e, 0);
	return e;
}

static int setup(void **state)
{
	(void)state;
	static const char *const ids[] = {"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx1030",
					   "hipv4-amdgcn-amd-amdhsa--gfx90a"};
	char p[PATH_MAX];
	if (!tree_new(root, sizeof root))
		return -1;
	/* an RX 7900 XTX host: KFD node 1 is gfx1100, /dev/kfd open to all */
	tree_file(root, "host/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\ngfx_target_version 0\n", 0);
	tree_file(root, "host/sys/class/kfd/kfd/topology/nodes/1/properties",
		  "simd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\nvendor_id 4098\ndevice_id 29772\n"
		  "drm_render_minor 128\n", 0);
	tree_file(root, "host/sys/module/amdgpu/initstate", "live\n", 0);
	tree_file(root, "host/dev/kfd", "", 0);
	tree_file(root, "host/dev/dri/renderD128", "", 0);
	snprintf(p, sizeof p, "%s/host/dev/kfd", root);
	chmod(p, 0666);
	snprintf(p, sizeof p, "%s/host/dev/dri/renderD128", root);
	chmod(p, 0666);
	/* torch's HIP library carrying gfx1030 and gfx90a only */
	struct buf b = make_bundle(ids, 3);
	snprintf(lib, sizeof lib, "%s/torch/lib/libtorch_hip.so", root);
	tree_mkdirs(root, "torch/lib/x", 0);
	FILE *f = fopen(lib, "wb");
	if (!f || fwrite(b.p, 1, b.n, f) != b.n)
		return -1;
	fclose(f);
	/* a venv whose ROCm torch carries the same two targets, as an ELF module */
	struct buf e = elf_with(&b);
	snprintf(venv, sizeof venv, "%s/venv", root);
	tree_file(root, "venv/pyvenv.cfg", "home = /usr/bin\n", 0);
	tree_file(root, "venv/lib/python3.11/site-packages/torch/version.py", "__version__ = '2.8.0+rocm6.4'\nhip = '6.4.43483'\n", 0);
	tree_mkdirs(root, "venv/lib/python3.11/site-packages/torch/lib/x", 0);
	snprintf(p, sizeof p, "%s/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so", root);
	if (!(f = fopen(p, "wb")) || fwrite(e.p, 1, e.n, f) != e.n)
		return -1;
	fclose(f);
	free(e.p);
	free(b.p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* `cudoctor --json explain ARGS` on text, on the host laid out (or on none: /nonexistent) */
static json_t *explain(const char *text, bool on_host, const char *a1, const char *a2, const char *a3, const char *a4)
{
	char e_root[PATH_MAX];
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "explain", a1, a2, a3, a4, NULL};
	const char *env[] = {e_root, "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent",
			     "CUDOCTOR_LIBHIP=/nonexistent", "HSA_OVERRIDE_GFX_VERSION=", "PATH=/nonexistent", "VIRTUAL_ENV=",
			     NULL};
	struct run_result res;
	json_error_t je;
	snprintf(e_root, sizeof e_root, "CUDOCTOR_HOST_ROOT=%s%s", root, on_host ? "/host" : "/nonexistent");
	assert_int_equal(testlib_run(argv, env, text, &res), 0);
	json_t *j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("explain printed no JSON (exit %d): %s", res.status, res.err);
	run_result_free(&res);
	return j;
}

static json_t *match(json_t *j, const char *id)
{
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(j, "matches"), i, m) if (strcmp(json_string_value(json_object_get(m, "id")), id) == 0) return m;
	fail_msg("no %s match", id);
	return NULL;
}

static bool has(json_t *list, const char *text)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x) if (json_is_string(x) && strstr(json_string_value(x), text)) return true;
	return false;
}

static const char *title(json_t *j, const char *id)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "findings"), i, f) if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0)
		return json_string_value(json_object_get(f, "title"));
	return "";
}

static const char *check_detail(json_t *m, const char *name)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(m, "checks"), i, c) if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
		return json_string_value(json_object_get(c, "detail"));
	fail_msg("no %s check", name);
	return NULL;
}

/* --gpu names the GPU (a log from another machine): the missing target, what the file carries,
 * the ROCm torch with code for it */
static void no_binary_named_gpu(void **state)
{
	(void)state;
	json_t *j = explain(no_binary, false, "--offline", "--binary", lib, "--gpu=RX 7900 XTX"), *m = match(j, "rocm-gfx-target-missing");
	assert_string_equal(json_string_value(json_object_get(m, "severity")), "error");
	assert_non_null(strstr(title(j, "rocm-gfx-target-missing"), "No code for gfx1100"));
	assert_true(has(json_object_get(m, "fix"), "carries 'gfx90a, gfx1030'"));
	assert_true(has(json_object_get(m, "fix"), "gfx1100 runs gfx1100 and gfx11-generic code objects"));
	assert_true(has(json_object_get(m, "fix"), "download.pytorch.org/whl/rocm"));
	assert_non_null(strstr(check_detail(m, "binary"), "AMD code objects for gfx90a, gfx1030"));
	assert_non_null(strstr(check_detail(m, "binary"), "no-image"));
	json_decref(j);
	/* a GPU the file has code for: no target named missing */
	j = explain(no_binary, false, "--offline", "--binary", lib, "--gpu=gfx90a");
	m = match(j, "rocm-gfx-target-missing");
	assert_null(strstr(title(j, "rocm-gfx-target-missing"), "No code for gfx90a"));
	assert_non_null(strstr(check_detail(m, "binary"), "native"));
	json_decref(j);
}

/* no --gpu: the AMD GPUs of this machine, as doctor sees them */
static void invalid_function_this_machine(void **state)
{
	(void)state;
	json_t *j = explain(invalid_function, true, "--binary", lib, NULL, NULL), *m = match(j, "rocm-gfx-target-missing");
	assert_non_null(strstr(title(j, "rocm-gfx-target-missing"), "No code for gfx1100"));
	assert_non_null(strstr(check_detail(m, "binary"), "AMD GPU 0 (gfx1100): no-image"));
	json_decref(j);
}

/* --python: the environment's framework file that has no code for the GPU */
static void invalid_function_python(void **state)
{
	(void)state;
	char opt[PATH_MAX + 16];
	snprintf(opt, sizeof opt, "--python=%s", venv);
	json_t *j = explain(invalid_function, true, opt, NULL, NULL, NULL), *m = match(j, "rocm-gfx-target-missing");
	assert_non_null(strstr(title(j, "rocm-gfx-target-missing"), "No code for gfx1100"));
	assert_non_null(strstr(check_detail(m, "binary"), "torch/lib/libtorch_hip.so carries AMD code objects for gfx90a, gfx1030"));
	assert_true(has(json_object_get(m, "fix"), "download.pytorch.org/whl/rocm"));
	json_decref(j);
	/* offline, against a GPU it has code for */
	j = explain(invalid_function, false, "--offline", opt, "--gpu=gfx1030", NULL);
	assert_non_null(strstr(check_detail(match(j, "rocm-gfx-target-missing"), "binary"), "native"));
	json_decref(j);
}

static void kfd_invalid_argument(void **state)
{
	(void)state;
	/* reading /dev/kfd: what a working install prints; here KFD shows the GPU and the node opens */
	json_t *j = explain(cat_kfd, true, NULL, NULL, NULL, NULL), *m = match(j, "rocm-kfd-access");
	assert_string_equal(json_string_value(json_object_get(m, "severity")), "info");
	assert_non_null(strstr(check_detail(m, "kfd"), "KFD shows 1 GPU"));
	assert_non_null(strstr(check_detail(m, "kfd"), "the user may open it"));
	json_decref(j);
	/* rocminfo's own open failing is the failure it was */
	j = explain(rocminfo_kfd, true, NULL, NULL, NULL, NULL);
	m = match(j, "rocm-kfd-access");
	assert_string_equal(json_string_value(json_object_get(m, "severity")), "error");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_binary_named_gpu),
		cmocka_unit_test(invalid_function_this_machine),
		cmocka_unit_test(invalid_function_python),
		cmocka_unit_test(kfd_invalid_argument),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
