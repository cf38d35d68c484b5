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
#include <unistd.h>

#include "probe/windows.h"
#include "report/report.h"
#include "rules/rules.h"
#include "util/err.h"

#include "mingw_pe.h"
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
	/* the py launcher's list is in Windows' registry, which WSL2 cannot read: said, not an error */
	assert_string_equal(json_string_value(json_object_get(w, "python_registry")), "not readable from WSL2");
	assert_true(json_is_null(json_object_get(w, "python_registered")));
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
	assert_non_null(strstr(text, "not visible (the Windows environment"));
	assert_non_null(strstr(text, "v12.8\\bin\\nvcc.exe (first on PATH)"));
	free(text);
	json_decref(j);

	/* not WSL: no Windows side, whatever /mnt/c holds */
	tree_file(root, "proc/sys/kernel/osrelease", "6.8.0-48-generic\n", 0);
	j = doctor_json(extra, NULL);
	assert_true(json_is_null(json_object_get(j, "windows")));
	json_decref(j);
}

/* ComfyUI portable unpacked at C:\ (the fixture script's win_tree: torch 2.6.0+cu118 whose
 * torch_cuda.dll carries sm_80 only), seen from WSL2 on an RTX 5070 Ti: doctor lists its
 * python_embeded, reads its torch from version.py and judges it as it judges a Linux torch,
 * with the fix run by that environment's own python.exe. */
static void test_doctor_comfyui_from_wsl(void **state)
{
	char host[128], cmd[512], croot[64], cdrive[128], *text = NULL;
	const char *extra[] = { host, "PATH=/usr/bin:/bin", "HOME=/nonexistent",
				"FAKE_GPUS=NVIDIA GeForce RTX 5070 Ti:12.0:16GiB", "FAKE_NVML_DRIVER_VERSION=576.02",
				"FAKE_CUDA_DRIVER_VERSION=12090", NULL };
	json_t *j, *x, *row = NULL, *env = NULL;
	size_t i, fixes = 0;

	(void)state;
	if (access(CUDOCTOR_FIXTURES_DIR "/win_tree/ComfyUI_windows_portable/python_embeded/python.exe", R_OK) != 0) {
		fprintf(stderr, "skipping: %s/win_tree missing (nvcc or x86_64-w64-mingw32-gcc was not found at build time)\n",
			CUDOCTOR_FIXTURES_DIR);
		skip();
	}
	assert_non_null(tree_new(croot, sizeof croot));
	snprintf(cdrive, sizeof cdrive, "%s/mnt/c", croot);
	tree_dir(croot, "mnt/c");
	tree_file(croot, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	snprintf(cmd, sizeof cmd, "cp -R '%s/win_tree/.' '%s/'", CUDOCTOR_FIXTURES_DIR, cdrive);
	assert_int_equal(system(cmd), 0);
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", croot);
	j = doctor_json(extra, &text);

	json_array_foreach(json_object_get(json_object_get(j, "python"), "environments"), i, x)
		if (strcmp(json_string_value(json_object_get(x, "kind")), "python_embeded") == 0)
			env = x;
	assert_non_null(env);
	assert_non_null(strstr(json_string_value(json_object_get(env, "interpreter")),
			       "/mnt/c/ComfyUI_windows_portable/python_embeded/python.exe"));
	json_array_foreach(json_object_get(j, "will_it_run"), i, x)
		if (strcmp(json_string_value(json_object_get(x, "framework")), "torch (python_embeded) 2.6.0+cu118") == 0)
			row = x;
	if (!row)
		fail_msg("no python_embeded torch row in:\n%s", text);
	assert_string_equal(json_string_value(json_object_get(row, "result")), "no-image");
	assert_string_equal(json_string_value(json_object_get(row, "missing")), "sm_120");
	assert_non_null(strstr(json_string_value(json_object_get(row, "file")), "torch/lib/torch_cuda.dll"));
	assert_true(strncmp(json_string_value(json_object_get(row, "fix")),
			    "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe -m pip install --force-reinstall torch==",
			    80) == 0);
	/* the finding's fix is the same command */
	json_array_foreach(json_object_get(j, "findings"), i, x) {
		json_t *fix;
		size_t k;

		if (strcmp(json_string_value(json_object_get(x, "id")), "framework-cannot-run") != 0)
			continue;
		json_array_foreach(json_object_get(x, "fix"), k, fix) {
			assert_non_null(strstr(json_string_value(fix), "python_embeded\\python.exe -m pip install"));
			fixes++;
		}
	}
	assert_int_equal(fixes, 1);
	assert_non_null(strstr(text, "torch (python_embeded) 2.6.0+cu118"));
	free(text);
	json_decref(j);
	tree_remove(croot);
}

/* PyPI's torch for Windows (2.7.1, cp312 win_amd64: only its torch/version.py is fetched, into
 * ~/.cache/cudoctor-test/, and reused) in a ComfyUI portable on a user's Desktop, beside a conda
 * env and a python.org install: doctor finds all three, and the CPU-only torch's fix lines run
 * that python.exe in cmd.exe's quoting, never a Linux line. */
static void test_pypi_windows_torch_is_cpu_only(void **state)
{
	const char *home = getenv("HOME");
	char out[512], vp[600], host[128], croot[64], *text = NULL, *py = NULL;
	const char *extra[] = { host, "PATH=/usr/bin:/bin", "HOME=/nonexistent",
				"FAKE_GPUS=NVIDIA GeForce RTX 4070:8.9:12GiB", "FAKE_NVML_DRIVER_VERSION=576.02",
				"FAKE_CUDA_DRIVER_VERSION=12090", NULL };
	const char *spe = "mnt/c/Users/me/Desktop/ComfyUI_windows_portable/python_embeded";
	struct run_result res;
	json_t *j, *x, *fix;
	size_t i, k, kinds = 0, lines = 0;
	FILE *f;
	long len;

	(void)state;
	snprintf(out, sizeof out, "%s/.cache/cudoctor-test/torch-2.7.1-win", home && *home ? home : "/tmp");
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/fetch_member.py", "torch",
			       "2.7.1", "cp312-cp312-win_amd64", out, "torch/version.py", NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: no network to the package index: %s\n", res.err);
		run_result_free(&res);
		skip();
	}
	if (res.status != 0)
		fail_msg("fetch_member.py exited %d: %s", res.status, res.err);
	run_result_free(&res);
	snprintf(vp, sizeof vp, "%s/version.py", out);
	assert_non_null(f = fopen(vp, "r"));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	assert_non_null(py = calloc(1, (size_t)len + 1));
	assert_int_equal(fread(py, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_non_null(strstr(py, "__version__ = '2.7.1+cpu'"));

	assert_non_null(tree_new(croot, sizeof croot));
	tree_file(croot, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	snprintf(vp, sizeof vp, "%s/python.exe", spe);
	tree_file(croot, vp, "MZ", 0);
	snprintf(vp, sizeof vp, "%s/Lib/site-packages/torch/version.py", spe);
	tree_file(croot, vp, py, 0);
	tree_file(croot, "mnt/c/Users/me/miniconda3/envs/sd/python.exe", "MZ", 0);
	tree_dir(croot, "mnt/c/Users/me/miniconda3/envs/sd/Lib/site-packages");
	tree_file(croot, "mnt/c/Users/me/AppData/Local/Programs/Python/Python312/python.exe", "MZ", 0);
	tree_dir(croot, "mnt/c/Users/me/AppData/Local/Programs/Python/Python312/Lib/site-packages");
	free(py);
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", croot);
	j = doctor_json(extra, &text);

	json_array_foreach(json_object_get(json_object_get(j, "python"), "environments"), i, x) {
		const char *kind = json_string_value(json_object_get(x, "kind"));
		kinds += strcmp(kind, "python_embeded") == 0 || strcmp(kind, "conda (Windows)") == 0 ||
			 strcmp(kind, "python.org (Windows)") == 0;
	}
	assert_int_equal(kinds, 3);
	assert_non_null(x = json_object_get(j, "findings"));
	json_array_foreach(json_object_get(j, "findings"), i, x) {
		if (strcmp(json_string_value(json_object_get(x, "id")), "torch-cpu-only") != 0)
			continue;
		assert_string_equal(json_string_value(json_object_get(x, "severity")), "warn");
		json_array_foreach(json_object_get(x, "fix"), k, fix) {
			const char *line = json_string_value(fix);
			const char *want = "C:\\Users\\me\\Desktop\\ComfyUI_windows_portable\\python_embeded\\python.exe ";
			if (strncmp(line, want, strlen(want)) != 0)
				fail_msg("not the environment's python.exe: %s", line);
			assert_null(strchr(line, '\''));
			lines++;
		}
	}
	if (lines != 2)
		fail_msg("%zu fix lines of torch-cpu-only in:\n%s", lines, text);
	free(text);
	json_decref(j);
	tree_remove(croot);
}

/* Builds dir/name, a MinGW DLL that imports each of dlls; false when MinGW is not installed. */
static bool build_importing_dll(const char *dir, const char *name, const char *const *dlls)
{
	if (!mingw_available())
		return false;
	assert_int_equal(mingw_build_importing(dir, name, dlls, false), 0);
	return true;
}

/* onnxruntime-gpu in a ComfyUI portable, seen from WSL2: its CUDA provider imports cudart64_12.dll
 * (shipped beside it), cudnn64_9.dll (a stray copy beside python.exe shadows torch\lib's),
 * cublasLt64_12.dll (only in the toolkit's bin on PATH) and cufft64_11.dll (nowhere). */
static void test_python_dll_search_order(void **state)
{
	static const char *const dlls[] = { "cudart64_12.dll", "cudnn64_9.dll", "cublasLt64_12.dll", "cufft64_11.dll", NULL };
	const char *pe = "mnt/c/ComfyUI_windows_portable/python_embeded";
	char croot[64], host[128], dir[640], rel[512], *text = NULL;
	const char *extra[] = { host,
				"PATH=/usr/bin:/bin:/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin",
				"HOME=/nonexistent", "FAKE_GPUS=NVIDIA GeForce RTX 4070:8.9:12GiB", NULL };
	json_t *j, *x, *fix;
	size_t i, k, seen = 0;

	(void)state;
	assert_non_null(tree_new(croot, sizeof croot));
	snprintf(rel, sizeof rel, "%s/Lib/site-packages/onnxruntime/capi", pe);
	tree_dir(croot, rel);
	snprintf(dir, sizeof dir, "%s/%s", croot, rel);
	if (!build_importing_dll(dir, "onnxruntime_providers_cuda.dll", dlls)) {
		tree_remove(croot);
		fprintf(stderr, "skipping: no x86_64-w64-mingw32-gcc to build a DLL with\n");
		skip();
	}
	tree_file(croot, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	snprintf(rel, sizeof rel, "%s/python.exe", pe);
	tree_file(croot, rel, "MZ", 0);
	snprintf(rel, sizeof rel, "%s/cudnn64_9.dll", pe);
	tree_file(croot, rel, "MZ", 0);
	snprintf(rel, sizeof rel, "%s/Lib/site-packages/torch/lib/cudnn64_9.dll", pe);
	tree_file(croot, rel, "MZ", 0);
	snprintf(rel, sizeof rel, "%s/Lib/site-packages/onnxruntime/capi/cudart64_12.dll", pe);
	tree_file(croot, rel, "MZ", 0);
	snprintf(rel, sizeof rel, "%s/Lib/site-packages/onnxruntime_gpu-1.20.1.dist-info/METADATA", pe);
	tree_file(croot, rel, "Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: 1.20.1\n", 0);
	tree_file(croot, "mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/cublasLt64_12.dll", "MZ", 0);
	tree_file(croot, "mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin/nvcc.exe", "MZ", 0);
	tree_dir(croot, "mnt/c/Windows/System32");
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", croot);
	j = doctor_json(extra, &text);

	json_array_foreach(json_object_get(json_object_get(j, "windows"), "dll_loads"), i, x) {
		const char *dll = json_string_value(json_object_get(x, "dll"));
		const char *from = json_string_value(json_object_get(x, "from"));

		assert_string_equal(json_string_value(json_object_get(x, "module")),
				    "C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\onnxruntime\\capi\\"
				    "onnxruntime_providers_cuda.dll");
		seen++;
		if (strcmp(dll, "cudart64_12.dll") == 0) {
			assert_string_equal(from, "module folder");
		} else if (strcmp(dll, "cudnn64_9.dll") == 0) {
			assert_string_equal(from, "python.exe folder");
			assert_string_equal(json_string_value(json_object_get(x, "shadowed")),
					    "C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\lib\\cudnn64_9.dll");
		} else if (strcmp(dll, "cublasLt64_12.dll") == 0) {
			assert_true(json_is_null(json_object_get(x, "loads")));
			assert_string_equal(json_string_value(json_object_get(x, "on_path")),
					    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\cublasLt64_12.dll");
		} else {
			assert_string_equal(dll, "cufft64_11.dll");
			assert_true(json_is_null(json_object_get(x, "loads")));
			assert_true(json_is_null(json_object_get(x, "on_path")));
		}
	}
	if (seen != 4)
		fail_msg("%zu DLL loads in:\n%s", seen, text);
	seen = 0;
	json_array_foreach(json_object_get(j, "findings"), i, x) {
		const char *id = json_string_value(json_object_get(x, "id")), *want = NULL;

		if (strncmp(id, "win-dll-", 8) != 0)
			continue;
		seen++;
		json_array_foreach(json_object_get(x, "fix"), k, fix) {
			const char *line = json_string_value(fix);
			if (strstr(line, "ldconfig") || strstr(line, "LD_LIBRARY_PATH") || strstr(line, "export "))
				fail_msg("a Linux fix line: %s", line);
			if (strstr(line, "-m pip install nvidia-cublas-cu12") || strstr(line, "-m pip install nvidia-cufft-cu12") ||
			    strstr(line, "ren \"C:\\ComfyUI_windows_portable\\python_embeded\\cudnn64_9.dll\" cudnn64_9.dll.old"))
				want = line;
		}
		if (!want)
			fail_msg("%s without its fix in:\n%s", id, text);
		if (strcmp(id, "win-dll-shadowed") == 0)
			assert_string_equal(json_string_value(json_object_get(x, "severity")), "warn");
		else
			assert_string_equal(json_string_value(json_object_get(x, "severity")), "error");
	}
	assert_int_equal(seen, 3);
	free(text);
	json_decref(j);
	tree_remove(croot);
}

static size_t count_findings(json_t *j, const char *id, const char *subject_part)
{
	json_t *x;
	size_t i, n = 0;

	json_array_foreach(json_object_get(j, "findings"), i, x)
		n += strcmp(json_string_value(json_object_get(x, "id")), id) == 0 &&
		     strstr(json_string_value(json_object_get(x, "subject")), subject_part) != NULL;
	return n;
}

/* NVML's driver model per GPU (the fake's FAKE_NVML_DRIVER_MODEL): an A100 left in WDDM, and a
 * GeForce in WDDM driving the display, whose long kernels TDR stops; a GPU in TCC or MCDM, and
 * every GPU where NVML does not answer (Linux), says nothing. */
static void test_driver_models(void **state)
{
	const char *gpus = "FAKE_GPUS=NVIDIA A100-PCIE-40GB:8.0:40GiB;NVIDIA GeForce RTX 4090:8.9:24GiB;"
			   "NVIDIA H100 PCIe:9.0:80GiB;NVIDIA RTX A6000:8.6:48GiB";
	const char *windows[] = { "CUDOCTOR_HOST_ROOT=/nonexistent", "PATH=/usr/bin:/bin", "HOME=/nonexistent", gpus,
				  "FAKE_NVML_DRIVER_MODEL=0:0:1;1:0;2:2;3:1", "FAKE_NVML_DISPLAY_ACTIVE=1:1;3:1", NULL };
	const char *linux_[] = { "CUDOCTOR_HOST_ROOT=/nonexistent", "PATH=/usr/bin:/bin", "HOME=/nonexistent", gpus,
				 "FAKE_NVML_DISPLAY_ACTIVE=1:1;3:1", NULL };
	static const char *const models[] = { "WDDM", "WDDM", "MCDM", "TCC" };
	json_t *j, *g;
	size_t i;

	(void)state;
	j = doctor_json(windows, NULL);
	json_array_foreach(json_object_get(j, "gpus"), i, g) {
		assert_true(i < 4);
		assert_string_equal(json_string_value(json_object_get(g, "driver_model")), models[i]);
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "gpus"), 0),
							      "driver_model_pending")), "TCC");
	assert_int_equal(count_findings(j, "gpu-wddm-datacenter", "A100"), 1);
	assert_int_equal(count_findings(j, "gpu-wddm-datacenter", ""), 1);
	assert_int_equal(count_findings(j, "gpu-display-tdr", "RTX 4090"), 1);
	assert_int_equal(count_findings(j, "gpu-display-tdr", ""), 1);
	json_decref(j);

	j = doctor_json(linux_, NULL);
	json_array_foreach(json_object_get(j, "gpus"), i, g)
		assert_true(json_is_null(json_object_get(g, "driver_model")));
	assert_int_equal(count_findings(j, "gpu-wddm-datacenter", ""), 0);
	assert_int_equal(count_findings(j, "gpu-display-tdr", ""), 0);
	json_decref(j);
}

/* The registry's watchdog against a display GPU in WDDM, as Windows' own run would read it (the
 * facts filled here: no registry is readable on this machine, which the last case shows). */
static void test_tdr_registry(void **state)
{
	struct gpu_info g;
	struct gpu_probe p;
	struct win_side w;
	struct facts f = { 0 };
	struct report r;
	const struct finding *x;

	(void)state;
	memset(&g, 0, sizeof g);
	memset(&p, 0, sizeof p);
	memset(&w, 0, sizeof w);
	snprintf(g.name, sizeof g.name, "NVIDIA GeForce RTX 4070");
	gpu_mark(&g, GF_NAME);
	g.nvml_index = 0;
	g.cuda_ordinal = 0;
	gpu_mark(&g, GF_DRIVER_MODEL);
	g.display_active = true;
	gpu_mark(&g, GF_DISPLAY_ACTIVE);
	p.gpus = &g;
	p.n_gpus = 1;
	f.driver = &p;
	f.windows = &w;
	w.read = true;
	w.tdr_delay = (struct win_reg_dword){ WREG_SET, 10 };
	w.tdr_level = (struct win_reg_dword){ WREG_SET, 3 };
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(rules_windows(&f, &r), CD_OK);
	assert_non_null(x = finding(&r, "gpu-display-tdr"));
	assert_non_null(strstr(x->title, "kernels longer than 10 s are stopped"));
	assert_true(has_fix(x, "reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers\" /v TdrDelay "
			       "/t REG_DWORD /d 60 /f"));
	no_linux_fix(&r);
	report_free(&r);

	/* not set: Windows' default */
	w.tdr_delay.state = WREG_UNSET;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(rules_windows(&f, &r), CD_OK);
	assert_non_null(x = finding(&r, "gpu-display-tdr"));
	assert_non_null(strstr(x->title, "longer than 2 s"));
	report_free(&r);

	/* TdrLevel 0: no watchdog */
	w.tdr_level.value = 0;
	assert_int_equal(report_init(&r, "doctor"), CD_OK);
	assert_int_equal(rules_windows(&f, &r), CD_OK);
	assert_null(finding(&r, "gpu-display-tdr"));
	report_free(&r);

	/* read here: no registry, so the default is named as what it is */
	{
		struct win_side_opts o = { .root = drive, .from = "Windows", .registry = true };
		struct win_side rw;
		char err[CD_ERRMSG];

		assert_int_equal(win_side_probe(&rw, &o, err), CD_OK);
		assert_int_equal(rw.tdr_delay.state, WREG_UNREAD);
		assert_string_equal(rw.registry_note, "not readable");
		win_side_free(&rw);
		o.registry = false;
		assert_int_equal(win_side_probe(&rw, &o, err), CD_OK);
		assert_string_equal(rw.registry_note, "not readable from WSL2");
		f.windows = &rw;
		assert_int_equal(report_init(&r, "doctor"), CD_OK);
		assert_int_equal(rules_windows(&f, &r), CD_OK);
		assert_non_null(x = finding(&r, "gpu-display-tdr"));
		assert_non_null(strstr(x->title, "longer than TdrDelay (2 s unless changed)"));
		report_free(&r);
		win_side_free(&rw);
	}
}

/* --anonymize on the Windows side: a user's folder is named in Windows form and as WSL2 reads
 * it, with a blank in the name; neither form keeps it. */
static void test_anonymize_windows_user(void **state)
{
	const char *spe = "mnt/c/Users/Ada Lovelace/Desktop/ComfyUI_windows_portable/python_embeded";
	char croot[64], host[128], rel[512];
	const char *argv[] = { CUDOCTOR_BINARY, "--anonymize", "--json", "doctor", NULL };
	const char *env[] = { host, "PATH=/usr/bin:/bin", "HOME=/nonexistent", "CUDA_PATH=", "VIRTUAL_ENV=", "CONDA_PREFIX=",
			      "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			      "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", NULL };
	struct run_result res;

	(void)state;
	assert_non_null(tree_new(croot, sizeof croot));
	tree_file(croot, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	snprintf(rel, sizeof rel, "%s/python.exe", spe);
	tree_file(croot, rel, "MZ", 0);
	snprintf(rel, sizeof rel, "%s/Lib/site-packages/torch/version.py", spe);
	tree_file(croot, rel, "__version__ = '2.7.1+cpu'\ncuda = None\n", 0);
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", croot);
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	assert_non_null(strstr(res.out, "\"python_embeded\""));
	assert_non_null(strstr(res.out, "/mnt/c/Users/USER/Desktop/ComfyUI_windows_portable/python_embeded"));
	assert_non_null(strstr(res.out, "C:\\\\Users\\\\USER\\\\Desktop\\\\ComfyUI_windows_portable"));
	if (strstr(res.out, "Ada") || strstr(res.out, "Lovelace"))
		fail_msg("the user's name is left in:\n%s", res.out);
	run_result_free(&res);
	tree_remove(croot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_mapping),
		cmocka_unit_test(test_stale_and_disagreeing_cuda_path),
		cmocka_unit_test(test_consistent_install),
		cmocka_unit_test(test_no_nvcc_on_path),
		cmocka_unit_test(test_doctor_from_wsl),
		cmocka_unit_test(test_doctor_comfyui_from_wsl),
		cmocka_unit_test(test_pypi_windows_torch_is_cpu_only),
		cmocka_unit_test(test_python_dll_search_order),
		cmocka_unit_test(test_driver_models),
		cmocka_unit_test(test_tdr_registry),
		cmocka_unit_test(test_anonymize_windows_user),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
