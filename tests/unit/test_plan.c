/* plan: fixed GPU sets and drivers, each answer checked against the kb tables it comes from
 * (kb/torch.tsv, kb/frameworks.tsv, drivers.tsv, toolkits.tsv) rather than against itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/plan.h"
#include "testlib.h"
#include "util/err.h"

static struct plan *make(const char *const gpus[], const char *driver, enum plan_framework fw,
			 const char *fw_version)
{
	static struct gpu_spec specs[PLAN_MAX_GPUS];
	struct plan_input in = { 0 };
	struct plan *p = calloc(1, sizeof(*p));
	char err[CD_ERRMSG];

	assert_non_null(p);
	for (in.n_gpus = 0; gpus[in.n_gpus]; in.n_gpus++)
		assert_int_equal(kb_parse_gpu_spec(gpus[in.n_gpus], &specs[in.n_gpus], err), CD_OK);
	in.gpus = specs;
	if (driver)
		assert_int_equal(plan_driver_parse(driver, &in.driver, err), CD_OK);
	in.framework = fw;
	if (fw_version)
		assert_int_equal(version_parse(fw_version, &in.fw_version), CD_OK);
	assert_int_equal(plan_make(&in, p, err), CD_OK);
	return p;
}

static bool has_arch(const struct kb_torch_build *b, int arch)
{
	for (size_t i = 0; i < b->n_archs; i++)
		if (b->archs[i].num == arch)
			return true;
	return false;
}

/* the newest release that still publishes CUDA 12.x wheels (2.15 and later publish none) */
static const struct kb_torch_build *newest_release(void)
{
	for (size_t i = kb_torch_count(); i-- > 0;)
		if (kb_torch_at(i)->cuda.major == 12)
			return kb_torch_at(i);
	return kb_torch_at(kb_torch_count() - 1);
}

static const struct plan_torch *variant(const struct plan *p, const char *release, const char *v)
{
	for (size_t i = 0; i < p->n_torch; i++)
		if (strcmp(p->torch[i].b->release, release) == 0 && strcmp(p->torch[i].b->variant, v) == 0)
			return &p->torch[i];
	fail_msg("torch %s %s not planned", release, v);
	return NULL;
}

static const struct plan_toolkit *toolkit(const struct plan *p, const char *release)
{
	for (size_t i = 0; i < p->n_tk; i++)
		if (strcmp(p->tk[i].tk->release_text, release) == 0)
			return &p->tk[i];
	fail_msg("toolkit %s not planned", release);
	return NULL;
}

static void driver_parse(void **state)
{
	struct plan_driver d;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(plan_driver_parse("R550", &d, err), CD_OK);
	assert_int_equal(d.branch, 550);
	assert_int_equal(d.cuda.major, 12);
	assert_int_equal(d.cuda.minor, 4);
	assert_int_equal(plan_driver_parse("572.61", &d, err), CD_OK); /* Windows numbering */
	assert_int_equal(d.branch, 570);
	assert_int_equal(plan_driver_parse("580.65.06", &d, err), CD_OK);
	assert_int_equal(d.cuda.major, 13);
	assert_int_equal(plan_driver_parse("abc", &d, err), CD_EUSAGE);
	assert_int_equal(plan_driver_parse("12.4", &d, err), CD_EUSAGE); /* a CUDA version, not a driver */
}

/* RTX 4060 Ti (sm_89) on R550 (CUDA 12.4): no wheel carries sm_89, sm_86 SASS serves it */
static void rtx4060ti_on_r550(void **state)
{
	struct plan *p = make((const char *[]){ "RTX 4060 Ti", NULL }, "550", PLAN_FW_TORCH, NULL);
	const struct plan_torch *pick;

	(void)state;
	assert_int_equal(p->drv_verdict, PLAN_DRV_OK);
	assert_int_equal(p->gpu[0].first_branch, 520); /* CUDA 11.8 first targets sm_89 */
	assert_int_equal(p->gpu[0].last_branch, 0);
	assert_int_equal(toolkit(p, "12.4")->driver_fit, CUDA_FITS);
	assert_int_equal(toolkit(p, "12.8")->driver_fit, CUDA_NEWER_MINOR);
	assert_int_equal(toolkit(p, "13.0")->driver_fit, CUDA_NEWER_MAJOR);
	assert_true(p->torch_pick >= 0);
	pick = &p->torch[p->torch_pick];
	assert_string_equal(pick->b->release, newest_release()->release);
	assert_int_equal(pick->b->cuda.major, 12);       /* a 13.x wheel needs R580 */
	assert_false(has_arch(pick->b, 89));
	assert_true(has_arch(pick->b, 86));
	assert_int_equal(pick->fit[0], PLAN_FIT_SASS_COMPAT);
	assert_int_equal(pick->via[0].num, 86);
	assert_int_equal(pick->driver_fit, CUDA_NEWER_MINOR); /* 12.6 on a 12.4 driver */
	/* the toolkit follows the wheel's CUDA */
	assert_true(p->tk_pick >= 0);
	assert_int_equal(version_cmp(&p->tk[p->tk_pick].tk->release, &pick->b->cuda), 0);
	free(p);
}

/* the newest release with a CUDA 12.x (<= 12.8) variant carrying sm_120 SASS */
static const struct kb_torch_build *newest_120_on_128(void)
{
	const struct kb_torch_build *best = NULL;

	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		if (b->cuda.major == 12 && has_arch(b, 120) &&
		    (!best || version_cmp(&b->release_v, &best->release_v) > 0 ||
		     (version_cmp(&b->release_v, &best->release_v) == 0 && !b->experimental && best->experimental)))
			best = b;
	}
	return best;
}

static void rtx5060ti_on_r570_and_r550(void **state)
{
	struct plan *p = make((const char *[]){ "RTX 5060 Ti", NULL }, "570", PLAN_FW_TORCH, NULL);
	const struct kb_torch_build *want = newest_120_on_128();

	(void)state;
	assert_non_null(want);
	assert_int_equal(p->gpu[0].first_branch, 570);
	assert_int_equal(p->drv_verdict, PLAN_DRV_OK);
	assert_true(p->torch_pick >= 0);
	assert_string_equal(p->torch[p->torch_pick].b->release, want->release);
	assert_int_equal(p->torch[p->torch_pick].fit[0], PLAN_FIT_SASS);
	assert_int_equal(p->torch[p->torch_pick].b->cuda.major, 12);
	/* the newest release has no 12.x variant with sm_120: its cu126 carries nothing for it */
	assert_int_equal(variant(p, newest_release()->release, "cu126")->fit[0], PLAN_FIT_NONE);
	free(p);

	p = make((const char *[]){ "RTX 5060 Ti", NULL }, "550", PLAN_FW_TORCH, NULL);
	assert_int_equal(p->drv_verdict, PLAN_DRV_TOO_OLD);
	assert_false(p->gpu[0].driver_supports);
	assert_int_equal(p->torch_pick, -1);
	assert_true(p->torch_pick_any_driver >= 0);
	assert_true(plan_torch_min_branch(p, &p->torch[p->torch_pick_any_driver]) >= 570);
	free(p);
}

/* GTX 1080 (sm_61) on R580 with PyTorch's newest release: no wheel carries sm_61 */
static void gtx1080_on_r580_newest(void **state)
{
	struct kb_arch sm61 = { 61, 0 };
	const struct kb_torch_build *newest = newest_release();
	char rel[16];
	struct plan *p;
	const struct plan_torch *pick;

	(void)state;
	snprintf(rel, sizeof(rel), "%d.%d", newest->release_v.major, newest->release_v.minor);
	p = make((const char *[]){ "GTX 1080", NULL }, "580", PLAN_FW_TORCH, rel);
	assert_null(plan_torch_last_exact(sm61));
	for (size_t i = 0; i < kb_torch_count(); i++)
		assert_false(has_arch(kb_torch_at(i), 61));
	assert_int_equal(p->gpu[0].last_branch, 580);
	assert_int_equal(p->drv_verdict, PLAN_DRV_OK);
	assert_true(p->torch_pick >= 0);
	pick = &p->torch[p->torch_pick];
	assert_string_equal(pick->b->release, newest->release);
	assert_true(has_arch(pick->b, 60));
	assert_int_equal(pick->fit[0], PLAN_FIT_SASS_COMPAT);
	assert_int_equal(pick->via[0].num, 60);
	/* its CUDA 13 variants carry nothing below sm_75 */
	for (size_t i = 0; i < p->n_torch; i++)
		if (p->torch[i].b->cuda.major >= 13)
			assert_int_equal(p->torch[i].fit[0], PLAN_FIT_NONE);
	/* a toolkit that builds sm_61 ends with 12.9 */
	assert_true(toolkit(p, "12.9")->builds_all);
	assert_false(toolkit(p, "13.0")->builds_all);
	free(p);
}

static void v100_and_h200(void **state)
{
	struct plan *p = make((const char *[]){ "V100", "H200", NULL }, "580.65.06", PLAN_FW_TORCH, NULL);
	const struct plan_torch *pick;

	(void)state;
	assert_int_equal(p->drv_first, 520);
	assert_int_equal(p->drv_first_gpu, 1); /* the H200 sets the first branch */
	assert_int_equal(p->drv_last, 580);
	assert_int_equal(p->drv_last_gpu, 0);  /* the V100 the last */
	assert_false(toolkit(p, "13.0")->builds_all);
	assert_int_equal(toolkit(p, "13.0")->blocker, 0);
	assert_true(toolkit(p, "12.9")->builds_all);
	assert_string_equal(p->tk[p->tk_pick].tk->release_text, p->torch[p->torch_pick].b->cuda_text);
	pick = &p->torch[p->torch_pick];
	assert_true(has_arch(pick->b, 70) && has_arch(pick->b, 90));
	assert_int_equal(pick->fit[0], PLAN_FIT_SASS);
	assert_int_equal(pick->fit[1], PLAN_FIT_SASS);
	assert_int_equal(p->n_groups, 0);
	free(p);
}

static void jetson_orin(void **state)
{
	struct plan *p = make((const char *[]){ "Jetson AGX Orin", NULL }, NULL, PLAN_FW_TORCH, NULL);
	struct plan *q = make((const char *[]){ "8.7", NULL }, NULL, PLAN_FW_TORCH, NULL);

	(void)state;
	assert_true(p->any_jetson && p->gpu[0].jetson);
	assert_int_equal(p->n_torch, 0); /* download.pytorch.org's wheels do not apply */
	assert_true(q->gpu[0].jetson);   /* every sm_87 product in gpus.tsv is a Jetson */
	assert_true(toolkit(p, "11.4")->builds_all);
	free(p);
	free(q);
}

static void gtx1080_and_rtx5090_split(void **state)
{
	struct plan *p = make((const char *[]){ "GTX 1080", "RTX 5090", NULL }, "580", PLAN_FW_TORCH, NULL);

	(void)state;
	assert_int_equal(p->drv_first, 570);
	assert_int_equal(p->drv_last, 580);
	assert_int_equal(p->torch_pick_any_driver, -1);
	assert_int_equal(p->n_groups, 2);
	for (size_t k = 0; k < 2; k++) {
		const struct plan_torch *t = &p->torch[p->group[k].choice];

		assert_true(p->group[k].choice >= 0);
		assert_true(p->group[k].member[k]);
		assert_true(t->fit[k] <= PLAN_FIT_PTX);
	}
	assert_true(has_arch(p->torch[p->group[0].choice].b, 60));
	assert_true(has_arch(p->torch[p->group[1].choice].b, 120));
	free(p);
}

static void other_frameworks(void **state)
{
	struct plan *p = make((const char *[]){ "GTX 1080", NULL }, "580", PLAN_FW_JAX, NULL);

	(void)state;
	assert_true(p->fw_pick >= 0);
	assert_string_equal(p->fw[p->fw_pick].b->variant, "cuda12"); /* CUDA 13 builds no sm_61 */
	free(p);
	p = make((const char *[]){ "V100", NULL }, "580", PLAN_FW_VLLM, NULL);
	assert_int_equal(p->fw_pick, -1); /* vLLM wants 7.5+ */
	free(p);
	p = make((const char *[]){ "GTX 1080", NULL }, "550", PLAN_FW_OLLAMA, NULL);
	assert_int_equal(p->fw_pick, -1); /* CC 5.0-6.2 needs driver 570 */
	free(p);
	p = make((const char *[]){ "GTX 1080", NULL }, "570", PLAN_FW_OLLAMA, NULL);
	assert_true(p->fw_pick >= 0);
	free(p);
}

/* A Pascal GPU with no driver given: the newest patch of the last series that builds for it
 * (2.14.1 of the 2.14 series, the last with CUDA 12.6 wheels) */
static void gtx1080_newest_patch(void **state)
{
	struct plan *p = make((const char *[]){ "GTX 1080", NULL }, NULL, PLAN_FW_TORCH, NULL);
	const char *argv[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "GTX 1080", NULL };
	const char *wide[] = { "COLUMNS=9999", NULL };
	struct run_result r;

	(void)state;
	assert_true(p->torch_pick >= 0);
	assert_string_equal(p->torch[p->torch_pick].b->release, "2.14.1");
	assert_string_equal(p->torch[p->torch_pick].b->variant, "cu126");
	free(p);
	assert_int_equal(testlib_run(argv, wide, NULL, &r), 0);
	assert_non_null(strstr(r.out, "torch 2.14.1 cu126"));
	run_result_free(&r);
}

/* Ollama asks driver 550 of GPUs 7.0 and newer (its docs/gpu.mdx): a 535 driver is too old,
 * and plan says which driver it needs */
static void ollama_on_r535(void **state)
{
	struct plan *p = make((const char *[]){ "RTX 3090", NULL }, "535", PLAN_FW_OLLAMA, NULL);
	const char *argv[] = { CUDOCTOR_BINARY, "plan", "--gpu", "RTX 3090", "--driver", "535", "--framework", "ollama", NULL };
	const char *wide[] = { "COLUMNS=9999", NULL };
	struct run_result r;
	bool seen = false;

	(void)state;
	assert_int_equal(p->fw_pick, -1);
	for (size_t i = 0; i < p->n_fw; i++)
		if (p->fw[i].fits_gpus) {
			assert_string_equal(p->fw[i].b->min_driver_text, "550");
			assert_int_equal(p->fw[i].driver_ok, 0);
			seen = true;
		}
	assert_true(seen);
	free(p);
	p = make((const char *[]){ "RTX 3090", NULL }, "550", PLAN_FW_OLLAMA, NULL);
	assert_true(p->fw_pick >= 0);
	free(p);
	assert_int_equal(testlib_run(argv, wide, NULL, &r), 0);
	assert_non_null(strstr(r.out, "too old (needs R550+)"));
	run_result_free(&r);
}

static void command_line(void **state)
{
	const char *ok[] = { CUDOCTOR_BINARY, "plan", "--gpu", "RTX 4060 Ti", "--driver", "550", NULL };
	const char *js[] = { CUDOCTOR_BINARY, "--json", "plan", "--gpu", "RTX 5060 Ti", "--driver", "R550", NULL };
	const char *bad[] = { CUDOCTOR_BINARY, "plan", "--gpu", "H200", "--framework", "tensorflow", NULL };
	const char *kb[] = { CUDOCTOR_BINARY, "kb", "torch", "2.7", NULL };
	const char *quiet[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "RTX 4060 Ti", "--driver", "550", NULL };
	const char *quiet_split[] = { CUDOCTOR_BINARY, "-q", "plan", "--gpu", "GTX 1080", "--gpu", "RTX 5090", NULL };
	const char *wide[] = { "COLUMNS=9999", NULL }; /* the pip line read whole */
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(ok, wide, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "pip install torch=="));
	assert_non_null(strstr(r.out, "uv pip install torch=="));
	assert_non_null(strstr(r.out, "--index-url https://download.pytorch.org/whl/cu"));
	run_result_free(&r);
	assert_int_equal(testlib_run(js, NULL, NULL, &r), 0);
	assert_non_null(strstr(r.out, "\"plan-driver-change\""));
	assert_non_null(strstr(r.out, "\"torch_builds\""));
	assert_non_null(strstr(r.out, "\"verdict\": \"too-old\""));
	run_result_free(&r);
	assert_int_equal(testlib_run(bad, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--framework"));
	run_result_free(&r);
	assert_int_equal(testlib_run(kb, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "torch 2.7.1 cu128"));
	assert_non_null(strstr(r.out, "sm_120"));
	run_result_free(&r);
	/* -q: the driver's verdict, the toolkit, the build and its install line; then the warnings */
	assert_int_equal(testlib_run(quiet, NULL, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "driver: this driver, R550 (CUDA 12.4), supports every GPU\n"
				   "toolkit: CUDA 12.6\n"
				   "torch 2.14.1 cu126: pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126\n");
	run_result_free(&r);
	assert_int_equal(testlib_run(quiet_split, NULL, NULL, &r), 0);
	/* the answer lines on stdout, the warning on stderr, a line each */
	assert_null(strstr(r.out, "plan-no-single-build"));
	assert_string_equal(r.err, "warn plan-no-single-build: No single torch build carries code for every GPU: "
				   "2 environments [torch]\n");
	assert_null(strstr(r.err, "evidence"));
	run_result_free(&r);
}

/* A split of the GPUs here names each environment's GPUs by UUID, which survives a reorder
 * (CUDA_DEVICE_ORDER, a GPU added); GPUs named with --gpu have no UUID to give. */
static void split_by_uuid(void **state)
{
	const char *env[] = { "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			      "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
			      "FAKE_GPUS=NVIDIA GeForce GTX 1080:6.1:8GiB;NVIDIA GeForce RTX 5090:12.0:32GiB",
			      "FAKE_NVML_DRIVER_VERSION=575.57.08", "FAKE_NVML_CUDA_VERSION=12090",
			      "FAKE_CUDA_DRIVER_VERSION=12090", "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", NULL };
	const char *here[] = { CUDOCTOR_BINARY, "--json", "plan", NULL };
	const char *named[] = { CUDOCTOR_BINARY, "--json", "plan", "--gpu", "GTX 1080", "--gpu", "RTX 5090", NULL };
	const char *uuids[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
	struct run_result r, d;
	json_t *j;
	const char *u0, *u1;
	char want[256];

	(void)state;
	assert_int_equal(testlib_run(uuids, env, NULL, &d), 0);
	assert_non_null(j = json_loads(d.out, 0, NULL));
	u0 = json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "uuid"));
	u1 = json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 1), "uuid"));
	assert_non_null(u0);
	assert_non_null(u1);
	assert_int_equal(testlib_run(here, env, NULL, &r), 0);
	snprintf(want, sizeof want, "(CUDA_VISIBLE_DEVICES=%s)", u0);
	assert_non_null(strstr(r.out, want));
	snprintf(want, sizeof want, "(CUDA_VISIBLE_DEVICES=%s)", u1);
	assert_non_null(strstr(r.out, want));
	assert_null(strstr(r.out, "CUDA_VISIBLE_DEVICES=0"));
	run_result_free(&r);
	json_decref(j);
	run_result_free(&d);
	assert_int_equal(testlib_run(named, NULL, NULL, &r), 0);
	assert_non_null(strstr(r.out, "(CUDA_VISIBLE_DEVICES=the UUIDs `nvidia-smi -L` prints for these GPUs)"));
	run_result_free(&r);
}

/* malformed framework tables are refused with file:line: column */
static void malformed_tables(void **state)
{
	struct kb_blob blobs[2] = {
		{ "torch.tsv", (const unsigned char *)"release\tvariant\tcuda\tstatus\tplatform\tarchs\tptx\tindex_url\tuncertain\tsource\tnotes\n"
			"2.7.1\tcu128\t12.6\tstable\tx86_64\t75 80\t-\thttps://download.pytorch.org/whl/cu128\tno\tX\t\n", 0 },
		{ "frameworks.tsv", (const unsigned char *)"framework\trelease\tvariant\tcuda\tmin_cc\tmax_cc\tmin_driver\tinstall\tuncertain\tsource\tnotes\n", 0 },
	};
	char err[CD_ERRMSG];

	(void)state;
	blobs[0].size = strlen((const char *)blobs[0].data);
	blobs[1].size = strlen((const char *)blobs[1].data);
	assert_int_equal(kb_fw_load_blobs(blobs, 2, err), CD_EFORMAT);
	assert_non_null(strstr(err, "torch.tsv:2: column variant"));
	assert_int_equal(kb_torch_count(), 0);
	assert_int_equal(kb_fw_load_blobs(kb_blobs, kb_blob_count, err), CD_OK);
	assert_true(kb_torch_count() > 40);
}

static void check_sources(const char *list, const char *where)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ";");
		char key[240];

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		if (strncmp(key, "https://", 8) != 0 && !kb_source_find(key))
			fail_msg("%s cites %s, which kb/sources.tsv does not explain", where, key);
	}
}

/* every row names a URL through its keys or itself */
static void rows_are_sourced(void **state)
{
	(void)state;
	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		check_sources(b->source, b->release);
		assert_non_null(strstr(b->source, "https://"));
		/* the CUDA of every variant is a toolkit the tables know */
		assert_non_null(kb_toolkit_find(&b->cuda));
	}
	for (size_t i = 0; i < kb_fw_count(); i++) {
		const struct kb_source *s = kb_source_find(kb_fw_at(i)->source);

		check_sources(kb_fw_at(i)->source, kb_fw_at(i)->framework);
		assert_true(s == NULL || strstr(s->what, "https://") != NULL);
	}
}

static int load(void **state)
{
	char err[CD_ERRMSG];

	(void)state;
	return kb_load(err) != CD_OK || kb_fw_load(err) != CD_OK;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_by_uuid),
		cmocka_unit_test(driver_parse),
		cmocka_unit_test(rtx4060ti_on_r550),
		cmocka_unit_test(rtx5060ti_on_r570_and_r550),
		cmocka_unit_test(gtx1080_on_r580_newest),
		cmocka_unit_test(v100_and_h200),
		cmocka_unit_test(jetson_orin),
		cmocka_unit_test(gtx1080_and_rtx5090_split),
		cmocka_unit_test(other_frameworks),
		cmocka_unit_test(gtx1080_newest_patch),
		cmocka_unit_test(ollama_on_r535),
		cmocka_unit_test(command_line),
		cmocka_unit_test(malformed_tables),
		cmocka_unit_test(rows_are_sourced),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
