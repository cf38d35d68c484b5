/* explain reads the text's own facts first: a log pasted from another machine is judged by what
 * it says, this machine's checks are evidence labelled as such, the JSON names each fact's
 * source; a short phrase typed from memory is read as the error it names; the verdict is the
 * rules' (cmd_explain.c sets no finding value) and the matcher lives in rooms by job. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

/* torch's message on a machine whose driver is older than its wheel's CUDA, as in
 * tests/explain/1007.txt (https://github.com/serend1p1ty/SeqNet/issues/36) */
static const char too_old[] =
	"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
	"driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx";

#define NO_DRIVER "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1"
#define NO_NVML "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1"
#define FAKE_CUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static json_t *explain_json(const char *const extra[], const char *const env[], struct run_result *r)
{
	const char *argv[16] = { CUDOCTOR_BINARY, "--json", "explain" };
	json_error_t je;
	json_t *j;
	size_t n = 3;

	for (size_t i = 0; extra[i] && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, r), 0);
	j = json_loads(r->out, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %s", je.text, r->err);
	return j;
}

/* the first match's fact NAME: its value and source, "" when absent */
static void fact_of(json_t *j, const char *name, char *value, char *source, size_t n)
{
	json_t *facts = json_object_get(json_array_get(json_object_get(j, "matches"), 0), "facts"), *f;
	size_t i;

	value[0] = source[0] = '\0';
	json_array_foreach(facts, i, f)
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0) {
			snprintf(value, n, "%s", json_string_value(json_object_get(f, "value")));
			snprintf(source, n, "%s", json_string_value(json_object_get(f, "source")));
		}
}

static const char *first_id(json_t *j)
{
	const char *id = json_string_value(json_object_get(json_array_get(json_object_get(j, "matches"), 0), "id"));

	return id ? id : "";
}

/* Why: "The log loses to the machine it is pasted on": without a driver here the text's
 * driver (CUDA 11.4) decides, with and without --offline */
static void log_loses_to_machine(void **state)
{
	static const char *const env[] = { NO_DRIVER, NO_NVML, NULL };
	const char *live[] = { too_old, NULL }, *offline[] = { "--offline", too_old, NULL };
	const char *const *args[] = { live, offline };
	char value[96], source[96];

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct run_result r;
		json_t *j = explain_json(args[k], env, &r);
		json_t *origin = json_object_get(j, "text_origin");

		assert_string_equal(first_id(j), "runtime-newer-than-driver");
		assert_null(strstr(r.out, "no-driver"));
		fact_of(j, "driver_cuda", value, source, sizeof(value));
		assert_string_equal(value, "11.4");
		assert_string_equal(source, "text");
		assert_non_null(origin);
		assert_false(json_is_true(json_object_get(origin, "here")));
		if (k == 0) /* the live checks are this machine's evidence, never the diagnosis */
			assert_non_null(strstr(r.out, "this machine, driver: problem"));
		json_decref(j);
		run_result_free(&r);
	}
}

/* A text that agrees with this machine (its driver runs CUDA 11.4 too) is from it; one whose
 * driver runs another CUDA is not, whatever this machine's driver is; --driver is the user's. */
static void origin_follows_the_facts(void **state)
{
	static const char *const env_same[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_DRIVER_VERSION=11040", NULL };
	static const char *const env_other[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_DRIVER_VERSION=13000", NULL };
	const char *args[] = { too_old, NULL }, *given[] = { "--offline", "--driver", "550.54.14", too_old, NULL };
	char value[96], source[96];
	struct run_result r;
	json_t *j;

	(void)state;
	j = explain_json(args, env_same, &r);
	assert_true(json_is_true(json_object_get(json_object_get(j, "text_origin"), "here")));
	json_decref(j);
	run_result_free(&r);

	j = explain_json(args, env_other, &r);
	assert_false(json_is_true(json_object_get(json_object_get(j, "text_origin"), "here")));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(j, "text_origin"), "why")), "CUDA 11.4"));
	fact_of(j, "driver_cuda", value, source, sizeof(value));
	assert_string_equal(value, "11.4");
	assert_string_equal(source, "text");
	json_decref(j);
	run_result_free(&r);

	j = explain_json(given, env_other, &r);
	fact_of(j, "driver", value, source, sizeof(value));
	assert_string_equal(value, "550.54.14");
	assert_string_equal(source, "given");
	json_decref(j);
	run_result_free(&r);
}

/* The text's facts of its machine, each from the line that gives it (nvidia-smi's header,
 * torch's collect_env, a wheel's version). */
static void text_facts_extracted(void **state)
{
	/* nvidia-smi's header from tests/explain/019.txt (https://github.com/NVIDIA/nvidia-docker/issues/1671),
	 * torch's collect_env lines in their form */
	static const char text[] =
		"| NVIDIA-SMI 510.68.02    Driver Version: 510.68.02    CUDA Version: 11.6     |\n"
		"PyTorch version: 2.1.0+cu118\n"
		"CUDA used to build PyTorch: 11.8\n"
		"root@4f1c2b:/workspace# ls /.dockerenv\n"
		"RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
	static const char win[] =
		"D:\\ComfyUI_windows_portable>.\\python_embeded\\python.exe -s ComfyUI\\main.py\n"
		"RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
	struct explain_result res;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(explain_text(text, sizeof(text) - 1, &res, err), CD_OK);
	assert_string_equal(res.facts.driver_version, "510.68.02");
	assert_int_equal(res.facts.driver_cuda, 11060);
	assert_string_equal(res.facts.torch_version, "2.1.0");
	assert_int_equal(res.facts.torch_cuda, 11080);
	assert_true(res.facts.container);
	assert_int_equal(res.facts.os, TEXT_OS_UNKNOWN); /* no marker of either says */
	explain_result_free(&res);
	/* ComfyUI portable's own Python: Windows */
	assert_int_equal(explain_text(win, sizeof(win) - 1, &res, err), CD_OK);
	assert_int_equal(res.facts.os, TEXT_OS_WINDOWS);
	explain_result_free(&res);
}

/* Why: "Natural inputs fall through": a phrase a user types from memory is the error it names;
 * words that name no error are still nothing */
static void short_phrase(void **state)
{
	static const struct {
		const char *phrase, *id;
	} cases[] = {
		{ "no kernel image", "no-kernel-image" },
		{ "is_available() returns False", "torch-cpu-only" },
		{ "driver too old", "runtime-newer-than-driver" },
		{ "out of memory", "out-of-memory" },
		{ "illegal memory access", "illegal-address" },
		{ "Driver is too old", "runtime-newer-than-driver" },
		{ "hello world", NULL },
		{ "it returns an error", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct explain_result res;
		char err[CD_ERRMSG];

		assert_int_equal(explain_text(cases[i].phrase, strlen(cases[i].phrase), &res, err), CD_OK);
		assert_int_equal(explain_phrase(cases[i].phrase, strlen(cases[i].phrase), &res, err), CD_OK);
		if (!cases[i].id) {
			if (res.n)
				fail_msg("%s: read as %s", cases[i].phrase, res.m[0].finding);
		} else {
			if (res.n != 1 || strcmp(res.m[0].finding, cases[i].id) != 0)
				fail_msg("%s: want %s, got %s", cases[i].phrase, cases[i].id, res.n ? res.m[0].finding : "nothing");
		}
		explain_result_free(&res);
	}
}

/* Through the command, as typed: the answer is the error, not "no CUDA error" */
static void short_phrase_cli(void **state)
{
	static const char *const env[] = { NO_DRIVER, NO_NVML, NULL };
	const char *args[] = { "--offline", "no kernel image", NULL };
	struct run_result r;
	json_t *j;

	(void)state;
	j = explain_json(args, env, &r);
	assert_string_equal(first_id(j), "no-kernel-image");
	json_decref(j);
	run_result_free(&r);
}

static size_t count_in(const char *path, const char *needle, size_t *lines)
{
	char *text = NULL, full[512];
	size_t len, n = 0;

	snprintf(full, sizeof(full), "%s/%s", CUDOCTOR_SOURCE_DIR, path);
	assert_int_equal(file_read_text(full, 1 << 22, &text, &len, NULL), CD_OK);
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	*lines = 0;
	for (size_t i = 0; i < len; i++)
		*lines += text[i] == '\n';
	free(text);
	return n;
}

/* The verdict is decided in rules/ (explain_judge.c): the command sets no finding value; the
 * matcher's rooms stay small. */
static void judgement_in_rules(void **state)
{
	static const char *const rooms[] = { "match.c", "patterns.c", "codes.c", "stream.c", "fold.c", "phrase.c",
					     "textfacts.c" };
	size_t lines;

	(void)state;
	assert_int_equal(count_in("src/cmd/cmd_explain.c", "finding_var(", &lines), 0);
	assert_int_equal(count_in("src/cmd/cmd_explain.c", "finding_flag(", &lines), 0);
	assert_int_equal(count_in("src/cmd/cmd_explain.c", "rules_machine_vars(", &lines), 0);
	for (size_t i = 0; i < sizeof(rooms) / sizeof(rooms[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "src/explain/%s", rooms[i]);
		count_in(path, "\n", &lines);
		if (lines >= 700)
			fail_msg("%s has %zu lines", path, lines);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(log_loses_to_machine), cmocka_unit_test(origin_follows_the_facts),
		cmocka_unit_test(text_facts_extracted), cmocka_unit_test(short_phrase),
		cmocka_unit_test(short_phrase_cli),     cmocka_unit_test(judgement_in_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
