/* Shared by the archive tests (test_zip, test_conda): running cudoctor for its output (and its
 * peak memory), and a JSON report's files keyed by their member names, to compare an archive's members with the
 * same files unpacked. Include after cmocka.h. */
#ifndef CUDOCTOR_TEST_ARCHIVE_REPORT_H
#define CUDOCTOR_TEST_ARCHIVE_REPORT_H

#include <fcntl.h>
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

#endif
