/* kb/error_codes_pre101.tsv: parsed from the embedded blob on first use and kept for the
 * process. Each row must name a runtime error errors.tsv has, and a string that is either
 * that entry's CUDA 13 text or one of its older wordings (error_wordings.tsv), so that every
 * text of the old era is one the matcher already looks for. */
#include <stdlib.h>
#include <string.h>

#include "kb/embedded.h"
#include "kb/old_codes.h"
#include "util/err.h"

#define TABLE "error_codes_pre101.tsv"

enum { C_CODE, C_NAME, C_STRING, C_STRING_SOURCE, C_RELEASES, C_SOURCE, NCOLS };
static const char *const cols[NCOLS] = { "code", "name", "string", "string_source", "releases", "source" };

static struct {
	bool tried;
	int status;
	char err[CD_ERRMSG];
	struct kb_old_codes o;
} db;

static int bad(const struct tsv_table *t, size_t row, int col, const char *why, char *err)
{
	return cd_fail(err, CD_EFORMAT, TABLE ":%zu: %s: %s", t->lines[row], cols[col], why);
}

static bool is_wording_of(const struct kb_error *e, const char *s)
{
	for (size_t i = 0; i < kb_wording_count(); i++)
		if (kb_wording_at(i)->error == e && strcmp(kb_wording_at(i)->string, s) == 0)
			return true;
	return false;
}

static int load_row(const struct kb_old_codes *o, size_t i, struct kb_old_code *r, char *err)
{
	const struct tsv_table *t = &o->t;
	const char *code = tsv_cell(t, i, C_CODE), *ss = tsv_cell(t, i, C_STRING_SOURCE);
	char *end;
	long v = strtol(code, &end, 10);

	if (!*code || *end || v <= 0 || v > 100000)
		return bad(t, i, C_CODE, "expected a positive whole number", err);
	r->code = (int)v;
	for (size_t k = 0; k < i; k++)
		if (o->rows[k].code == r->code)
			return bad(t, i, C_CODE, "listed twice", err);
	r->error = kb_error_by_name(tsv_cell(t, i, C_NAME));
	if (!r->error || r->error->api != KB_API_RUNTIME)
		return bad(t, i, C_NAME, "not a runtime error errors.tsv has", err);
	for (size_t k = 0; k < i; k++)
		if (o->rows[k].error == r->error)
			return bad(t, i, C_NAME, "listed twice", err);
	r->string = tsv_cell(t, i, C_STRING);
	if (strcmp(ss, "report") == 0)
		r->string_seen = true;
	else if (strcmp(ss, "13-text") != 0)
		return bad(t, i, C_STRING_SOURCE, "expected report or 13-text", err);
	if (!r->string_seen && strcmp(r->string, r->error->string) != 0)
		return bad(t, i, C_STRING, "13-text, but not the CUDA 13 text of this name", err);
	if (r->string_seen && strcmp(r->string, r->error->string) != 0 && !is_wording_of(r->error, r->string))
		return bad(t, i, C_STRING, "neither the CUDA 13 text nor a wording in error_wordings.tsv", err);
	r->releases = tsv_cell(t, i, C_RELEASES);
	r->source = tsv_cell(t, i, C_SOURCE);
	if (!r->releases[0])
		return bad(t, i, C_RELEASES, "empty", err);
	if (!r->source[0])
		return bad(t, i, C_SOURCE, "empty", err);
	return CD_OK;
}

int kb_old_codes_parse(const unsigned char *data, size_t size, struct kb_old_codes *out, char *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	rc = tsv_parse(TABLE, data, size, cols, NCOLS, &out->t, err);
	if (rc != CD_OK)
		goto out;
	out->rows = calloc(out->t.nrows ? out->t.nrows : 1, sizeof(*out->rows));
	if (!out->rows) {
		rc = cd_fail(err, CD_ENOMEM, TABLE ": out of memory");
		goto out;
	}
	for (size_t i = 0; i < out->t.nrows && rc == CD_OK; i++)
		rc = load_row(out, i, &out->rows[i], err);
	if (rc == CD_OK)
		out->n = out->t.nrows;
out:
	if (rc != CD_OK)
		kb_old_codes_free(out);
	return rc;
}

void kb_old_codes_free(struct kb_old_codes *o)
{
	free(o->rows);
	tsv_free(&o->t);
	memset(o, 0, sizeof(*o));
}

int kb_old_codes_load(char *err)
{
	const struct kb_blob *b;

	if (!db.tried) {
		db.tried = true;
		b = kb_blob_find(TABLE);
		db.status = b ? kb_old_codes_parse(b->data, b->size, &db.o, db.err)
			      : cd_fail(db.err, CD_EFORMAT, "kb table " TABLE " is not embedded");
	}
	if (db.status != CD_OK && err)
		memcpy(err, db.err, CD_ERRMSG);
	return db.status;
}

size_t kb_old_code_count(void)
{
	return kb_old_codes_load(NULL) == CD_OK ? db.o.n : 0;
}

const struct kb_old_code *kb_old_code_at(size_t i)
{
	return i < kb_old_code_count() ? &db.o.rows[i] : NULL;
}

const struct kb_old_code *kb_old_code_by_code(int code)
{
	for (size_t i = 0; i < kb_old_code_count(); i++)
		if (db.o.rows[i].code == code)
			return &db.o.rows[i];
	return NULL;
}

const struct kb_old_code *kb_old_code_of(const struct kb_error *e)
{
	for (size_t i = 0; e && i < kb_old_code_count(); i++)
		if (db.o.rows[i].error == e)
			return &db.o.rows[i];
	return NULL;
}
