/* gencode: an answer (flags or a refusal naming the toolkits that can) for every GPU row,
 * and the printed flags compiled by nvcc here into a fatbin that holds exactly the
 * images promised (listed with arch's device-code inventory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binfmt/devcode.h"
#include "rules/gencode.h"
#include "rules/plan.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

static const struct kb_toolkit *tk(const char *v)
{
	struct version ver;

	assert_int_equal(version_parse(v, &ver), CD_OK);
	assert_non_null(kb_toolkit_find(&ver));
	return kb_toolkit_find(&ver);
}

static void every_gpu_row_gets_an_answer(void **state)
{
	const struct kb_toolkit *t130 = tk("13.0");
	struct gencode_plan *p = calloc(1, sizeof(*p));
	size_t flags = 0, refused = 0;

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);
		struct gpu_spec s;
		char err[CD_ERRMSG], want[48];

		if (kb_parse_gpu_spec(g->name, &s, err) != CD_OK)
			fail_msg("%s: %s", g->name, err);
		assert_int_equal(s.arch.num, g->arch);
		assert_int_equal(gencode_plan(&s, 1, t130, true, p, err), CD_OK);
		if (kb_toolkit_accepts(t130, s.arch)) {
			snprintf(want, sizeof(want), "code=sm_%d ", g->arch);
			assert_false(p->refused);
			if (!strstr(p->nvcc, want))
				fail_msg("%s: flags '%s' lack %s", g->name, p->nvcc, want);
			flags++;
		} else {
			assert_true(p->refused);
			assert_non_null(p->t[0].refusal);
			assert_int_equal(p->nvcc[0], '\0');
			/* below 7.5 CUDA 13 dropped it; above, no 13.0 knows it (Rubin 10.7) */
			assert_string_equal(p->t[0].refusal, g->arch < 75 ? "arch-dropped-by-toolkit"
									   : "toolkit-cannot-target-gpu");
			assert_non_null(p->t[0].min_toolkit);
			/* and the toolkit it names does build it */
			assert_int_equal(gencode_plan(&s, 1, p->t[0].max_toolkit ? p->t[0].max_toolkit
										  : p->t[0].min_toolkit,
						      true, p, err), CD_OK);
			assert_false(p->refused);
			refused++;
		}
	}
	print_message("%zu GPU rows: %zu get CUDA 13.0 flags, %zu a refusal naming the toolkits "
		      "that build them\n", flags + refused, flags, refused);
	free(p);
}

static void spellings(void **state)
{
	struct gpu_spec s[3];
	struct gencode_plan *p = calloc(1, sizeof(*p));
	char err[CD_ERRMSG];

	(void)state;
	assert_non_null(p);
	assert_int_equal(kb_parse_gpu_spec("RTX 3090", &s[0], err), CD_OK);
	assert_int_equal(kb_parse_gpu_spec("sm_90a", &s[1], err), CD_OK);
	assert_int_equal(kb_parse_gpu_spec("8.6", &s[2], err), CD_OK); /* same arch twice: once */
	assert_int_equal(gencode_plan(s, 3, tk("12.4"), true, p, err), CD_OK);
	assert_string_equal(p->nvcc, "-gencode arch=compute_86,code=sm_86 "
				     "-gencode arch=compute_90a,code=sm_90a "
				     "-gencode arch=compute_90,code=compute_90");
	assert_string_equal(p->cmake, "86-real;90a-real;90-virtual");
	assert_string_equal(p->torch, "8.6;9.0a;9.0+PTX");
	assert_string_equal(p->min_driver, "525.60.13");
	assert_string_equal(p->ptx_min_driver, "550.54.14");
	assert_string_equal(p->min_toolkit->release_text, "12.0");
	assert_null(p->max_toolkit);
	/* no PTX */
	assert_int_equal(gencode_plan(s, 1, tk("12.4"), false, p, err), CD_OK);
	assert_string_equal(p->nvcc, "-gencode arch=compute_86,code=sm_86");
	assert_string_equal(p->cmake, "86-real");
	/* a toolkit too old for the GPU */
	assert_int_equal(kb_parse_gpu_spec("RTX 5090", &s[0], err), CD_OK);
	assert_int_equal(gencode_plan(s, 1, tk("12.6"), true, p, err), CD_OK);
	assert_true(p->refused);
	assert_string_equal(p->t[0].refusal, "toolkit-cannot-target-gpu");
	assert_string_equal(p->t[0].min_toolkit->release_text, "12.8");
	/* ranges that do not meet: Kepler ends at 11.8, Blackwell starts at 12.8 */
	assert_int_equal(kb_parse_gpu_spec("Tesla K80", &s[1], err), CD_OK);
	assert_int_equal(gencode_plan(s, 2, tk("12.8"), true, p, err), CD_OK);
	assert_true(p->no_common_toolkit);
	free(p);
}

static void all_and_all_major(void **state)
{
	struct gpu_spec s[GENCODE_MAX];
	size_t n;

	(void)state;
	n = gencode_all_archs(tk("13.0"), true, s, GENCODE_MAX);
	/* 7.5 8.0 9.0 10.0 11.0 12.0 */
	assert_int_equal(n, 6);
	assert_int_equal(s[0].arch.num, 75);
	assert_int_equal(s[5].arch.num, 120);
	n = gencode_all_archs(tk("13.0"), false, s, GENCODE_MAX);
	assert_int_equal(n, 12); /* what nvcc 13.0 --list-gpu-arch prints */
}

/* ---- compiled with nvcc here ---- */

static const char *nvcc_path(void)
{
#ifdef CUDOCTOR_NVCC
	if (path_is_file(CUDOCTOR_NVCC))
		return CUDOCTOR_NVCC;
#endif
	return path_is_file("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : NULL;
}

/* arch's listing (binfmt/devcode): each image's name as nvcc spells it */
static size_t list_fatbin(const unsigned char *d, size_t size, char out[][24], size_t max)
{
	struct dc_inventory inv;
	char err[CD_ERRMSG];
	size_t n = 0;

	dc_init(&inv);
	if (dc_scan(&inv, d, size, 0, err) != CD_OK)
		fail_msg("dc_scan: %s", err);
	for (size_t i = 0; i < inv.n_images && n < max; i++)
		dc_image_arch_name(&inv.images[i], out[n++], 24);
	dc_free(&inv);
	return n;
}

static void compiled_flags_hold_the_promised_images(void **state)
{
	static const char *const gpus[] = { "sm_75", "RTX 4090", "H200", "sm_90a", "sm_100f",
					    "RTX 5090" };
	static const char *const want[] = { "sm_75", "sm_89", "sm_90", "sm_90a", "sm_100f", "sm_120",
					    "compute_120" };
	const char *nvcc = nvcc_path();
	struct gpu_spec s[6];
	unsigned long hash = 5381;
	struct gencode_plan *p = calloc(1, sizeof(*p));
	char err[CD_ERRMSG], dir[512], cu[600], fb[600], cmd[4096], listed[32][24];
	struct mapped_file mf;
	struct stat st;
	size_t n;
	FILE *f;

	(void)state;
	assert_non_null(p);
	if (!nvcc) {
		print_message("SKIP: no nvcc here; the compile check did not run\n");
		free(p);
		skip();
	}
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(kb_parse_gpu_spec(gpus[i], &s[i], err), CD_OK);
	assert_int_equal(gencode_plan(s, 6, tk("13.0"), true, p, err), CD_OK);
	for (const char *c = p->nvcc; *c; c++)
		hash = hash * 33 + (unsigned char)*c;
	assert_false(p->refused);
	snprintf(dir, sizeof(dir), "%s/gencode", CUDOCTOR_BUILD_DIR);
	mkdir(dir, 0755);
	snprintf(cu, sizeof(cu), "%s/one_kernel.cu", dir);
	/* named by the flags, so a changed plan is compiled afresh */
	snprintf(fb, sizeof(fb), "%s/one_kernel_%08lx.fatbin", dir, hash & 0xffffffffUL);
	/* built once per build tree: nvcc is slow and the machine is shared */
	if (stat(fb, &st) != 0) {
		f = fopen(cu, "w");
		assert_non_null(f);
		fputs("extern \"C\" __global__ void scale(float *x, float a, int n)\n"
		      "{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\tx[i] *= a;\n}\n",
		      f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "'%s' -fatbin %s -o '%s' '%s'", nvcc, p->nvcc, fb, cu);
		if (system(cmd) != 0)
			fail_msg("nvcc failed: %s", cmd);
	}
	assert_int_equal(file_map(fb, &mf, err), CD_OK);
	n = list_fatbin(mf.data, mf.size, listed, 32);
	file_unmap(&mf);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool found = false;

		for (size_t k = 0; k < n; k++)
			found |= strcmp(listed[k], want[i]) == 0;
		if (!found)
			fail_msg("%s lacks %s (flags: %s)", fb, want[i], p->nvcc);
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	print_message("nvcc 13.0 built %s with %zu images, each one promised (listed with arch's "
		      "binfmt/devcode)\n", fb, n);
	free(p);
}

/* The command line: refusal exit code and the JSON keys of docs/json.md. */
static void command_line(void **state)
{
	const char *ok[] = { CUDOCTOR_BINARY, "--json", "gencode", "--toolkit", "12.8", "--gpu",
			     "RTX 5090", "--gpu", "8.6", NULL };
	const char *refuse[] = { CUDOCTOR_BINARY, "gencode", "--toolkit", "12.6", "--gpu", "RTX 5090",
				 NULL };
	const char *bad[] = { CUDOCTOR_BINARY, "gencode", "--gpu", "Jetson", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(ok, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"nvcc\": \"-gencode arch=compute_86,code=sm_86 "
				      "-gencode arch=compute_120,code=sm_120 "
				      "-gencode arch=compute_120,code=compute_120\""));
	assert_non_null(strstr(r.out, "\"cmake\": \"86-real;120\""));
	assert_non_null(strstr(r.out, "\"torch\": \"8.6;12.0+PTX\""));
	assert_non_null(strstr(r.out, "\"min_toolkit\": \"12.8\""));
	/* not CUDA 12's floor (525.60.13): an RTX 5090 runs only on a driver of 12.8's branch, R570 */
	assert_non_null(strstr(r.out, "\"min_driver\": \"570.26\""));
	assert_non_null(strstr(r.out, "\"max_driver_branch\": null"));
	assert_non_null(strstr(r.out, "\"targets\""));
	run_result_free(&r);
	assert_int_equal(testlib_run(refuse, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "toolkit-cannot-target-gpu"));
	assert_non_null(strstr(r.out, "CUDA 12.8 and newer"));
	run_result_free(&r);
	assert_int_equal(testlib_run(bad, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "ambiguous"));
	run_result_free(&r);
}

/* Every --gpu counts, in gencode and plan alike (kb_gpu_spec_add), up to each one's limit */
static void repeated_gpu_options(void **state)
{
	const char *plan[] = { CUDOCTOR_BINARY, "--json", "plan", "--gpu", "8.6", "-g", "H200", "--gpu=sm_120",
			       "--driver", "580", "--framework", "none", NULL };
	const char *g[2 * GENCODE_MAX + 8] = { CUDOCTOR_BINARY, "gencode" }, *p[2 * PLAN_MAX_GPUS + 8] = { CUDOCTOR_BINARY, "plan" };
	struct run_result r;
	size_t n;

	(void)state;
	assert_int_equal(testlib_run(plan, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "sm_86"));
	assert_non_null(strstr(r.out, "NVIDIA H200"));
	assert_non_null(strstr(r.out, "sm_120"));
	run_result_free(&r);
	for (n = 2; n < 2 + 2 * (GENCODE_MAX + 1); n += 2)
		g[n] = "--gpu", g[n + 1] = "8.6";
	assert_int_equal(testlib_run(g, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "at most 64 --gpu"));
	run_result_free(&r);
	for (n = 2; n < 2 + 2 * (PLAN_MAX_GPUS + 1); n += 2)
		p[n] = "--gpu", p[n + 1] = "8.6";
	assert_int_equal(testlib_run(p, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "at most 16 --gpu"));
	run_result_free(&r);
}

static int load(void **state)
{
	(void)state;
	return kb_load(NULL) == CD_OK ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_gpu_row_gets_an_answer),
		cmocka_unit_test(spellings),
		cmocka_unit_test(all_and_all_major),
		cmocka_unit_test(compiled_flags_hold_the_promised_images),
		cmocka_unit_test(command_line),
		cmocka_unit_test(repeated_gpu_options),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
