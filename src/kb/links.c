/* kb/links.tsv: parsed from the embedded blob on first use and kept for the process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kb/embedded.h"
#include "kb/links.h"
#include "kb/tsv.h"
#include "util/err.h"

static const char *const cols[] = { "kind", "key", "generation", "rate_gbs", "links", "uncertain", "notes", "source" };

static struct {
	bool tried;
	int status;
	char err[CD_ERRMSG];
	struct tsv_table t;
	struct kb_link *rows;
	size_t n;
} db;

static int bad(size_t row, const char *col, const char *why, char *err)
{
	return cd_fail(err, CD_EFORMAT, "links.tsv:%zu: %s: %s", db.t.lines[row], col, why);
}

static bool number(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end != s && *end == '\0' && *out >= 0;
}

static int load_row(size_t i, struct kb_link *l, char *err)
{
	const char *kind = tsv_cell(&db.t, i, 0), *links = tsv_cell(&db.t, i, 4), *unc = tsv_cell(&db.t, i, 5);
	double v;

	if (strcmp(kind, "nvlink") == 0)
		l->kind = KB_LINK_NVLINK;
	else if (strcmp(kind, "model") == 0)
		l->kind = KB_LINK_MODEL;
	else if (strcmp(kind, "pcie") == 0)
		l->kind = KB_LINK_PCIE;
	else
		return bad(i, "kind", "expected nvlink, model or pcie", err);
	l->key = tsv_cell(&db.t, i, 1);
	if (!l->key[0])
		return bad(i, "key", "empty", err);
	if (!number(tsv_cell(&db.t, i, 2), &v) || v < 1 || v != (int)v)
		return bad(i, "generation", "expected a whole number >= 1", err);
	l->generation = (int)v;
	if (!number(tsv_cell(&db.t, i, 3), &l->gbs) || l->gbs <= 0)
		return bad(i, "rate_gbs", "expected a positive number", err);
	if (l->kind == KB_LINK_PCIE) {
		if (strcmp(links, "-") != 0)
			return bad(i, "links", "expected - for a PCIe row", err);
	} else if (!number(links, &v) || v < 1 || v > 18 || v != (int)v) {
		return bad(i, "links", "expected 1 to 18", err);
	} else {
		l->links = (int)v;
	}
	if (strcmp(unc, "yes") && strcmp(unc, "no"))
		return bad(i, "uncertain", "expected yes or no", err);
	l->uncertain = strcmp(unc, "yes") == 0;
	l->notes = tsv_cell(&db.t, i, 6);
	l->source = tsv_cell(&db.t, i, 7);
	if (!l->source[0])
		return bad(i, "source", "empty", err);
	return CD_OK;
}

int kb_links_load(char *err)
{
	const struct kb_blob *b;
	int rc = CD_OK;

	if (db.tried)
		goto out;
	db.tried = true;
	b = kb_blob_find("links.tsv");
	if (!b) {
		rc = cd_fail(db.err, CD_EFORMAT, "kb table links.tsv is not embedded");
		goto done;
	}
	rc = tsv_parse("links.tsv", b->data, b->size, cols, sizeof(cols) / sizeof(cols[0]), &db.t, db.err);
	if (rc != CD_OK)
		goto done;
	db.rows = calloc(db.t.nrows ? db.t.nrows : 1, sizeof(*db.rows));
	if (!db.rows) {
		rc = cd_fail(db.err, CD_ENOMEM, "links.tsv: out of memory");
		goto done;
	}
	for (size_t i = 0; i < db.t.nrows && rc == CD_OK; i++)
		rc = load_row(i, &db.rows[i], db.err);
	if (rc == CD_OK)
		db.n = db.t.nrows;
done:
	db.status = rc;
out:
	if (db.status != CD_OK && err)
		memcpy(err, db.err, CD_ERRMSG);
	return db.status;
}

size_t kb_link_count(void)
{
	return kb_links_load(NULL) == CD_OK ? db.n : 0;
}

const struct kb_link *kb_link_at(size_t i)
{
	return i < kb_link_count() ? &db.rows[i] : NULL;
}

static const struct kb_link *find(enum kb_link_kind kind, const char *key)
{
	for (size_t i = 0; i < kb_link_count(); i++)
		if (db.rows[i].kind == kind && strcasecmp(db.rows[i].key, key) == 0)
			return &db.rows[i];
	return NULL;
}

const struct kb_link *kb_nvlink_for_cc(int major, int minor)
{
	char key[24];

	snprintf(key, sizeof key, "%d.%d", major, minor);
	return find(KB_LINK_NVLINK, key);
}

const struct kb_link *kb_nvlink_model(const char *name)
{
	return name ? find(KB_LINK_MODEL, name) : NULL;
}

const struct kb_link *kb_pcie_gen(int gen)
{
	char key[24];

	snprintf(key, sizeof key, "%d", gen);
	return find(KB_LINK_PCIE, key);
}
