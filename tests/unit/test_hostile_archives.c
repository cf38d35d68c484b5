/* Crafted archives cost `cudoctor arch` what their size explains (binfmt/budget.h, zip.c's
 * zip_find_overlaps, cmd/arch/walk.c), built by tests/wheels/hostile_archives.py: central
 * entries sharing one member's bytes are skipped and named, not inflated once each; a conda
 * payload is read only in a .conda; what all members inflate to is bounded by the archive's
 * size; an archive's errors past the first hundred are counted on one line (and not kept: a
 * zip of 200,000 damaged members in flat memory); a member's name is one line of text,
 * whatever bytes it holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define ENTRIES 200

static char dir[] = "/tmp/cudoctor-hostile-archives-XXXXXX";

static int setup(void **state)
{
	char cmd[512];

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof cmd, "python3 '%s/tests/wheels/hostile_archives.py' '%s' %d", CUDOCTOR_SOURCE_DIR, dir,
		 ENTRIES);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* `cudoctor --json arch --gpu sm_90 DIR/name`, its time in *secs. */
static struct run_result arch(const char *name, double *secs)
{
	char path[256];
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_90", "--driver", "580.65", path, NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };
	struct run_result r;
	double t0 = now();

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	*secs = now() - t0;
	return r;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* 200 entries over one 64 MiB member: inflated once each, 12.8 GB (minutes); now none is. */
static void test_overlapping_members_skipped(void **state)
{
	double secs;
	struct run_result r = arch("overlap.whl", &secs);

	(void)state;
	print_message("overlap.whl (%d entries over one member): %.2f s\n", ENTRIES, secs);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "overlap.whl!lib/libx.so: its bytes overlap another member's"));
	assert_non_null(strstr(r.err, "overlap.whl!lib/libx1.so: its bytes overlap another member's"));
	/* 200 named as 100 and the count of the rest */
	assert_non_null(strstr(r.err, "100 more errors in this archive"));
	assert_true(secs < 20.0);
	run_result_free(&r);
}

/* pkg-*.tar.zst is a payload only in a .conda: in a wheel it is a member like any other. */
static void test_conda_payload_only_in_conda(void **state)
{
	double secs;
	struct run_result r = arch("pkg_in_zip.whl", &secs);

	(void)state;
	/* its one member is no file that can carry device code: nothing is searched */
	if (!strstr(r.out, "\"files_searched\": 0,"))
		fail_msg("the payload was searched:\n%s", r.out);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
}

/* A 17 KB .conda whose payload is a 512 MiB tarball: past 64 times its size and 256 MiB. */
static void test_inflation_bounded_per_archive(void **state)
{
	double secs;
	struct run_result r = arch("bomb.conda", &secs);

	(void)state;
	assert_int_equal(r.status, 3);
	if (!strstr(r.err, "bomb.conda: the archive's members inflate to over"))
		fail_msg("the budget is not said: %s", r.err);
	run_result_free(&r);
}

/* 299 damaged members: 100 errors and one line for the rest, not 299 lines. */
static void test_errors_counted_past_a_hundred(void **state)
{
	double secs;
	struct run_result r = arch("errors.whl", &secs);

	(void)state;
	assert_int_equal(r.status, 3);
	if (lines(r.err) > 103)
		fail_msg("%zu lines on stderr", lines(r.err));
	assert_non_null(strstr(r.err, "errors.whl: 200 more errors in this archive, not listed one by one"));
	run_result_free(&r);
}

/* 200,000 damaged members (a 22 MB file): each error was kept in the report and printed, about
 * 9 times the file's size in memory; now a hundred are, and the rest counted. */
static void test_many_members_flat(void **state)
{
	char path[256];
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "--gpu", "sm_90", path, NULL };
	struct rusage ru;
	int status = 0;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof path, "%s/many.whl", dir);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	print_message("many.whl (200,000 members, 22 MB): peak %ld KiB\n", ru.ru_maxrss);
#ifdef __SANITIZE_ADDRESS__
	assert_true(ru.ru_maxrss < 300 * 1024); /* ASan's shadow and quarantine on top */
#else
	assert_true(ru.ru_maxrss < 100 * 1024);
#endif
}

/* Member names are any bytes: a newline must not start a line of the report, nor a NUL cut
 * the name, in text or JSON. */
static void test_member_names_escaped(void **state)
{
	char path[256];
	const char *text[] = { CUDOCTOR_BINARY, "arch", "--gpu", "sm_90", path, NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_LIBNVML=/nonexistent", NULL };
	double secs;
	struct run_result r = arch("names.whl", &secs), t;

	(void)state;
	snprintf(path, sizeof path, "%s/names.whl", dir);
	/* JSON writes the escape's backslash doubled */
	assert_non_null(strstr(r.out, "lib/a\\\\x0aFORGED LINE.so"));
	assert_non_null(strstr(r.out, "lib/b\\\\x0dBACK.so"));
	assert_non_null(strstr(r.out, "lib/cut\\\\x00HIDDEN.so"));
	assert_int_equal(testlib_run(text, env, NULL, &t), 0);
	for (const char *p = t.out; (p = strchr(p, '\n')); p++)
		if (strncmp(p + 1, "FORGED", 6) == 0)
			fail_msg("a member's name started a line:\n%s", t.out);
	assert_null(strchr(t.out, '\r'));
	assert_null(strchr(t.err, '\r'));
	assert_non_null(strstr(t.out, "HIDDEN"));
	run_result_free(&t);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlapping_members_skipped),
		cmocka_unit_test(test_conda_payload_only_in_conda),
		cmocka_unit_test(test_inflation_bounded_per_archive),
		cmocka_unit_test(test_errors_counted_past_a_hundred),
		cmocka_unit_test(test_many_members_flat),
		cmocka_unit_test(test_member_names_escaped),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
