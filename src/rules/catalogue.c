/* Findings made from the catalogue (rules/catalogue.h): a row's templates filled from a
 * verdict's values. */
#include "rules/catalogue.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "os/host.h"
#include "report/finding_write.h"
#include "util/err.h"
#include "util/str.h"

/* What a fix line says where a value is unknown: a command that finds it out, or a word the
 * reader replaces; on Windows (the windows flag) a word, cmd having no $(...). The GPUs and the
 * program have none: a line that names them says {?...|what to run instead}. */
static const struct {
	const char *name, *fallback, *windows;
} fallbacks[] = {
	{ "driver_version", "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)",
	  "DRIVER_VERSION" },
	{ "driver_branch", "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1 | cut -d. -f1)",
	  "DRIVER_BRANCH" },
	{ "nvcc_version", "$(nvcc --version | sed -n 's/.*release \\([0-9.]*\\),.*/\\1/p')", "NVCC_VERSION" },
	{ "driver_library", "libcuda.so.1", "nvcuda.dll" },
	{ "code", "ERROR_NAME", NULL },
	{ "library", "cuda", NULL },
	{ "built_with", "VERSION", NULL },
};

/* Values a rule composes as shell text from cudoctor's own tables (a plan's pip line, nvcc's
 * -gencode flags, the fix engine's lines), never from an input: put into a fix line as they are, being several words.
 * Every other value is quoted for the line's shell (catalogue_fix_shell). */
static const char *const shell_text[] = { "plan_fix", "plan_why", "torch_install", "pip", "nvcc_flags",
					  "fix_a", "fix_b", "fix_c", "fix_d", "fix_a_why", "fix_b_why", "fix_c_why", "fix_d_why" };

bool catalogue_is_shell_text(const char *name)
{
	for (size_t i = 0; i < sizeof shell_text / sizeof shell_text[0]; i++)
		if (strcmp(shell_text[i], name) == 0)
			return true;
	return false;
}

void finding_vars_init(struct finding_vars *v)
{
	v->n = 0;
}

static char *slot(struct finding_vars *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->name[i], name) == 0)
			return v->value[i];
	if (v->n == FINDING_VARS_MAX)
		return NULL;
	v->name[v->n] = name;
	return v->value[v->n++];
}

void finding_var(struct finding_vars *v, const char *name, const char *fmt, ...)
{
	char *s = slot(v, name);
	va_list ap;

	if (!s)
		return;
	va_start(ap, fmt);
	vsnprintf(s, FINDING_VAR_LEN, fmt, ap);
	va_end(ap);
}

void finding_flag(struct finding_vars *v, const char *name, bool on)
{
	finding_var(v, name, "%s", on ? "1" : "0");
}

void finding_vars_merge(struct finding_vars *v, const struct finding_vars *from)
{
	for (size_t i = 0; i < from->n; i++)
		finding_var(v, from->name[i], "%s", from->value[i]);
}

const char *finding_var_get(const struct finding_vars *v, const char *name)
{
	for (size_t i = 0; v && i < v->n; i++)
		if (strcmp(v->name[i], name) == 0)
			return v->value[i];
	return NULL;
}

static const char *flag_default(const char *name);

static const char *fallback_of(const char *name, const struct finding_vars *v)
{
	const char *w = v ? finding_var_get(v, "windows") : NULL;
	bool windows = strcmp(w ? w : flag_default("windows"), "1") == 0;

	for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
		if (strcmp(fallbacks[i].name, name) == 0)
			return windows && fallbacks[i].windows ? fallbacks[i].windows : fallbacks[i].fallback;
	return NULL;
}

bool catalogue_has_fallback(const char *name)
{
	return fallback_of(name, NULL) != NULL;
}

const char *catalogue_fallback(const char *name)
{
	return fallback_of(name, NULL);
}

/* The length of a placeholder name at s ("driver}" -> 6), 0 when s does not start one. */
static size_t name_len(const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && ((s[n] >= 'a' && s[n] <= 'z') || s[n] == '_'))
		n++;
	return n && n < 32 && s + n < end && s[n] == '}' ? n : 0;
}

/* Where the {?...} that starts at s ends (its closing brace), and its top-level '|' (or NULL). */
static const char *segment_end(const char *s, const char *end, const char **bar)
{
	int depth = 0;

	*bar = NULL;
	for (const char *p = s; p < end; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
		else if (*p == '|' && depth == 1 && !*bar)
			*bar = p;
	}
	return NULL;
}

struct out {
	char *buf;
	size_t n, used;
	bool cut;                 /* it did not fit: a fix line is then left out, never cut */
	int shell;                /* a fix line's shell; CATALOGUE_TEXT for a title, a why or a note */
	bool note;                /* a fix line of prose ({text}): a value may not break it into lines */
	char refused[32];         /* the name of a value the shell could not take; "" none */
};

static void put(struct out *o, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (o->used + 1 >= o->n) {
			o->cut = true;
			break;
		}
		o->buf[o->used++] = s[i];
	}
	if (o->n)
		o->buf[o->used] = '\0';
}

/* Where the next byte of a fix line falls for its shell, from what is written so far: inside
 * the line's own single or double quotes, or outside them. A value in a comment (an unquoted
 * word starting with '#', which cmd.exe does not know) is quoted as outside quotes: zsh reads
 * '#' as a comment only when told to. */
static enum shell_quote_ctx quote_ctx(const char *s, size_t len, int shell)
{
	enum shell_quote_ctx q = SHQ_NONE;
	char esc = shell == CATALOGUE_CMD ? '^' : shell == CATALOGUE_PWSH ? '`' : '\\';

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (q == SHQ_NONE && shell != CATALOGUE_CMD && c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t'))
			return SHQ_NONE;
		if (q == SHQ_SINGLE) {
			if (c == '\'')
				q = SHQ_NONE;
		} else if (c == esc && (q == SHQ_NONE || shell != CATALOGUE_CMD)) {
			i++;
		} else if (c == '"') {
			q = q == SHQ_DOUBLE ? SHQ_NONE : SHQ_DOUBLE;
		} else if (c == '\'' && q == SHQ_NONE && shell != CATALOGUE_CMD) {
			q = SHQ_SINGLE;
		}
	}
	return q;
}

/* A value into o: as it is in a title or why, else quoted for the fix line's shell where it
 * stands; false (o->refused) when the shell cannot take it. */
static bool put_value(struct out *o, const char *name, const char *val)
{
	char q[4 * FINDING_VAR_LEN + 8];
	enum shell_quote_ctx ctx;
	int rc;

	if (o->shell == CATALOGUE_TEXT) {
		for (const unsigned char *c = (const unsigned char *)val; o->note && *c; c++)
			if (*c < 0x20 || *c == 0x7f) {
				snprintf(o->refused, sizeof o->refused, "%s", name);
				return false;
			}
		put(o, val, strlen(val));
		return true;
	}
	ctx = quote_ctx(o->buf, o->used, o->shell);
	if (catalogue_is_shell_text(name)) {
		for (const unsigned char *c = (const unsigned char *)val; *c; c++)
			if (*c < 0x20 || *c == 0x7f) {
				snprintf(o->refused, sizeof o->refused, "%s", name);
				return false;
			}
		put(o, val, strlen(val));
		return true;
	}
	if (o->shell == CATALOGUE_CMD)
		rc = str_quote_cmd(val, ctx, q, sizeof q);
	else if (o->shell == CATALOGUE_PWSH)
		rc = str_quote_pwsh(val, ctx, q, sizeof q);
	else
		rc = str_quote_sh(val, ctx, q, sizeof q);
	if (rc != CD_OK) {
		snprintf(o->refused, sizeof o->refused, "%s", name);
		return false;
	}
	put(o, q, strlen(q));
	return true;
}

/* Fills [s, end) into o. strict: an unknown value fails (inside {?...}); otherwise it takes its
 * fallback and fails only without one. */
static bool fill(const char *s, const char *end, const struct finding_vars *v, bool strict, struct out *o)
{
	const char *p = s;

	while (p < end) {
		const char *brace = memchr(p, '{', (size_t)(end - p));
		size_t nl;

		if (!brace) {
			put(o, p, (size_t)(end - p));
			break;
		}
		put(o, p, (size_t)(brace - p));
		p = brace;
		if (p + 1 < end && p[1] == '?') {
			const char *bar, *close = segment_end(p, end, &bar);
			const char *a_end = bar ? bar : close;
			size_t mark = o->used;

			if (!close) { /* unbalanced: text */
				put(o, p, 1);
				p++;
				continue;
			}
			if (!fill(p + 2, a_end, v, true, o)) {
				if (o->refused[0])
					return false;
				o->used = mark;
				if (o->n)
					o->buf[mark] = '\0';
				if (bar && !fill(bar + 1, close, v, strict, o))
					return false;
			}
			p = close + 1;
		} else if ((nl = name_len(p + 1, end)) > 0) {
			char name[32];
			const char *val;

			memcpy(name, p + 1, nl);
			name[nl] = '\0';
			val = finding_var_get(v, name);
			if (val) {
				if (!put_value(o, name, val))
					return false;
			} else if (!strict && (val = fallback_of(name, v))) {
				put(o, val, strlen(val)); /* cudoctor's own text for this shell */
			} else {
				return false;
			}
			p += nl + 2;
		} else {
			put(o, p, 1);
			p++;
		}
	}
	return true;
}

/* A platform flag no command set is the platform cudoctor runs on, so a fix line written for
 * Windows or for Linux appears once, in the local form, where no text said otherwise. */
static const char *flag_default(const char *name)
{
	if (strcmp(name, "windows") != 0)
		return NULL;
	return os_is_linux() ? "0" : "1";
}

/* A fix line's {+flag} / {-flag} prefixes: whether they let it through; *rest is after them. */
static bool conditions_hold(const char *s, const struct finding_vars *v, const char **rest)
{
	bool ok = true;

	while (s[0] == '{' && (s[1] == '+' || s[1] == '-')) {
		const char *end = s + strlen(s);
		size_t nl = name_len(s + 2, end);
		char name[32];
		const char *val;

		if (!nl)
			break;
		memcpy(name, s + 2, nl);
		name[nl] = '\0';
		if (!(val = finding_var_get(v, name)))
			val = flag_default(name);
		if (val && (s[1] == '+' ? strcmp(val, "0") == 0 : strcmp(val, "0") != 0))
			ok = false;
		s += nl + 3;
		while (*s == ' ')
			s++;
	}
	*rest = s;
	return ok;
}

#define ALTERNATIVE " ;; "
#define TEXT_MARK "{text}"

/* After a fix line's conditions: the text past a {text} mark, or NULL when the line has none. */
static const char *after_text_mark(const char *rest)
{
	return strncmp(rest, TEXT_MARK, strlen(TEXT_MARK)) == 0 ? rest + strlen(TEXT_MARK) : NULL;
}

static const char *skip_text_mark(const char *rest)
{
	const char *t = after_text_mark(rest);

	return t ? t : rest;
}

bool catalogue_fill(const char *tmpl, const struct finding_vars *v, char *out, size_t n)
{
	struct out o = { out, n, 0, false, CATALOGUE_TEXT, false, "" };
	const char *rest, *end;

	if (n)
		out[0] = '\0';
	/* a title or why with alternatives ("{-windows}... ;; {+windows}..."): the first whose
	 * conditions hold (fix lines are split into lines by the kb, so hold none) */
	while ((end = strstr(tmpl, ALTERNATIVE)) != NULL && !conditions_hold(tmpl, v, &rest))
		tmpl = end + strlen(ALTERNATIVE);
	if (!conditions_hold(tmpl, v, &rest))
		return false;
	rest = skip_text_mark(rest);
	end = strstr(rest, ALTERNATIVE);
	/* a line whose every part was left out is left out */
	return fill(rest, end ? end : rest + strlen(rest), v, false, &o) && o.used > 0;
}

/* Whether a fix line's conditions name {+flag} (want true) or {-flag} (want false). */
static bool line_conditioned(const char *tmpl, const char *flag, bool want)
{
	char tag[40];

	snprintf(tag, sizeof tag, "{%c%s}", want ? '+' : '-', flag);
	for (const char *s = tmpl; s[0] == '{' && (s[1] == '+' || s[1] == '-');) {
		const char *close = strchr(s, '}');

		if (!close)
			break;
		if ((size_t)(close + 1 - s) == strlen(tag) && strncmp(s, tag, strlen(tag)) == 0)
			return true;
		s = close + 1;
		while (*s == ' ')
			s++;
	}
	return false;
}

/* PowerShell's own syntax at a line's start: a type ([Environment]::...), a variable
 * ($env:X = ...) or a cmdlet's Verb-Noun name (Remove-Item). */
static bool powershell_line(const char *s)
{
	size_t n = 0;

	if (s[0] == '[' || s[0] == '$')
		return true;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))
		n++;
	if (n == 0 || !(s[0] >= 'A' && s[0] <= 'Z') || s[n] != '-' || !(s[n + 1] >= 'A' && s[n + 1] <= 'Z'))
		return false;
	return true;
}

int catalogue_fix_shell(const struct kb_finding *row, const char *tmpl, const struct finding_vars *v)
{
	const char *w = finding_var_get(v, "windows"), *rest;
	bool windows;

	(void)conditions_hold(tmpl, NULL, &rest);
	if (after_text_mark(rest))
		return CATALOGUE_TEXT;
	if (line_conditioned(tmpl, "windows", false))
		windows = false;
	else if (line_conditioned(tmpl, "windows", true) || (row && row->layer && strstr(row->layer, "(Windows)")))
		windows = true;
	else
		windows = strcmp(w ? w : flag_default("windows"), "1") == 0;
	if (!windows)
		return CATALOGUE_SH;
	(void)conditions_hold(tmpl, NULL, &rest);
	return powershell_line(rest) ? CATALOGUE_PWSH : CATALOGUE_CMD;
}

int catalogue_fill_fix(const struct kb_finding *row, const char *tmpl, const struct finding_vars *v, char *out,
		       size_t n, char refused[32])
{
	struct out o = { out, n, 0, false, catalogue_fix_shell(row, tmpl, v), true, "" };
	const char *rest;
	bool ok;

	refused[0] = '\0';
	if (n)
		out[0] = '\0';
	if (!conditions_hold(tmpl, v, &rest))
		return CD_ENOTFOUND;
	rest = skip_text_mark(rest);
	ok = fill(rest, rest + strlen(rest), v, false, &o);
	if (o.refused[0]) {
		snprintf(refused, 32, "%s", o.refused);
		if (n)
			out[0] = '\0';
		return CD_EFORMAT;
	}
	if (!ok || o.used == 0 || o.cut) {
		if (n)
			out[0] = '\0';
		return CD_ENOTFOUND;
	}
	return CD_OK;
}

size_t catalogue_names(const char *tmpl, char names[][32], size_t max)
{
	size_t k = 0;
	const char *end = tmpl + strlen(tmpl);

	for (const char *p = strchr(tmpl, '{'); p; p = strchr(p + 1, '{')) {
		const char *s = p + 1 + (p[1] == '+' || p[1] == '-');
		size_t nl = name_len(s, end);
		bool seen = false;

		if (!nl || (nl == 4 && strncmp(s, "text", 4) == 0)) /* the mark of a prose line */
			continue;
		for (size_t i = 0; i < k; i++)
			seen |= strlen(names[i]) == nl && strncmp(names[i], s, nl) == 0;
		if (!seen && k < max) {
			memcpy(names[k], s, nl);
			names[k++][nl] = '\0';
		}
	}
	return k;
}

enum severity catalogue_severity(const struct kb_finding *x)
{
	if (!strcmp(x->severity, "ok"))
		return SEV_OK;
	if (!strcmp(x->severity, "info"))
		return SEV_INFO;
	if (!strcmp(x->severity, "warn"))
		return SEV_WARN;
	return SEV_ERROR;
}

static const char *shell_name(int shell)
{
	return shell == CATALOGUE_CMD ? "cmd.exe" : shell == CATALOGUE_PWSH ? "PowerShell" : "a POSIX shell";
}

/* A fix line left out because a value could not be quoted says so in the evidence, once per
 * value, the value shown as safe text; false when out of memory. */
static bool said_refused(struct finding *f, const struct kb_finding *x, const char *tmpl,
			 const struct finding_vars *v, const char *name)
{
	int shell = catalogue_fix_shell(x, tmpl, v);
	char line[160];

	snprintf(line, sizeof line, "a fix line is left out: {%s} '", name);
	for (size_t i = 0; i < f->n_evidence; i++)
		if (str_starts_with(f->evidence[i], line))
			return true;
	return finding_evidence(f, "%s%s' cannot be written safely in a line for %s%s", line, finding_var_get(v, name),
				shell_name(shell),
				shell == CATALOGUE_CMD ? " (it holds \" % ^ ! or a control character)"
						       : " (it holds a control character, or is too long)") == CD_OK;
}

struct finding *finding_make(struct report *r, int sev, const char *id, const char *subject,
			     const struct finding_vars *v)
{
	char base[64];

	/* a variant row ("wsl-libcuda/copy") is a case of its id */
	snprintf(base, sizeof base, "%.*s", (int)strcspn(id, "/"), id);
	return finding_make_as(r, sev, id, base, subject, v);
}

struct finding *finding_make_as(struct report *r, int sev, const char *row, const char *id, const char *subject,
				const struct finding_vars *v)
{
	static const struct finding_vars none = { 0 };
	const struct kb_finding *x;
	struct finding *f;
	char text[1024];

	if (!v)
		v = &none;
	if (kb_load(NULL) != CD_OK || !(x = kb_finding_find(row)))
		return NULL;
	catalogue_fill(x->title, v, text, sizeof text);
	f = report_add_finding(r, sev == SEV_CATALOGUE ? catalogue_severity(x) : (enum severity)sev, id, subject,
			       "%s", text);
	if (!f)
		return NULL;
	catalogue_fill(x->why, v, text, sizeof text);
	if (finding_why(f, "%s", text) != CD_OK) {
		r->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < x->n_fix; i++) {
		char refused[32];
		int rc = catalogue_fill_fix(x, x->fix[i], v, text, sizeof text, refused);

		if (rc == CD_EFORMAT && !said_refused(f, x, x->fix[i], v, refused))
			rc = CD_ENOMEM;
		else if (rc == CD_OK)
			rc = finding_fix(f, "%s", text);
		if (rc == CD_ENOMEM) {
			r->oom = true;
			return NULL;
		}
	}
	return f;
}
