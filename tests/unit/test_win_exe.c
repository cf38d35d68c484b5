/* A Windows program's CUDA DLLs through Windows' search order for a desktop program
 * (probe/win_exe.c, rules/win_exe.c), with `cudoctor arch PROGRAM.exe`: a real program built
 * here by MinGW that imports cudart64_12.dll, cuBLAS, cuBLASLt, cuFFT, NVRTC and cuDNN, on a
 * fake WSL2 host whose C: drive is laid out per case, and on a host with no Windows drive. */
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
#include <sys/resource.h>

#include "mingw_pe.h"
#include "probe_tree.h"
#include "testlib.h"

#define TK "mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
#define TK_WIN "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
#define APP "mnt/c/Apps/render"
#define APP_WIN "C:\\Apps\\render"

static const char *const imports[] = { "cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll", "cufft64_11.dll",
				       "nvrtc64_120_0.dll", "cudnn64_9.dll", NULL };

/* The program in root/APP, or false (and a note) without MinGW. */
static bool build_program(const char *root)
{
	char dir[512];

	if (!mingw_available()) {
		fprintf(stderr, "skipping: no x86_64-w64-mingw32-gcc to build a program with\n");
		return false;
	}
	tree_dir(root, APP);
	snprintf(dir, sizeof dir, "%s/%s", root, APP);
	assert_int_equal(mingw_build_importing(dir, "render.exe", imports, true), 0);
	return true;
}

static json_t *arch_json(const char *root, const char *exe, const char *path, int want_status, char **text)
{
	char host[256], pathvar[16384];
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", exe, NULL };
	const char *argv_text[] = { CUDOCTOR_BINARY, "arch", exe, NULL };
	const char *env[] = { host, pathvar, "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			      "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "FAKE_GPUS=NVIDIA GeForce RTX 4070:8.9:12GiB",
			      "HOME=/nonexistent", NULL };
	struct run_result res;
	json_error_t je;
	json_t *j;

	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", root);
	snprintf(pathvar, sizeof pathvar, "PATH=%s", path);
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	if (res.status != want_status)
		fail_msg("arch exited %d, not %d:\n%s\n%s", res.status, want_status, res.out, res.err);
	if (!(j = json_loads(res.out, 0, &je)))
		fail_msg("arch --json is not JSON (%s):\n%.600s", je.text, res.out);
	run_result_free(&res);
	assert_int_equal(testlib_run(argv_text, env, NULL, &res), 0);
	*text = res.out;
	free(res.err);
	return j;
}

/* CPU seconds the children waited for so far have used: what a run costs, whatever else the
 * machine is doing while tests run two at a time beside other builds. */
static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static json_t *dll(json_t *j, const char *name)
{
	json_t *file = json_array_get(json_object_get(j, "files"), 0), *x;
	size_t i;

	json_array_foreach(json_object_get(file, "dll_search"), i, x)
		if (strcmp(json_string_value(json_object_get(x, "dll")), name) == 0)
			return x;
	fail_msg("no %s in dll_search", name);
	return NULL;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_null(v) ? NULL : json_string_value(v);
}

/* The finding of id (a case row is emitted as its id) whose evidence names dll; its fix lines
 * carry no Linux command. */
static json_t *finding(json_t *j, const char *id, const char *dll_name, const char *text)
{
	json_t *x, *e;
	size_t i, k;

	json_array_foreach(json_object_get(j, "findings"), i, x) {
		bool names = false;

		if (strcmp(json_string_value(json_object_get(x, "id")), id) != 0)
			continue;
		json_array_foreach(json_object_get(x, "evidence"), k, e)
			names |= strstr(json_string_value(e), dll_name) != NULL;
		if (!names)
			continue;
		json_array_foreach(json_object_get(x, "fix"), k, e) {
			const char *line = json_string_value(e);
			if (strstr(line, "ldconfig") || strstr(line, "LD_LIBRARY_PATH") || strstr(line, "export "))
				fail_msg("%s: a Linux fix line: %s", id, line);
		}
		return x;
	}
	fail_msg("no %s for %s in:\n%s", id, dll_name, text);
	return NULL;
}

static bool has_fix(json_t *f, const char *needle)
{
	json_t *e;
	size_t k;

	json_array_foreach(json_object_get(f, "fix"), k, e)
		if (strstr(json_string_value(e), needle))
			return true;
	return false;
}

static size_t count(json_t *j, const char *id)
{
	json_t *x;
	size_t i, n = 0;

	json_array_foreach(json_object_get(j, "findings"), i, x)
		n += strcmp(json_string_value(json_object_get(x, "id")), id) == 0;
	return n;
}

/* From WSL2, each step of the order: cudart64_12.dll beside the program (and a toolkit's on
 * PATH, which it rightly shadows), cublas64_12.dll left in System32 ahead of PATH's toolkit,
 * cublasLt64_12.dll only on PATH, cufft64_11.dll only in a toolkit folder not on PATH,
 * nvrtc64_120_0.dll absent with CUDA 13's nvrtc64_130_0.dll on PATH, cudnn64_9.dll nowhere. */
static void test_search_order_from_wsl(void **state)
{
	char root[64], exe[512], *text = NULL;
	json_t *j, *d, *f;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!build_program(root)) {
		tree_remove(root);
		skip();
	}
	tree_file(root, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	tree_file(root, APP "/cudart64_12.dll", "MZ", 0);
	tree_file(root, "mnt/c/Windows/System32/cublas64_12.dll", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/nvcc.exe", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/cudart64_12.dll", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/cublas64_12.dll", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/cuBLASLt64_12.DLL", "MZ", 0); /* Windows' names have no case */
	tree_file(root, TK "/v12.8/bin/cufft64_11.dll", "MZ", 0);
	tree_file(root, TK "/v13.0/bin/nvrtc64_130_0.dll", "MZ", 0);
	snprintf(exe, sizeof exe, "%s/%s/render.exe", root, APP);
	j = arch_json(root, exe, "/usr/bin:/bin:/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin:"
			    "/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v13.0/bin", 1, &text);

	assert_string_equal(str(json_array_get(json_object_get(j, "files"), 0), "dll_search_from"), "WSL2 (/mnt/c)");
	d = dll(j, "cudart64_12.dll");
	assert_string_equal(str(d, "loads"), APP_WIN "\\cudart64_12.dll");
	assert_string_equal(str(d, "from"), "application folder");
	assert_string_equal(str(d, "shadowed"), TK_WIN "\\v12.4\\bin\\cudart64_12.dll");
	d = dll(j, "cublas64_12.dll");
	assert_string_equal(str(d, "loads"), "C:\\Windows\\System32\\cublas64_12.dll");
	assert_string_equal(str(d, "from"), "System32");
	assert_string_equal(str(d, "shadowed_from"), "PATH");
	d = dll(j, "cublasLt64_12.dll");
	assert_string_equal(str(d, "loads"), TK_WIN "\\v12.4\\bin\\cuBLASLt64_12.DLL");
	assert_string_equal(str(d, "from"), "PATH");
	assert_int_equal(json_integer_value(json_object_get(d, "path_rank")), 0);
	d = dll(j, "cufft64_11.dll");
	assert_null(str(d, "loads"));
	assert_string_equal(str(d, "elsewhere"), TK_WIN "\\v12.8\\bin\\cufft64_11.dll");
	d = dll(j, "nvrtc64_120_0.dll");
	assert_null(str(d, "loads"));
	assert_string_equal(str(d, "other_major"), TK_WIN "\\v13.0\\bin\\nvrtc64_130_0.dll");
	d = dll(j, "cudnn64_9.dll");
	assert_null(str(d, "loads"));
	assert_null(str(d, "other_major"));
	assert_null(str(d, "elsewhere"));

	/* the program's own copy wins as it should; System32's stray cuBLAS is named */
	assert_int_equal(count(j, "win-exe-dll-shadowed"), 1);
	f = finding(j, "win-exe-dll-shadowed", "cublas64_12.dll", text);
	assert_string_equal(str(f, "severity"), "warn");
	assert_true(has_fix(f, "ren \"C:\\Windows\\System32\\cublas64_12.dll\" cublas64_12.dll.old"));
	assert_true(has_fix(f, "copy \"" TK_WIN "\\v12.4\\bin\\cublas64_12.dll\" \"" APP_WIN "\\\""));
	assert_int_equal(count(j, "win-exe-dll-not-found"), 3);
	f = finding(j, "win-exe-dll-not-found", "cufft64_11.dll", text);
	assert_string_equal(str(f, "severity"), "error");
	assert_non_null(strstr(str(f, "title"), "only in a toolkit folder that is not on PATH"));
	assert_true(has_fix(f, "copy \"" TK_WIN "\\v12.8\\bin\\cufft64_11.dll\" \"" APP_WIN "\\\""));
	assert_true(has_fix(f, "+ \";" TK_WIN "\\v12.8\\bin\", \"User\")"));
	f = finding(j, "win-exe-dll-not-found", "nvrtc64_120_0.dll", text);
	assert_non_null(strstr(str(f, "title"), "only another release's " TK_WIN "\\v13.0\\bin\\nvrtc64_130_0.dll"));
	f = finding(j, "win-exe-dll-not-found", "cudnn64_9.dll", text);
	assert_non_null(strstr(str(f, "title"), "is nowhere Windows looks"));
	assert_non_null(strstr(str(f, "why"), "The code execution cannot proceed because cudnn64_9.dll was not found"));
	/* the text names each DLL's place */
	assert_non_null(strstr(text, "CUDA DLLs of "));
	assert_non_null(strstr(text, "application folder"));
	free(text);
	json_decref(j);
	tree_remove(root);
}

/* doctor --binary PROGRAM.exe follows the same search, under "programs", with the same
 * findings as arch. */
static void test_doctor_binary(void **state)
{
	char root[64], exe[512], host[256], rel[256];
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "doctor", "--binary", exe, NULL };
	const char *env[] = { host, "PATH=/usr/bin:/bin:/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin",
			      "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			      "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "FAKE_GPUS=NVIDIA GeForce RTX 4070:8.9:12GiB",
			      "HOME=/nonexistent", "CUDA_PATH=", "CUDA_HOME=", "CUDACXX=", "VIRTUAL_ENV=", "CONDA_PREFIX=", NULL };
	struct run_result res;
	json_t *j, *p, *d;
	size_t i;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!build_program(root)) {
		tree_remove(root);
		skip();
	}
	tree_file(root, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	for (i = 0; imports[i]; i++) {
		snprintf(rel, sizeof rel, "%s/v12.4/bin/%s", TK, imports[i]);
		if (strcmp(imports[i], "cudnn64_9.dll") != 0)
			tree_file(root, rel, "MZ", 0);
	}
	snprintf(host, sizeof host, "CUDOCTOR_HOST_ROOT=%s", root);
	snprintf(exe, sizeof exe, "%s/%s/render.exe", root, APP);
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	if (!(j = json_loads(res.out, 0, NULL)))
		fail_msg("doctor --json is not JSON:\n%.600s", res.out);
	assert_non_null(p = json_array_get(json_object_get(j, "programs"), 0));
	assert_string_equal(str(p, "path"), exe);
	assert_string_equal(str(p, "dll_search_from"), "WSL2 (/mnt/c)");
	assert_int_equal(json_array_size(json_object_get(p, "dll_search")), 6);
	json_array_foreach(json_object_get(p, "dll_search"), i, d) {
		if (strcmp(str(d, "dll"), "cudnn64_9.dll") == 0)
			assert_null(str(d, "loads"));
		else
			assert_string_equal(str(d, "from"), "PATH");
	}
	assert_int_equal(count(j, "win-exe-dll-not-found"), 1);
	finding(j, "win-exe-dll-not-found", "cudnn64_9.dll", res.out);
	json_decref(j);
	run_result_free(&res);
	tree_remove(root);
}

/* A host with no Windows drive: only the program's own folder is searched, and the report
 * says so. */
static void test_no_windows_drive(void **state)
{
	char root[64], exe[512], *text = NULL, *ev;
	const char *const four[] = { "cublas64_12.dll", "cublasLt64_12.dll", "cufft64_11.dll", "nvrtc64_120_0.dll", NULL };
	json_t *j, *f, *d;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!build_program(root)) {
		tree_remove(root);
		skip();
	}
	tree_file(root, "proc/sys/kernel/osrelease", "6.1.0-28-amd64\n", 0);
	tree_file(root, APP "/cudart64_12.dll", "MZ", 0);
	for (size_t i = 0; four[i]; i++) {
		char rel[256];

		snprintf(rel, sizeof rel, "%s/%s", APP, four[i]);
		tree_file(root, rel, "MZ", 0);
	}
	snprintf(exe, sizeof exe, "%s/%s/render.exe", root, APP);
	j = arch_json(root, exe, "/usr/bin:/bin", 1, &text);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "files"), 0), "dll_search_from")));
	d = dll(j, "cudart64_12.dll");
	assert_string_equal(str(d, "from"), "application folder");
	assert_non_null(strstr(str(d, "loads"), "/mnt/c/Apps/render/cudart64_12.dll"));
	assert_int_equal(count(j, "win-exe-dll-not-found"), 1);
	f = finding(j, "win-exe-dll-not-found", "cudnn64_9.dll", text);
	ev = json_dumps(json_object_get(f, "evidence"), 0);
	assert_non_null(strstr(ev, "no Windows drive found"));
	free(ev);
	assert_non_null(strstr(text, "its own folder only: no Windows drive"));
	free(text);
	json_decref(j);
	tree_remove(root);
}

/* A DLL is no program: `arch` on one lists no DLL search. */
static void test_dll_is_not_searched(void **state)
{
	char root[64], exe[640], dir[512], *text = NULL;
	json_t *j;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!mingw_available()) {
		tree_remove(root);
		skip();
	}
	tree_dir(root, APP);
	snprintf(dir, sizeof dir, "%s/%s", root, APP);
	assert_int_equal(mingw_build_importing(dir, "render.dll", imports, false), 0);
	tree_file(root, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	snprintf(exe, sizeof exe, "%s/render.dll", dir);
	j = arch_json(root, exe, "/usr/bin:/bin", 0, &text);
	assert_null(json_object_get(json_array_get(json_object_get(j, "files"), 0), "dll_search"));
	assert_int_equal(count(j, "win-exe-dll-not-found"), 0);
	free(text);
	json_decref(j);
	tree_remove(root);
}

/* Crafted import names: a program built with same-length placeholders whose names are then
 * overwritten in the file (the import table keeps its offsets). The loader takes any string;
 * cudoctor takes only a DLL file name, so none of these is looked up, reported as a CUDA DLL or
 * put into a fix line: one finding names them, with no fix. */
static const char *const crafted[] = { "cudart64_12.dll & calc & rem .dll", "../../../../evil/cudart64_12.dll",
				       "cudnn64_9.dll\" \"|calc|\"x.dll", NULL };

static void overwrite_name(const char *file, const char *placeholder, const char *name)
{
	FILE *f = fopen(file, "r+b");
	static unsigned char buf[1 << 20];
	size_t n, len = strlen(placeholder);
	unsigned char *at = NULL;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf, f);
	for (size_t i = 0; i + len <= n && !at; i++)
		if (memcmp(buf + i, placeholder, len) == 0)
			at = buf + i;
	assert_non_null(at);
	memset(at, 0, len);
	memcpy(at, name, strlen(name));
	assert_int_equal(fseek(f, (long)(at - buf), SEEK_SET), 0);
	assert_int_equal(fwrite(at, 1, len, f), len);
	fclose(f);
}

static void test_crafted_import_names(void **state)
{
	static const char *const placeholders[] = { "cudart64_12PLACEHOLDER0000000000000000000.dll",
						    "cudart64_12PLACEHOLDER1111111111111111111.dll",
						    "cudnn64_9PLACEHOLDER222222222222222222222.dll", "cublas64_12.dll", NULL };
	char root[64], dir[512], exe[640], *text = NULL, *dump;
	json_t *j, *x, *f = NULL;
	size_t i;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!mingw_available()) {
		tree_remove(root);
		skip();
	}
	tree_dir(root, APP);
	snprintf(dir, sizeof dir, "%s/%s", root, APP);
	assert_int_equal(mingw_build_importing(dir, "render.exe", placeholders, true), 0);
	snprintf(exe, sizeof exe, "%s/render.exe", dir);
	for (i = 0; crafted[i]; i++)
		overwrite_name(exe, placeholders[i], crafted[i]);
	tree_file(root, "proc/sys/kernel/osrelease", "6.1.0-28-amd64\n", 0);
	/* what the path import would reach from the program's folder, and the real DLL beside it */
	tree_file(root, "evil/cudart64_12.dll", "MZ", 0);
	tree_file(root, APP "/cublas64_12.dll", "MZ", 0);
	j = arch_json(root, exe, "/usr/bin:/bin", 0, &text);
	json_array_foreach(json_object_get(j, "findings"), i, x)
		if (strcmp(json_string_value(json_object_get(x, "id")), "win-exe-import-malformed") == 0)
			f = x;
	if (!f)
		fail_msg("no win-exe-import-malformed in:\n%s", text);
	/* its fix lines are prose that names none of the crafted imports: nothing to paste */
	dump = json_dumps(json_object_get(f, "fix"), 0);
	assert_non_null(dump);
	if (strstr(dump, "calc") || strstr(dump, "evil") || strstr(dump, "cudart64_12.dll &"))
		fail_msg("a fix line carries a crafted import name: %s", dump);
	free(dump);
	dump = json_dumps(json_object_get(f, "evidence"), 0);
	for (i = 0; crafted[i]; i++)
		if (!strstr(text, crafted[i]))
			fail_msg("the report does not name %s:\n%s", crafted[i], text);
	assert_non_null(strstr(dump, "evil/cudart64_12.dll"));
	free(dump);
	/* the one real CUDA import is still followed; none of the crafted ones is */
	assert_string_equal(str(dll(j, "cublas64_12.dll"), "from"), "application folder");
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j, "files"), 0), "dll_search")), 1);
	json_array_foreach(json_object_get(j, "findings"), i, x) {
		json_t *e;
		size_t k;

		json_array_foreach(json_object_get(x, "fix"), k, e)
			if (strstr(json_string_value(e), "calc") || strstr(json_string_value(e), "evil"))
				fail_msg("a fix line carries a crafted import: %s", json_string_value(e));
	}
	assert_null(strstr(text, "loads from"));
	free(text);
	json_decref(j);
	tree_remove(root);
}

/* PATH's folders as Windows reads them: "." and ".." folded, a folder named again in another
 * spelling searched once, and each folder listed once however many DLLs are looked for. Fifty
 * spellings of System32 (thousands of files) and a program folder of 50,000 files: each was
 * listed once per DLL and spelling. */
static void test_path_spellings_and_big_folders(void **state)
{
	char root[64], exe[512], path[16384], *text = NULL, cmd[600];
	size_t used;
	json_t *j, *d;
	double t0, secs;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!build_program(root)) {
		tree_remove(root);
		skip();
	}
	tree_file(root, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	tree_file(root, "mnt/c/Windows/System32/cublas64_12.dll", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/nvcc.exe", "MZ", 0);
	tree_file(root, TK "/v12.4/bin/cublas64_12.dll", "MZ", 0);
	snprintf(cmd, sizeof cmd, "cd '%s/%s' && seq -f 'file%%06g.txt' 50000 | xargs touch && cd '%s/mnt/c/Windows/System32' "
		 "&& seq -f 'sys%%05g.dll' 3000 | xargs touch", root, APP, root);
	assert_int_equal(system(cmd), 0);
	used = (size_t)snprintf(path, sizeof path, "/usr/bin:/bin");
	for (int i = 0; i < 50; i++)
		used += (size_t)snprintf(path + used, sizeof path - used, ":/mnt/c/Windows/%.*sSystem32%s", 2 * (i % 5),
					 "./././././", i % 2 ? "/." : "/../System32/");
	snprintf(path + used, sizeof path - used, ":/mnt/c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin");
	snprintf(exe, sizeof exe, "%s/%s/render.exe", root, APP);
	t0 = children_cpu();
	j = arch_json(root, exe, path, 1, &text);
	secs = children_cpu() - t0;
	print_message("50 spellings of System32, 50,000 files beside the program: %.2f s of CPU (two runs)\n", secs);
	d = dll(j, "cublas64_12.dll");
	assert_string_equal(str(d, "loads"), "C:\\Windows\\System32\\cublas64_12.dll");
	/* System32 again under another spelling is no other copy: the toolkit's is the one it shadows */
	assert_string_equal(str(d, "shadowed"), TK_WIN "\\v12.4\\bin\\cublas64_12.dll");
	assert_true(secs < 20.0);
	free(text);
	json_decref(j);
	tree_remove(root);
}

/* 40,000 release folders in the toolkit's default folder: each was looked up among those
 * before it and the list grown by one each time (quadratic: about 40 s of CPU a run here); now
 * linear (about 3 s). */
static void test_many_toolkit_folders(void **state)
{
	char root[64], exe[512], cmd[700], *text = NULL;
	double t0, secs, limit = 20.0;
	json_t *j;

	(void)state;
	assert_non_null(tree_new(root, sizeof root));
	if (!build_program(root)) {
		tree_remove(root);
		skip();
	}
	tree_file(root, "proc/sys/kernel/osrelease", "5.15.167.4-microsoft-standard-WSL2\n", 0);
	tree_file(root, TK "/v12.4/bin/nvcc.exe", "MZ", 0);
	snprintf(cmd, sizeof cmd, "cd '%s/" TK "' && seq -f 'v%%g.0' 1 40000 | xargs mkdir", root);
	assert_int_equal(system(cmd), 0);
	snprintf(exe, sizeof exe, "%s/%s/render.exe", root, APP);
#ifdef __SANITIZE_ADDRESS__
	limit *= 3;
#endif
	t0 = children_cpu();
	j = arch_json(root, exe, "/usr/bin:/bin", 1, &text);
	secs = children_cpu() - t0;
	print_message("40,000 toolkit folders: %.2f s of CPU (two runs)\n", secs);
	assert_true(secs < limit);
	free(text);
	json_decref(j);
	tree_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_order_from_wsl),
		cmocka_unit_test(test_doctor_binary),
		cmocka_unit_test(test_no_windows_drive),
		cmocka_unit_test(test_crafted_import_names),
		cmocka_unit_test(test_path_spellings_and_big_folders),
		cmocka_unit_test(test_many_toolkit_folders),
		cmocka_unit_test(test_dll_is_not_searched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
