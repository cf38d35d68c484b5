/* Hostile text in what cudoctor reads, shown safely wherever it is printed: explain on logs
 * that are not ASCII (Chinese, tqdm's bars, bytes that are not UTF-8, escape sequences) whose
 * matched line is longer than the 320 bytes kept; GPU names, /etc/os-release, CUDOCTOR_NODE
 * and CUDA_VISIBLE_DEVICES holding escape sequences and bytes that are not UTF-8, through
 * devices and doctor; reports holding such text, and a file name holding them, through diff.
 * Every run must answer (no "out of memory", no exit 3), its JSON must parse with every
 * string safe, and its text must hold no byte a terminal acts on (tests/unit/safe_check.h).
 * The logs are built here, each line as such a log holds it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_tree.h"
#include "safe_check.h"
#include "testlib.h"

#define LIBCUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define LIBNVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define KEPT 320 /* explain keeps this many bytes of a matched line, the NUL included */

static char root[64];

static int setup(void **state)
{
	(void)state;
	return tree_new(root, sizeof root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* cudoctor ARGS... with the fakes and up to six more settings; stdin from text. */
static struct run_result run(const char *const *args, const char *const *extra, const char *text)
{
	const char *argv[16] = { CUDOCTOR_BINARY }, *env[16] = { LIBCUDA, LIBNVML, "COLUMNS=" };
	size_t a = 1, e = 3;
	struct run_result r;

	for (size_t i = 0; args[i] && a + 1 < 16; i++)
		argv[a++] = args[i];
	for (size_t i = 0; extra && extra[i] && e + 1 < 16; i++)
		env[e++] = extra[i];
	argv[a] = env[e] = NULL;
	assert_int_equal(testlib_run(argv, env, text, &r), 0);
	if (!safe_printed(r.out) || !safe_printed(r.err))
		fail_msg("cudoctor %s printed a byte a terminal acts on:\n%.2000s\n%.500s", args[0], r.out, r.err);
	return r;
}

static json_t *parse(const char *out)
{
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);

	if (!j)
		fail_msg("not JSON (%s): %.500s", je.text, out);
	assert_true(json_strings_safe(j));
	return j;
}

/* ---- explain ---- */

static char *repeat(const char *prefix, const char *unit, size_t n, const char *middle, const char *suffix)
{
	size_t len = strlen(prefix) + n * strlen(unit) + strlen(middle) + strlen(suffix) + 1;
	char *s = malloc(len);

	assert_non_null(s);
	strcpy(s, prefix);
	for (size_t i = 0; i < n; i++)
		strcat(s, unit);
	strcat(s, middle);
	strcat(s, suffix);
	return s;
}

/* explain on log: the finding id, exit 1, in text and JSON; the JSON's match returned. */
static json_t *explain_match(const char *log, const char *id)
{
	static const char *const text[] = { "explain", "--offline", NULL }, *const js[] = { "--json", "explain", "--offline", NULL };
	struct run_result t = run(text, NULL, log), r = run(js, NULL, log);
	json_t *j = parse(r.out), *m = json_array_get(json_object_get(j, "matches"), 0);

	assert_int_equal(t.status, 1);
	assert_int_equal(r.status, 1);
	assert_string_equal(t.err, "");
	assert_non_null(strstr(t.out, id));
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "id")), id);
	json_incref(m);
	json_decref(j);
	run_result_free(&t);
	run_result_free(&r);
	return m;
}

/* The matched line kept: shorter than KEPT and cut, which ends it with "...". */
static const char *kept_line(const json_t *m)
{
	const char *t = json_string_value(json_object_get(m, "matched_text"));
	size_t n = strlen(t);

	assert_true(n < KEPT);
	assert_true(n > 3 && strcmp(t + n - 3, "...") == 0);
	return t;
}

/* ... at the character boundary cut_at, what precedes the "..." the line's start as it was. */
static void cut_between_characters(const json_t *m, const char *line, size_t cut_at)
{
	const char *t = kept_line(m);

	assert_int_equal(strlen(t) - 3, cut_at);
	assert_memory_equal(t, line, cut_at);
}

/* A Chinese training log: 3-byte characters, the line 700 bytes. */
static void test_explain_chinese_line(void **state)
{
	char *log = repeat("[rank0] 第3轮训练：", "数据加载完成，开始前向传播；", 12,
			   "RuntimeError: CUDA error: out of memory", "（显存不足，请减小批量大小）\n");
	json_t *m;

	(void)state;
	assert_true(strlen(log) > KEPT + 200);
	m = explain_match(log, "out-of-memory");
	/* 319 bytes fit, "..." included: "[rank0] 第3轮训练：" (24 bytes) and 97 characters of 3
	 * bytes (315) end at the last boundary within 316; a 98th would end at 318 */
	cut_between_characters(m, log, 24 + 97 * 3);
	json_decref(m);
	free(log);
}

/* tqdm's bars: block characters of 3 bytes and the carriage returns that redraw the bar. */
static void test_explain_tqdm_line(void **state)
{
	char *bars = repeat("Epoch 1:  45%|", "█", 40, "▍", "          | 45/100 [00:12<00:15,  3.61it/s]\r");
	char *log = repeat(bars, "", 0, "Epoch 1:  46%|██████████████████▍ | 46/100 [00:12<00:14]",
			   " RuntimeError: CUDA error: an illegal memory access was encountered\n");
	json_t *m;
	const char *t;

	(void)state;
	assert_true(strlen(log) > KEPT);
	m = explain_match(log, "illegal-address");
	t = kept_line(m);
	/* the first bar whole, the carriage return shown as \x0d (never sent), the next bar */
	assert_memory_equal(t, log, strcspn(log, "\r"));
	assert_non_null(strstr(t, "3.61it/s]\\x0dEpoch 1:  46%|██████████████████▍ | 46/100"));
	json_decref(m);
	free(bars);
	free(log);
}

/* Bytes that are not UTF-8, escape sequences, a C1 control and a bidirectional override. */
static void test_explain_invalid_utf8_line(void **state)
{
	char *log = repeat("\x1b[31m\xff\xfe \xc2\x9b\xe2\x80\xae", "x\xc3", 150,
			   " RuntimeError: CUDA error: no kernel image is available for execution on the device",
			   " \x1b]0;owned\x07\xe2\x96\n");
	json_t *m;
	const char *t;

	(void)state;
	assert_true(strlen(log) > KEPT);
	m = explain_match(log, "no-kernel-image");
	t = kept_line(m);
	assert_non_null(strstr(t, "\\x1b[31m\\xff\\xfe \\u009b\\u202ex\\xc3x\\xc3"));
	json_decref(m);
	free(log);
}

/* ---- facts of this machine ---- */

#define BAD_GPU "NVIDIA \x1b[31mH200\xff\xc3"
#define BAD_NODE "n\x1b[1m\xffode"

/* devices and doctor on a machine whose GPU name, os-release, node name and
 * CUDA_VISIBLE_DEVICES hold escape sequences and bytes that are not UTF-8. */
static void test_hostile_facts(void **state)
{
	static const char *const commands[] = { "devices", "doctor" };
	char host_root[128];
	const char *const env[] = { "FAKE_GPUS=" BAD_GPU ":9.0:141GiB", "CUDOCTOR_NODE=" BAD_NODE,
				    "CUDA_VISIBLE_DEVICES=0,\x1b[5m\xfe", host_root, NULL };

	(void)state;
	assert_int_equal(tree_file(root, "host/etc/os-release",
				   "PRETTY_NAME=\"Evil\x1b]0;pwned\x07 OS \xff\xfe\"\nID=evil\x1b[2J\nVERSION_ID=\"1\xc3\"\n", 0),
			 0);
	snprintf(host_root, sizeof host_root, "CUDOCTOR_HOST_ROOT=%s/host", root);
	for (size_t c = 0; c < 2; c++) {
		const char *const text[] = { commands[c], NULL }, *const md[] = { "--markdown", commands[c], NULL };
		const char *const js[] = { "--json", commands[c], NULL };
		struct run_result t = run(text, env, NULL), k = run(md, env, NULL), r = run(js, env, NULL);
		json_t *j = parse(r.out), *h = json_object_get(j, "header");

		assert_in_range(t.status, 0, 1);
		assert_in_range(k.status, 0, 1);
		assert_in_range(r.status, 0, 1);
		assert_null(strstr(t.err, "out of memory"));
		assert_null(strstr(r.err, "internal error"));
		/* what was there, shown: every byte visible, nothing lost */
		assert_non_null(strstr(t.out, "NVIDIA \\x1b[31mH200\\xff\\xc3"));
		assert_non_null(strstr(t.out, "node n\\x1b[1m\\xffode"));
		assert_non_null(strstr(t.out, "Evil\\x1b]0;pwned\\x07 OS \\xff\\xfe"));
		assert_string_equal(json_string_value(json_object_get(h, "node")), "n\\x1b[1m\\xffode");
		assert_string_equal(json_string_value(json_object_get(h, "os")), "Evil\\x1b]0;pwned\\x07 OS \\xff\\xfe");
		assert_string_equal(json_string_value(json_object_get(h, "os_version")), "1\\xc3");
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "name")),
				    "NVIDIA \\x1b[31mH200\\xff\\xc3");
		if (c == 1) /* doctor judges CUDA_VISIBLE_DEVICES */
			assert_non_null(strstr(t.out, "\"0,\\x1b[5m\\xfe\""));
		json_decref(j);
		run_result_free(&t);
		run_result_free(&k);
		run_result_free(&r);
	}
}

/* ---- diff ---- */

/* Two reports whose node, date, finding and driver hold escape sequences and overrides, one
 * named with an escape sequence itself: compared, shown safely. */
static void test_diff_hostile_reports(void **state)
{
	static const char a[] =
		"{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"doctor\",\"header\":{\"node\":\"n\\u001b[2Jx\","
		"\"date\":\"d\\u202e\"},\"findings\":[{\"id\":\"ecc-errors\",\"severity\":\"warn\",\"subject\":"
		"\"GPU 0 \\u001b]0;t\\u0007\",\"title\":\"t\\u009b1\"}],\"driver\":{\"version\":\"580\\u001b[31m\"}}\n";
	static const char b[] =
		"{\"tool\":\"cudoctor\",\"version\":\"0.1.0\",\"command\":\"doctor\",\"header\":{\"node\":\"n\\u0007\"},"
		"\"findings\":[{\"id\":\"ecc-errors\",\"severity\":\"error\",\"subject\":\"GPU 0 \\u001b]0;t\\u0007\","
		"\"title\":\"t\\u2066x\"}],\"driver\":{\"version\":\"550\\u001b[0m\"}}\n";
	char pa[160], pb[160];
	const char *const text[] = { "diff", pa, pb, NULL }, *const js[] = { "--json", "diff", pa, pb, NULL };
	struct run_result t, r;
	json_t *j;

	(void)state;
	assert_int_equal(tree_file(root, "a\x1b[2J.json", a, 0), 0);
	assert_int_equal(tree_file(root, "b.json", b, 0), 0);
	tree_path(root, "a\x1b[2J.json", pa, sizeof pa);
	tree_path(root, "b.json", pb, sizeof pb);
	t = run(text, NULL, NULL);
	r = run(js, NULL, NULL);
	assert_int_equal(t.status, 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(t.out, "580\\x1b[31m -> 550\\x1b[0m"));
	assert_non_null(strstr(t.out, "a\\x1b[2J.json: node n\\x1b[2Jx"));
	j = parse(r.out);
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "a"), "path")), "a\\x1b[2J.json"));
	json_decref(j);
	run_result_free(&t);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explain_chinese_line),
		cmocka_unit_test(test_explain_tqdm_line),
		cmocka_unit_test(test_explain_invalid_utf8_line),
		cmocka_unit_test(test_hostile_facts),
		cmocka_unit_test(test_diff_hostile_reports),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
