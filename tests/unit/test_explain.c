/* explain's matcher on the corpus of real error texts in tests/explain/ (each from a
 * public issue, its URL in the .expect file): the findings must be exactly the expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "report/report.h"
#include "rules/oom.h"
#include "cmd/explain/nccl.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#define CORPUS CUDOCTOR_SOURCE_DIR "/tests/explain"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The findings of a text: the matcher's, and the NCCL log rules' as explain adds them. */
struct ids {
	char id[32][48];
	bool error[32];
	size_t n;
};

static void add_id(struct ids *ids, const char *id, bool error)
{
	for (size_t i = 0; i < ids->n; i++)
		if (strcmp(ids->id[i], id) == 0)
			return;
	if (ids->n < 32) {
		snprintf(ids->id[ids->n], sizeof(ids->id[0]), "%s", id);
		ids->error[ids->n++] = error;
	}
}

static void findings_of(const char *text, size_t len, struct ids *ids)
{
	struct explain_result r;
	struct report rep;
	char err[CD_ERRMSG];

	memset(ids, 0, sizeof(*ids));
	assert_int_equal(explain_text(text, len, &r, err), CD_OK);
	explain_result_classify_oom(&r, oom_finding_of);
	for (size_t i = 0; i < r.n; i++) {
		const struct kb_finding *x = kb_finding_find(r.m[i].finding);
		char id[64];

		/* a case row ("torch-cpu-only/tf-windows") is emitted as its id */
		snprintf(id, sizeof(id), "%.*s", (int)strcspn(r.m[i].finding, "/"), r.m[i].finding);
		add_id(ids, id, !x || strcmp(x->severity, "error") == 0);
	}
	explain_result_free(&r);
	assert_int_equal(report_init(&rep, "explain"), CD_OK);
	assert_int_equal(nccl_explain(&rep, text, len, err), CD_OK);
	for (size_t i = 0; i < rep.n_findings; i++)
		add_id(ids, rep.findings[i].id, rep.findings[i].severity == SEV_ERROR);
	report_free(&rep);
}

static bool has_id(const struct ids *ids, const char *id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (strcmp(ids->id[i], id) == 0)
			return true;
	return false;
}

static void list_ids(const struct ids *ids, char *why, size_t n)
{
	size_t used = (size_t)snprintf(why, n, "got %zu findings:", ids->n);

	for (size_t i = 0; i < ids->n && used < n; i++)
		used += (size_t)snprintf(why + used, n - used, " %s", ids->id[i]);
}

/* The .expect file: "expect: a b" (exactly these findings), "absent: c" (never this one),
 * "class: false-positive" (no error finding at all). */
static bool judged(const char *expect, const struct ids *ids, char *why, size_t n)
{
	char buf[4096];
	char *save = NULL;
	bool fp = strstr(expect, "class: false-positive") != NULL, have_expect = false;
	size_t want = 0;

	snprintf(buf, sizeof(buf), "%s", expect);
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *save2 = NULL, *rest;
		bool is_expect = strncmp(line, "expect:", 7) == 0, is_absent = strncmp(line, "absent:", 7) == 0;

		if (!is_expect && !is_absent)
			continue;
		have_expect |= is_expect;
		rest = line + 7;
		for (char *id = strtok_r(rest, " ", &save2); id; id = strtok_r(NULL, " ", &save2)) {
			if (is_expect && !has_id(ids, id)) {
				snprintf(why, n, "missing %s", id);
				return false;
			}
			if (is_absent && has_id(ids, id)) {
				snprintf(why, n, "has %s, which must be absent", id);
				return false;
			}
			want += is_expect;
		}
	}
	if (fp) {
		for (size_t i = 0; i < ids->n; i++)
			if (ids->error[i]) {
				list_ids(ids, why, n);
				return false;
			}
		return true;
	}
	if (!have_expect || want != ids->n) {
		list_ids(ids, why, n);
		return false;
	}
	return true;
}

static void whole_corpus(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	char *names[1024];
	size_t n = 0, failed = 0, sourced = 0, fps = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL && n < 1024) {
		size_t len = strlen(e->d_name);

		if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[512], *text = NULL, *expect = NULL, why[512], err[CD_ERRMSG];
		size_t len, elen;
		struct ids ids;

		snprintf(path, sizeof(path), "%s/%s", CORPUS, names[i]);
		assert_int_equal(file_read_text(path, 1 << 20, &text, &len, err), CD_OK);
		strcpy(path + strlen(path) - 4, ".expect");
		assert_int_equal(file_read_text(path, 4096, &expect, &elen, err), CD_OK);
		sourced += strstr(expect, "source: https://") != NULL;
		fps += strstr(expect, "class: false-positive") != NULL;
		findings_of(text, len, &ids);
		if (!judged(expect, &ids, why, sizeof(why))) {
			print_error("%s: %s\n", names[i], why);
			failed++;
		}
		free(text);
		free(expect);
		free(names[i]);
	}
	print_message("%zu corpus texts, %zu with a public URL, %zu false positives, %zu failed\n", n, sourced,
		      fps, failed);
	assert_true(sourced >= 160);
	assert_true(fps >= 10);
	assert_int_equal(failed, 0);
}

/* Calls fn with each corpus file whose name ends in suffix and whose number is at least from,
 * its text read whole (at most max bytes), in directory order. */
typedef void corpus_fn(const char *name, const char *text, size_t len, void *ctx);

static void corpus_each(const char *suffix, long from, size_t max, corpus_fn *fn, void *ctx)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	size_t slen = strlen(suffix);

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[512], *text = NULL, err[CD_ERRMSG];
		size_t len = strlen(e->d_name);

		if (len <= slen || strcmp(e->d_name + len - slen, suffix) != 0 || strtol(e->d_name, NULL, 10) < from)
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS, e->d_name);
		assert_int_equal(file_read_text(path, max, &text, &len, err), CD_OK);
		fn(e->d_name, text, len, ctx);
		free(text);
	}
	closedir(d);
}

/* ---- the corpus's quotas over the texts gathered for diagnosis beyond the texts seen ---- */

/* The texts from this number on carry tags judged from their thread: year (or unknown),
 * platform, kind (runtime, build, install, container), framework. */
#define TAGGED_FROM 778

struct quota_counts {
	size_t texts, recent, unknown_year, windows, build, tf_jax, consumer, rocm, fps;
};

static bool tag_is(const char *expect, const char *tag, const char *value)
{
	char want[96];

	snprintf(want, sizeof(want), "\n%s: %s\n", tag, value);
	return strstr(expect, want) != NULL;
}

static void count_quota(const char *name, const char *expect, size_t len, void *ctx)
{
	struct quota_counts *q = ctx;
	const char *year = strstr(expect, "\nyear: ");

	(void)len;
	if (!year || !strstr(expect, "\nplatform: ") || !strstr(expect, "\nkind: ") || !strstr(expect, "\nframework: "))
		fail_msg("%s: year, platform, kind and framework tags are required from %d on", name, TAGGED_FROM);
	q->texts++;
	q->recent += strncmp(year + 7, "2025", 4) == 0 || strncmp(year + 7, "2026", 4) == 0;
	q->unknown_year += strncmp(year + 7, "unknown", 7) == 0;
	q->windows += tag_is(expect, "platform", "windows");
	q->build += tag_is(expect, "kind", "build");
	q->tf_jax += tag_is(expect, "framework", "tensorflow") || tag_is(expect, "framework", "jax");
	q->consumer += tag_is(expect, "framework", "ollama") || tag_is(expect, "framework", "llama.cpp") ||
		       tag_is(expect, "framework", "comfyui");
	q->rocm += strstr(expect, "expect: rocm-") != NULL || tag_is(expect, "framework", "rocm");
	q->fps += strstr(expect, "class: false-positive") != NULL;
}

static void count_quotas(struct quota_counts *q)
{
	memset(q, 0, sizeof(*q));
	corpus_each(".expect", TAGGED_FROM, 4096, count_quota, q);
}

static void corpus_quotas(void **state)
{
	struct quota_counts q;

	(void)state;
	count_quotas(&q);
	print_message("%zu tagged texts: %zu from 2025-2026 (%zu of unknown year), %zu Windows, %zu build logs, "
		      "%zu TensorFlow/JAX, %zu Ollama/llama.cpp/ComfyUI, %zu ROCm, %zu false positives\n",
		      q.texts, q.recent, q.unknown_year, q.windows, q.build, q.tf_jax, q.consumer, q.rocm, q.fps);
	assert_true(q.texts >= 100);
	assert_true(q.windows >= 25);
	assert_true(q.build >= 20);
	assert_true(q.tf_jax >= 15);
	assert_true(q.consumer >= 15);
	assert_true(q.rocm >= 10);
	assert_true(q.fps >= 1);
}

/* A third from 2025-2026: failed when even every text of unknown year counted as recent would
 * not make it, passed when the known years make it, else undecided until the years are judged. */
static void corpus_recent_share(void **state)
{
	struct quota_counts q;

	(void)state;
	count_quotas(&q);
	assert_true(3 * (q.recent + q.unknown_year) >= q.texts);
	if (3 * q.recent < q.texts) {
		print_message("SKIP: %zu of %zu tagged texts are from 2025-2026 and %zu have no year: whether a third "
			      "are recent cannot be decided\n",
			      q.recent, q.texts, q.unknown_year);
		skip();
	}
}

/* ---- the matcher's rules on small inputs (not corpus texts: these test edges) ---- */

static const char *only(const char *text, size_t len)
{
	static char id[64];
	struct explain_result r;

	assert_int_equal(explain_text(text, len, &r, NULL), CD_OK);
	snprintf(id, sizeof(id), "%s", r.n == 1 ? r.m[0].finding : r.n == 0 ? "none" : "several");
	explain_result_free(&r);
	return id;
}

#define ONLY(s) only(s, sizeof(s) - 1)

static void matcher_rules(void **state)
{
	static const char nul[] = "junk\0CUDA error: an illegal memory access was encountered\n";
	char *big;
	size_t n = 20000;

	(void)state;
	assert_string_equal(ONLY("CUDA error code 35 in cudaSetDevice"), "runtime-newer-than-driver");
	assert_string_equal(ONLY("cuda call returned 209"), "no-kernel-image");
	assert_string_equal(ONLY("CUresult CUDA_ERROR_NO_BINARY_FOR_GPU"), "no-kernel-image");
	assert_string_equal(ONLY("status == cudaErrorNoKernelImageForDevice"), "none"); /* compared, not raised */
	assert_string_equal(ONLY("ERROR 06-26 23:10:17 CUDA graphs captured"), "none");       /* a date */
	assert_string_equal(ONLY("nvcc failed with exit status 1"), "none");
	assert_string_equal(ONLY("out of memory"), "none");      /* short string, no CUDA on the line */
	assert_string_equal(ONLY("CUDA error: unknown error\r\n"), "unknown-error");
	assert_string_equal(ONLY("CUDA error 7: too many resources requested for launch"),
			    "launch-out-of-resources");            /* old number 7 beside the string */
	assert_string_equal(only(nul, sizeof(nul) - 1), "illegal-address");
	assert_string_equal(ONLY("nvcc fatal : Value 'sm_130' is not defined for option 'gpu-architecture'"),
			    "toolkit-cannot-target-gpu");
	/* one line of 20000 bytes, the error at the end: scanned in chunks */
	big = malloc(n + 64);
	assert_non_null(big);
	memset(big, 'x', n);
	strcpy(big + n, " CUDA error: invalid device ordinal");
	assert_string_equal(only(big, strlen(big)), "invalid-device-ordinal");
	free(big);
	assert_string_equal(only(NULL, 0), "none");
}

/* A text from AMD's ROCm/HIP stack (context.h decides) gets only rocm-* findings or ids of no
 * vendor's CUDA (the HIP SDK on Windows, the platform itself, a Windows runtime DLL), and no fix line of those speaks of CUDA's tools: checked on every
 * corpus text decided ROCm. */
static bool cuda_advice(const char *fix)
{
	static const char *const words[] = { "cuda", "nvidia", "nvcc", "ldconfig", "torch_cuda_arch_list" };
	char low[1024];
	size_t i;

	for (i = 0; fix[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)((fix[i] >= 'A' && fix[i] <= 'Z') ? fix[i] + 32 : fix[i]);
	low[i] = 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(low, words[i]))
			return true;
	return false;
}

struct rocm_count {
	size_t rocm, texts;
};

static void check_rocm_text(const char *name, const char *text, size_t len, void *ctx)
{
	struct rocm_count *c = ctx;
	struct explain_result r;
	char err[CD_ERRMSG];
	bool is_rocm = false;

	assert_int_equal(explain_text(text, len, &r, err), CD_OK);
	explain_result_classify_oom(&r, oom_finding_of);
	c->texts++;
	for (size_t i = 0; i < r.n; i++)
		is_rocm |= r.m[i].rocm;
	for (size_t i = 0; is_rocm && i < r.n; i++) {
		const struct kb_finding *x = kb_finding_find(r.m[i].finding);

		if ((strncmp(r.m[i].finding, "rocm-", 5) != 0 && strcmp(r.m[i].finding, "hip-sdk-not-on-path") != 0 &&
		     strcmp(r.m[i].finding, "non-nvidia-platform") != 0 &&
		     strcmp(r.m[i].finding, "win-runtime-dll-missing") != 0) ||
		    !x)
			fail_msg("%s: %s in a ROCm text", name, r.m[i].finding);
		assert_null(r.m[i].error);
		for (size_t k = 0; k < x->n_fix; k++)
			if (cuda_advice(x->fix[k]))
				fail_msg("%s: %s advises CUDA: %s", name, x->finding, x->fix[k]);
	}
	c->rocm += is_rocm;
	explain_result_free(&r);
}

static void rocm_texts_get_no_cuda_advice(void **state)
{
	struct rocm_count c = {0};

	(void)state;
	corpus_each(".txt", LONG_MIN, 1 << 20, check_rocm_text, &c);
	print_message("%zu of %zu corpus texts decided ROCm\n", c.rocm, c.texts);
	assert_true(c.rocm >= 10);
	/* and a CUDA text that only lists Ollama's ROCm settings is not ROCm's */
	{
		static const char ollama[] = "INFO server config env=\"map[CUDA_VISIBLE_DEVICES: HIP_VISIBLE_DEVICES: "
					     "HSA_OVERRIDE_GFX_VERSION: ROCR_VISIBLE_DEVICES:]\" runners=[rocm cpu]\n"
					     "CUDA error: an illegal memory access was encountered\n";
		struct explain_result r;

		assert_int_equal(explain_text(ollama, sizeof(ollama) - 1, &r, NULL), CD_OK);
		assert_int_equal(r.n, 1);
		assert_false(r.m[0].rocm);
		assert_string_equal(r.m[0].finding, "illegal-address");
		explain_result_free(&r);
	}
}

/* ---- the command, with the fake driver of tests/fakes ---- */

static struct run_result run_explain(const char *const extra[], const char *const env[], const char *stdin_text);

/* A fix line in Linux's form: its loader, its shell, its kernel log, its package manager. */
static const char *linux_fix_word(const char *fix)
{
	static const char *const words[] = { "ldconfig", "LD_LIBRARY_PATH", "sudo ", "dmesg", "export ", "apt ",
					     "lsmod", "modprobe", "/dev/nvidia", "/usr/", "/etc/", "2>/dev/null", "$(",
					     "| grep", "| head" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(fix, words[i]))
			return words[i];
	return NULL;
}

struct windows_count {
	size_t windows, fixes;
};

/* A text decided Windows: the command's JSON for it, each fix line checked. */
static void check_windows_text(const char *name, const char *text, size_t len, void *ctx)
{
	static const char *const args[] = { "--json", "--offline", NULL };
	struct windows_count *c = ctx;
	struct explain_result r;
	char err[CD_ERRMSG];
	bool is_windows = false;

	assert_int_equal(explain_text(text, len, &r, err), CD_OK);
	for (size_t i = 0; i < r.n; i++)
		is_windows |= r.m[i].windows && !r.m[i].rocm;
	explain_result_free(&r);
	if (!is_windows)
		return;
	struct run_result run = run_explain(args, NULL, text);
	json_error_t jerr;
	json_t *root = json_loads(run.out, 0, &jerr), *matches, *m;
	size_t k;

	if (!root)
		fail_msg("%s: explain --json gave no JSON: %s", name, jerr.text);
	matches = json_object_get(root, "matches");
	json_array_foreach(matches, k, m) {
		json_t *fix = json_object_get(m, "fix"), *f;
		size_t j;

		json_array_foreach(fix, j, f) {
			const char *w = linux_fix_word(json_string_value(f));

			if (w)
				fail_msg("%s: %s's fix says %s in a Windows text: %s", name,
					 json_string_value(json_object_get(m, "id")), w, json_string_value(f));
			c->fixes++;
		}
	}
	json_decref(root);
	run_result_free(&run);
	c->windows++;
}

/* Every corpus text decided Windows (context.h) gets its fixes in Windows' form: the command's
 * JSON for each is read, and a fix line with a Linux command fails. */
static void windows_texts_get_windows_fixes(void **state)
{
	struct windows_count c = {0};

	(void)state;
	corpus_each(".txt", LONG_MIN, 1 << 20, check_windows_text, &c);
	print_message("%zu corpus texts decided Windows, %zu fix lines, none in Linux's form\n", c.windows, c.fixes);
	assert_true(c.windows >= 25);
}

static char *corpus_text(const char *name)
{
	char path[512], *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", CORPUS, name);
	assert_int_equal(file_read_text(path, 1 << 20, &text, &len, NULL), CD_OK);
	return text;
}

static struct run_result run_explain(const char *const extra[], const char *const env[],
				     const char *stdin_text)
{
	const char *argv[12] = { CUDOCTOR_BINARY, "explain" };
	const char *envw[24] = { "COLUMNS=9999" }; /* these tests read sentences, not the layout */
	struct run_result r;
	size_t n = 2, ne = 1;

	for (size_t i = 0; extra && extra[i] && n < 11; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	for (size_t i = 0; env && env[i] && ne < 23; i++)
		envw[ne++] = env[i];
	envw[ne] = NULL;
	assert_int_equal(testlib_run(argv, envw, stdin_text, &r), 0);
	return r;
}

#define FAKE_CUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static void json_contract_offline(void **state)
{
	const char *args[] = { "--json", "--offline", NULL };
	char *text = corpus_text("002.txt"); /* RTX 3090 vs a PyTorch built for sm_37..sm_70 */
	struct run_result r = run_explain(args, NULL, text);

	(void)state;
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "\"command\": \"explain\""));
	assert_non_null(strstr(r.out, "\"matches\": ["));
	assert_non_null(strstr(r.out, "\"id\": \"no-kernel-image\""));
	assert_non_null(strstr(r.out, "\"matched_text\": \"RuntimeError: CUDA error: no kernel image"));
	assert_non_null(strstr(r.out, "\"checks\": null"));
	assert_non_null(strstr(r.out, "\"offline\": true"));
	assert_non_null(strstr(r.out, "none runs on this GPU"));
	run_result_free(&r);
	free(text);
}

static void live_checks_through_the_driver(void **state)
{
	const char *gpu86[] = { FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA GeForce RTX 3090:8.6:24GiB", NULL };
	const char *old_driver[] = { FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA A100-SXM4-80GB:8.0:80GiB",
				     "FAKE_CUDA_DRIVER_VERSION=12020", "FAKE_NVML_DRIVER_VERSION=535.54.03",
				     NULL };
	const char *no_driver[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
				    "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", NULL };
	char *text = corpus_text("002.txt");
	struct run_result r = run_explain(NULL, gpu86, text);

	(void)state;
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "here, gpus: problem"));
	assert_non_null(strstr(r.out, "GPU 0 NVIDIA GeForce RTX 3090 is CC 8.6 (no SASS in the PyTorch build's arch list"));
	run_result_free(&r);
	free(text);
	/* 222 on a CUDA 12.2 driver: nvcc 13.0 here would make PTX this driver cannot JIT */
	text = corpus_text("041.txt");
	r = run_explain(NULL, old_driver, text);
	assert_non_null(strstr(r.out, "ptx-too-new"));
	assert_non_null(strstr(r.out, "supports CUDA 12.2"));
	assert_non_null(strstr(r.out, "JITs PTX up to ISA 8.2"));
	run_result_free(&r);
	free(text);
	/* an invalid argument at a launch, judged against the GPU's block limits */
	{
		const char *h200[] = { FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA H200:9.0:141GiB", NULL };

		r = run_explain(NULL, h200, "nop<<<1, 2048>>>(nullptr);\n"
			     "CUDA error 1 (cudaErrorInvalidValue) at block2048.cu:7: invalid argument\n");
		assert_non_null(strstr(r.out, "launch-out-of-resources"));
		assert_non_null(strstr(r.out, "CUDA 13 reports a block beyond the GPU's limits"));
		assert_non_null(strstr(r.out, "the launch's block in the text: 2048 threads"));
		assert_non_null(strstr(r.out, "here, gpus: problem"));
		assert_non_null(strstr(r.out, "block dimensions up to 1024x1024x64"));
		run_result_free(&r);
	}
	/* no driver at all: said, not a crash */
	r = run_explain(NULL, no_driver, "RuntimeError: CUDA error: invalid device ordinal");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "invalid-device-ordinal"));
	/* no driver here: the text is another machine's, and this machine's check is evidence only */
	assert_non_null(strstr(r.out, "this machine, driver: problem: libcuda.so.1 does not load"));
	run_result_free(&r);
}

static void binary_images_judged_for_the_gpu_here(void **state)
{
	const char *args[] = { "--binary", CUDOCTOR_FIXTURES_DIR "/arch/k_sm90.fatbin",
			       "CUDA error: no kernel image is available for execution on the device", NULL };
	const char *gpu86[] = { FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA GeForce RTX 3090:8.6:24GiB", NULL };
	const char *gpu90[] = { FAKE_CUDA, FAKE_NVML, "FAKE_GPUS=NVIDIA H200:9.0:141GiB", NULL };
	struct run_result r;

	(void)state;
	if (!path_is_file(CUDOCTOR_FIXTURES_DIR "/arch/k_sm90.fatbin")) {
		print_message("SKIP: arch's nvcc fixtures were not built; the --binary check did not run\n");
		skip();
	}
	r = run_explain(args, gpu86, NULL);
	assert_non_null(strstr(r.out, "carries sm_90; on GPU 0 (CC 8.6): no-image"));
	assert_non_null(strstr(r.out, "here, binary: problem"));
	run_result_free(&r);
	r = run_explain(args, gpu90, NULL);
	assert_non_null(strstr(r.out, "on GPU 0 (CC 9.0): native"));
	assert_non_null(strstr(r.out, "here, binary: info"));
	run_result_free(&r);
}

/* expandable_segments is advised only when PyTorch's cache holds the memory */
static void expandable_segments_only_when_it_applies(void **state)
{
	const char *args[] = { "--offline", NULL };
	char *frag = corpus_text("057.txt");   /* 4.84 GiB reserved but unallocated */
	char *cap = corpus_text("061.txt");    /* vLLM: the hint printed, 335 MiB cached of 44 GiB */
	struct run_result r = run_explain(args, NULL, frag);

	(void)state;
	assert_non_null(strstr(r.out, "oom-fragmentation"));
	assert_non_null(strstr(r.out, "fix: export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
	run_result_free(&r);
	r = run_explain(args, NULL, cap);
	assert_non_null(strstr(r.out, "oom-capacity"));
	assert_null(strstr(r.out, "fix: export PYTORCH_CUDA_ALLOC_CONF"));
	assert_non_null(strstr(r.out, "PyTorch's hint (expandable_segments) does not apply here"));
	run_result_free(&r);
	free(frag);
	free(cap);
}

/* '<' lowercase words '>' in the report: a placeholder the fix line should have filled */
static bool has_placeholder(const char *s)
{
	for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
		const char *q = p + 1;

		while (*q == ' ' || (*q >= 'a' && *q <= 'z'))
			q++;
		if (*q == '>' && q > p + 1 && p[1] != ' ')
			return true;
	}
	return false;
}

/* Fix lines name the binary, the driver and the GPU when they are known, and never print a
 * <placeholder> when they are not */
static void fix_lines_without_placeholders(void **state)
{
	static const char *const names[] = { "002.txt", "041.txt", "057.txt", "061.txt", "504.txt", "529.txt",
					     "536.txt", "561.txt", "599.txt", "649.txt", "671.txt", "660.txt" };
	const char *args[] = { "--offline", NULL };
	const char *named[] = { "--offline", "--binary", "/opt/app/train", "--gpu", "sm_86", "--driver", "535.104.05",
				NULL };

	(void)state;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char *text = corpus_text(names[k]);
		struct run_result r = run_explain(args, NULL, text);

		if (has_placeholder(r.out))
			fail_msg("%s: a placeholder in\n%s", names[k], r.out);
		run_result_free(&r);
		r = run_explain(named, NULL, text);
		if (has_placeholder(r.out))
			fail_msg("%s (named): a placeholder in\n%s", names[k], r.out);
		run_result_free(&r);
		free(text);
	}
	{
		struct run_result r = run_explain(named, NULL, "RuntimeError: CUDA error: an illegal memory access was "
						  "encountered\nCUDA driver version is insufficient for CUDA runtime version\n");

		assert_non_null(strstr(r.out, "compute-sanitizer /opt/app/train"));
		assert_non_null(strstr(r.out, "cudoctor kb driver 535.104.05"));
		run_result_free(&r);
	}
}

/* ---- explain and arch: one verdict ---- */

static json_t *run_json_in_fixtures(const char *const argv[])
{
	static const char *const env[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1",
					   "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1", "CUDA_FORCE_PTX_JIT=",
					   "CUDA_DISABLE_PTX_JIT=", "CUDA_FORCE_JIT=", "CUDA_DISABLE_JIT=", NULL };
	struct run_result r;
	json_error_t je;
	json_t *j;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	j = json_loads(r.out, 0, &je);
	if (!j)
		fail_msg("%s %s: not JSON (%s): %s", argv[2], argv[3], je.text, r.err);
	run_result_free(&r);
	return j;
}

/* gpu, result and image of each verdict, one line each */
static void verdict_lines(json_t *verdicts, char *out, size_t cap)
{
	size_t i, used = 0;
	json_t *v;

	out[0] = '\0';
	json_array_foreach(verdicts, i, v) {
		const char *img = json_string_value(json_object_get(v, "image"));

		used += (size_t)snprintf(out + used, cap - used, "%s: %s %s\n",
					 json_string_value(json_object_get(v, "gpu")),
					 json_string_value(json_object_get(v, "result")), img ? img : "-");
		if (used >= cap)
			fail_msg("verdicts too long");
	}
}

/* explain --offline --binary F --gpu G reaches arch --gpu G F's verdict, for every nvcc
 * fixture and GPU (and, all GPUs at once, on an older driver named with --driver). */
static void explain_and_arch_agree(void **state)
{
	static const char *const gpus[] = { "sm_75", "8.6", "8.9", "9.0", "10.0", "12.0" };
	static const char text[] = "no kernel image is available for execution on the device";
	DIR *d = opendir(CUDOCTOR_FIXTURES_DIR "/arch");
	struct dirent *e;
	size_t files = 0, compared = 0;

	(void)state;
	if (!d || !path_is_file(CUDOCTOR_FIXTURES_DIR "/arch/k_sm90.fatbin")) {
		if (d)
			closedir(d);
		print_message("SKIP: arch's nvcc fixtures were not built\n");
		skip();
	}
	while ((e = readdir(d)) != NULL) {
		char path[1024], a_lines[4096], e_lines[4096];
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0))
			continue;
		snprintf(path, sizeof(path), "%s/arch/%s", CUDOCTOR_FIXTURES_DIR, e->d_name);
		files++;
		for (size_t g = 0; g <= sizeof(gpus) / sizeof(gpus[0]); g++) {
			bool all = g == sizeof(gpus) / sizeof(gpus[0]);
			const char *arch_argv[24] = { CUDOCTOR_BINARY, "--json", "arch" };
			const char *explain_argv[24] = { CUDOCTOR_BINARY, "--json", "explain", "--offline",
							 "--binary", path };
			size_t na = 3, ne = 6;

			for (size_t k = all ? 0 : g; k < (all ? sizeof(gpus) / sizeof(gpus[0]) : g + 1); k++) {
				arch_argv[na++] = explain_argv[ne++] = "--gpu";
				arch_argv[na++] = explain_argv[ne++] = gpus[k];
			}
			if (all) {
				arch_argv[na++] = explain_argv[ne++] = "--driver";
				arch_argv[na++] = explain_argv[ne++] = "535.104.05";
			}
			arch_argv[na++] = path;
			explain_argv[ne++] = text;
			json_t *ja = run_json_in_fixtures(arch_argv);
			json_t *je = run_json_in_fixtures(explain_argv);
			json_t *file = json_array_get(json_object_get(ja, "files"), 0);
			json_t *match = json_array_get(json_object_get(je, "matches"), 0);

			assert_non_null(file);
			assert_non_null(match);
			assert_string_equal(json_string_value(json_object_get(match, "id")), "no-kernel-image");
			verdict_lines(json_object_get(file, "verdicts"), a_lines, sizeof(a_lines));
			verdict_lines(json_object_get(json_object_get(match, "binary"), "verdicts"), e_lines,
				      sizeof(e_lines));
			if (strcmp(a_lines, e_lines) != 0)
				fail_msg("%s: arch says\n%sexplain says\n%s", e->d_name, a_lines, e_lines);
			compared += json_array_size(json_object_get(file, "verdicts"));
			json_decref(ja);
			json_decref(je);
		}
	}
	closedir(d);
	print_message("%zu fixtures, %zu verdicts compared\n", files, compared);
	assert_true(files >= 25);
	assert_true(compared >= 25 * 6);
}

static void unknown_text(void **state)
{
	const char *args[] = { "--json", "--offline", NULL };
	struct run_result r = run_explain(args, NULL, "Segmentation fault (core dumped)\n");

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"matches\": []"));
	run_result_free(&r);
	r = run_explain(NULL, NULL, "all good here\n");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "cudoctor doctor"));
	run_result_free(&r);
}

/* `cudoctor explain build.log`: one operand naming a file is the log, read as stdin is (the
 * same JSON after the header); a word that names no file and cannot be a path is still the
 * text itself. */
static void log_file_operand(void **state)
{
	char path[512];
	const char *file_args[] = { "--json", "--offline", path, NULL };
	const char *stdin_args[] = { "--json", "--offline", NULL };
	const char *word_args[] = { "--json", "--offline", "cudaErrorNoKernelImageForDevice", NULL };
	static const char *const missing[] = { "/nonexistent/train.txt", "logs\\run1", "build.log", "OUT.ERR" };
	char *text = corpus_text("561.txt");
	struct run_result f, in, w;

	(void)state;
	snprintf(path, sizeof path, "%s/561.txt", CORPUS);
	f = run_explain(file_args, NULL, NULL);
	in = run_explain(stdin_args, NULL, text);
	assert_int_equal(f.status, in.status);
	assert_non_null(strstr(f.out, "\"matches\": [\n"));
	assert_string_equal(strstr(f.out, "\"matches\""), strstr(in.out, "\"matches\""));
	w = run_explain(word_args, NULL, NULL);
	assert_non_null(strstr(w.out, "\"id\": \"no-kernel-image\""));
	run_result_free(&w);
	/* a word that can only be a path (a separator, a log's extension) but names no file is a
	 * mistyped log name: said on stderr, exit 3, never explained as text */
	for (size_t k = 0; k < sizeof(missing) / sizeof(missing[0]); k++) {
		const char *args[] = { "--offline", missing[k], NULL };

		w = run_explain(args, NULL, NULL);
		assert_int_equal(w.status, 3);
		assert_non_null(strstr(w.err, missing[k]));
		assert_null(strstr(w.out, "No CUDA error"));
		run_result_free(&w);
	}
	run_result_free(&f);
	run_result_free(&in);
	free(text);
}

/* A log fed in pieces of every size gives what the whole text gives: lines that span pieces,
 * and an OOM message whose numbers arrive after its first line. */
static void pieces_like_whole(void **state)
{
	static const char *const names[] = { "561.txt", "502.txt", "536.txt", "599.txt", "504.txt", "529.txt" };

	(void)state;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		char *text = corpus_text(names[k]), err[CD_ERRMSG];
		size_t len = strlen(text);
		struct explain_result whole, part;

		assert_int_equal(explain_text(text, len, &whole, err), CD_OK);
		for (size_t piece = 1; piece < 64; piece += 7) {
			struct explain_scan *sc;

			assert_int_equal(explain_scan_new(&sc, err), CD_OK);
			for (size_t at = 0; at < len; at += piece)
				assert_int_equal(explain_scan_feed(sc, text + at, len - at < piece ? len - at : piece, err), CD_OK);
			assert_int_equal(explain_scan_finish(sc, &part, err), CD_OK);
			explain_scan_free(sc);
			assert_int_equal(part.n, whole.n);
			for (size_t i = 0; i < whole.n; i++) {
				assert_string_equal(part.m[i].finding, whole.m[i].finding);
				assert_int_equal(part.m[i].last_line, whole.m[i].last_line);
			}
			explain_result_free(&part);
		}
		explain_result_free(&whole);
		free(text);
	}
}

/* Edges of recognition on small inputs */
static void recognition_edges(void **state)
{
	struct explain_result r;
	char err[CD_ERRMSG];
	/* the numbers of the H200 case: another process holds 93.64 GiB, the request would fit
	 * without it */
	static const char h200[] =
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.90 GiB. GPU 0 has a total capacity "
		"of 139.80 GiB of which 45.60 GiB is free. Process 1608 has 93.64 GiB memory in use. Of the allocated "
		"memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.";
	static const char logs[] = "epoch 1 loss 0.3\nepoch 2 loss 0.2\nRuntimeError: CUDA error: an illegal memory access "
				   "was encountered\nepoch 3\nRuntimeError: CUDA error: an illegal memory access was "
				   "encountered\n";

	(void)state;
	assert_int_equal(explain_text(h200, strlen(h200), &r, err), CD_OK);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "out-of-memory"); /* the reader leaves the class to rules/oom */
	explain_result_classify_oom(&r, oom_finding_of);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "oom-other-process");
	explain_result_free(&r);
	/* a shorter catalogue string inside a longer one is not a second finding (717 holds 801) */
	assert_int_equal(explain_text("CUDA error: operation not supported on global/shared address space", 66, &r, err),
			 CD_OK);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "illegal-address");
	explain_result_free(&r);
	/* make's Error N on a line with cuda in a path is not a CUDA error */
	{
		static const char mk[] = "make[2]: *** [CMakeFiles/x.dir/build.make:76: kernels.cu.o] Error 1\n"
					 "make: *** [cuda28] Error 2\n/usr/local/cuda/bin/nvcc failed with error 1\n";

		assert_int_equal(explain_text(mk, strlen(mk), &r, err), CD_OK);
		assert_int_equal(r.n, 0);
		explain_result_free(&r);
	}
	/* the last occurrence, its line and the count */
	assert_int_equal(explain_text(logs, strlen(logs), &r, err), CD_OK);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.m[0].line, 3);
	assert_int_equal(r.m[0].last_line, 5);
	assert_int_equal(r.m[0].count, 2);
	explain_result_free(&r);
	/* a header two lines above its number */
	{
		static const char hdr[] = "CUDA Error:\n    File: a.cpp\n    Error code: 98\n";

		assert_int_equal(explain_text(hdr, strlen(hdr), &r, err), CD_OK);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.m[0].finding, "no-kernel-image");
		explain_result_free(&r);
	}
	/* CUDA 13's invalid argument for <<<1, 2048>>>: the launch two lines above is its cause */
	{
		static const char launch[] = "nop<<<1, 2048>>>(nullptr);\nsynchronising\n"
					     "CUDA error 1 (cudaErrorInvalidValue) at block2048.cu:7: invalid argument\n";
		static const char torch[] = "RuntimeError: CUDA error: invalid argument\n"
					    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
					    "RuntimeError: CUDA error: invalid argument\n";
		static const char far[] = "kernel<<<1, 2048>>>(p);\na\nb\nc\nd\n"
					  "CUDA error 1 (cudaErrorInvalidValue): invalid argument\n";

		assert_int_equal(explain_text(launch, strlen(launch), &r, err), CD_OK);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.m[0].finding, "launch-out-of-resources");
		assert_true(r.m[0].invalid_value_launch);
		assert_int_equal(r.m[0].block_threads, 2048);
		explain_result_free(&r);
		/* PyTorch's CUDA_LAUNCH_BLOCKING advice is not a launch */
		assert_int_equal(explain_text(torch, strlen(torch), &r, err), CD_OK);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.m[0].finding, "cuda-error");
		/* ... unless the user names the failed launch's block */
		explain_result_launch_given(&r);
		assert_string_equal(r.m[0].finding, "launch-out-of-resources");
		assert_int_equal(r.m[0].count, 2);
		explain_result_free(&r);
		/* a launch five lines above says nothing about this error */
		assert_int_equal(explain_text(far, strlen(far), &r, err), CD_OK);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.m[0].finding, "cuda-error");
		explain_result_free(&r);
	}
	/* a library status name on a line that does not say CUDA */
	assert_int_equal(explain_text("cuFFT error: CUFFT_INTERNAL_ERROR", 33, &r, err), CD_OK);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.m[0].finding, "library-arch-mismatch");
	assert_string_equal(r.m[0].error->name, "CUFFT_INTERNAL_ERROR");
	explain_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_corpus),
		cmocka_unit_test(matcher_rules),
		cmocka_unit_test(rocm_texts_get_no_cuda_advice),
		cmocka_unit_test(windows_texts_get_windows_fixes),
		cmocka_unit_test(corpus_quotas),
		cmocka_unit_test(corpus_recent_share),
		cmocka_unit_test(json_contract_offline),
		cmocka_unit_test(live_checks_through_the_driver),
		cmocka_unit_test(binary_images_judged_for_the_gpu_here),
		cmocka_unit_test(expandable_segments_only_when_it_applies),
		cmocka_unit_test(unknown_text),
		cmocka_unit_test(log_file_operand),
		cmocka_unit_test(explain_and_arch_agree),
		cmocka_unit_test(pieces_like_whole),
		cmocka_unit_test(recognition_edges),
		cmocka_unit_test(fix_lines_without_placeholders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
