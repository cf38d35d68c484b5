/* A tab-separated table as the kb tables holds them: one header row naming the columns,
 * then rows with exactly that many fields. Used only by the kb loader. */
#ifndef CUDOCTOR_KB_TSV_H
#define CUDOCTOR_KB_TSV_H

#include <stdbool.h>
#include <stddef.h>

#include "util/version.h"

struct tsv_table {
	const char *name;  /* file name, for messages */
	char *buf;         /* owned copy of the text; cells point into it */
	size_t ncols;
	size_t nrows;      /* data rows, without the header */
	char **cells;      /* nrows * ncols, row-major */
	size_t *lines;     /* 1-based line number of each data row */
};

/* Splits data (size bytes, need not be NUL-terminated) into cells. The header must
 * name exactly `cols` in that order; every row must have ncols fields. Blank lines
 * are skipped; a trailing '\r' is dropped. CD_EFORMAT with "name:line: why". */
int tsv_parse(const char *name, const unsigned char *data, size_t size,
	      const char *const *cols, size_t ncols, struct tsv_table *t, char *err);
void tsv_free(struct tsv_table *t);

static inline const char *tsv_cell(const struct tsv_table *t, size_t row, size_t col)
{
	return t->cells[row * t->ncols + col];
}

/* The row-checking pieces every kb loader shares: the error naming file, line and column
 * ("torch.tsv:12: column cuda: why"), a yes/no cell, and a version of dotted digits only
 * (version_parse alone accepts trailing text); len is s's length to read. */
int tsv_bad(const struct tsv_table *t, size_t row, const char *col, const char *why, char *err);
bool tsv_yes_no(const char *s, bool *out);
bool tsv_version(const char *s, size_t len, struct version *v);

#endif
