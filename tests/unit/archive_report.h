/* Shared by the archive tests (test_zip, test_conda): running cudoctor for its output, and a
 * JSON report's files keyed by their member names, to compare an archive's members with the
 * same files unpacked. Include after cmocka.h. */
#ifndef CUDOCTOR_TEST_ARCHIVE_REPORT_H
#define CUDOCTOR_TEST_ARCHIVE_REPORT_H

#include <jansson.h>
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

#endif
