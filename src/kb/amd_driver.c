/* Loading kb/amdgpu_drivers.tsv once, each cell checked, and matching a module version and a
 * ROCm release against its rows. */
#include "kb/amd_driver.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/tsv.h"
#include "util/err.h"

static struct {
	bool tried;
	int status;
	char err[CD_ERRMSG];
	struct tsv_table t;
	struct kb_amdgpu_driver *rows;
	size_t n;
} ddb;

static const char *cols[] = {"driver", "module", "rocm", "uncertain", "source", "notes"};

static int bad(size_t row, const char *col, const char *why, char *err)
{
	return cd_fail(err, CD_EFORMAT, "%s:%zu: column %s: %s", ddb.t.name, ddb.t.lines[row], col, why);
}

/* Digits and dots, parts dots+1 of them, none empty. */
static bool dotted(const char *s, int parts)
{
	int n = 1;
	if (!isdigit((unsigned char)*s))
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == '.') {
			if (!isdigit((unsigned char)p[1]))
				return false;
			n++;
		} else if (!isdigit((unsigned char)*p)) {
			return false;
		}
	}
	return n == parts;
}

static int load_rows(char *err)
{
	if (!(ddb.rows = calloc(ddb.t.nrows ? ddb.t.nrows : 1, sizeof *ddb.rows)))
		return cd_fail(err, CD_ENOMEM, "amdgpu_drivers.tsv: out of memory");
	for (size_t i = 0; i < ddb.t.nrows; i++) {
		struct kb_amdgpu_driver *d = &ddb.rows[i];
		char *list = (char *)tsv_cell(&ddb.t, i, 2), *save = NULL;
		const char *u = tsv_cell(&ddb.t, i, 3);

		d->driver = tsv_cell(&ddb.t, i, 0);
		if (!dotted(d->driver, 2))
			return bad(i, "driver", "expected a driver line like 30.30 or 6.4", err);
		d->module = tsv_cell(&ddb.t, i, 1);
		if (strcmp(d->module, "-") == 0)
			d->module = NULL;
		else if (!dotted(d->module, 3))
			return bad(i, "module", "expected '-' or a module version like 6.16.13", err);
		for (size_t k = 0; k < i; k++)
			if (strcmp(ddb.rows[k].driver, d->driver) == 0 ||
			    (d->module && ddb.rows[k].module && strcmp(ddb.rows[k].module, d->module) == 0))
				return bad(i, "driver", "a driver line or module version twice", err);
		/* the cell is owned by the table: keep its text before splitting it in place */
		if (!(d->rocm_text = strdup(list)))
			return cd_fail(err, CD_ENOMEM, "amdgpu_drivers.tsv: out of memory");
		for (char *tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			if (d->n_rocm == KB_AMDGPU_MAX_ROCM)
				return bad(i, "rocm", "more than 12 releases", err);
			if (!dotted(tok, 2))
				return bad(i, "rocm", "expected ROCm releases like 6.4, blank-separated", err);
			d->rocm[d->n_rocm++] = tok;
		}
		if (!d->n_rocm)
			return bad(i, "rocm", "empty", err);
		if (strcmp(u, "yes") && strcmp(u, "no"))
			return bad(i, "uncertain", "expected yes or no", err);
		d->uncertain = u[0] == 'y';
		d->source = tsv_cell(&ddb.t, i, 4);
		if (!*d->source)
			return bad(i, "source", "empty", err);
		d->notes = tsv_cell(&ddb.t, i, 5);
		ddb.n++;
	}
	return CD_OK;
}

static void ddb_free(void)
{
	for (size_t i = 0; ddb.rows && i < ddb.t.nrows; i++)
		free((char *)ddb.rows[i].rocm_text);
	free(ddb.rows);
	tsv_free(&ddb.t);
	memset(&ddb, 0, sizeof ddb);
}

int kb_amdgpu_load_blob(const struct kb_blob *blob, char *err)
{
	int rc;

	ddb_free();
	ddb.tried = true;
	if (!blob)
		rc = cd_fail(ddb.err, CD_EFORMAT, "kb table amdgpu_drivers.tsv is not embedded");
	else if ((rc = tsv_parse("amdgpu_drivers.tsv", blob->data, blob->size, cols, sizeof cols / sizeof cols[0], &ddb.t,
				 ddb.err)) == CD_OK)
		rc = load_rows(ddb.err);
	if (rc) {
		char keep[CD_ERRMSG];
		memcpy(keep, ddb.err, sizeof keep);
		ddb_free();
		memcpy(ddb.err, keep, sizeof keep);
		ddb.tried = true;
	}
	ddb.status = rc;
	if (rc && err)
		memcpy(err, ddb.err, CD_ERRMSG);
	return rc;
}

int kb_amdgpu_load(char *err)
{
	if (!ddb.tried)
		return kb_amdgpu_load_blob(kb_blob_find("amdgpu_drivers.tsv"), err);
	if (ddb.status && err)
		memcpy(err, ddb.err, CD_ERRMSG);
	return ddb.status;
}

size_t kb_amdgpu_driver_count(void)
{
	return kb_amdgpu_load(NULL) == CD_OK ? ddb.n : 0;
}

const struct kb_amdgpu_driver *kb_amdgpu_driver_at(size_t i)
{
	return i < kb_amdgpu_driver_count() ? &ddb.rows[i] : NULL;
}

/* The length of s's first n dot-separated numeric parts, 0 when it has fewer. */
static size_t parts_len(const char *s, int n)
{
	size_t k = 0;
	for (int p = 0; p < n; p++) {
		size_t digits = 0;
		if (p && s[k++] != '.')
			return 0;
		while (isdigit((unsigned char)s[k]))
			k++, digits++;
		if (!digits)
			return 0;
	}
	return k;
}

const struct kb_amdgpu_driver *kb_amdgpu_driver_of_module(const char *version)
{
	size_t k = version ? parts_len(version, 3) : 0;
	if (!k || isdigit((unsigned char)version[k]))
		return NULL;
	for (size_t i = 0; i < kb_amdgpu_driver_count(); i++)
		if (ddb.rows[i].module && strlen(ddb.rows[i].module) == k && strncmp(ddb.rows[i].module, version, k) == 0)
			return &ddb.rows[i];
	return NULL;
}

bool kb_amdgpu_supports(const struct kb_amdgpu_driver *d, const char *rocm)
{
	size_t k = rocm ? parts_len(rocm, 2) : 0;
	if (!d || !k || isdigit((unsigned char)rocm[k]))
		return false;
	for (size_t i = 0; i < d->n_rocm; i++)
		if (strlen(d->rocm[i]) == k && strncmp(d->rocm[i], rocm, k) == 0)
			return true;
	return false;
}
