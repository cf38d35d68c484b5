/* libFuzzer harness: cudoctor diff, the whole command. The input is two reports separated
 * by the first NUL byte (or split in half without one), each made a file; the comparison's
 * report is rendered as text, Markdown and JSON and checked (fuzz_report.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"

#include "report/diff.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* bytes as the file /proc/self/fd/N of slot (0 or 1), the same each run */
static const char *as_file(int slot, const uint8_t *data, size_t size)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];

	if (fd[slot] < 0) {
		fd[slot] = memfd_create("cudoctor-fuzz-diff", 0);
		if (fd[slot] < 0)
			abort();
		snprintf(path[slot], sizeof path[slot], "/proc/self/fd/%d", fd[slot]);
	}
	if (ftruncate(fd[slot], 0) != 0 || (size && pwrite(fd[slot], data, size, 0) != (ssize_t)size))
		abort();
	return path[slot];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t half = nul ? (size_t)(nul - data) : size / 2;
	size_t rest = nul ? size - half - 1 : size - half;
	const char *words[] = { as_file(0, data, half), as_file(1, data + size - rest, rest), NULL };
	json_t *a = NULL, *b = NULL;
	struct diff_result d;
	char err[CD_ERRMSG];

	/* the comparison alone, and the command around it */
	if (report_diff_load("a", data, half, &a, err) == CD_OK &&
	    report_diff_load("b", data + size - rest, rest, &b, err) == CD_OK && report_diff(a, b, &d) == CD_OK)
		report_diff_free(&d);
	json_decref(a);
	json_decref(b);
	fuzz_command_words(&cmd_diff, NULL, words);
	return 0;
}
