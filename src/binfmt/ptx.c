/* Line-oriented PTX scanning: directives outside // comments, names bounded to 255 bytes. */
#include "binfmt/ptx.h"

#include <stdio.h>
#include <string.h>

#include "util/err.h"

struct line {
	const char *p;
	size_t n;
};

/* Next line of data[*pos..size), without its newline and without a // comment. */
static bool next_line(const unsigned char *data, size_t size, size_t *pos, struct line *l)
{
	if (*pos >= size)
		return false;
	const char *s = (const char *)data + *pos;
	size_t rest = size - *pos;
	const char *nl = memchr(s, '\n', rest);
	size_t n = nl ? (size_t)(nl - s) : rest;
	*pos += n + (nl ? 1 : 0);
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '/' && s[i + 1] == '/') {
			n = i;
			break;
		}
	const char *z = memchr(s, 0, n);
	if (z)
		n = (size_t)(z - s);
	l->p = s;
	l->n = n;
	return true;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '%';
}

/* Position just after directive `d` as a whole token in the line, or 0 if absent. */
static size_t find_directive(const struct line *l, const char *d)
{
	size_t dn = strlen(d);
	for (size_t i = 0; i + dn <= l->n; i++) {
		if (memcmp(l->p + i, d, dn) != 0)
			continue;
		if (i > 0 && is_ident(l->p[i - 1]))
			continue;
		if (i + dn < l->n && is_ident(l->p[i + dn]))
			continue;
		return i + dn;
	}
	return 0;
}

static size_t skip_space(const struct line *l, size_t i)
{
	while (i < l->n && is_space(l->p[i]))
		i++;
	return i;
}

static unsigned read_uint(const struct line *l, size_t *i)
{
	unsigned v = 0;
	while (*i < l->n && l->p[*i] >= '0' && l->p[*i] <= '9' && v < 100000)
		v = v * 10 + (unsigned)(l->p[(*i)++] - '0');
	return v;
}

/* PTX states its .version in its first lines (after a comment header); the sniff reads no
 * further than this, so a 4 GiB file without newlines is not read whole (15 s) to say no. */
#define PTX_SNIFF_BYTES ((size_t)64 << 10)

bool ptx_looks_like_ptx(const unsigned char *data, size_t size)
{
	size_t pos = 0;
	struct line l;
	if (size > PTX_SNIFF_BYTES)
		size = PTX_SNIFF_BYTES;
	for (int k = 0; k < 200 && next_line(data, size, &pos, &l); k++)
		if (find_directive(&l, ".version"))
			return true;
	return false;
}

static void parse_target(const struct line *l, size_t i, struct ptx_info *pi)
{
	i = skip_space(l, i);
	size_t start = i;
	while (i < l->n && is_ident(l->p[i]) && i - start < sizeof(pi->target_text) - 1)
		i++;
	memcpy(pi->target_text, l->p + start, i - start);
	pi->target_text[i - start] = 0;
	if (strncmp(pi->target_text, "sm_", 3) != 0 && strncmp(pi->target_text, "compute_", 8) != 0)
		return;
	size_t j = start + (pi->target_text[0] == 's' ? 3 : 8);
	pi->target = read_uint(l, &j);
	if (j < l->n && (l->p[j] == 'a' || l->p[j] == 'f'))
		pi->target_suffix = l->p[j];
}

int ptx_read(const unsigned char *data, size_t size, struct ptx_info *pi, char *err)
{
	memset(pi, 0, sizeof(*pi));
	size_t pos = 0, at;
	struct line l;
	bool have_version = false;
	while (next_line(data, size, &pos, &l)) {
		if (!have_version && (at = find_directive(&l, ".version"))) {
			size_t i = skip_space(&l, at);
			pi->isa_major = read_uint(&l, &i);
			if (i < l.n && l.p[i] == '.') {
				i++;
				pi->isa_minor = read_uint(&l, &i);
			}
			have_version = true;
		} else if (!pi->target_text[0] && (at = find_directive(&l, ".target"))) {
			parse_target(&l, at, pi);
		} else if (find_directive(&l, ".entry")) {
			pi->n_entries++;
		}
	}
	if (!have_version)
		return cd_fail(err, CD_EFORMAT, "no .version directive in PTX text");
	return CD_OK;
}

int ptx_entries(const unsigned char *data, size_t size,
		int (*fn)(const char *name, void *ctx), void *ctx, char *err)
{
	(void)err;
	size_t pos = 0, at;
	struct line l;
	while (next_line(data, size, &pos, &l)) {
		if (!(at = find_directive(&l, ".entry")))
			continue;
		size_t i = skip_space(&l, at), start = i;
		while (i < l.n && is_ident(l.p[i]))
			i++;
		char name[256];
		size_t n = i - start < sizeof(name) - 1 ? i - start : sizeof(name) - 1;
		if (!n)
			continue;
		memcpy(name, l.p + start, n);
		name[n] = 0;
		int rc = fn(name, ctx);
		if (rc)
			return rc;
	}
	return CD_OK;
}
