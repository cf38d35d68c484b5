/* kb/gguf_quants.tsv: a quantisation name to the bits per weight of a whole file; an alias
 * row (Q4_K is Q4_K_M to llama-quantize) names the row it stands for. */
#include "kb/gguf_quants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kb/embedded.h"
#include "kb/tsv.h"
#include "util/err.h"

enum { C_QUANT, C_BITS, C_ALIAS, C_NOTES, C_SOURCE, NCOLS };
static const char *const cols[NCOLS] = { "quant", "bits_per_weight", "alias_of", "notes", "source" };

/* The row named name, or -1; a row whose bits or source do not read is a malformed table. */
static long find_row(const struct tsv_table *t, const char *name, char *err, int *rc)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const char *bits = tsv_cell(t, i, C_BITS), *alias = tsv_cell(t, i, C_ALIAS);
		char *end;
		double b = strtod(bits, &end);

		if (((strcmp(bits, "-") == 0) == (strcmp(alias, "-") == 0)) ||
		    (strcmp(bits, "-") != 0 && (*end || !(b > 0 && b <= 32))) ||
		    strncmp(tsv_cell(t, i, C_SOURCE), "https://", 8) != 0) {
			*rc = cd_fail(err, CD_EFORMAT, "gguf_quants.tsv:%zu: give bits or an alias, and a source",
				      t->lines[i]);
			return -1;
		}
		if (strcasecmp(tsv_cell(t, i, C_QUANT), name) == 0)
			return (long)i;
	}
	return -1;
}

int kb_gguf_quant_find_in(const char *text, const char *name, struct kb_gguf_quant *out, char *err)
{
	struct tsv_table t;
	int rc = tsv_parse("gguf_quants.tsv", (const unsigned char *)text, strlen(text), cols, NCOLS, &t, err);
	long i;

	if (rc != CD_OK)
		return rc;
	i = find_row(&t, name, err, &rc);
	if (i >= 0 && strcmp(tsv_cell(&t, (size_t)i, C_ALIAS), "-") != 0) /* one step: an alias names a row */
		i = find_row(&t, tsv_cell(&t, (size_t)i, C_ALIAS), err, &rc);
	if (rc == CD_OK && (i < 0 || strcmp(tsv_cell(&t, (size_t)i, C_BITS), "-") == 0))
		rc = cd_fail(err, CD_ENOTFOUND, "no quantisation '%.40s' in gguf_quants.tsv", name);
	if (rc == CD_OK) {
		memset(out, 0, sizeof *out);
		snprintf(out->name, sizeof out->name, "%s", tsv_cell(&t, (size_t)i, C_QUANT));
		out->bits_per_weight = strtod(tsv_cell(&t, (size_t)i, C_BITS), NULL);
		snprintf(out->source, sizeof out->source, "%s", tsv_cell(&t, (size_t)i, C_SOURCE));
	}
	tsv_free(&t);
	return rc;
}

int kb_gguf_quant_find(const char *name, struct kb_gguf_quant *out, char *err)
{
	const struct kb_blob *b = kb_blob_find("gguf_quants.tsv");

	if (!b)
		return cd_fail(err, CD_ENOTFOUND, "gguf_quants.tsv is not embedded in this build");
	return kb_gguf_quant_find_in((const char *)b->data, name, out, err);
}
