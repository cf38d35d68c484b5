/* The Windows side's facts and rules (probe/windows.c, rules/windows.c) on fake Windows
 * drives built here: the CUDA_PATH variables, the default install folder and PATH's nvcc.exe,
 * read with the Windows environment (as on Windows) and from WSL2 through doctor, where the
 * drive is /mnt/c under CUDOCTOR_HOST_ROOT and the environment cannot be seen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/windows.h"
#include "report/report.h"
#include "rules/rules.h"
#include "util/err.h"

#include "probe_tree.h"
#include "testlib.h"

#define TK "Program Files/NVIDIA GPU Computing Toolkit/CUDA"
#define TK_WIN "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"

static char root[64];
static char drive[256]; /* root/mnt/c: the fake C: drive */

/* Two toolkits as NVIDIA's installer leaves them: 12.4 with its version.json, 12.8 whose
 * version only its cudart64_12.dll tells. */
static int setup(void **state)
{
	(void)state;
	if (!tree_new(root, sizeof root))
		return -1;
	snprintf(drive, sizeof drive, "%s/mnt/c", root);
	tree_dir(root, "mnt/c");
	tree_file(drive, TK "/v12.4/version.json",
		  "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.4.131\"},\"cuda_nvcc\":{\"version\":\"12.4.131\"}}", 0);
	tree_file(drive, TK "/v12.4/bin/nvcc.exe", "MZ", 0);
	tree_file(drive, TK "/v12.4/bin/cudart64_12.dll", "MZ", 0);
	tree_file(drive, TK "/v12.8/bin/nvcc.exe", "MZ", 0);
	tree_file(drive, TK "/v12.8/bin/cudart64_12.dll", "MZ", 0);
	tree_file(drive, "Windows/System32/nvcuda.dll", "MZ", 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static const struct win_toolkit *toolkit(const struct win_side *w, const char *release)
{
	char want[512];

	snprintf(want, sizeof want, "%s\\%s", TK_WIN, release);
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->t[i].path, want) == 0)
			return &w->t[i];
	fail_msg("no toolkit %s among %zu", want, w->n);
	return NULL;
}

static const struct finding *finding(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].id, id) == 0)
			return &r->findings[i];
	return NULL;
}

static bool has_fix(const struct finding *f, const char *needle)
{
	for (size_t i = 0; i < f->n_fix; i++)
		if (strstr(f->fix[i], needle))
			return true;
	return false;
}

/* No Windows finding tells a Windows user to run a Linux command. */
static void no_linux_fix(const struct report *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		for (size_t k = 0; k < r->findings[i].n_fix; k++) {
			const char *fix = r->findings[i].fix[k];
			if (strstr(fix, "ldconfig") || strstr(fix, "LD_LIBRARY_PATH") || strstr(fix, "export "))
				fail_msg("%s: a Linux fix line: %s", r->findings[i].id, fix);
		}
}

static void probe_and_judge(const char *const env[], const char *path, struct win_side *w, struct report *r)
{
	struct win_side_opts o = { .root = drive, .from = "Windows", .env = env, .path = path };
	struct facts f = { 0 };
	char err[CD_ERRMSG] = "";

	assert_int_equal(win_side_probe(w, &o, err), CD_OK);
	f.windows = w;
	assert_int_equal(report_init(r, "doctor"), CD_OK);
	assert_int_equal(rules_windows(&f, r), CD_OK);
	no_linux_fix(r);
}

static void test_path_mapping(void **state)
{
	char out[512], want[512];

	(void)state;
	assert_true(win_path_local("/mnt/c", "C:\\Program Files\\x\\", out, sizeof out));
	assert_string_equal(out, "/mnt/c/Program Files/x");
	assert_true(win_path_local("/mnt/c", "d:/data/y", out, sizeof out));
	assert_string_equal(out, "/mnt/d/data/y");
	assert_true(win_path_local("/mnt/c", "C:", out, sizeof out));
	assert_string_equal(out, "/mnt/c");
	snprintf(want, sizeof want, "%s/Windows", drive);
	assert_true(win_path_local(drive, "c:\\Windows", out, sizeof out));
	assert_string_equal(out, want);
	/* a drive with no mount beside C:'s, a relative path, a share */
	assert_false(win_path_local("/srv/win", "D:\\x", out, sizeof out));
	assert_false(win_path_local("/mnt/c", "bin", out, sizeof out));
	assert_false(win_path_local("/mnt/c", "\\\\server\\share", out, sizeof out));
	assert_false(win_path_local("/mnt/c", "%CUDA_PATH%\\bin", out, sizeof out));
}

/* The installer's variables, one of them left by an uninstalled 11.8, and PATH running 12.8's
 * nvcc.exe while CUDA_PATH names 12.4. */
static void test_stale_and_disagreeing_cuda_path(void **state)
{
	const char *env[] = { "Path=C:\\Windows", "CUDA_PATH=" TK_WIN "\\v12.4", "CUDA_PATH_V12_4=" TK_WIN "\\v12.4\\",
			      "CUDA_PATH_V12_8=" TK_WIN "\\v12.8", "CUDA_PATH_V11_8=" TK_WIN "\\v11.8", "CUDA_HOME=x", NULL };
	const char *path = "C:\\Windows\\system32; " TK_WIN "\\v12.8\\bin;" TK_WIN "\\v12.4\\bin;;C:\\Windows";
	const struct win_toolkit *t124, *t128, *t118;
	const struct finding *x;
	struct win_side w;
	struct report r;

	(void)state;
	probe_and_judge(env, path, &w, &r);
	assert_true(w.read);
	assert_true(w.env_visible);
	assert_string_equal(w.cuda_path, TK_WIN "\\v12.4");
	assert_int_equal(w.n, 3);
	t124 = toolkit(&w, "v12.4");
	t128 = toolkit(&w, "v12.8");
	t118 = toolkit(&w, "v11.8");
	assert_string_equal(t124->vars, "CUDA_PATH CUDA_PATH_V12_4");
	assert_int_equal(t124->found_by, WTK_CUDA_PATH | WTK_CUDA_PATH_V | WTK_DEFAULT | WTK_PATH);
	assert_string_equal(t124->version_text, "12.4.131");
	assert_string_equal(t124->version_source, "version.json");
	assert_int_equal(t124->path_rank, 2);
	assert_false(t124->wins);
	assert_string_equal(t128->version_text, "12");
	assert_string_equal(t128->version_source, "cudart64_*.dll");
	assert_int_equal(t128->path_rank, 1);
	assert_true(t128->wins);
	assert_true(t128->has_nvcc);
	assert_false(t118->exists);
	assert_false(t118->has_nvcc);
	assert_string_equal(t118->vars, "CUDA_PATH_V11_8");

	assert_non_null(x = finding(&r, "win-cuda-path-missing"));
	assert_string_equal(x->subject, "CUDA_PATH_V11_8");
	assert_int_equal(x->severity, SEV_WARN);
	assert_non_null(strstr(x->title, "CUDA_PATH_V11_8"));
	assert_true(has_fix(x, "setx /M CUDA_PATH_V11_8 \"" TK_WIN "\\v12.8\""));
	assert_true(has_fix(x, "SetEnvironmentVariable(\"CUDA_PATH_V11_8\", $null, \"Machine\")"));

	assert_non_null(x = finding(&r, "win-cuda-path-mismatch"));
	assert_string_equal(x->title, "CUDA_PATH names CUDA 12.4.131 but the nvcc.exe first on PATH is CUDA 12");
	assert_true(has_fix(x, "setx /M CUDA_PATH \"" TK_WIN "\\v12.8\""));
	assert_true(has_fix(x, "where nvcc"));
	assert_int_equal(x->n_evidence, 2);
	report_free(&r);
	win_side_free(&w);
}

/* CUDA_PATH naming the toolkit PATH runs, every variable's folder installed: nothing to say. */
static void test_consistent_install(void **state)
{
	const char *env[] = { "CUDA_PATH=" TK_WIN "\\v12.8", "CUDA_PATH_V12_4=" TK_WIN "\\v12.4",
			      "CUDA_PATH_V12_8=" TK_WIN "\\V12.8", NULL };
	struct win_side w;
	struct report r;

	(void)state;
	probe_and_judge(env, TK_WIN "\\v12.8\\bin;C:\\Windows\\system32", &w, &r);
	assert_int_equal(w.n, 2);
	assert_true(toolkit(&w, "v12.8")->wins);
	assert_string_equal(toolkit(&w, "v12.8")->vars, "CUDA_PATH CUDA_PATH_V12_8");
	assert_int_equal(r.n_findings, 0);
	report_free(&r);
	win_side_free(&w);
}

/* No toolkit on PATH: a stale CUDA_PATH is pointed at the newest installed. */
static void test_no_nvcc_on_path(void **state)
{
	const char *env[] = { "CUDA_PATH=" TK_WIN "\\v13.0", NULL };
	const struct finding *x;
	struct win_side w;
	struct report r;

	(void)state;
	probe_and_judge(env, "C:\\Windows\\system32", &w, &r);
	assert_non_null(x = finding(&r, "win-cuda-path-missing"));
	assert_true(has_fix(x, "setx /M CUDA_PATH \"" TK_WIN "\\v12.4\"  # point it at a toolkit that is installed (CUDA 12.4.131)"));
	assert_null(finding(&r, "win-cuda-path-mismatch"));
	report_free(&r);
	win_side_free(&w);
}

static json_t *doctor_json(const char *const extra[], char **text)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", NULL };
	const char *argv_text[] = { CUDOCTOR_BINARY, "doctor", NULL };
	const char *env[24];
	size_t n = 0;
	struct run_result res;
	json_error_t je;
	json_t *j;

	env[n++] = "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1";
	env[n++] = "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1";
	env[n++] = "CUDA_PATH=";
	env[n++] = "CUDA_HOME=";
	env[n++] = "CUDACXX=";
	env[n++] = "VIRTUAL_ENV=";
	env[n++] = "CONDA_PREFIX=";
	for (size_t i = 0; extra[i]; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	j = json_loads(res.out, 0, &je);
	if (!j)
		fail_msg("not JSON (%s): %s\nstderr: %s", je.text, res.out, res.err);
	run_result_free(&res);
	if (text) {
		assert_int_equal(testlib_run(argv_text, env, NULL, &res), 0);
		*text = strdup(res.out);
		run_result_free(&res);
	}
	return j;
}

/* From WSL2: the Windows PATH is the /mnt/X folders WSL appended to PATH, the drive is /mnt/c
 * under the host root, and CUDA_PATH cannot be seen, so it is neither shown nor judged. */
static void test_doctor_from_wsl(void **state)
{
	char host[128], *text = NULL;
	const char *extra[] = { host,
				"PATH=/usr/bin:/bin:/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.8/bin:"
				"/mnt/c/WINDOWS/system32:/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin",
				NULL };
	json_t *j, *w, *ts, *t;
	size_t i, found = 0;

	(void)state;
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", root);
	tree_file(root, "proc/sys/kernel/osrelease", "6.6.87.2-microsoft-standard-WSL2\n", 0);
	j = doctor_json(extra, &text);
	w = json_object_get(j, "windows");
	assert_true(json_is_object(w));
	assert_string_equal(json_string_value(json_object_get(w, "read_from")), "WSL2 (/mnt/c)");
	assert_true(json_is_false(json_object_get(w, "environment_visible")));
	assert_true(json_is_null(json_object_get(w, "cuda_path")));
	ts = json_object_get(w, "toolkits");
	assert_int_equal(json_array_size(ts), 2);
	json_array_foreach(ts, i, t) {
		const char *p = json_string_value(json_object_get(t, "path"));
		bool is128 = strstr(p, "\\v12.8") != NULL;
		found++;
		assert_true(json_is_boolean(json_object_get(t, "wins")));
		assert_int_equal(json_is_true(json_object_get(t, "wins")), is128);
		assert_int_equal(json_integer_value(json_object_get(t, "path_rank")), is128 ? 0 : 2);
		assert_string_equal(json_string_value(json_object_get(t, "version")), is128 ? "12" : "12.4.131");
	}
	assert_int_equal(found, 2);
	json_array_foreach(json_object_get(j, "findings"), i, t)
		assert_null(strstr(json_string_value(json_object_get(t, "id")), "win-cuda-path"));
	assert_non_null(strstr(text, "\nWindows\n"));
	assert_non_null(strstr(text, "not visible (the Windows environment cannot be read from WSL2)"));
	assert_non_null(strstr(text, "v12.8\\bin\\nvcc.exe (first on PATH)"));
	free(text);
	json_decref(j);

	/* not WSL: no Windows side, whatever /mnt/c holds */
	tree_file(root, "proc/sys/kernel/osrelease", "6.8.0-48-generic\n", 0);
	j = doctor_json(extra, NULL);
	assert_true(json_is_null(json_object_get(j, "windows")));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_mapping),
		cmocka_unit_test(test_stale_and_disagreeing_cuda_path),
		cmocka_unit_test(test_consistent_install),
		cmocka_unit_test(test_no_nvcc_on_path),
		cmocka_unit_test(test_doctor_from_wsl),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
