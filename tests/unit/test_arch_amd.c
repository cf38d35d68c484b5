/* `arch` and `plan` on AMD GPUs: verdicts per GPU from bundles built here (an exact target, a
 * generic target covering the GPU, one that does not, xnack+ code on an XNACK-off GPU and
 * with HSA_XNACK=1, a bundle of another target beside one that fits, SPIR-V only,
 * HSA_OVERRIDE_GFX_VERSION), the other vendor's code either way, --gpu's AMD spellings and
 * the ones refused, the findings with their fixes (the override said as unsupported), and
 * plan --gpu gfx1100 / 780M; then the real JAX ROCm plug-ins on an RX 7900 XTX, a 780M and a
 * gfx906. */
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
#include <unistd.h>

#include "hip_fixtures.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

#define HOST "host-x86_64-unknown-linux-gnu-"
#define DEV(t) "hipv4-amdgcn-amd-amdhsa--" t

/* The environment every run gets: no override, no XNACK choice, no NVIDIA driver. */
static const char *const clean_env[] = {"HSA_OVERRIDE_GFX_VERSION=", "HSA_XNACK=", "CUDOCTOR_LIBCUDA=/nonexistent",
					"CUDOCTOR_LIBNVML=/nonexistent", NULL};

/* A bare bundle of the given ids as a file. */
static void bundle_file(const char *const *ids, size_t n, char *path, size_t cap)
{
	struct buf b = make_bundle(ids, n);
	write_bundle_file(&b, path, cap);
	free(b.p);
}

/* `cudoctor --json [env] arch GPU-ARGS... FILE`: the report (caller decrefs) and the exit code. */
static json_t *arch_json(const char *file, const char *const *gpus, const char *const *env, int *status)
{
	const char *argv[24] = {CUDOCTOR_BINARY, "--json", "arch"};
	const char *e[16];
	size_t n = 3, k = 0;
	struct run_result res;
	json_error_t je;
	for (; *gpus && n < 20; gpus++) {
		argv[n++] = "--gpu";
		argv[n++] = *gpus;
	}
	argv[n++] = file;
	argv[n] = NULL;
	for (size_t i = 0; clean_env[i]; i++)
		e[k++] = clean_env[i];
	for (; env && *env && k < 15; env++)
		e[k++] = *env;
	e[k] = NULL;
	assert_int_equal(testlib_run(argv, e, NULL, &res), 0);
	json_t *j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("arch --json printed no JSON (exit %d): %s%s", res.status, res.out, res.err);
	*status = res.status;
	run_result_free(&res);
	return j;
}

static json_t *verdict(json_t *j, size_t gpu)
{
	json_t *v = json_array_get(json_object_get(json_array_get(json_object_get(j, "files"), 0), "verdicts"), gpu);
	assert_non_null(v);
	return v;
}

static const char *vstr(json_t *j, size_t gpu, const char *key)
{
	json_t *s = json_object_get(verdict(j, gpu), key);
	return s && json_is_string(s) ? json_string_value(s) : "";
}

/* The finding of id about GPU gpu (a subject ending "on GPU"), or NULL. */
static json_t *finding(json_t *j, const char *id, const char *gpu)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(j, "findings"), i, f) {
		const char *subj = json_string_value(json_object_get(f, "subject"));
		if (strcmp(json_string_value(json_object_get(f, "id")), id) == 0 && subj && strstr(subj, gpu))
			return f;
	}
	return NULL;
}

/* Whether one of f's fix lines holds text. */
static bool fix_has(json_t *f, const char *text)
{
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(f, "fix"), i, x) if (strstr(json_string_value(x), text)) return true;
	return false;
}

static void exact_and_generic_targets(void **state)
{
	(void)state;
	static const char *const ids[] = {HOST, DEV("gfx1100"), DEV("gfx90a"), DEV("gfx942")};
	static const char *const gen[] = {HOST, DEV("gfx11-generic"), DEV("gfx9-4-generic"), DEV("gfx90a")};
	char a[64], b[64];
	int st;
	bundle_file(ids, 4, a, sizeof a);
	bundle_file(gen, 4, b, sizeof b);

	json_t *j = arch_json(a, (const char *const[]){"gfx1100", "RX 7900 XTX", "MI300X", NULL}, NULL, &st);
	assert_int_equal(st, 0);
	for (size_t g = 0; g < 3; g++)
		assert_string_equal(vstr(j, g, "result"), "native");
	assert_string_equal(vstr(j, 0, "image"), "gfx1100");
	assert_string_equal(vstr(j, 0, "gfx"), "gfx1100");
	assert_true(json_is_null(json_object_get(verdict(j, 0), "compute_capability")));
	assert_string_equal(vstr(j, 1, "gpu"), "--gpu AMD Radeon RX 7900 XTX (gfx1100)");
	assert_string_equal(vstr(j, 2, "image"), "gfx942");
	json_decref(j);

	/* generic targets: gfx11-generic covers the 780M (gfx1103), gfx9-4-generic the MI300X; a
	 * gfx906 (gfx9-generic's) and a gfx1030 are covered by neither */
	j = arch_json(b, (const char *const[]){"780M", "gfx942", "gfx906", "gfx1030", NULL}, NULL, &st);
	assert_int_equal(st, 1);
	assert_string_equal(vstr(j, 0, "result"), "native");
	assert_string_equal(vstr(j, 0, "image"), "gfx11-generic");
	assert_string_equal(vstr(j, 1, "image"), "gfx9-4-generic");
	assert_string_equal(vstr(j, 2, "result"), "no-image");
	assert_string_equal(vstr(j, 3, "result"), "no-image");
	json_t *f = finding(j, "rocm-gfx-target-missing", "--gpu gfx906");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "No code for gfx906"));
	assert_true(fix_has(f, "hipcc --offload-arch=gfx906"));
	assert_true(fix_has(f, "gfx9-generic covers its family"));
	/* no gfx9 target of gfx906's family is carried: the override cannot help, and says so */
	assert_true(fix_has(f, "HSA_OVERRIDE_GFX_VERSION cannot help"));
	json_decref(j);
	unlink(a);
	unlink(b);
}

static void features_and_xnack(void **state)
{
	(void)state;
	static const char *const ids[] = {HOST, DEV("gfx90a:xnack+"), DEV("gfx942:sramecc+:xnack-")};
	char a[64];
	int st;
	bundle_file(ids, 3, a, sizeof a);
	/* gfx90a runs XNACK off unless HSA_XNACK=1; gfx942:sramecc- is an MI300X with ECC off */
	json_t *j = arch_json(a, (const char *const[]){"gfx90a:xnack-", "gfx90a", "gfx90a:xnack+", "gfx942", "gfx942:sramecc-", NULL},
			      NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "no-image");
	assert_string_equal(vstr(j, 1, "result"), "no-image");
	assert_string_equal(vstr(j, 2, "result"), "native");
	assert_string_equal(vstr(j, 2, "image"), "gfx90a:xnack+");
	assert_string_equal(vstr(j, 3, "result"), "native");
	assert_string_equal(vstr(j, 4, "result"), "no-image");
	json_t *f = finding(j, "rocm-gfx-target-missing", "--gpu gfx90a:xnack-");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "fixes xnack or sramecc"));
	assert_true(fix_has(f, "HSA_XNACK=1"));
	json_decref(j);
	/* HSA_XNACK=1 turns it on where --gpu leaves it open */
	j = arch_json(a, (const char *const[]){"gfx90a", "gfx90a:xnack-", NULL}, (const char *const[]){"HSA_XNACK=1", NULL}, &st);
	assert_string_equal(vstr(j, 0, "result"), "native");
	assert_string_equal(vstr(j, 1, "result"), "no-image");
	json_decref(j);
	unlink(a);
}

static void partial_spirv_and_override(void **state)
{
	(void)state;
	static const char *const one[] = {HOST, DEV("gfx1100"), DEV("gfx90a")};
	static const char *const two[] = {HOST, DEV("gfx90a")};
	static const char *const spirv[] = {HOST, "hipv4-spirv64-amd-amdhsa--amdgcnspirv"};
	struct buf b1 = make_bundle(one, 3), b2 = make_bundle(two, 2), sec = {0};
	char a[64], s[64];
	int st;
	put(&sec, b1.p, b1.n);
	put(&sec, b2.p, b2.n);
	write_bundle_file(&sec, a, sizeof a);
	bundle_file(spirv, 2, s, sizeof s);

	json_t *j = arch_json(a, (const char *const[]){"gfx1100", "gfx90a", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "partial");
	assert_int_equal(json_integer_value(json_object_get(verdict(j, 0), "containers_without_image")), 1);
	assert_int_equal(json_integer_value(json_object_get(verdict(j, 0), "containers_judged")), 2);
	assert_string_equal(vstr(j, 1, "result"), "native");
	json_t *f = finding(j, "rocm-partial-code-object", "gfx1100");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "1 of 2 offload bundles"));
	json_decref(j);

	j = arch_json(s, (const char *const[]){"gfx1201", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "jit");
	json_decref(j);

	/* the 780M under HSA_OVERRIDE_GFX_VERSION=11.0.0 is taken for gfx1100 */
	static const char *const rdna3[] = {HOST, DEV("gfx1100"), DEV("gfx1030")};
	char o[64];
	bundle_file(rdna3, 3, o, sizeof o);
	j = arch_json(o, (const char *const[]){"780M", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "no-image");
	f = finding(j, "rocm-gfx-target-missing", "780M");
	assert_non_null(f);
	/* the override that would load the family's code, said as unsupported and risky */
	assert_true(fix_has(f, "HSA_OVERRIDE_GFX_VERSION=11.0.0 would make ROCm load the file's gfx1100 code"));
	assert_true(fix_has(f, "AMD does not support that"));
	assert_true(fix_has(f, "ROCm does not list the AMD Radeon 780M"));
	json_decref(j);
	j = arch_json(o, (const char *const[]){"780M", NULL}, (const char *const[]){"HSA_OVERRIDE_GFX_VERSION=11.0.0", NULL}, &st);
	assert_string_equal(vstr(j, 0, "result"), "native");
	assert_non_null(strstr(vstr(j, 0, "reason"), "HSA_OVERRIDE_GFX_VERSION=11.0.0"));
	json_decref(j);
	unlink(a);
	unlink(s);
	unlink(o);
	free(b1.p);
	free(b2.p);
	free(sec.p);
}

static void other_vendor(void **state)
{
	(void)state;
	static const char *const ids[] = {HOST, DEV("gfx1100")};
	char a[64];
	int st;
	bundle_file(ids, 2, a, sizeof a);
	json_t *j = arch_json(a, (const char *const[]){"sm_90", NULL}, NULL, &st);
	assert_int_equal(st, 1);
	assert_string_equal(vstr(j, 0, "result"), "no-image");
	assert_true(json_is_true(json_object_get(verdict(j, 0), "other_vendor")));
	json_t *f = finding(j, "gpu-vendor-mismatch", "sm_90");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "Built for AMD GPUs"));
	json_decref(j);
	j = arch_json(CUDOCTOR_FIXTURES_DIR "/arch/k_exe", (const char *const[]){"RX 7900 XTX", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "no-image");
	f = finding(j, "gpu-vendor-mismatch", "7900 XTX");
	assert_non_null(f);
	assert_non_null(strstr(json_string_value(json_object_get(f, "title")), "Built for NVIDIA GPUs"));
	json_decref(j);
	unlink(a);
}

static void gpu_specs_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {"gfx11-generic", "gfx1100:xnack+", "gfx9999", "gfx90a:tgsplit+"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *argv[] = {CUDOCTOR_BINARY, "arch", "--gpu", bad[i], "/dev/null", NULL};
		struct run_result res;
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
		if (res.status != 2)
			fail_msg("--gpu %s: exit %d, expected 2 (usage): %s", bad[i], res.status, res.err);
		assert_non_null(strstr(res.err, "--gpu"));
		run_result_free(&res);
	}
}

static void plan_for_amd(void **state)
{
	(void)state;
	struct run_result res;
	json_error_t je;
	const char *a[] = {CUDOCTOR_BINARY, "-q", "plan", "--gpu", "RX 7900 XTX", NULL};
	assert_int_equal(testlib_run(a, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 0);
	/* the newest ROCm torch build with gfx1100 code, as kb/rocm_builds.tsv lists it */
	assert_string_equal(res.out, "pip install torch==2.9.1 --index-url https://download.pytorch.org/whl/rocm6.4\n");
	run_result_free(&res);

	const char *b[] = {CUDOCTOR_BINARY, "--json", "plan", "--gpu", "780M", NULL};
	assert_int_equal(testlib_run(b, NULL, NULL, &res), 0);
	json_t *j = json_loads(res.out, 0, &je), *g = json_array_get(json_object_get(j, "gpus"), 0), *f;
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "gfx")), "gfx1103");
	assert_string_equal(json_string_value(json_object_get(g, "generic")), "gfx11-generic");
	assert_true(json_is_null(json_object_get(json_object_get(g, "pick"), "build")));
	f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "plan-no-rocm-build");
	assert_true(fix_has(f, "HSA_OVERRIDE_GFX_VERSION=11.0.0"));
	assert_true(fix_has(f, "AMD does not support that"));
	json_decref(j);
	run_result_free(&res);

	const char *c[] = {CUDOCTOR_BINARY, "plan", "--gpu", "gfx1100", "--gpu", "sm_90", NULL};
	assert_int_equal(testlib_run(c, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 2);
	run_result_free(&res);
}

/* The real plug-ins: ROCm 6.0's carries gfx1100 (an RX 7900 XTX runs it), no gfx1103 and no
 * generic target (a 780M does not); ROCm 7's carries gfx11-generic (the 780M runs it) but
 * nothing for gfx906. */
static void real_plugins(void **state)
{
	(void)state;
	char p60[PATH_MAX + 64], p7[PATH_MAX + 64];
	int st;
	if (!rocm_files())
		skip();
	snprintf(p60, sizeof p60, "%s/jax_rocm60_plugin/_blas.so", rocm60.dir);
	snprintf(p7, sizeof p7, "%s/jax_rocm7_plugin/_linalg.so", rocm7.dir);
	json_t *j = arch_json(p60, (const char *const[]){"RX 7900 XTX", "780M", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "native");
	assert_string_equal(vstr(j, 1, "result"), "no-image");
	json_t *f = finding(j, "rocm-gfx-target-missing", "780M");
	assert_non_null(f);
	assert_true(fix_has(f, "pip install jax==0.10.0 jax-rocm7-plugin==0.10.0"));
	json_decref(j);
	j = arch_json(p7, (const char *const[]){"780M", "gfx906", NULL}, NULL, &st);
	assert_string_equal(vstr(j, 0, "result"), "native");
	assert_string_equal(vstr(j, 0, "image"), "gfx11-generic");
	assert_string_equal(vstr(j, 1, "result"), "no-image");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_and_generic_targets), cmocka_unit_test(features_and_xnack),
		cmocka_unit_test(partial_spirv_and_override), cmocka_unit_test(other_vendor),
		cmocka_unit_test(gpu_specs_refused),          cmocka_unit_test(plan_for_amd),
		cmocka_unit_test(real_plugins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
