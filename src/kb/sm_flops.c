/* kb/sm_flops.tsv: looked up by exact arch, since a newer minor can change the rate; where an
 * arch has a row per unit for a type (FP64 on the FMA units and on tensor cores), the peak. */
#include "kb/sm_flops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/embedded.h"
#include "kb/tsv.h"
#include "util/err.h"

enum { C_ARCH, C_DTYPE, C_UNIT, C_FLOPS, C_UNCERTAIN, C_NOTES, C_SOURCE, NCOLS };
static const char *const cols[NCOLS] = { "arch", "dtype", "unit", "flops_per_clk_sm", "uncertain", "notes", "source" };

int kb_sm_flops_find_in(const char *text, int arch, const char *dtype, struct kb_sm_flops *out, char *err)
{
	struct tsv_table t;
	int rc = tsv_parse("sm_flops.tsv", (const unsigned char *)text, strlen(text), cols, NCOLS, &t, err);
	if (rc != CD_OK)
		return rc;
	rc = cd_fail(err, CD_ENOTFOUND, "no peak FLOP rate for sm_%d %s in sm_flops.tsv", arch, dtype);
	for (size_t i = 0; i < t.nrows; i++) {
		char *end;
		long a = strtol(tsv_cell(&t, i, C_ARCH), &end, 10);
		double f = strtod(tsv_cell(&t, i, C_FLOPS), NULL);
		const char *u = tsv_cell(&t, i, C_UNCERTAIN);
		if (*end || a <= 0 || !(f > 0) || (strcmp(u, "yes") != 0 && strcmp(u, "no") != 0) ||
		    strncmp(tsv_cell(&t, i, C_SOURCE), "https://", 8) != 0) {
			rc = cd_fail(err, CD_EFORMAT, "sm_flops.tsv:%zu: bad arch, rate, uncertain or source", t.lines[i]);
			break;
		}
		if (a != arch || strcmp(tsv_cell(&t, i, C_DTYPE), dtype) != 0 || (rc == CD_OK && f <= out->flops_per_clk))
			continue;
		memset(out, 0, sizeof *out);
		out->arch = arch;
		snprintf(out->dtype, sizeof out->dtype, "%s", dtype);
		snprintf(out->unit, sizeof out->unit, "%s", tsv_cell(&t, i, C_UNIT));
		out->flops_per_clk = f;
		out->uncertain = strcmp(u, "yes") == 0;
		snprintf(out->source, sizeof out->source, "%s", tsv_cell(&t, i, C_SOURCE));
		rc = CD_OK;
	}
	tsv_free(&t);
	return rc;
}

int kb_sm_flops_find(int arch, const char *dtype, struct kb_sm_flops *out, char *err)
{
	const struct kb_blob *b = kb_blob_find("sm_flops.tsv");
	if (!b)
		return cd_fail(err, CD_ENOTFOUND, "sm_flops.tsv is not embedded in this build");
	return kb_sm_flops_find_in((const char *)b->data, arch, dtype, out, err);
}
