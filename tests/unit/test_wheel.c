/* `make dist`'s wheel and tarball (tools/make_dist.py), built from the cudoctor under test:
 * one version with --version and the .deb; the wheel checked by twine, check-wheel-contents,
 * wheel and auditwheel (pip-installed into ~/.cache/cudoctor-test/wheel-tools, reused); the
 * same bytes when built twice; installed into fresh venvs and with `pip install --target`,
 * where the launcher runs the binary with its arguments and exit status; and doctor and
 * `arch --python` run from a venv's launcher judging that venv first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch_fixtures.h"
#include "probe_tree.h"
#include "testlib.h"

#define FAKE_CUDA CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"

static char scratch[256];
static char wheel[1024], tarball[1024], tools[1024], version[64];
static bool have_tools;

static char script[8192]; /* the last script sh ran, for the failure messages */

/* Runs the script fmt makes under /bin/sh, capturing its output */
static struct run_result sh(const char *fmt, ...)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result r;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(script, sizeof script, fmt, ap);
	va_end(ap);
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

/* r's stdout; fails the test, with its output, unless the script exited 0 */
static char *ok_out(struct run_result r)
{
	if (r.status != 0)
		fail_msg("`%s` exited %d:\n%s%s", script, r.status, r.out, r.err);
	free(r.err);
	return r.out;
}
#define sh_ok(...) ok_out(sh(__VA_ARGS__))

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
}

/* wheel's and tools' paths from make_dist.py's two lines; the tools venv made once, by pip
 * from the index: without it the checks that need its tools skip */
static int build_dist(void **state)
{
	struct run_result r;
	const char *home = getenv("HOME");
	char *nl;

	(void)state;
	if (!tree_new(scratch, sizeof scratch))
		return -1;
	r = sh("cd '" CUDOCTOR_SOURCE_DIR "' && python3 tools/make_dist.py '%s' '%s/dist'", CUDOCTOR_BINARY, scratch);
	if (r.status != 0 || !(nl = strchr(r.out, '\n'))) {
		fprintf(stderr, "make_dist.py failed: %s%s\n", r.out, r.err);
		run_result_free(&r);
		return -1;
	}
	*nl = '\0';
	snprintf(wheel, sizeof wheel, "%s", r.out);
	snprintf(tarball, sizeof tarball, "%s", nl + 1);
	chomp(tarball);
	run_result_free(&r);
	r = sh("'%s' --version | sed -n '1s/^cudoctor \\([^ ]*\\).*/\\1/p'", CUDOCTOR_BINARY);
	snprintf(version, sizeof version, "%s", r.out);
	chomp(version);
	run_result_free(&r);

	snprintf(tools, sizeof tools, "%s/.cache/cudoctor-test/wheel-tools", home && *home ? home : "/tmp");
	/* made in place under a lock: a venv's scripts name its own path in their #! line, so one
	 * made elsewhere and moved would not run; "complete" is written last */
	r = sh("T='%s'; mkdir -p \"${T%%/*}\" && exec 9>\"$T.lock\" && flock 9 || exit 1; "
	       "[ -f \"$T/complete\" ] && exit 0; "
	       "rm -rf \"$T\" && python3 -m venv \"$T\" && \"$T/bin/pip\" install -q auditwheel check-wheel-contents twine wheel uv pipx "
	       "&& touch \"$T/complete\" && exit 0; rm -rf \"$T\"; exit 1", tools);
	have_tools = r.status == 0;
	if (!have_tools)
		fprintf(stderr, "the wheel tools could not be installed (is the package index reachable?): %s\n", r.err);
	run_result_free(&r);
	return 0;
}

static int remove_scratch(void **state)
{
	(void)state;
	tree_remove(scratch);
	return 0;
}

#define NEED_TOOLS()                                                                                   \
	do {                                                                                           \
		if (!have_tools) {                                                                     \
			fprintf(stderr, "skipping: pip could not install auditwheel, twine, check-wheel-contents, uv, pipx " \
					"into %s (no package index reachable)\n", tools);              \
			skip();                                                                        \
		}                                                                                      \
	} while (0)

/* A fresh venv with the wheel installed by the tools' pip, without pip of its own: an
 * environment that holds cudoctor alone, as pipx and uvx make one. Returns its path. */
static const char *venv_with_wheel(const char *name, char *buf, size_t n)
{
	free(sh_ok("cd '%s' && python3 -m venv --without-pip %s && '%s/bin/pip' --python %s/bin/python install -q --no-index --no-deps '%s'",
		   scratch, name, tools, name, wheel));
	snprintf(buf, n, "%s/%s", scratch, name);
	return buf;
}

/* One version: CMakeLists.txt's project() is --version's, the wheel's, the tarball's, the .deb's */
static void test_one_version(void **state)
{
	char *cmake, *meta, want[128];

	(void)state;
	cmake = sh_ok("sed -n 's/^project(cudoctor VERSION \\([^ ]*\\) .*/\\1/p' '" CUDOCTOR_SOURCE_DIR "/CMakeLists.txt'");
	chomp(cmake);
	assert_string_equal(version, cmake);
	free(cmake);
	/* manylinux_2_N, or linux for a sanitizer build's binary, which needs its runtime */
	snprintf(want, sizeof want, "/cudoctor-%s-py3-none-", version);
	assert_non_null(strstr(wheel, want));
	meta = sh_ok("ldd '%s'", CUDOCTOR_BINARY);
	assert_non_null(strstr(wheel, strstr(meta, "libasan") ? "-linux_" : "-manylinux_2_"));
	free(meta);
	snprintf(want, sizeof want, "/cudoctor-%s-linux-", version);
	assert_non_null(strstr(tarball, want));
	meta = sh_ok("unzip -p '%s' 'cudoctor-%s.dist-info/METADATA' | sed -n 's/^Version: //p'", wheel, version);
	chomp(meta);
	assert_string_equal(meta, version);
	free(meta);
	if (access("/usr/bin/dpkg-deb", X_OK) == 0) {
		char *deb = sh_ok("cd '" CUDOCTOR_SOURCE_DIR "' && d=$(sh tools/make_deb.sh '%s' '%s/deb' | tail -n 1) && dpkg-deb -f \"$d\" Version",
				  CUDOCTOR_BINARY, scratch);
		chomp(deb);
		assert_string_equal(deb, version);
		free(deb);
	}
	/* the commit it was built from, when built from a git checkout */
	meta = sh_ok("'%s' --version", CUDOCTOR_BINARY);
	if (access(CUDOCTOR_SOURCE_DIR "/.git", F_OK) == 0) {
		snprintf(want, sizeof want, "cudoctor %s (commit ", version);
		assert_true(strncmp(meta, want, strlen(want)) == 0);
	}
	free(meta);
}

/* The wheel as the packaging tools read it: metadata, RECORD, tags, and the glibc the binary
 * needs (auditwheel's reading gives the tag the file name has) */
static void test_wheel_is_valid(void **state)
{
	char *out, *t, tag[128], want[256];

	(void)state;
	NEED_TOOLS();
	free(sh_ok("'%s/bin/twine' check --strict '%s'", tools, wheel));
	free(sh_ok("'%s/bin/check-wheel-contents' '%s'", tools, wheel));
	/* wheel unpack verifies every file against RECORD's hash and size */
	free(sh_ok("'%s/bin/python' -m wheel unpack -d '%s/unpacked' '%s'", tools, scratch, wheel));
	free(sh_ok("test -x '%s/unpacked/cudoctor-%s/cudoctor/bin/cudoctor'", scratch, version));
	out = sh_ok("unzip -p '%s' 'cudoctor-%s.dist-info/WHEEL' 'cudoctor-%s.dist-info/entry_points.txt'", wheel, version, version);
	assert_non_null(strstr(out, "Root-Is-Purelib: false\n"));
	assert_non_null(strstr(out, "cudoctor = cudoctor.__main__:main\n"));
	free(sh_ok("unzip -p '%s' 'cudoctor-%s.dist-info/METADATA' | grep -qx 'License: MIT' && "
		   "unzip -p '%s' 'cudoctor-%s.dist-info/LICENSE' | cmp - '" CUDOCTOR_SOURCE_DIR "/LICENSE'",
		   wheel, version, wheel, version));
	t = strstr(out, "Tag: py3-none-");
	assert_non_null(t);
	t += strlen("Tag: py3-none-");
	snprintf(tag, sizeof tag, "%.*s", (int)strcspn(t, "\n"), t);
	assert_non_null(strstr(wheel, tag));
	free(out);
	out = sh_ok("'%s/bin/auditwheel' show '%s' 2>&1", tools, wheel);
	snprintf(want, sizeof want, "consistent with the following platform tag: \"%s\"", tag);
	for (char *p = out; *p; p++) /* auditwheel wraps its lines */
		if (*p == '\n')
			*p = ' ';
	if (!strstr(out, want))
		fail_msg("auditwheel does not agree with %s:\n%s", tag, out);
	free(out);
}

/* Built again from the same binary: the same bytes */
static void test_reproducible(void **state)
{
	(void)state;
	free(sh_ok("cd '" CUDOCTOR_SOURCE_DIR "' && python3 tools/make_dist.py '%s' '%s/again' >/dev/null && "
		   "cmp '%s' \"%s/again/$(basename '%s')\" && cmp '%s' \"%s/again/$(basename '%s')\"",
		   CUDOCTOR_BINARY, scratch, wheel, scratch, wheel, tarball, scratch, tarball));
}

/* The tarball: the binary (the one under test), the man page, README */
static void test_tarball(void **state)
{
	char *list, *v, *want;

	(void)state;
	list = sh_ok("tar -tzf '%s' | sed 's|^[^/]*/||' | LC_ALL=C sort | tr '\\n' ' '", tarball);
	assert_string_equal(list, " LICENSE README.md cudoctor cudoctor.1 ");
	free(list);
	free(sh_ok("mkdir '%s/t' && tar -xzf '%s' -C '%s/t' && cmp \"$(ls -d '%s'/t/*)/cudoctor.1\" '" CUDOCTOR_SOURCE_DIR "/docs/cudoctor.1'",
		   scratch, tarball, scratch, scratch));
	v = sh_ok("\"$(ls -d '%s'/t/*)/cudoctor\" --version", scratch);
	want = sh_ok("'%s' --version", CUDOCTOR_BINARY);
	assert_string_equal(v, want);
	free(v);
	free(want);
}

/* The same program and environment through the launcher and straight: the same output
 * and exit status (the report's header dated alike) */
static void same_as_binary(const char *launcher, const char *args, const char *env, int want_status)
{
	struct run_result a = sh("SOURCE_DATE_EPOCH=1700000000 %s %s %s", env, launcher, args),
			  b = sh("SOURCE_DATE_EPOCH=1700000000 %s '%s' %s", env, CUDOCTOR_BINARY, args);

	if (a.status != want_status || b.status != want_status || strcmp(a.out, b.out) != 0 || strcmp(a.err, b.err) != 0)
		fail_msg("`%s %s` exited %d, the binary %d (want %d)\nlauncher:\n%s%s\nbinary:\n%s%s", launcher, args, a.status,
			 b.status, want_status, a.out, a.err, b.out, b.err);
	run_result_free(&a);
	run_result_free(&b);
}

/* the fake driver, no Python but the system's, and a fixed date in the report's header */
#define FAKES_ENV "env -u VIRTUAL_ENV -u CONDA_PREFIX -u CUDA_VISIBLE_DEVICES -u LD_LIBRARY_PATH " \
		  "-u CUDOCTOR_PYTHON_PREFIX PATH=/usr/bin:/bin SOURCE_DATE_EPOCH=1700000000 "  \
		  "CUDOCTOR_LIBCUDA=" FAKE_CUDA " CUDOCTOR_LIBNVML=" FAKE_NVML

/* `cudoctor` on the venv's PATH and `python -m cudoctor`: the binary's words and exit status */
static void test_venv_launcher(void **state)
{
	char v[512], launcher[1024], module[1024];
	struct run_result r;

	(void)state;
	NEED_TOOLS();
	venv_with_wheel("venv", v, sizeof v);
	snprintf(launcher, sizeof launcher, "'%s/bin/cudoctor'", v);
	snprintf(module, sizeof module, "'%s/bin/python' -m cudoctor", v);
	same_as_binary(launcher, "--version", "", 0);
	same_as_binary(module, "--version", "", 0);
	same_as_binary(module, "kb gpu H200", "", 0);
	r = sh("%s kb gpu H200", module);
	assert_non_null(strstr(r.out, "sm_90"));
	run_result_free(&r);
	same_as_binary(launcher, "--no-such-option", "", 2);
	same_as_binary(module, "kb gpu 'no such gpu at all'", "", 2);
	same_as_binary(launcher, "arch /nonexistent/libfoo.so", "", 3);
	/* doctor with the fake driver: its own environment holds cudoctor alone, so nothing of it
	 * is judged and the report is the binary's */
	same_as_binary(launcher, "--json doctor", FAKES_ENV, 0);
	same_as_binary(module, "doctor", FAKES_ENV " FAKE_CUDA_DRIVER_VERSION=12040 FAKE_NVML_DRIVER_VERSION=550.54.14", 1);
	same_as_binary(launcher, "-q doctor", FAKES_ENV " CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", 1);
}

/* What `make dist` ships: the portable binary of tools/portable.sh (build-dist/, which make
 * check builds) packed as a manylinux_2_17 wheel that auditwheel agrees with, from the same
 * commit as the binary under test, and run from a fresh venv: same output, same status. */
#define PORTABLE CUDOCTOR_SOURCE_DIR "/build-dist/cudoctor"
static void test_portable_wheel(void **state)
{
	char *out, *ours, want[256], v[512], launcher[1024];

	(void)state;
	NEED_TOOLS();
	if (access(PORTABLE, X_OK) != 0) {
		fprintf(stderr, "skipping: no %s (`sh tools/portable.sh` builds it; make check does)\n", PORTABLE);
		skip();
	}
	/* the version, not the commit: a commit made while make check runs moves the later builds' */
	out = sh_ok("'%s' --version | cut -d' ' -f1-2", PORTABLE);
	ours = sh_ok("'%s' --version | cut -d' ' -f1-2", CUDOCTOR_BINARY);
	if (strcmp(out, ours) != 0)
		fail_msg("build-dist/ is another version (%s vs %s): run sh tools/portable.sh", out, ours);
	free(out);
	free(ours);
	out = sh_ok("objdump -T '%s' | grep -o 'GLIBC_2\\.[0-9.]*' | sort -uV | tail -n 1", PORTABLE);
	assert_string_equal(out, "GLIBC_2.17\n");
	free(out);
	out = sh_ok("cd '" CUDOCTOR_SOURCE_DIR "' && python3 tools/make_dist.py '%s' '%s/pdist' | head -n 1", PORTABLE, scratch);
	chomp(out);
	snprintf(want, sizeof want, "/cudoctor-%s-py3-none-manylinux_2_17_", version);
	if (!strstr(out, want))
		fail_msg("the portable wheel is %s, not manylinux_2_17", out);
	snprintf(wheel, sizeof wheel, "%s", out); /* the cases after this one install it */
	free(out);
	out = sh_ok("'%s/bin/auditwheel' show '%s' 2>&1 | tr '\\n' ' '", tools, wheel);
	if (!strstr(out, "consistent with the following platform tag: \"manylinux_2_17_"))
		fail_msg("auditwheel does not agree with manylinux_2_17:\n%s", out);
	free(out);
	free(sh_ok("'%s/bin/twine' check --strict '%s'", tools, wheel));
	venv_with_wheel("pvenv", v, sizeof v);
	snprintf(launcher, sizeof launcher, "'%s/bin/cudoctor'", v);
	same_as_binary(launcher, "kb gpu H200", "", 0);
	same_as_binary(launcher, "kb gpu 'no such gpu at all'", "", 2);
	/* a sanitizer build's fake driver needs its runtime loaded first: the portable binary
	 * meets the fakes in build/'s run only */
	out = sh_ok("ldd '%s'", CUDOCTOR_BINARY);
	if (!strstr(out, "libasan")) {
		same_as_binary(launcher, "--json doctor", FAKES_ENV, 0);
		same_as_binary(launcher, "-q doctor", FAKES_ENV " CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", 1);
	}
	free(out);
}

/* The win_amd64 wheel around `make windows`' cudoctor.exe (make check builds it): valid to the
 * packaging tools, laid out as the Linux wheel with bin/cudoctor.exe, installable for
 * win_amd64 by pip, and the exe it installs answers as the Linux build under Wine. */
#define WINDOWS_EXE CUDOCTOR_SOURCE_DIR "/build-windows/cudoctor.exe"
static void test_windows_wheel(void **state)
{
	char *out, want[1024], win[1024];

	(void)state;
	NEED_TOOLS();
	if (access(WINDOWS_EXE, F_OK) != 0) {
		fprintf(stderr, "skipping: no %s (`make windows` builds it; make check does)\n", WINDOWS_EXE);
		skip();
	}
	out = sh_ok("cd '" CUDOCTOR_SOURCE_DIR "' && python3 tools/make_dist.py --windows '%s' '%s' '%s/wdist' | tail -n 1",
		    WINDOWS_EXE, CUDOCTOR_BINARY, scratch);
	chomp(out);
	snprintf(want, sizeof want, "/cudoctor-%s-py3-none-win_amd64.whl", version);
	if (!strstr(out, want))
		fail_msg("the Windows wheel is %s", out);
	snprintf(win, sizeof win, "%s", out);
	free(out);
	free(sh_ok("'%s/bin/twine' check --strict '%s'", tools, win));
	free(sh_ok("'%s/bin/check-wheel-contents' '%s'", tools, win));
	out = sh_ok("unzip -Z1 '%s' | LC_ALL=C sort | tr '\\n' ' '", win);
	snprintf(want, sizeof want,
		 "cudoctor-%s.dist-info/LICENSE cudoctor-%s.dist-info/METADATA cudoctor-%s.dist-info/RECORD "
		 "cudoctor-%s.dist-info/WHEEL cudoctor-%s.dist-info/entry_points.txt cudoctor-%s.dist-info/top_level.txt "
		 "cudoctor/__init__.py cudoctor/__main__.py cudoctor/bin/cudoctor.exe ",
		 version, version, version, version, version, version);
	assert_string_equal(out, want);
	free(out);
	free(sh_ok("unzip -p '%s' cudoctor/bin/cudoctor.exe | cmp - '%s'", win, WINDOWS_EXE));
	free(sh_ok("'%s/bin/pip' install -q --no-index --no-deps --platform win_amd64 --only-binary=:all: --target '%s/wt' '%s'",
		   tools, scratch, win));
	out = sh_ok("W=/usr/lib/wine/wine64; [ -x \"$W\" ] || W=$(command -v wine64 || command -v wine) || exit 0; "
		    "mkdir -p \"$HOME/.cache/cudoctor-test/wine\" && WINEPREFIX=\"$HOME/.cache/cudoctor-test/wine\" WINEDEBUG=-all "
		    "\"$W\" '%s/wt/cudoctor/bin/cudoctor.exe' --version </dev/null | cut -d' ' -f1-2",
		    scratch);
	if (*out) {
		snprintf(want, sizeof want, "cudoctor %s\n", version);
		assert_string_equal(out, want);
	} else {
		fprintf(stderr, "no Wine here: the installed cudoctor.exe was not run\n");
	}
	free(out);
}

/* pip install --target into a bare directory: `python -m cudoctor` with it on PYTHONPATH,
 * and the console script pip wrote into its bin/ */
static void test_target_install(void **state)
{
	char dir[512], module[1200], console[1200];

	(void)state;
	NEED_TOOLS();
	free(sh_ok("'%s/bin/pip' install -q --no-index --no-deps --target '%s/target' '%s'", tools, scratch, wheel));
	snprintf(dir, sizeof dir, "%s/target", scratch);
	snprintf(module, sizeof module, "PYTHONPATH='%s' python3 -m cudoctor", dir);
	snprintf(console, sizeof console, "PYTHONPATH='%s' '%s/bin/cudoctor'", dir, dir);
	same_as_binary(module, "--version", "", 0);
	same_as_binary(module, "kb gpu H200", "", 0);
	same_as_binary(console, "kb gpu H200", "", 0);
	same_as_binary(module, "--no-such-option", "", 2);
}

/* uvx runs it from the wheel without installing it, pipx installs it in an environment of its
 * own with `cudoctor` on its bin dir: both the binary's words and exit status, offline */
static void test_uvx_and_pipx(void **state)
{
	char uvx[4096], pipx[512];

	(void)state;
	NEED_TOOLS();
	snprintf(uvx, sizeof uvx, "UV_CACHE_DIR='%s/uv' '%s/bin/uvx' --offline --quiet --from '%s' cudoctor", scratch, tools, wheel);
	same_as_binary(uvx, "--version", "", 0);
	same_as_binary(uvx, "-q kb gpu H200", "", 0);
	same_as_binary(uvx, "--no-such-option", "", 2);
	free(sh_ok("PIPX_HOME='%s/pipx' PIPX_BIN_DIR='%s/pipx/bin' PIPX_MAN_DIR='%s/pipx/man' '%s/bin/pipx' install --quiet '%s'",
		   scratch, scratch, scratch, tools, wheel));
	snprintf(pipx, sizeof pipx, "'%s/pipx/bin/cudoctor'", scratch);
	same_as_binary(pipx, "--version", "", 0);
	same_as_binary(pipx, "arch /nonexistent/libfoo.so", "", 3);
}

/* r's stdout as JSON; fails the test when it is none */
static json_t *json_out(struct run_result r)
{
	json_error_t je;
	json_t *j = json_loads(r.out, 0, &je);

	if (!j)
		fail_msg("`%s` (exit %d) gave no JSON (%s):\n%s%s", script, r.status, je.text, r.out, r.err);
	run_result_free(&r);
	return j;
}
#define run_json(...) json_out(sh(__VA_ARGS__))

static const char *env_prefix(json_t *doctor, size_t i)
{
	json_t *e = json_array_get(json_object_get(json_object_get(doctor, "python"), "environments"), i);

	return e ? json_string_value(json_object_get(e, "prefix")) : NULL;
}

static bool lists_env(json_t *doctor, const char *prefix)
{
	for (size_t i = 0; env_prefix(doctor, i); i++)
		if (strcmp(env_prefix(doctor, i), prefix) == 0)
			return true;
	return false;
}

static const char *first_torch(json_t *doctor)
{
	json_t *f = json_array_get(json_object_get(json_object_get(doctor, "python"), "frameworks"), 0);

	return f ? json_string_value(json_object_get(f, "version")) : NULL;
}

#define TORCH_PY(v, cu) "__version__ = '" v "'\ndebug = False\ncuda: Optional[str] = '" cu "'\nhip: Optional[str] = None\n"

/* doctor and arch --python from a venv's launcher judge that venv first; from an environment
 * that holds cudoctor alone (pipx's, uvx's), the user's environment stays first */
static void test_launcher_env_first(void **state)
{
	char v[512], tool[512], other[512], real_v[PATH_MAX], real_other[PATH_MAX], real_tool[PATH_MAX];
	char *site;
	json_t *j, *files;

	(void)state;
	NEED_TOOLS();
	venv_with_wheel("torchvenv", v, sizeof v);
	venv_with_wheel("toolvenv", tool, sizeof tool);
	site = sh_ok("'%s/bin/python' -c 'import sysconfig; print(sysconfig.get_path(\"purelib\"))'", v);
	chomp(site);
	free(sh_ok("mkdir -p '%s/torch' && printf \"%s\" > '%s/torch/version.py'", site, TORCH_PY("2.9.0+cu130", "13.0"), site));
	/* the user's activated venv, another torch */
	snprintf(other, sizeof other, "%s/other", scratch);
	free(sh_ok("mkdir -p '%s/bin' '%s/lib/python3.11/site-packages/torch' && printf 'home = /usr/bin\\n' > '%s/pyvenv.cfg' && "
		   "printf \"%s\" > '%s/lib/python3.11/site-packages/torch/version.py'",
		   other, other, other, TORCH_PY("2.5.1+cu124", "12.4"), other));
	assert_non_null(realpath(v, real_v));
	assert_non_null(realpath(other, real_other));
	assert_non_null(realpath(tool, real_tool));

	j = run_json(FAKES_ENV " VIRTUAL_ENV='%s' '%s/bin/cudoctor' --json doctor", other, v);
	assert_string_equal(env_prefix(j, 0), real_v);
	assert_string_equal(env_prefix(j, 1), real_other);
	assert_string_equal(first_torch(j), "2.9.0+cu130");
	json_decref(j);
	j = run_json(FAKES_ENV " VIRTUAL_ENV='%s' '%s/bin/python' -m cudoctor --json doctor", other, v);
	assert_string_equal(env_prefix(j, 0), real_v);
	json_decref(j);
	/* the binary alone does not know the venv */
	j = run_json(FAKES_ENV " VIRTUAL_ENV='%s' '%s' --json doctor", other, CUDOCTOR_BINARY);
	assert_string_equal(env_prefix(j, 0), real_other);
	assert_string_equal(first_torch(j), "2.5.1+cu124");
	assert_false(lists_env(j, real_v));
	json_decref(j);
	/* pipx's or uvx's environment: cudoctor alone in it, so the user's venv comes first and
	 * the tool's is not listed, even with its python3 on PATH */
	j = run_json(FAKES_ENV " PATH='%s/bin':/usr/bin:/bin VIRTUAL_ENV='%s' '%s/bin/cudoctor' --json doctor", tool, other, tool);
	assert_string_equal(env_prefix(j, 0), real_other);
	assert_false(lists_env(j, real_tool));
	json_decref(j);

	/* arch --python: the venv's interpreter, so its torch's device code is scanned */
	if (access(ARCH_FIXTURES "/libk_shared.so", R_OK) != 0) {
		free(site);
		fprintf(stderr, "skipping arch --python: fixture %s/libk_shared.so missing (no nvcc at build time)\n", ARCH_FIXTURES);
		skip();
	}
	free(sh_ok("mkdir -p '%s/torch/lib' && cp '" ARCH_FIXTURES "/libk_shared.so' '%s/torch/lib/libtorch_cuda.so'", site, site));
	j = run_json("env PATH=/usr/bin:/bin CUDOCTOR_LIBCUDA=/nonexistent '%s/bin/cudoctor' --json arch --python --gpu 9.0 --driver 13.0", v);
	files = json_object_get(j, "files");
	assert_int_equal(json_array_size(files), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(files, 0), "path")), "/torch/lib/libtorch_cuda.so"));
	json_decref(j);
	free(site);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_version),     cmocka_unit_test(test_wheel_is_valid),
		cmocka_unit_test(test_reproducible),    cmocka_unit_test(test_tarball),
		cmocka_unit_test(test_venv_launcher),   cmocka_unit_test(test_target_install),
		cmocka_unit_test(test_uvx_and_pipx),
		cmocka_unit_test(test_launcher_env_first), cmocka_unit_test(test_portable_wheel),
		cmocka_unit_test(test_windows_wheel),
	};

	return cmocka_run_group_tests(tests, build_dist, remove_scratch);
}
