/* libFuzzer harness: cudoctor diff's report reader and comparison. The input is two
 * reports separated by the first NUL byte (or split in half without one). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "report/diff.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t half = nul ? (size_t)(nul - data) : size / 2;
	size_t rest = nul ? size - half - 1 : size - half;
	json_t *a = NULL, *b = NULL;
	struct diff_result d;
	char err[CD_ERRMSG];

	if (report_diff_load("a", data, half, &a, err) == CD_OK &&
	    report_diff_load("b", data + size - rest, rest, &b, err) == CD_OK && report_diff(a, b, &d) == CD_OK)
		report_diff_free(&d);
	json_decref(a);
	json_decref(b);
	return 0;
}
