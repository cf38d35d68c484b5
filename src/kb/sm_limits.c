/* kb/sm_limits.tsv: one row per compute capability; every number checked as it is read. */
#include "kb/sm_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/embedded.h"
#include "kb/tsv.h"
#include "util/err.h"

enum { C_ARCH, C_TPB, C_WARPS, C_BLOCKS, C_REGS_SM, C_REGS_BLOCK, C_REGS_THREAD, C_REG_UNIT, C_SMEM_BLOCK,
       C_SMEM_SM, C_UNCERTAIN, C_NOTES, C_SOURCE, NCOLS };
static const char *const cols[NCOLS] = { "arch", "max_threads_per_block", "max_warps_per_sm", "max_blocks_per_sm",
					 "regs_per_sm", "max_regs_per_block", "max_regs_per_thread", "reg_alloc_unit",
					 "max_smem_per_block_kib", "smem_per_sm_kib", "uncertain", "notes", "source" };

static bool number(const char *s, unsigned *v)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (!*s || *end || n == 0 || n > 1000000)
		return false;
	*v = (unsigned)n;
	return true;
}

static bool read_row(const struct tsv_table *t, size_t i, struct kb_sm_limits *l)
{
	unsigned arch, *f[] = { &l->max_threads_per_block, &l->max_warps_per_sm, &l->max_blocks_per_sm,
				&l->regs_per_sm, &l->max_regs_per_block, &l->max_regs_per_thread,
				&l->reg_alloc_unit, &l->max_smem_per_block_kib, &l->smem_per_sm_kib };
	const char *u = tsv_cell(t, i, C_UNCERTAIN);

	memset(l, 0, sizeof(*l));
	if (!number(tsv_cell(t, i, C_ARCH), &arch))
		return false;
	for (size_t c = 0; c < sizeof(f) / sizeof(f[0]); c++)
		if (!number(tsv_cell(t, i, C_TPB + c), f[c]))
			return false;
	if ((strcmp(u, "yes") != 0 && strcmp(u, "no") != 0) || strncmp(tsv_cell(t, i, C_SOURCE), "https://", 8) != 0)
		return false;
	l->arch = (int)arch;
	l->uncertain = strcmp(u, "yes") == 0;
	snprintf(l->source, sizeof(l->source), "%s", tsv_cell(t, i, C_SOURCE));
	return true;
}

int kb_sm_limits_find_in(const char *text, int arch, struct kb_sm_limits *out, char *err)
{
	struct tsv_table t;
	struct kb_sm_limits l;
	int best = -1;
	int rc = tsv_parse("sm_limits.tsv", (const unsigned char *)text, strlen(text), cols, NCOLS, &t, err);

	if (rc != CD_OK)
		return rc;
	for (size_t i = 0; i < t.nrows; i++) {
		if (!read_row(&t, i, &l)) {
			rc = cd_fail(err, CD_EFORMAT, "sm_limits.tsv:%zu: a limit, uncertain or source is malformed",
				     t.lines[i]);
			goto out;
		}
		if (l.arch == arch || (l.arch / 10 == arch / 10 && l.arch < arch && l.arch > best)) {
			best = l.arch;
			*out = l;
			if (l.arch == arch)
				break;
		}
	}
	if (best < 0)
		rc = cd_fail(err, CD_ENOTFOUND, "sm_limits.tsv has no row for compute capability %d.%d", arch / 10,
			     arch % 10);
	else
		out->inferred = out->arch != arch;
out:
	tsv_free(&t);
	return rc;
}

int kb_sm_limits_find(int arch, struct kb_sm_limits *out, char *err)
{
	const struct kb_blob *b = kb_blob_find("sm_limits.tsv");

	if (!b)
		return cd_fail(err, CD_ENOTFOUND, "sm_limits.tsv is not embedded in this build");
	return kb_sm_limits_find_in((const char *)b->data, arch, out, err);
}
