/* Shared by the archive tests (test_zip, test_conda): running cudoctor for its output (and its
 * peak memory), a JSON report's files keyed by their member names, to compare an archive's members with the
 * same files unpacked, the check that a large member is judged from a stream in flat memory, and
 * the damaged copies of an archive. Include after cmocka.h and arch_fixtures.h. */
#ifndef CUDOCTOR_TEST_ARCHIVE_REPORT_H
#define CUDOCTOR_TEST_ARCHIVE_REPORT_H

#include <fcntl.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* Runs cudoctor with argv; its stdout, the exit status being want. */
static char *run_out(const char *const argv[], int want)
{
	struct run_result res;
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status != want)
		fail_msg("cudoctor %s exited %d: %s", argv[1], res.status, res.err);
	free(res.err);
	return res.out;
}

/* "files" of a JSON report keyed by path without prefix (the wheel's "W!"; a file's whole
 * path gives the key ""), each object without its path. */
static json_t *files_by_member(const char *report, const char *prefix)
{
	json_error_t e;
	json_t *j = json_loads(report, 0, &e), *out = json_object(), *f;
	size_t i;
	assert_non_null(j);
	json_array_foreach(json_object_get(j, "files"), i, f) {
		const char *path = json_string_value(json_object_get(f, "path"));
		assert_non_null(path);
		assert_int_equal(strncmp(path, prefix, strlen(prefix)), 0);
		json_t *copy = json_deep_copy(f);
		json_object_del(copy, "path");
		json_object_set_new(out, path + strlen(prefix), copy);
	}
	json_decref(j);
	return out;
}


/* Runs argv with stdout into out_path; its exit status, and its peak resident memory (KiB)
 * in *maxrss_kb, from wait4's rusage of that one process. */
static int run_measured(const char *const argv[], const char *out_path, long *maxrss_kb)
{
	struct rusage ru;
	int status = 0;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
		if (fd < 0 || null < 0 || dup2(fd, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	assert_true(WIFEXITED(status));
	*maxrss_kb = ru.ru_maxrss;
	return WEXITSTATUS(status);
}

static char *slurp(const char *path)
{
	char *text = NULL, err[CD_ERRMSG];
	size_t len;
	assert_int_equal(file_read_text(path, (size_t)64 << 20, &text, &len, err), CD_OK);
	return text;
}

/* tests/wheels/big_member.py's 300 MiB library (zeros, its section names in the middle, a real
 * fatbin at the end) and the wheel storing it, made in dir once: their paths in so and whl. */
static void big_member(const char *dir, char so[1200], char whl[1200])
{
	struct run_result res;
	const char *gen[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/big_member.py", dir,
			      ARCH_FIXTURES "/k_mixed.fatbin", NULL };
	assert_int_equal(testlib_run(gen, NULL, NULL, &res), 0);
	if (res.status != 0)
		fail_msg("big_member.py exited %d: %s", res.status, res.err);
	assert_int_equal(sscanf(res.out, "%1199s %1199s", so, whl), 2);
	run_result_free(&res);
}

/* The member (its path inside archive) judged from a stream has the same images and verdicts
 * (--json) as the library so mapped whole, in little memory; --kernels, which holds the member
 * whole, is the measure that the stream does not. out: a scratch file for the reports. */
static void streamed_member_flat(const char *archive, const char *member, const char *so, const char *out)
{
	long rss_stream, rss_lib, rss_whole;
	const char *a[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_90", "--gpu", "sm_120", "--driver", "572.61",
			    archive, NULL };
	assert_int_equal(run_measured(a, out, &rss_stream), 0);
	char *ja = slurp(out);
	const char *b[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_90", "--gpu", "sm_120", "--driver", "572.61",
			    so, NULL };
	assert_int_equal(run_measured(b, out, &rss_lib), 0);
	char *jb = slurp(out);
	char *prefix = malloc(strlen(archive) + 2);
	assert_non_null(prefix);
	sprintf(prefix, "%s!", archive);
	json_t *fa = files_by_member(ja, prefix), *fb = files_by_member(jb, so);
	json_t *m = json_object_get(fa, member);
	assert_non_null(m);
	assert_true(json_equal(m, json_object_get(fb, "")));
	assert_int_equal(json_array_size(json_object_get(m, "images")), 8);

	const char *c[] = { CUDOCTOR_BINARY, "arch", "--kernels", "--gpu", "sm_90", "--driver", "572.61", archive, NULL };
	assert_int_equal(run_measured(c, out, &rss_whole), 0);
	print_message("peak memory: streamed %ld KiB, the library mapped %ld KiB, held whole (--kernels) %ld KiB\n",
		      rss_stream, rss_lib, rss_whole);
	/* under 64 MiB with the 4 MiB the bare binary takes (more under ASan: what the library
	 * mapped costs is the baseline) */
	assert_true(rss_stream < rss_lib + 60 * 1024);
	assert_true(rss_whole > 300 * 1024);
	json_decref(fa);
	json_decref(fb);
	free(prefix);
	free(ja);
	free(jb);
}

/* xorshift: the same mutants every run */
static uint64_t mutant_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Turns d, a copy of an archive of size bytes, into the next mutant and returns its size: one
 * in four cut short, the others with one to three bits flipped, at offsets drawn from
 * at[0..n_at) (the archive's structure) when at is given, from the whole copy otherwise. */
static size_t mutate(unsigned char *d, size_t size, const size_t *at, size_t n_at, uint64_t *seed)
{
	uint64_t r = mutant_rand(seed);
	if (r % 4 == 0)
		return at ? at[mutant_rand(seed) % n_at] : (size_t)(mutant_rand(seed) % size);
	for (uint64_t k = 1 + r % 3; k; k--) {
		size_t off = at ? at[mutant_rand(seed) % n_at] : (size_t)(mutant_rand(seed) % size);
		d[off] ^= (unsigned char)(1u << (mutant_rand(seed) % 8));
	}
	return size;
}

#endif
