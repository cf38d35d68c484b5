/* The CUDA runtime's error numbers before CUDA 10.1 renumbered cudaError_t
 * (kb/error_codes_pre101.tsv): each old code tied to the CUDA 13 entry of the same name.
 * The driver API's CUresult numbers did not change, so only runtime codes are here. */
#ifndef CUDOCTOR_KB_OLD_CODES_H
#define CUDOCTOR_KB_OLD_CODES_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"
#include "kb/tsv.h"

struct kb_old_code {
	int code;                     /* the number before 10.1: 48 */
	const struct kb_error *error; /* the CUDA 13 runtime entry of the same name (209) */
	const char *string;           /* what cudaGetErrorString printed for it then */
	bool string_seen;             /* a public report prints that string beside this number;
				       * else it is the CUDA 13 text of the name */
	const char *releases;         /* "9.0-10.0" */
	const char *source;
};

struct kb_old_codes {
	struct tsv_table t;
	struct kb_old_code *rows;
	size_t n;
};

/* Parses a table's text (size bytes) against the loaded kb (errors.tsv, error_wordings.tsv).
 * CD_OK; CD_EFORMAT with "error_codes_pre101.tsv:line: why"; CD_ENOMEM; the kb's load error. */
int kb_old_codes_parse(const unsigned char *data, size_t size, struct kb_old_codes *out, char *err);
void kb_old_codes_free(struct kb_old_codes *o);

/* The embedded table, parsed once. CD_OK or the parse error. */
int kb_old_codes_load(char *err);
size_t kb_old_code_count(void);
const struct kb_old_code *kb_old_code_at(size_t i);
/* The runtime error that had this number before 10.1; NULL when none had it. */
const struct kb_old_code *kb_old_code_by_code(int code);
/* The pre-10.1 number of a CUDA 13 runtime error; NULL when it had none (new in 10.1 or
 * later, or not a runtime error). */
const struct kb_old_code *kb_old_code_of(const struct kb_error *e);

#endif
