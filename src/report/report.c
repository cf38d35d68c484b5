/* Building a report: findings and text sections owned by the report, freed together, every
 * string of them safe text. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/finding_write.h"
#include "report/report_internal.h"
#include "util/err.h"
#include "util/safetext.h"
#include "util/str.h"

/* Text of the report keeps its line breaks and tabs (a why of several lines, a table cell);
 * everything else that a terminal acts on is shown, never sent. */
#define REPORT_SAFE SAFE_TEXT_KEEP_NEWLINES

char *report_text_take(char *s)
{
	char *safe;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	if (safe_text_is_clean(s, n, REPORT_SAFE))
		return s;
	safe = safe_text_dup(s, n, SIZE_MAX, REPORT_SAFE);
	free(s);
	return safe;
}

json_t *report_json_textn(const char *s, size_t n)
{
	json_t *j;
	char *safe;

	if (!s)
		return json_null();
	if (safe_text_is_clean(s, n, REPORT_SAFE))
		return json_stringn(s, n);
	if (!(safe = safe_text_dup(s, n, SIZE_MAX, REPORT_SAFE)))
		return NULL;
	j = json_string(safe);
	free(safe);
	return j;
}

json_t *report_json_text(const char *s)
{
	return report_json_textn(s, s ? strlen(s) : 0);
}

int report_json_make_safe(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		const char *s = json_string_value(j);
		size_t n = json_string_length(j);
		char *safe;
		int bad;

		if (safe_text_is_clean(s, n, REPORT_SAFE))
			return CD_OK;
		if (!(safe = safe_text_dup(s, n, SIZE_MAX, REPORT_SAFE)))
			return CD_ENOMEM;
		bad = json_string_set(j, safe);
		free(safe);
		return bad ? CD_ENOMEM : CD_OK;
	}
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			if (report_json_make_safe(v) != CD_OK)
				return CD_ENOMEM;
	if (json_is_object(j))
		json_object_foreach(j, key, v)
			if (report_json_make_safe(v) != CD_OK)
				return CD_ENOMEM;
	return CD_OK;
}

int report_set_header(struct report *r, json_t *header)
{
	if (!header) {
		r->internal = true;
		return CD_EINTERNAL;
	}
	if (report_json_make_safe(header) != CD_OK) {
		json_decref(header);
		r->oom = true;
		return CD_ENOMEM;
	}
	json_decref(r->header);
	r->header = header;
	return CD_OK;
}

const char *severity_name(enum severity s)
{
	switch (s) {
	case SEV_OK: return "ok";
	case SEV_INFO: return "info";
	case SEV_WARN: return "warn";
	case SEV_ERROR: return "error";
	}
	return "?";
}

int report_init(struct report *r, const char *command)
{
	memset(r, 0, sizeof(*r));
	r->command = command;
	r->exit_override = -1;
	r->format = -1;
	r->data = json_object();
	return r->data ? CD_OK : CD_ENOMEM;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n_findings; i++) {
		struct finding *f = &r->findings[i];
		free(f->id);
		free(f->subject);
		free(f->title);
		free(f->why);
		free_strv(f->evidence, f->n_evidence);
		free_strv(f->fix, f->n_fix);
	}
	free(r->findings);
	for (size_t i = 0; i < r->n_items; i++) {
		struct report_item *it = &r->items[i];
		free(it->a);
		free(it->b);
		free_strv(it->cells, it->ncols * it->nrows);
	}
	free(r->items);
	for (size_t i = 0; i < r->n_facts; i++) {
		free(r->facts[i].num);
		free_strv(r->facts[i].label, r->facts[i].table->n);
	}
	free(r->facts);
	free_strv(r->answer, r->n_answer);
	json_decref(r->data);
	json_decref(r->header);
	memset(r, 0, sizeof(*r));
}

struct finding *report_add_finding(struct report *r, enum severity sev, const char *id,
				   const char *subject, const char *title_fmt, ...)
{
	struct finding *f;
	va_list ap;

	if (r->n_findings == r->cap_findings) {
		size_t cap = r->cap_findings ? r->cap_findings * 2 : 8;
		struct finding *p = realloc(r->findings, cap * sizeof(*p));
		if (!p)
			goto oom;
		r->findings = p;
		r->cap_findings = cap;
	}
	f = &r->findings[r->n_findings];
	memset(f, 0, sizeof(*f));
	f->severity = sev;
	f->id = report_text_take(cd_strdup(id));
	f->subject = report_text_take(cd_strdup(subject ? subject : ""));
	va_start(ap, title_fmt);
	f->title = report_text_take(cd_vasprintf(title_fmt, ap));
	va_end(ap);
	if (!f->id || !f->subject || !f->title) {
		free(f->id);
		free(f->subject);
		free(f->title);
		goto oom;
	}
	r->n_findings++;
	return f;
oom:
	r->oom = true;
	return NULL;
}

static int strv_push(char ***v, size_t *n, char *s)
{
	char **p;

	if (!s)
		return CD_ENOMEM;
	p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return CD_ENOMEM;
	}
	p[(*n)++] = s;
	*v = p;
	return CD_OK;
}

/* evidence[] and fix[] grow the same way; f == NULL (an earlier OOM) is passed through. */
static int finding_push(struct finding *f, char ***v, size_t *n, const char *fmt, va_list ap)
{
	return f ? strv_push(v, n, report_text_take(cd_vasprintf(fmt, ap))) : CD_ENOMEM;
}

int finding_evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = finding_push(f, f ? &f->evidence : NULL, f ? &f->n_evidence : NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int finding_fix(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = finding_push(f, f ? &f->fix : NULL, f ? &f->n_fix : NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int finding_why(struct finding *f, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!f)
		return CD_ENOMEM;
	va_start(ap, fmt);
	s = report_text_take(cd_vasprintf(fmt, ap));
	va_end(ap);
	if (!s)
		return CD_ENOMEM;
	free(f->why);
	f->why = s;
	return CD_OK;
}

bool report_has_errors(const struct report *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].severity == SEV_ERROR)
			return true;
	return false;
}

const struct finding *report_find(const struct report *r, const char *id)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].id, id) == 0)
			return &r->findings[i];
	return NULL;
}

bool report_has_finding(const struct report *r, const char *id)
{
	return report_find(r, id) != NULL;
}

void report_items_truncate(struct report *r, size_t mark)
{
	while (r->n_items > mark) {
		struct report_item *it = &r->items[--r->n_items];

		free(it->a);
		free(it->b);
		free_strv(it->cells, it->ncols * it->nrows);
	}
}

static void reverse_items(struct report_item *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		struct report_item t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

void report_items_move(struct report *r, size_t from, size_t at)
{
	if (at >= from || from >= r->n_items)
		return;
	/* a rotation by three reversals: no allocation that could fail */
	reverse_items(r->items + at, from - at);
	reverse_items(r->items + from, r->n_items - from);
	reverse_items(r->items + at, r->n_items - at);
}

static struct report_item *push_item(struct report *r, enum report_item_kind kind)
{
	struct report_item *it;

	if (r->n_items == r->cap_items) {
		size_t cap = r->cap_items ? r->cap_items * 2 : 16;
		struct report_item *p = realloc(r->items, cap * sizeof(*p));
		if (!p) {
			r->oom = true;
			return NULL;
		}
		r->items = p;
		r->cap_items = cap;
	}
	it = &r->items[r->n_items++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	return it;
}

static int push_text(struct report *r, enum report_item_kind kind, char *a, char *b)
{
	struct report_item *it;

	a = report_text_take(a);
	if (kind != ITEM_FIGURE) /* a figure's SVG is drawn here, from numbers */
		b = report_text_take(b);
	if (!a || ((kind == ITEM_KV || kind == ITEM_FIGURE) && !b))
		goto oom;
	it = push_item(r, kind);
	if (!it)
		goto oom;
	it->a = a;
	it->b = b;
	return CD_OK;
oom:
	free(a);
	free(b);
	r->oom = true;
	return CD_ENOMEM;
}

int report_section(struct report *r, const char *title_fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, title_fmt);
	s = cd_vasprintf(title_fmt, ap);
	va_end(ap);
	return push_text(r, ITEM_SECTION, s, NULL);
}

int report_kv(struct report *r, const char *key, const char *value_fmt, ...)
{
	va_list ap;
	char *v;

	va_start(ap, value_fmt);
	v = cd_vasprintf(value_fmt, ap);
	va_end(ap);
	return push_text(r, ITEM_KV, cd_strdup(key), v);
}

int report_kv_command(struct report *r, const char *key, const char *value_fmt, ...)
{
	va_list ap;
	char *v;
	int rc;

	va_start(ap, value_fmt);
	v = cd_vasprintf(value_fmt, ap);
	va_end(ap);
	if ((rc = push_text(r, ITEM_KV, cd_strdup(key), v)) == CD_OK)
		r->items[r->n_items - 1].command = true;
	return rc;
}

int report_line(struct report *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = cd_vasprintf(fmt, ap);
	va_end(ap);
	return push_text(r, ITEM_LINE, s, NULL);
}

int report_answer(struct report *r, const char *fmt, ...)
{
	va_list ap;
	char *s, **p;

	va_start(ap, fmt);
	s = report_text_take(cd_vasprintf(fmt, ap));
	va_end(ap);
	p = s ? realloc(r->answer, (r->n_answer + 1) * sizeof(*p)) : NULL;
	if (!p) {
		free(s);
		r->oom = true;
		return CD_ENOMEM;
	}
	r->answer = p;
	r->answer[r->n_answer++] = s;
	return CD_OK;
}

char *finding_oneline(const struct finding *f)
{
	bool subject = f->subject && *f->subject;

	return cd_asprintf("%s %s: %s%s%s%s", severity_name(f->severity), f->id, f->title, subject ? " [" : "",
			   subject ? f->subject : "", subject ? "]" : "");
}

int report_answer_findings(struct report *r, enum severity min)
{
	for (int sev = SEV_ERROR; sev >= (int)min; sev--)
		for (size_t i = 0; i < r->n_findings; i++) {
			char *line;
			int rc;

			if ((int)r->findings[i].severity != sev)
				continue;
			if (!(line = finding_oneline(&r->findings[i]))) {
				r->oom = true;
				return CD_ENOMEM;
			}
			rc = report_answer(r, "%s", line);
			free(line);
			if (rc != CD_OK)
				return rc;
		}
	r->findings_answered = true;
	return CD_OK;
}

static int table_add_row(struct report *r, struct report_item *t, const char *const cells[])
{
	size_t base = t->nrows * t->ncols;
	char **p = realloc(t->cells, (base + t->ncols) * sizeof(*p));

	if (!p)
		goto oom;
	t->cells = p;
	for (size_t c = 0; c < t->ncols; c++) {
		p[base + c] = report_text_take(cd_strdup(cells[c] ? cells[c] : ""));
		if (!p[base + c]) {
			while (c--)
				free(p[base + c]);
			goto oom;
		}
	}
	t->nrows++;
	return CD_OK;
oom:
	r->oom = true;
	return CD_ENOMEM;
}

int report_table(struct report *r, size_t ncols, const char *const headers[])
{
	struct report_item *it;

	if (ncols == 0)
		return CD_EUSAGE;
	it = push_item(r, ITEM_TABLE);
	if (!it)
		return CD_ENOMEM;
	it->ncols = ncols;
	return table_add_row(r, it, headers);
}

int report_table_row_at(struct report *r, size_t item, const char *const cells[])
{
	if (item >= r->n_items || r->items[item].kind != ITEM_TABLE)
		return CD_EUSAGE;
	return table_add_row(r, &r->items[item], cells);
}

int report_table_row_take_at(struct report *r, size_t item, char **cells)
{
	struct report_item *t = item < r->n_items && r->items[item].kind == ITEM_TABLE ? &r->items[item] : NULL;
	size_t ncols = t ? t->ncols : 0, base = t ? t->nrows * t->ncols : 0;
	char **p = t ? realloc(t->cells, (base + ncols) * sizeof(*p)) : NULL;
	int rc = !t ? CD_EUSAGE : !p ? CD_ENOMEM : CD_OK;

	if (p)
		t->cells = p;
	for (size_t c = 0; rc == CD_OK && c < ncols; c++) {
		p[base + c] = cells[c] ? report_text_take(cells[c]) : cd_strdup("");
		cells[c] = NULL;
		if (!p[base + c]) {
			while (c--)
				free(p[base + c]);
			rc = CD_ENOMEM;
		}
	}
	if (rc == CD_OK) {
		t->nrows++;
		return CD_OK;
	}
	for (size_t c = 0; c < ncols; c++) {
		free(cells[c]);
		cells[c] = NULL;
	}
	if (rc == CD_ENOMEM)
		r->oom = true;
	return rc;
}

int report_table_row(struct report *r, const char *const cells[])
{
	for (size_t i = r->n_items; i-- > 0;)
		if (r->items[i].kind == ITEM_TABLE)
			return table_add_row(r, &r->items[i], cells);
	return CD_EUSAGE;
}

int report_figure(struct report *r, const char *caption, const char *svg)
{
	return push_text(r, ITEM_FIGURE, cd_strdup(caption ? caption : ""), cd_strdup(svg ? svg : ""));
}

int report_json_set(struct report *r, const char *key, json_t *value)
{
	if (!value) {
		r->internal = true;
		return CD_EINTERNAL;
	}
	/* json_object_set_new takes value, set or not; a value never set is dropped here */
	if (report_json_make_safe(value) != CD_OK) {
		json_decref(value);
		r->oom = true;
		return CD_ENOMEM;
	}
	if (json_object_set_new(r->data, key, value) != 0) {
		r->oom = true;
		return CD_ENOMEM;
	}
	return CD_OK;
}
