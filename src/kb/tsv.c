/* Splitting an embedded kb table into header-checked rows of fields. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kb/tsv.h"
#include "util/err.h"

/* Counts fields of the line [p, end) and, if out is set, stores NUL-terminated cells. */
static size_t split_line(char *p, char *end, char **out, size_t max)
{
	size_t n = 0;
	char *start = p;

	for (;; p++) {
		if (p == end || *p == '\t') {
			if (out && n < max)
				out[n] = start;
			n++;
			if (p == end)
				break;
			if (out)
				*p = '\0';
			start = p + 1;
		}
	}
	return n;
}

static int check_header(const struct tsv_table *t, char *p, char *le, const char *const *cols,
			size_t line_no, char *err)
{
	char **hdr = calloc(t->ncols, sizeof(*hdr));
	int rc = CD_OK;

	if (!hdr)
		return cd_fail(err, CD_ENOMEM, "%s: out of memory", t->name);
	split_line(p, le, hdr, t->ncols);
	for (size_t i = 0; i < t->ncols; i++) {
		if (strcmp(hdr[i], cols[i]) != 0) {
			rc = cd_fail(err, CD_EFORMAT, "%s:%zu: column %zu is '%.40s', expected '%s'",
				     t->name, line_no, i + 1, hdr[i], cols[i]);
			break;
		}
	}
	free(hdr);
	return rc;
}

static int grow(struct tsv_table *t, size_t *cap, char *err)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	char **nc;
	size_t *nl;

	nc = realloc(t->cells, ncap * t->ncols * sizeof(*nc));
	if (!nc)
		return cd_fail(err, CD_ENOMEM, "%s: out of memory", t->name);
	t->cells = nc;
	nl = realloc(t->lines, ncap * sizeof(*nl));
	if (!nl)
		return cd_fail(err, CD_ENOMEM, "%s: out of memory", t->name);
	t->lines = nl;
	*cap = ncap;
	return CD_OK;
}

int tsv_parse(const char *name, const unsigned char *data, size_t size,
	      const char *const *cols, size_t ncols, struct tsv_table *t, char *err)
{
	size_t line_no = 0, cap = 0, n;
	char *p, *end, *eol, *le;
	bool header_seen = false;
	int rc = CD_OK;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->ncols = ncols;
	t->buf = malloc(size + 1);
	if (!t->buf)
		return cd_fail(err, CD_ENOMEM, "%s: out of memory", name);
	if (size)
		memcpy(t->buf, data, size);
	t->buf[size] = '\0';
	if (memchr(t->buf, '\0', size)) {
		rc = cd_fail(err, CD_EFORMAT, "%s: contains a NUL byte", name);
		goto out;
	}
	for (p = t->buf, end = t->buf + size; p < end; p = eol + 1) {
		line_no++;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		*eol = '\0';
		le = eol;
		if (le > p && le[-1] == '\r')
			*--le = '\0';
		if (le == p)
			continue;
		n = split_line(p, le, NULL, 0);
		if (n != ncols) {
			rc = cd_fail(err, CD_EFORMAT, "%s:%zu: %zu fields, expected %zu", name,
				     line_no, n, ncols);
			goto out;
		}
		if (!header_seen) {
			rc = check_header(t, p, le, cols, line_no, err);
			if (rc)
				goto out;
			header_seen = true;
			continue;
		}
		if (t->nrows == cap && (rc = grow(t, &cap, err)) != CD_OK)
			goto out;
		split_line(p, le, t->cells + t->nrows * ncols, ncols);
		t->lines[t->nrows++] = line_no;
	}
	if (!header_seen)
		rc = cd_fail(err, CD_EFORMAT, "%s: empty table (no header row)", name);
out:
	if (rc)
		tsv_free(t);
	return rc;
}

void tsv_free(struct tsv_table *t)
{
	free(t->buf);
	free(t->cells);
	free(t->lines);
	t->buf = NULL;
	t->cells = NULL;
	t->lines = NULL;
	t->nrows = 0;
}

int tsv_bad(const struct tsv_table *t, size_t row, const char *col, const char *why, char *err)
{
	return cd_fail(err, CD_EFORMAT, "%s:%zu: column %s: %s", t->name, t->lines[row], col, why);
}

bool tsv_yes_no(const char *s, bool *out)
{
	if (strcmp(s, "yes") == 0 || strcmp(s, "no") == 0) {
		*out = s[0] == 'y';
		return true;
	}
	return false;
}

bool tsv_version(const char *s, size_t len, struct version *v)
{
	char buf[32];

	if (!len || len >= sizeof buf)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	return isdigit((unsigned char)buf[0]) && version_parse(buf, v) == CD_OK;
}
