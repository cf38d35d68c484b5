/* String helpers that report allocation failure instead of exiting. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"
#include "util/str.h"

char *cd_strdup(const char *s)
{
	return s ? cd_strndup(s, strlen(s)) : NULL;
}

char *cd_strndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cd_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	char *p;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	p = malloc((size_t)n + 1);
	if (!p)
		return NULL;
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *cd_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = cd_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

char *str_shell_quote(const char *s)
{
	struct strbuf sb;

	sb_init(&sb);
	sb_append(&sb, "'");
	for (const char *p = s; *p; p++)
		sb_append_n(&sb, *p == '\'' ? "'\\''" : p, *p == '\'' ? 4 : 1);
	sb_append(&sb, "'");
	return sb_detach(&sb);
}

/* --- a value in a shell line (str.h's str_quote_*) ------------------------------------- */

struct qbuf {
	char *buf;
	size_t n, used;
	bool full;
};

static void q_put(struct qbuf *q, const char *s, size_t len)
{
	if (q->full || len >= q->n - q->used) {
		q->full = true;
		return;
	}
	memcpy(q->buf + q->used, s, len);
	q->used += len;
	q->buf[q->used] = '\0';
}

static int q_done(struct qbuf *q)
{
	if (!q->full)
		return CD_OK;
	if (q->n)
		q->buf[0] = '\0';
	return CD_EFORMAT;
}

static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return true;
	return false;
}

/* Whether every byte of s is in the set, letters and digits being in every one. */
static bool all_in(const char *s, const char *set)
{
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80)
			if (!strchr(set, *p))
				return false;
	return true;
}

/* A typographic quote PowerShell ends a string at (U+2018..U+201E): its length, 0 if none. */
static size_t pwsh_curly(const char *p, bool *dbl)
{
	const unsigned char *u = (const unsigned char *)p;

	if (u[0] != 0xe2 || u[1] != 0x80 || u[2] < 0x98 || u[2] > 0x9e)
		return 0;
	*dbl = u[2] >= 0x9c;
	return 3;
}

static int q_start(const char *s, char *buf, size_t n, struct qbuf *q)
{
	*q = (struct qbuf){ buf, n, 0, n == 0 };
	if (n)
		buf[0] = '\0';
	return s && !has_control(s) ? CD_OK : CD_EFORMAT;
}

int str_quote_sh(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n)
{
	struct qbuf q;
	bool plain;

	if (q_start(s, buf, n, &q) != CD_OK)
		return CD_EFORMAT;
	plain = ctx == SHQ_SINGLE ? !strchr(s, '\'') : ctx == SHQ_DOUBLE ? !strpbrk(s, "\\\"$`!") : s[0] && all_in(s, "_.,:/+@%-");
	if (plain) {
		q_put(&q, s, strlen(s));
		return q_done(&q);
	}
	if (ctx == SHQ_DOUBLE)
		q_put(&q, "\"", 1);
	if (ctx != SHQ_SINGLE)
		q_put(&q, "'", 1);
	for (const char *p = s; *p; p++)
		q_put(&q, *p == '\'' ? "'\\''" : p, *p == '\'' ? 4 : 1);
	if (ctx != SHQ_SINGLE)
		q_put(&q, "'", 1);
	if (ctx == SHQ_DOUBLE)
		q_put(&q, "\"", 1);
	return q_done(&q);
}

int str_quote_cmd(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n)
{
	struct qbuf q;
	bool wrap;

	if (q_start(s, buf, n, &q) != CD_OK || strpbrk(s, "\"%^!"))
		return CD_EFORMAT;
	/* cmd has no single quotes: a ' is a letter to it */
	wrap = ctx != SHQ_DOUBLE && !(s[0] && all_in(s, "_.:/\\+@-"));
	if (wrap)
		q_put(&q, "\"", 1);
	q_put(&q, s, strlen(s));
	if (wrap)
		q_put(&q, "\"", 1);
	return q_done(&q);
}

int str_quote_pwsh(const char *s, enum shell_quote_ctx ctx, char *buf, size_t n)
{
	struct qbuf q;
	bool dbl;
	size_t k;

	if (q_start(s, buf, n, &q) != CD_OK)
		return CD_EFORMAT;
	if (ctx == SHQ_NONE && s[0] && all_in(s, "_.:/\\+=-")) {
		q_put(&q, s, strlen(s));
		return q_done(&q);
	}
	if (ctx == SHQ_NONE)
		q_put(&q, "'", 1);
	for (const char *p = s; *p; p += k ? k : 1) {
		k = pwsh_curly(p, &dbl);
		if (ctx == SHQ_DOUBLE && ((k && dbl) || strchr("`$\"", *p)))
			q_put(&q, "`", 1); /* the escape character of a double-quoted string */
		else if (ctx != SHQ_DOUBLE && ((k && !dbl) || *p == '\''))
			q_put(&q, p, k ? k : 1); /* doubled: a quote inside a single-quoted string */
		q_put(&q, p, k ? k : 1);
	}
	if (ctx == SHQ_NONE)
		q_put(&q, "'", 1);
	return q_done(&q);
}

bool str_starts_with(const char *s, const char *prefix)
{
	return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t ls, lx;

	if (!s || !suffix)
		return false;
	ls = strlen(s);
	lx = strlen(suffix);
	return lx <= ls && memcmp(s + ls - lx, suffix, lx) == 0;
}

bool str_is_shared_object_name(const char *path)
{
	const char *base, *p;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (p = strstr(base, ".so"); p; p = strstr(p + 1, ".so")) {
		const char *q = p + 3;

		if (p == base)
			continue; /* ".so" alone names nothing */
		/* nothing after it, or a version: digits and dots ("libcublas.so.13.0.1") */
		if (*q == '\0')
			return true;
		if (*q != '.')
			continue;
		for (q++; (*q >= '0' && *q <= '9') || (*q == '.' && q[-1] != '.'); q++)
			;
		if (*q == '\0' && q[-1] >= '0' && q[-1] <= '9')
			return true;
	}
	return false;
}

bool str_is_module_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (str_is_shared_object_name(path))
		return true;
	return n > 4 && path[n - 5] != '/' &&
	       (strcasecmp(path + n - 4, ".dll") == 0 || strcasecmp(path + n - 4, ".pyd") == 0);
}

bool str_contains_ci(const char *haystack, const char *needle)
{
	size_t n;

	if (!haystack || !needle)
		return false;
	n = strlen(needle);
	if (n == 0)
		return true;
	for (; *haystack; haystack++)
		if (strncasecmp(haystack, needle, n) == 0)
			return true;
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int str_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;

			while (*a == '0' && is_digit(a[1]))
				a++;
			while (*b == '0' && is_digit(b[1]))
				b++;
			for (ea = a; is_digit(*ea); ea++)
				;
			for (eb = b; is_digit(*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb) /* without leading zeros, the longer run is the larger number */
				return la < lb ? -1 : 1;
			for (; a < ea; a++, b++)
				if (*a != *b)
					return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (*a != 0) - (*b != 0);
}

char *str_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->failed = false;
}

static int sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->failed)
		return CD_ENOMEM;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return CD_OK;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->buf, cap);
	if (!p) {
		sb->failed = true;
		return CD_ENOMEM;
	}
	sb->buf = p;
	sb->cap = cap;
	return CD_OK;
}

int sb_append_n(struct strbuf *sb, const char *s, size_t n)
{
	if (sb_grow(sb, n))
		return CD_ENOMEM;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return CD_OK;
}

int sb_append(struct strbuf *sb, const char *s)
{
	return sb_append_n(sb, s, strlen(s));
}

int sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sb_grow(sb, (size_t)n))
		return CD_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return CD_OK;
}

char *sb_detach(struct strbuf *sb)
{
	char *p;

	if (sb->failed) {
		sb_free(sb);
		return NULL;
	}
	p = sb->buf ? sb->buf : cd_strdup("");
	sb_init(sb);
	return p;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

/* Display columns of s[0..n): UTF-8 continuation bytes and ANSI colour sequences take none. */
static size_t columns_of(const char *s, size_t n)
{
	size_t cols = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x1b && i + 1 < n && s[i + 1] == '[') {
			for (i += 2; i < n && !(s[i] >= '@' && s[i] <= '~'); i++)
				;
			continue;
		}
		cols += (c & 0xc0) != 0x80;
	}
	return cols;
}

int sb_wrap(struct strbuf *sb, const char *text, size_t first_col, size_t indent, size_t width)
{
	size_t col = first_col;
	bool line_has_word = first_col > indent;
	const char *p = text;

	if (width < indent + 20)
		width = indent + 20; /* a very narrow terminal still gets readable lines */
	while (*p) {
		size_t spaces = 0, len, cols;

		if (*p == '\n') {
			sb_append_n(sb, "\n", 1);
			for (size_t k = 0; k < indent; k++)
				sb_append_n(sb, " ", 1);
			col = indent;
			line_has_word = false;
			p++;
			continue;
		}
		while (p[spaces] == ' ')
			spaces++;
		p += spaces;
		if (!*p || *p == '\n')
			continue;
		len = strcspn(p, " \n");
		cols = columns_of(p, len);
		if (line_has_word && col + (spaces ? spaces : 1) + cols > width) {
			sb_append_n(sb, "\n", 1);
			for (size_t k = 0; k < indent; k++)
				sb_append_n(sb, " ", 1);
			col = indent;
		} else if (line_has_word || spaces) {
			/* keep the author's spacing inside a line (aligned columns, two spaces) */
			size_t s = line_has_word ? (spaces ? spaces : 1) : spaces;
			for (size_t k = 0; k < s; k++)
				sb_append_n(sb, " ", 1);
			col += s;
		}
		sb_append_n(sb, p, len);
		col += cols;
		line_has_word = true;
		p += len;
	}
	return sb->failed ? CD_ENOMEM : CD_OK;
}

size_t str_lines_add(char *lines, size_t width, size_t n, size_t max, const char *fmt, ...)
{
	va_list ap;

	if (n >= max)
		return n;
	va_start(ap, fmt);
	vsnprintf(lines + n * width, width, fmt, ap);
	va_end(ap);
	return n + 1;
}

static bool same_byte(char a, char b, bool fold)
{
	if (fold && a >= 'A' && a <= 'Z')
		a = (char)(a - 'A' + 'a');
	if (fold && b >= 'A' && b <= 'Z')
		b = (char)(b - 'A' + 'a');
	return a == b;
}

bool str_wildcard_match(const char *pattern, const char *s, bool fold)
{
	const char *star = NULL, *resume = NULL;

	/* the last '*' is the only one worth going back to: what an earlier one would take
	 * more of, this one can take as well */
	while (*s) {
		if (*pattern == '*') {
			star = pattern++;
			resume = s;
		} else if (*pattern && (*pattern == '?' || same_byte(*pattern, *s, fold))) {
			pattern++;
			s++;
		} else if (star) {
			pattern = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return !*pattern;
}

size_t str_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows: the one before the previous for a swap, the previous, the current */
	size_t rows[3][STR_EDIT_MAX + 1];

	if (la > STR_EDIT_MAX || lb > STR_EDIT_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		/* row i is rows[i % 3]; row i - 2 is rows[(i + 1) % 3] */
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *two = rows[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[la % 3][lb];
}

size_t str_typo_reach(size_t len)
{
	return len <= 4 ? 1 : 2;
}
