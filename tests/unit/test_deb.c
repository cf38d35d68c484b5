/* `make deb`'s package (tools/make_deb.sh): built from the cudoctor under test, unpacked into a
 * scratch root with `dpkg -x` and installed there with `dpkg --root`; the installed binary's
 * --version and --help run from there, the man page, completions and docs are where Debian
 * looks for them, and the control file says what the package needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static char scratch[] = "/tmp/cudoctor-deb-XXXXXX";
static char deb[512];

static struct run_result sh(const char *script)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	return r;
}

static struct run_result shf(const char *fmt, const char *a, const char *b)
{
	char script[2048];

	snprintf(script, sizeof script, fmt, a, b);
	return sh(script);
}

static int build_package(void **state)
{
	struct run_result r;
	char *nl;

	(void)state;
	if (access("/usr/bin/dpkg-deb", X_OK) != 0)
		return 0; /* each test skips */
	if (!mkdtemp(scratch))
		return -1;
	r = shf("cd '" CUDOCTOR_SOURCE_DIR "' && sh tools/make_deb.sh '%s' '%s/out'", CUDOCTOR_BINARY, scratch);
	if (r.status != 0) {
		fprintf(stderr, "make_deb.sh failed: %s\n", r.err);
		run_result_free(&r);
		return -1;
	}
	/* the last line is the package's path */
	while ((nl = strrchr(r.out, '\n')) && nl[1] == '\0')
		*nl = '\0';
	snprintf(deb, sizeof deb, "%s", strrchr(r.out, '\n') ? strrchr(r.out, '\n') + 1 : r.out);
	run_result_free(&r);
	return 0;
}

static int remove_scratch(void **state)
{
	struct run_result r;

	(void)state;
	if (strstr(scratch, "XXXXXX"))
		return 0;
	r = shf("rm -rf '%s'%s", scratch, "");
	run_result_free(&r);
	return 0;
}

#define NEED_PACKAGE()                                                                      \
	do {                                                                                \
		if (!deb[0]) {                                                              \
			fprintf(stderr, "skipping: dpkg-deb is not installed\n");         \
			skip();                                                             \
		}                                                                           \
	} while (0)

static void test_control_file(void **state)
{
	struct run_result r;

	(void)state;
	NEED_PACKAGE();
	assert_non_null(strstr(deb, "/cudoctor_"));
	r = shf("dpkg-deb -f '%s' Package Version Architecture Depends%s", deb, "");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Package: cudoctor\n"));
	assert_non_null(strstr(r.out, "Depends: libc6 (>= 2."));
	run_result_free(&r);
	/* the builder's identity, or the project's name without an address: never a placeholder */
	r = shf("dpkg-deb -f '%s' Maintainer%s", deb, "");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "localhost"));
	assert_null(strstr(r.out, "noreply"));
	assert_null(strstr(r.out, ".example"));
	assert_true(strchr(r.out, '@') || strstr(r.out, "cudoctor project (local build, no maintainer address)"));
	run_result_free(&r);
	/* Debian's DEBFULLNAME/DEBEMAIL name the builder */
	r = shf("cd '" CUDOCTOR_SOURCE_DIR "' && d=$(DEBFULLNAME='Ada Builder' DEBEMAIL=ada@builder.org "
		"sh tools/make_deb.sh '%s' '%s/out2' | tail -n 1) && dpkg-deb -f \"$d\" Maintainer", CUDOCTOR_BINARY, scratch);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "Ada Builder <ada@builder.org>\n");
	run_result_free(&r);
}

/* What a .deb for a command-line tool carries, where Debian's tools find it */
static void test_unpacked_with_dpkg_x(void **state)
{
	static const char *const files[] = {
		"usr/bin/cudoctor", "usr/share/man/man1/cudoctor.1.gz",
		"usr/share/bash-completion/completions/cudoctor", "usr/share/zsh/vendor-completions/_cudoctor",
		"usr/share/fish/vendor_completions.d/cudoctor.fish", "usr/share/doc/cudoctor/README.md",
		"usr/share/doc/cudoctor/docs/json.md", "usr/share/cudoctor/nhc/cudoctor.nhc",
		"usr/share/cudoctor/npd/cudoctor-gpu.json", "etc/nhc/scripts/cudoctor.nhc", NULL,
	};
	struct run_result r, v, want;
	char path[1024];
	const char *version_argv[] = { CUDOCTOR_BINARY, "--version", NULL };

	(void)state;
	NEED_PACKAGE();
	r = shf("dpkg -x '%s' '%s/x'", deb, scratch);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
	for (size_t i = 0; files[i]; i++) {
		snprintf(path, sizeof path, "%s/x/%s", scratch, files[i]);
		if (access(path, R_OK) != 0)
			fail_msg("the package has no %s", files[i]);
	}
	/* the installed binary runs from the scratch root and is the one under test */
	snprintf(path, sizeof path, "%s/x/usr/bin/cudoctor", scratch);
	{
		const char *argv[] = { path, "--version", NULL };
		const char *help[] = { path, "--help", NULL };

		assert_int_equal(testlib_run(argv, NULL, NULL, &v), 0);
		assert_int_equal(testlib_run(version_argv, NULL, NULL, &want), 0);
		assert_int_equal(v.status, 0);
		assert_string_equal(v.out, want.out);
		run_result_free(&v);
		run_result_free(&want);
		assert_int_equal(testlib_run(help, NULL, NULL, &v), 0);
		assert_int_equal(v.status, 0);
		assert_non_null(strstr(v.out, "usage: cudoctor"));
		run_result_free(&v);
	}
	/* the man page reads back as the one in docs/ */
	r = shf("gzip -dc '%s/x/usr/share/man/man1/cudoctor.1.gz' | cmp - '" CUDOCTOR_SOURCE_DIR "/docs/cudoctor.1'%s",
		scratch, "");
	assert_int_equal(r.status, 0);
	run_result_free(&r);
	/* bash loads the packaged completion and registers it */
	r = shf("bash -c '. %s/x/usr/share/bash-completion/completions/cudoctor && complete -p cudoctor'%s", scratch, "");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "cudoctor"));
	run_result_free(&r);
}

/* Installed as dpkg installs it, into a root of its own (its own status database): libc6 is
 * the host's, so dependencies are not checked there */
static void test_installed_with_dpkg_root(void **state)
{
	struct run_result r;
	char path[1024];

	(void)state;
	NEED_PACKAGE();
	r = shf("R='%s/root' && mkdir -p \"$R/var/lib/dpkg/updates\" \"$R/var/lib/dpkg/info\" && "
		": > \"$R/var/lib/dpkg/status\" && dpkg --root=\"$R\" --log=/dev/null --force-not-root "
		"--force-script-chrootless --force-depends -i '%s' >/dev/null && dpkg --root=\"$R\" -s cudoctor",
		scratch, deb);
	if (r.status != 0 && strstr(r.err, "ermission")) {
		fprintf(stderr, "skipping: dpkg --root needs privileges here: %s\n", r.err);
		run_result_free(&r);
		skip();
	}
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Status: install ok installed"));
	run_result_free(&r);
	snprintf(path, sizeof path, "%s/root/usr/bin/cudoctor", scratch);
	{
		const char *argv[] = { path, "--version", NULL };
		const char *help[] = { path, "help", "arch", NULL };

		assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
		assert_int_equal(r.status, 0);
		assert_true(strncmp(r.out, "cudoctor ", 9) == 0);
		run_result_free(&r);
		assert_int_equal(testlib_run(help, NULL, NULL, &r), 0);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "usage: cudoctor arch"));
		run_result_free(&r);
	}
	/* and removed again, leaving nothing behind */
	r = shf("dpkg --root='%s/root' --log=/dev/null --force-not-root --force-script-chrootless -r cudoctor "
		">/dev/null && test ! -e '%s/root/usr/bin/cudoctor'", scratch, scratch);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_file),
		cmocka_unit_test(test_unpacked_with_dpkg_x),
		cmocka_unit_test(test_installed_with_dpkg_root),
	};

	return cmocka_run_group_tests(tests, build_package, remove_scratch);
}
