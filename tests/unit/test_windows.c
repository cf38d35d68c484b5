/* cudoctor.exe (`make windows`) under Wine: it needs only Windows' own DLLs, and the commands
 * that run on Windows answer as the Linux build does for the same question (kb, gencode, mem,
 * plan, explain on texts of the corpus, arch on real Windows DLLs against cuobjdump's
 * listing, doctor and devices with no driver, devices with the fake driver DLLs), with the same
 * exit statuses; topo and fleet say in one line that they are Linux-only; and src/os/'s Win32
 * files pass tests/os/win32_check.c. Skipped, saying why, where the exe was not built or Wine
 * is not installed (tools/deps.sh test installs it; tests/check.sh builds the exe). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mingw_pe.h"
#include "testlib.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif
#ifndef CUDOCTOR_WINDOWS_EXE
#define CUDOCTOR_WINDOWS_EXE "build-windows/cudoctor.exe"
#endif

static const char *wine;
static char prefix[1024];
/* A run of the exe that waits on its stdin for the whole test: Wine's own processes (the
 * server, services) then start once, with no pipe of a run open, and stay up, so each run
 * takes a fraction of a second and none waits for them to let go of its output pipes. */
static FILE *keeper;

static bool executable(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static bool exe_built(void)
{
	struct stat st;

	if (stat(CUDOCTOR_WINDOWS_EXE, &st) == 0)
		return true;
	fprintf(stderr, "skipping: %s not built (make windows builds it; make check does)\n", CUDOCTOR_WINDOWS_EXE);
	return false;
}

static bool have_wine(void)
{
	static const char *const places[] = { "/usr/lib/wine/wine64", "/usr/bin/wine64", "/usr/bin/wine" };

	if (!wine)
		for (size_t i = 0; i < sizeof places / sizeof places[0] && !wine; i++)
			if (executable(places[i]))
				wine = places[i];
	if (!wine) {
		fprintf(stderr, "skipping: wine64 is not installed (sh tools/deps.sh test installs it)\n");
		return false;
	}
	if (!prefix[0]) {
		const char *home = getenv("HOME");

		char cmd[2048];

		/* one prefix for every run, made by the first (a few seconds), outside the repo */
		snprintf(prefix, sizeof prefix, "WINEPREFIX=%s/.cache/cudoctor-test/wine", home && *home ? home : "/tmp");
		snprintf(cmd, sizeof cmd, "%s WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= %s %s explain --offline "
			 ">/dev/null 2>&1", prefix, wine, CUDOCTOR_WINDOWS_EXE);
		/* "e": no run inherits its pipe, so closing it ends the keeper */
		keeper = popen(cmd, "we");
		/* a first run with no pipe of ours waits until Wine is up: the server and services
		 * it starts (or the keeper's) then never hold a test run's output pipes */
		snprintf(cmd, sizeof cmd, "%s WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= %s %s --version "
			 "</dev/null >/dev/null 2>&1", prefix, wine, CUDOCTOR_WINDOWS_EXE);
		if (system(cmd) != 0)
			fprintf(stderr, "note: %s did not exit 0\n", cmd);
	}
	return true;
}

#define NEED_WINE()                               \
	do {                                      \
		if (!exe_built() || !have_wine()) \
			skip();                   \
	} while (0)

/* Both builds get the same environment: a fixed date, no driver override, no colour. */
static int run(bool windows, const char *const args[], const char *stdin_text, struct run_result *res)
{
	const char *argv[32];
	const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "SOURCE_DATE_EPOCH=0",
			      "CUDOCTOR_LIBCUDA=", "CUDOCTOR_LIBNVML=", "CUDOCTOR_HOST_ROOT=", "COLUMNS=80", NULL };
	size_t n = 0;

	if (windows) {
		argv[n++] = wine;
		argv[n++] = CUDOCTOR_WINDOWS_EXE;
	} else {
		argv[n++] = CUDOCTOR_BINARY;
	}
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return testlib_run(argv, env, stdin_text, res);
}

/* The report after its header (the host line names the platform's kernel and C library). */
static const char *body(const char *out)
{
	const char *p = strstr(out, "\n\n");

	return p ? p + 2 : out;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *b;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	return b;
}

/* Every DLL the exe imports is one of Windows' own: no libwinpthread, libgcc or zlib1. */
static void imports_only_system_dlls(void **state)
{
	static const char *const system_dlls[] = { "kernel32.dll", "msvcrt.dll", "advapi32.dll", "shell32.dll",
						   "user32.dll", "ntdll.dll", "ucrtbase.dll", "bcrypt.dll" };
	const char *argv[] = { "/usr/bin/env", "x86_64-w64-mingw32-objdump", "-p", CUDOCTOR_WINDOWS_EXE, NULL };
	struct run_result res;
	size_t dlls = 0;

	(void)state;
	if (!exe_built())
		skip();
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 0);
	for (const char *p = strstr(res.out, "DLL Name: "); p; p = strstr(p + 1, "DLL Name: ")) {
		const char *name = p + 10;
		size_t len = strcspn(name, "\r\n");
		bool known = strncasecmp(name, "api-ms-win-", 11) == 0;

		for (size_t i = 0; i < sizeof system_dlls / sizeof system_dlls[0] && !known; i++)
			known = strlen(system_dlls[i]) == len && strncasecmp(name, system_dlls[i], len) == 0;
		if (!known)
			fail_msg("cudoctor.exe imports %.*s, which is not a Windows system DLL", (int)len, name);
		dlls++;
	}
	assert_true(dlls >= 1);
	assert_non_null(strcasestr(res.out, "DLL Name: KERNEL32.dll"));
	run_result_free(&res);
}

static void version_is_the_linux_builds(void **state)
{
	const char *args[] = { "--version", NULL };
	struct run_result w, l;

	(void)state;
	NEED_WINE();
	assert_int_equal(run(true, args, NULL, &w), 0);
	assert_int_equal(run(false, args, NULL, &l), 0);
	assert_int_equal(w.status, 0);
	assert_true(strncmp(w.out, "cudoctor " CUDOCTOR_VERSION, strlen("cudoctor " CUDOCTOR_VERSION)) == 0);
	/* the same commit: the line up to its "-dirty" mark, which depends on when each was built */
	assert_int_equal(strcspn(w.out, "-)\n"), strcspn(l.out, "-)\n"));
	assert_memory_equal(w.out, l.out, strcspn(l.out, "-)\n"));
	run_result_free(&w);
	run_result_free(&l);
}

/* One question to both builds: the same exit status and the same report after the header. */
static void same_answer(const char *const args[], const char *stdin_text)
{
	struct run_result w, l;

	assert_int_equal(run(true, args, stdin_text, &w), 0);
	assert_int_equal(run(false, args, stdin_text, &l), 0);
	/* a fix line's values are quoted for the platform's shell ("..." for cmd, '...' for sh): the
	 * same answer in each one's quotes */
	for (char *q = w.out; *q; q++)
		if (*q == '"')
			*q = '\'';
	for (char *q = l.out; *q; q++)
		if (*q == '"')
			*q = '\'';
	if (w.status != l.status || strcmp(body(w.out), body(l.out)) != 0)
		fail_msg("cudoctor %s %s: the Windows build (exit %d) answers\n%s\nthe Linux build (exit %d)\n%s\n"
			 "Windows stderr: %s",
			 args[0], args[1] ? args[1] : "", w.status, w.out, l.status, l.out, w.err);
	assert_true(strlen(body(l.out)) > 20);
	run_result_free(&w);
	run_result_free(&l);
}

static void platform_free_commands_answer_alike(void **state)
{
	const char *kb[] = { "kb", "gpu", "H200", NULL };
	const char *gencode[] = { "gencode", "--gpu", "sm_90", "--gpu", "sm_120", "--toolkit", "13.0", NULL };
	const char *mem[] = { "mem", "estimate", "--params", "7B", "--gpu", "H200", NULL };
	/* plan answers for the platform it runs on unless --os says which: the same question, asked alike */
	const char *plan[] = { "plan", "--os", "linux", "--gpu", "H200", "--gpu", "RTX4090", NULL };

	(void)state;
	NEED_WINE();
	same_answer(kb, NULL);
	same_answer(gencode, NULL);
	same_answer(mem, NULL);
	same_answer(plan, NULL);
}

/* explain reads the corpus's texts from stdin as on Linux (--offline: no live checks, which
 * see each platform's own machine). */
static void explain_reads_texts_alike(void **state)
{
	/* 818-820: texts from Windows, 800, 801 and 030: from Linux; both builds read the platform from
	 * the text and answer alike, fix lines included. The others say nothing of their platform:
	 * their fix lines take the local one's form, so only the rest is compared, and the
	 * Windows build's lines are checked for the Linux loader's and shell's (a finding that only
	 * Linux has, such as a kernel module older than its library, keeps its own). */
	static const char *const told[] = { "818", "819", "820", "800", "801", "030" };
	static const char *const silent[] = { "005", "010", "020", "033", "041", "050", "060", "070" };
	const char *args[] = { "explain", "--offline", NULL };
	const char *json_args[] = { "--json", "explain", "--offline", NULL };

	(void)state;
	NEED_WINE();
	for (size_t i = 0; i < sizeof told / sizeof told[0]; i++) {
		char path[1024];
		char *text;

		snprintf(path, sizeof path, "%s/tests/explain/%s.txt", CUDOCTOR_SOURCE_DIR, told[i]);
		text = slurp(path);
		same_answer(args, text);
		free(text);
	}
	for (size_t i = 0; i < sizeof silent / sizeof silent[0]; i++) {
		struct run_result w, l;
		json_t *jw, *jl;
		char path[1024];
		char *text;
		size_t k;
		json_t *f;

		snprintf(path, sizeof path, "%s/tests/explain/%s.txt", CUDOCTOR_SOURCE_DIR, silent[i]);
		text = slurp(path);
		assert_int_equal(run(true, json_args, text, &w), 0);
		assert_int_equal(run(false, json_args, text, &l), 0);
		assert_int_equal(w.status, l.status);
		assert_non_null(jw = json_loads(w.out, 0, NULL));
		assert_non_null(jl = json_loads(l.out, 0, NULL));
		json_object_del(jw, "header");
		json_object_del(jl, "header");
		for (int a = 0; a < 2; a++) {
			const char *key = a ? "matches" : "findings";
			json_array_foreach(json_object_get(jw, key), k, f) {
				size_t m;
				json_t *line;
				json_array_foreach(json_object_get(f, "fix"), m, line)
					if (strstr(json_string_value(line), "ldconfig") ||
					    strstr(json_string_value(line), "LD_LIBRARY_PATH") ||
					    strstr(json_string_value(line), "$("))
						fail_msg("text %s: the Windows build prints a Linux fix line: %s", silent[i],
							 json_string_value(line));
				json_object_del(f, "fix");
			}
			json_array_foreach(json_object_get(jl, key), k, f)
				json_object_del(f, "fix");
		}
		if (!json_equal(jw, jl))
			fail_msg("text %s: the builds' findings differ beyond their fix lines\nWindows:\n%s\nLinux:\n%s", silent[i],
				 w.out, l.out);
		assert_true(json_array_size(json_object_get(jl, "findings")) > 0);
		json_decref(jw);
		json_decref(jl);
		run_result_free(&w);
		run_result_free(&l);
		free(text);
	}
}

/* On Windows itself doctor reads the Windows side from the system drive, the environment and
 * the registry: a toolkit in its default folder named by CUDA_PATH, and TdrDelay set with
 * `reg add` in Wine's registry, come back in doctor's JSON. */
static void native_windows_side(void **state)
{
	const char *home = getenv("HOME");
	char dir[1024], cmd[4096];
	const char *argv[] = { wine, CUDOCTOR_WINDOWS_EXE, "--json", "doctor", NULL };
	const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "SOURCE_DATE_EPOCH=0",
			      "CUDOCTOR_LIBCUDA=", "CUDOCTOR_LIBNVML=", "CUDOCTOR_HOST_ROOT=",
			      "CUDA_PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4", NULL };
	const char *key = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
	struct run_result res;
	json_t *j, *w, *t;

	(void)state;
	NEED_WINE();
	snprintf(dir, sizeof dir, "%s/.cache/cudoctor-test/wine/drive_c/Program Files/NVIDIA GPU Computing Toolkit",
		 home && *home ? home : "/tmp");
	snprintf(cmd, sizeof cmd,
		 "mkdir -p '%s/CUDA/v12.4/bin' && printf '{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.4.1\"}}' "
		 "> '%s/CUDA/v12.4/version.json' && %s WINEDEBUG=-all %s reg add '%s' /v TdrDelay /t REG_DWORD /d 10 /f "
		 ">/dev/null 2>&1",
		 dir, dir, prefix, wine, key);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'; %s WINEDEBUG=-all %s reg delete '%s' /v TdrDelay /f >/dev/null 2>&1", dir,
		 prefix, wine, key);
	if (system(cmd) != 0)
		fprintf(stderr, "note: %s did not exit 0\n", cmd);
	if (!(j = json_loads(res.out, 0, NULL)))
		fail_msg("doctor --json under Wine is not JSON: %.400s", res.out);
	assert_non_null(w = json_object_get(j, "windows"));
	assert_string_equal(json_string_value(json_object_get(w, "read_from")), "this Windows");
	assert_true(json_is_true(json_object_get(w, "environment_visible")));
	assert_int_equal(json_integer_value(json_object_get(w, "tdr_delay_s")), 10);
	assert_non_null(t = json_array_get(json_object_get(w, "toolkits"), 0));
	assert_string_equal(json_string_value(json_object_get(t, "version")), "12.4.1");
	assert_string_equal(json_string_value(json_object_get(t, "path")),
			    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4");
	json_decref(j);
	run_result_free(&res);
}

/* arch's DLL search for a program against Wine's own loader: a program built here that imports
 * cudart64_12.dll, run by Wine and judged by cudoctor.exe, with the DLL (a stub built here)
 * nowhere, in a folder of PATH (WINEPATH), then beside the program too. Where cudoctor says the
 * program cannot start, Wine does not start it; where it names the copy that loads, it runs. */
static void exe_dll_search_as_wine_loads(void **state)
{
	static const char *const dlls[] = { "cudart64_12.dll", NULL };
	const char *home = getenv("HOME");
	char drive[1024], top[1200], app[1300], lib[1300], win_top[64], win_exe[128], winepath[160], cmd[4096];
	const char *argv_arch[] = { wine, CUDOCTOR_WINDOWS_EXE, "--json", "arch", win_exe, NULL };
	const char *argv_run[] = { wine, win_exe, NULL };
	const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "CUDOCTOR_LIBCUDA=",
			      "CUDOCTOR_LIBNVML=", "CUDOCTOR_HOST_ROOT=", winepath, NULL };
	struct {
		bool on_path, beside;
		const char *from;  /* NULL: not found */
		int status;        /* cudoctor.exe's */
	} cases[] = { { false, false, NULL, 1 }, { true, false, "PATH", 0 }, { true, true, "application folder", 0 } };
	struct run_result res;

	(void)state;
	NEED_WINE();
	if (!mingw_available()) {
		fprintf(stderr, "skipping: no x86_64-w64-mingw32-gcc to build a program with\n");
		skip();
	}
	snprintf(drive, sizeof drive, "%s/.cache/cudoctor-test/wine/drive_c", home && *home ? home : "/tmp");
	snprintf(win_top, sizeof win_top, "cudoctor-exe-%d", (int)getpid());
	snprintf(top, sizeof top, "%s/%s", drive, win_top);
	snprintf(app, sizeof app, "%s/app", top);
	snprintf(lib, sizeof lib, "%s/lib", top);
	snprintf(win_exe, sizeof win_exe, "C:\\%s\\app\\render.exe", win_top);
	snprintf(winepath, sizeof winepath, "WINEPATH=C:\\%s\\lib", win_top);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s'", app, lib);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mingw_build_importing(app, "render.exe", dlls, true), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *j, *d, *x;
		size_t k;
		bool finding = false;

		if (cases[i].on_path)
			assert_int_equal(mingw_build_stub(lib, "cudart64_12.dll", 0), 0);
		if (cases[i].beside)
			assert_int_equal(mingw_build_stub(app, "cudart64_12.dll", 0), 0);
		assert_int_equal(testlib_run(argv_arch, env, NULL, &res), 0);
		if (res.status != cases[i].status)
			fail_msg("case %zu: cudoctor.exe arch exited %d:\n%s\n%s", i, res.status, res.out, res.err);
		if (!(j = json_loads(res.out, 0, NULL)))
			fail_msg("case %zu: arch --json under Wine is not JSON: %.400s", i, res.out);
		d = json_array_get(json_object_get(json_array_get(json_object_get(j, "files"), 0), "dll_search"), 0);
		assert_non_null(d);
		assert_string_equal(json_string_value(json_object_get(d, "dll")), "cudart64_12.dll");
		if (cases[i].from) {
			assert_string_equal(json_string_value(json_object_get(d, "from")), cases[i].from);
		} else {
			assert_true(json_is_null(json_object_get(d, "loads")));
		}
		json_array_foreach(json_object_get(j, "findings"), k, x)
			finding |= strcmp(json_string_value(json_object_get(x, "id")), "win-exe-dll-not-found") == 0;
		assert_true(finding == !cases[i].from);
		json_decref(j);
		run_result_free(&res);
		/* Wine's loader agrees: the program starts exactly when cudoctor found its DLL */
		assert_int_equal(testlib_run(argv_run, env, NULL, &res), 0);
		if ((res.status == 0) != (cases[i].from != NULL))
			fail_msg("case %zu: %s under Wine exited %d, cudoctor said %s", i, win_exe, res.status,
				 cases[i].from ? cases[i].from : "not found");
		run_result_free(&res);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "note: %s did not exit 0\n", cmd);
}

/* The py launcher's list (PEP 514) under Wine: an install registered with `reg add` under
 * HKCU\Software\Python\<Company>\<Tag>\InstallPath, in a folder no other search looks in,
 * joins doctor's Python environments once (registered again under HKLM, still once), and its
 * CPU-only torch is judged as any other's: torch-cpu-only with its own python.exe in the fix. */
static void pep514_installs_are_read(void **state)
{
	const char *home = getenv("HOME");
	char top[1200], win_top[64], win_py[128], cmd[8192], fix[256];
	const char *argv[] = { wine, CUDOCTOR_WINDOWS_EXE, "--json", "doctor", NULL };
	const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "SOURCE_DATE_EPOCH=0",
			      "CUDOCTOR_LIBCUDA=", "CUDOCTOR_LIBNVML=", "CUDOCTOR_HOST_ROOT=", NULL };
	const char *keys[] = { "HKCU\\Software\\Python\\ExampleCorp\\3.12-cudoctor",
			       "HKLM\\Software\\Python\\ExampleCorp\\3.12-cudoctor" };
	struct run_result res;
	json_t *j, *w, *x;
	size_t i, envs = 0;
	bool judged = false;
	int rc;

	(void)state;
	NEED_WINE();
	snprintf(win_top, sizeof win_top, "cudoctor-py-%d", (int)getpid());
	snprintf(top, sizeof top, "%s/.cache/cudoctor-test/wine/drive_c/%s", home && *home ? home : "/tmp", win_top);
	snprintf(win_py, sizeof win_py, "C:\\%s\\py312", win_top);
	snprintf(cmd, sizeof cmd,
		 "mkdir -p '%s/py312/Lib/site-packages/torch' && printf 'MZ' > '%s/py312/python.exe' && "
		 "printf \"__version__ = '2.5.1+cpu'\\ndebug = False\\ncuda = None\\nhip = None\\n\" "
		 "> '%s/py312/Lib/site-packages/torch/version.py' && "
		 "%s WINEDEBUG=-all %s reg add '%s\\InstallPath' /ve /d '%s\\' /f >/dev/null 2>&1 && "
		 "%s WINEDEBUG=-all %s reg add '%s\\InstallPath' /ve /d '%s' /f >/dev/null 2>&1",
		 top, top, top, prefix, wine, keys[0], win_py, prefix, wine, keys[1], win_py);
	assert_int_equal(system(cmd), 0);
	rc = testlib_run(argv, env, NULL, &res);
	snprintf(cmd, sizeof cmd,
		 "rm -rf '%s'; %s WINEDEBUG=-all %s reg delete 'HKCU\\Software\\Python\\ExampleCorp' /f >/dev/null 2>&1; "
		 "%s WINEDEBUG=-all %s reg delete 'HKLM\\Software\\Python\\ExampleCorp' /f >/dev/null 2>&1",
		 top, prefix, wine, prefix, wine);
	if (system(cmd) != 0)
		fprintf(stderr, "note: %s did not exit 0\n", cmd);
	assert_int_equal(rc, 0);
	if (!(j = json_loads(res.out, 0, NULL)))
		fail_msg("doctor --json under Wine is not JSON: %.400s", res.out);
	assert_non_null(w = json_object_get(j, "windows"));
	assert_string_equal(json_string_value(json_object_get(w, "python_registry")), "read");
	assert_true(json_integer_value(json_object_get(w, "python_registered")) >= 2);
	json_array_foreach(json_object_get(json_object_get(j, "python"), "environments"), i, x) {
		const char *kind = json_string_value(json_object_get(x, "kind"));
		const char *pre = json_string_value(json_object_get(x, "prefix"));

		if (pre && strcasestr(pre, win_top)) {
			assert_string_equal(kind, "py launcher (Windows)");
			envs++;
		}
	}
	if (envs != 1)
		fail_msg("%zu environments in %s, not 1:\n%.3000s", envs, win_py, res.out);
	snprintf(fix, sizeof fix, "%s\\python.exe -m pip install", win_py);
	json_array_foreach(json_object_get(j, "findings"), i, x) {
		json_t *f;
		size_t k;

		if (strcmp(json_string_value(json_object_get(x, "id")), "torch-cpu-only") != 0)
			continue;
		json_array_foreach(json_object_get(x, "fix"), k, f)
			judged |= strstr(json_string_value(f), fix) != NULL;
	}
	if (!judged)
		fail_msg("no torch-cpu-only whose fix runs %s\\python.exe in:\n%.4000s", win_py, res.out);
	json_decref(j);
	run_result_free(&res);
}

/* The real Windows DLLs test_pe fetches (tests/wheels/pe_files.py, cached), each named by its
 * Linux path or, windows_path, its Windows path (Z:\ is Wine's drive for /): the exe's
 * `arch --cuobjdump` listing of each equals NVIDIA cuobjdump's. */
static void cuobjdump_listings(bool windows_path)
{
	char dir[1024];
	const char *home = getenv("HOME");
	struct run_result res;
	size_t with_code = 0;

	snprintf(dir, sizeof dir, "%s/.cache/cudoctor-test/pe-files", home && *home ? home : "/tmp");
	const char *fetch[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/pe_files.py", dir, NULL };
	assert_int_equal(testlib_run(fetch, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: %s", res.err);
		run_result_free(&res);
		skip();
	}
	if (res.status != 0)
		fail_msg("pe_files.py exited %d: %s", res.status, res.err);
	for (char *line = strtok(res.out, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t'), win[1100];
		const char *args[] = { "arch", "--cuobjdump", windows_path ? win : line, NULL };
		struct run_result w;

		assert_non_null(tab);
		*tab = 0;
		snprintf(win, sizeof win, "Z:%s", line);
		for (char *p = win; *p; p++)
			if (*p == '/')
				*p = '\\';
		assert_int_equal(run(true, args, NULL, &w), 0);
		if (w.status != 0)
			fail_msg("cudoctor.exe arch --cuobjdump %s: exit %d: %s", args[2], w.status, w.err);
		if (strcmp(tab + 1, "-") == 0) {
			assert_string_equal(w.out, "");
		} else {
			char *want = slurp(tab + 1);

			assert_string_equal(w.out, want);
			free(want);
			with_code++;
		}
		run_result_free(&w);
	}
	assert_int_equal(with_code, 5);
	run_result_free(&res);
}

static void arch_lists_real_dlls_as_cuobjdump(void **state)
{
	(void)state;
	NEED_WINE();
	cuobjdump_listings(false);
}

/* Why: "Linux words on Windows: cudoctor.exe doctor prints `kernel module  not loaded
 * (/proc/driver/nvidia/version absent)`". No fact line that only Linux has: the kernel module,
 * /proc, /dev/kmsg and /dev/nvidia*, the ld.so cache and its libcudart.so, /usr/local/cuda,
 * and the Linux host's /etc/os-release that Wine lets the exe read, in doctor and check
 * --no-load without a driver and in devices with the fake driver DLLs. */
static void linux_words_on_windows_kernel_module_line(void **state)
{
	const char *doctor[] = { "doctor", NULL }, *check[] = { "check", "--no-load", NULL };
	const char *const *cmds[] = { doctor, check };
	char wcuda[512], wnvml[512], distro[128] = "";
	FILE *f = fopen("/etc/os-release", "r");

	(void)state;
	NEED_WINE();
	if (f) {
		char line[256];
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "PRETTY_NAME=\"", 13) == 0)
				snprintf(distro, sizeof distro, "%.*s", (int)strcspn(line + 13, "\""), line + 13);
		fclose(f);
	}
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		/* as run() does, and no CUDA_HOME of this Linux host: on Windows it names a Windows folder */
		const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "SOURCE_DATE_EPOCH=0",
				      "CUDOCTOR_LIBCUDA=", "CUDOCTOR_LIBNVML=", "CUDOCTOR_HOST_ROOT=", "COLUMNS=80",
				      "CUDA_HOME=", "CUDA_PATH=", NULL };
		const char *argv[] = { wine, CUDOCTOR_WINDOWS_EXE, cmds[i][0], cmds[i][1], NULL };
		struct run_result w;

		assert_int_equal(testlib_run(argv, env, NULL, &w), 0);
		if (strstr(w.out, "\n  kernel module ") || strstr(w.out, "/proc/") || strstr(w.out, "/dev/kmsg") ||
		    strstr(w.out, "/dev/nvidia") || strstr(w.out, "ld.so.cache") || strstr(w.out, "/usr/local/cuda") ||
		    strstr(w.out, "libcudart.so.") || (distro[0] && strstr(w.out, distro)))
			fail_msg("cudoctor.exe %s prints a Linux fact:\n%s", cmds[i][0], w.out);
		run_result_free(&w);
	}
	snprintf(wcuda, sizeof wcuda, "CUDOCTOR_LIBCUDA=%s/win/nvcuda.dll", CUDOCTOR_FAKES_DIR);
	snprintf(wnvml, sizeof wnvml, "CUDOCTOR_LIBNVML=%s/win/nvml.dll", CUDOCTOR_FAKES_DIR);
	if (access(wcuda + strlen("CUDOCTOR_LIBCUDA="), R_OK) == 0) {
		const char *env[] = { prefix, "WINEDEBUG=-all", wcuda, wnvml, "SOURCE_DATE_EPOCH=0", NULL };
		const char *argv[] = { wine, CUDOCTOR_WINDOWS_EXE, "devices", NULL };
		struct run_result w;

		assert_int_equal(testlib_run(argv, env, NULL, &w), 0);
		assert_non_null(strstr(w.out, "GPU 0 ("));
		if (strstr(w.out, "kernel module") || strstr(w.out, "/proc/"))
			fail_msg("cudoctor.exe devices prints a Linux fact:\n%s", w.out);
		run_result_free(&w);
	}
}

/* Why: "arch --cuobjdump in the exe prints the whole `Z:\...\nvjpeg64_12.1.sm_100.cubin` path
 * where cuobjdump prints the file's base name": the same DLLs named by Windows paths. */
static void arch_cuobjdump_in_the_exe_prints_the_whole_windows_path(void **state)
{
	(void)state;
	NEED_WINE();
	cuobjdump_listings(true);
}

/* The ids of a --json report's findings, in order, space-separated. */
static void finding_ids(const char *json, char *out, size_t cap)
{
	size_t used = 0;

	out[0] = '\0';
	for (const char *p = strstr(json, "\"id\": \""); p; p = strstr(p + 1, "\"id\": \"")) {
		const char *id = p + 7;
		size_t len = strcspn(id, "\"");

		used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%.*s ", (int)len, id);
	}
}

/* No nvcuda.dll in System32 (Wine has none): doctor, devices and lab say what Linux says
 * without libcuda, finding for finding, in Windows' names; check says which of its files
 * are Linux's. */
static void no_driver_findings_as_on_linux(void **state)
{
	const char *doctor[] = { "--json", "doctor", NULL };
	const char *devices[] = { "--json", "devices", NULL };
	const char *lab[] = { "--json", "lab", "hello", NULL };
	const char *const *cmds[] = { doctor, devices, lab };

	(void)state;
	NEED_WINE();
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		struct run_result w;
		char ids[1024];

		assert_int_equal(run(true, cmds[i], NULL, &w), 0);
		assert_int_equal(w.status, 1);
		finding_ids(w.out, ids, sizeof ids);
		assert_non_null(strstr(ids, "no-driver "));
		assert_non_null(strstr(w.out, "nvcuda.dll"));
		/* Windows' library by name, and no Linux file as evidence (they said libcuda.so.1
		 * and /proc/driver/nvidia/version) */
		assert_non_null(strstr(w.out, "\"title\": \"No NVIDIA driver: nvcuda.dll cannot be loaded\""));
		assert_non_null(strstr(w.out, "\"subject\": \"nvcuda.dll\""));
		assert_null(strstr(w.out, "/proc/driver/nvidia"));
		run_result_free(&w);
	}
	/* check: the kernel log and modules are Linux's: no section in the text (it said "missing"
	 * and "not readable", then "linux only"), "linux only" in JSON */
	{
		const char *check[] = { "check", "--no-load", NULL }, *jcheck[] = { "--json", "check", "--no-load", NULL };
		struct run_result w;
		json_t *j;

		assert_int_equal(run(true, check, NULL, &w), 0);
		assert_int_equal(w.status, 1);
		assert_null(strstr(w.out, "Kernel log"));
		assert_null(strstr(w.out, "Kernel modules"));
		assert_non_null(strstr(w.out, "error no-driver: No NVIDIA driver: nvcuda.dll cannot be loaded [nvcuda.dll]"));
		run_result_free(&w);
		assert_int_equal(run(true, jcheck, NULL, &w), 0);
		assert_non_null(j = json_loads(w.out, 0, NULL));
		assert_string_equal(json_string_value(json_object_get(json_object_get(j, "kernel_log"), "state")), "linux only");
		assert_string_equal(json_string_value(json_object_get(json_object_get(j, "modules"), "state")), "linux only");
		json_decref(j);
		run_result_free(&w);
	}
	/* devices judges the driver alone: its findings are Linux's with no libcuda either */
	{
		struct run_result w, l;
		char wi[1024], li[1024];
		const char *env_args[] = { "--json", "devices", NULL };
		const char *argv[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
		const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", "CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
				      "CUDOCTOR_HOST_ROOT=/nonexistent", NULL };

		assert_int_equal(run(true, env_args, NULL, &w), 0);
		assert_int_equal(testlib_run(argv, env, NULL, &l), 0);
		finding_ids(w.out, wi, sizeof wi);
		finding_ids(l.out, li, sizeof li);
		assert_string_equal(wi, li);
		assert_int_equal(w.status, l.status);
		run_result_free(&w);
		run_result_free(&l);
	}
}

/* The fake driver built as Windows DLLs (tests/fakes: win/nvcuda.dll, win/nvml.dll), named by
 * CUDOCTOR_LIBCUDA and CUDOCTOR_LIBNVML as on Linux: devices reports the same GPUs and driver,
 * and the same findings, as the Linux build with the Linux fakes of the same layout. */
static void fake_driver_as_on_linux(void **state)
{
	static const char *const layouts[] = { "NVIDIA H200:9.0:141GiB;NVIDIA GeForce RTX 4060 Ti:8.9:8GiB",
					       "NVIDIA GeForce GTX 1080:6.1:8GiB" };
	char wcuda[512], wnvml[512], lcuda[512], lnvml[512], gpus[256];

	(void)state;
	NEED_WINE();
	snprintf(wcuda, sizeof wcuda, "CUDOCTOR_LIBCUDA=%s/win/nvcuda.dll", CUDOCTOR_FAKES_DIR);
	snprintf(wnvml, sizeof wnvml, "CUDOCTOR_LIBNVML=%s/win/nvml.dll", CUDOCTOR_FAKES_DIR);
	snprintf(lcuda, sizeof lcuda, "CUDOCTOR_LIBCUDA=%s/libcuda.so.1", CUDOCTOR_FAKES_DIR);
	snprintf(lnvml, sizeof lnvml, "CUDOCTOR_LIBNVML=%s/libnvidia-ml.so.1", CUDOCTOR_FAKES_DIR);
	if (access(wcuda + strlen("CUDOCTOR_LIBCUDA="), R_OK) != 0) {
		fprintf(stderr, "skipping: %s not built (tests/fakes builds it where MinGW is)\n", wcuda + 17);
		skip();
	}
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		const char *wenv[] = { prefix, "WINEDEBUG=-all", wcuda, wnvml, gpus, "SOURCE_DATE_EPOCH=0", NULL };
		const char *lenv[] = { lcuda, lnvml, gpus, "SOURCE_DATE_EPOCH=0", NULL };
		const char *wq[] = { wine, CUDOCTOR_WINDOWS_EXE, "-q", "devices", NULL };
		const char *lq[] = { CUDOCTOR_BINARY, "-q", "devices", NULL };
		const char *wj[] = { wine, CUDOCTOR_WINDOWS_EXE, "--json", "devices", NULL };
		const char *lj[] = { CUDOCTOR_BINARY, "--json", "devices", NULL };
		struct run_result w, l;
		char wi[1024], li[1024];

		snprintf(gpus, sizeof gpus, "FAKE_GPUS=%s", layouts[i]);
		assert_int_equal(testlib_run(wq, wenv, NULL, &w), 0);
		assert_int_equal(testlib_run(lq, lenv, NULL, &l), 0);
		assert_int_equal(w.status, l.status);
		assert_string_equal(w.out, l.out);
		assert_non_null(strstr(w.out, "GPU 0 ("));
		run_result_free(&w);
		run_result_free(&l);
		assert_int_equal(testlib_run(wj, wenv, NULL, &w), 0);
		assert_int_equal(testlib_run(lj, lenv, NULL, &l), 0);
		finding_ids(w.out, wi, sizeof wi);
		finding_ids(l.out, li, sizeof li);
		assert_string_equal(wi, li);
		run_result_free(&w);
		run_result_free(&l);
	}
}

static void linux_only_commands_say_so(void **state)
{
	static const char *const names[] = { "topo", "fleet" };

	(void)state;
	NEED_WINE();
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *args[] = { names[i], NULL };
		struct run_result w;

		assert_int_equal(run(true, args, NULL, &w), 0);
		assert_int_equal(w.status, 2);
		assert_string_equal(w.out, "");
		assert_non_null(strstr(w.err, "runs on Linux only"));
		assert_non_null(strstr(w.err, "this is Windows"));
		assert_int_equal(strchr(w.err, '\n') - w.err, strlen(w.err) - 1); /* one line */
		run_result_free(&w);
	}
}

/* The documented exit statuses, wildcards expanded, and --output written through a temporary
 * renamed into place. */
static void exit_statuses_and_output(void **state)
{
	const char *usage[] = { "no-such-command", NULL };
	const char *missing[] = { "arch", "/nonexistent/x.dll", NULL };
	const char *clean[] = { "kb", "gpu", "H200", NULL };
	char dir[] = "/tmp/cudoctor-win-XXXXXX", out[64], opt[80];
	struct run_result w, plain;

	(void)state;
	NEED_WINE();
	assert_int_equal(run(true, usage, NULL, &w), 0);
	assert_int_equal(w.status, 2);
	run_result_free(&w);
	assert_int_equal(run(true, missing, NULL, &w), 0);
	assert_int_equal(w.status, 3);
	assert_non_null(strstr(w.err, "/nonexistent/x.dll"));
	run_result_free(&w);
	/* cmd.exe and PowerShell pass `arch C:\app\*.dll` on as it is: cudoctor expands it,
	 * case folded as Windows names are (it said "*.dll: Invalid argument") */
	if (access(CUDOCTOR_FIXTURES_DIR "/arch/k_win.dll", R_OK) == 0) {
		const char *glob[] = { "-q", "arch", "--gpu", "8.6", "Z:" CUDOCTOR_FIXTURES_DIR "/arch/K_WIN*.DLL", NULL };
		const char *none[] = { "arch", "Z:" CUDOCTOR_FIXTURES_DIR "/arch/*.nomatch", NULL };

		assert_int_equal(run(true, glob, NULL, &w), 0);
		assert_int_equal(w.status, 0);
		assert_non_null(strstr(w.out, "/arch/k_win.dll: --gpu 8.6: native\n"));
		assert_string_equal(w.err, "");
		run_result_free(&w);
		assert_int_equal(run(true, none, NULL, &w), 0);
		assert_int_equal(w.status, 3);
		assert_non_null(strstr(w.err, "/arch/*.nomatch: no file matches\n"));
		run_result_free(&w);
	}

	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/report.txt", dir);
	snprintf(opt, sizeof opt, "--output=%s", out);
	const char *to_file[] = { opt, "kb", "gpu", "H200", NULL };
	assert_int_equal(run(true, clean, NULL, &plain), 0);
	assert_int_equal(plain.status, 0);
	assert_int_equal(run(true, to_file, NULL, &w), 0);
	assert_int_equal(w.status, 0);
	assert_string_equal(w.out, "");
	char *written = slurp(out);
	assert_string_equal(written, plain.out);
	free(written);
	run_result_free(&w);
	run_result_free(&plain);
	unlink(out);
	rmdir(dir);
}

/* tests/os/win32_check.c, built here by MinGW from src/os/'s Win32 files and run under Wine:
 * a child's output, exit status and time limit (os_run_capture), a program that cannot start,
 * files, folders and the environment named in UTF-8, and a pipe whose reader has gone. */
static void win32_os_layer_checks(void **state)
{
	char dir[] = "/tmp/cudoctor-win32-XXXXXX", exe[64], made[128], file[160];
	const char *env[] = { prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", NULL };
	struct run_result res;
	size_t ok = 0;

	(void)state;
	NEED_WINE();
	assert_non_null(mkdtemp(dir));
	snprintf(exe, sizeof exe, "%s/win32_check.exe", dir);
	const char *cc[] = { "/usr/bin/env", "x86_64-w64-mingw32-gcc", "-std=c11", "-O1", "-static", "-D_WIN32_WINNT=0x0A00",
			     "-D__USE_MINGW_ANSI_STDIO=1", "-I" CUDOCTOR_SOURCE_DIR "/src", "-o", exe,
			     CUDOCTOR_SOURCE_DIR "/tests/os/win32_check.c", CUDOCTOR_SOURCE_DIR "/src/os/proc_win32.c",
			     CUDOCTOR_SOURCE_DIR "/src/os/clock_win32.c", CUDOCTOR_SOURCE_DIR "/src/os/text_win32.c",
			     CUDOCTOR_SOURCE_DIR "/src/os/fs_win32.c", CUDOCTOR_SOURCE_DIR "/src/os/env_win32.c",
			     CUDOCTOR_SOURCE_DIR "/src/os/term_win32.c", CUDOCTOR_SOURCE_DIR "/src/os/sys_win32.c",
			     CUDOCTOR_SOURCE_DIR "/src/os/dl_win32.c", "-lshell32",
			     NULL };
	assert_int_equal(testlib_run(cc, NULL, NULL, &res), 0);
	if (res.status != 0)
		fail_msg("x86_64-w64-mingw32-gcc tests/os/win32_check.c: exit %d: %s", res.status, res.err);
	run_result_free(&res);
	const char *argv[] = { wine, exe, dir, NULL };
	assert_int_equal(testlib_run(argv, env, NULL, &res), 0);
	for (const char *p = res.out; (p = strstr(p, "ok ")); p++)
		ok += p == res.out || p[-1] == '\n';
	if (res.status != 0 || strstr(res.out, "FAIL") || ok != 16)
		fail_msg("win32_check.exe exited %d with %zu checks passed:\n%s%s", res.status, ok, res.out, res.err);
	run_result_free(&res);
	snprintf(made, sizeof made, "%s/caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", dir);
	snprintf(file, sizeof file, "%s/f\xc3\xa9.txt", made);
	unlink(file);
	rmdir(made);
	unlink(exe);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(imports_only_system_dlls),
		cmocka_unit_test(version_is_the_linux_builds),
		cmocka_unit_test(platform_free_commands_answer_alike),
		cmocka_unit_test(explain_reads_texts_alike),
		cmocka_unit_test(native_windows_side),
		cmocka_unit_test(arch_lists_real_dlls_as_cuobjdump),
		cmocka_unit_test(arch_cuobjdump_in_the_exe_prints_the_whole_windows_path),
		cmocka_unit_test(linux_words_on_windows_kernel_module_line),
		cmocka_unit_test(exe_dll_search_as_wine_loads),
		cmocka_unit_test(pep514_installs_are_read),
		cmocka_unit_test(no_driver_findings_as_on_linux),
		cmocka_unit_test(fake_driver_as_on_linux),
		cmocka_unit_test(linux_only_commands_say_so),
		cmocka_unit_test(exit_statuses_and_output),
		cmocka_unit_test(win32_os_layer_checks),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	if (keeper)
		pclose(keeper); /* its stdin ends: it explains nothing and exits */
	return failed;
}
