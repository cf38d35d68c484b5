/* Records: a thing described once, its labelled fields sent to the text body (key/value
 * lines or table cells) and its keyed fields to the command's JSON. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_internal.h"
#include "util/err.h"
#include "util/str.h"
#include "util/units.h"

/* The first error stays; an out-of-memory or an internal error is also the report's. */
void report_rec_fail(struct report_rec *w, int rc)
{
	if (rc == CD_ENOMEM && w->r)
		w->r->oom = true;
	if (rc == CD_EINTERNAL && w->r)
		w->r->internal = true;
	if (w->rc == CD_OK)
		w->rc = rc;
}

/* child starts with parent's mode and error; json is its JSON (stolen), NULL when the
 * parent has none or when want_json is false. */
static void rec_child(struct report_rec *parent, struct report_rec *child, json_t *json, bool want_json)
{
	memset(child, 0, sizeof(*child));
	child->r = parent->r;
	child->parent = parent;
	/* a row's cells belong to the row: what nests inside it is JSON only, but for an
	 * object, whose labels fill the row's cells (report_rec_object) */
	child->text = parent->text == REPORT_TEXT_ROW ? REPORT_TEXT_NONE : parent->text;
	child->rc = parent->rc;
	if (parent->rc != CD_OK || !want_json || !parent->json)
		return;
	if (!json)
		report_rec_fail(child, CD_ENOMEM);
	child->json = json;
}

static json_t *value_json(const struct report_value *v);

/* Hands json to parent (under key, or appended); returns the borrowed pointer or NULL. */
static json_t *attach(struct report_rec *parent, const char *key, json_t *json)
{
	int bad;

	if (!parent->json || !json) {
		json_decref(json);
		return NULL;
	}
	if (json_is_array(parent->json))
		bad = json_array_append_new(parent->json, json);
	else
		bad = json_object_set_new(parent->json, key, json);
	return bad ? NULL : json;
}

void report_rec_top(struct report_rec *top, struct report *r)
{
	memset(top, 0, sizeof(*top));
	top->r = r;
	top->json = r->data;
	top->text = REPORT_TEXT_KV;
}

/* Opens child under parent: a new JSON object or array attached under key (appended in an
 * array) while parent is well and wants JSON; what every opener below shares. */
static void open_child(struct report_rec *parent, const char *key, bool array, bool want_json,
		       struct report_rec *child)
{
	json_t *j = NULL;

	if (want_json && parent->json && parent->rc == CD_OK)
		j = attach(parent, key, array ? json_array() : json_object());
	rec_child(parent, child, j, want_json);
}

void report_rec_json(struct report_rec *w, json_t *obj)
{
	memset(w, 0, sizeof(*w));
	w->json = obj;
	w->text = REPORT_TEXT_NONE;
	if (!obj)
		w->rc = CD_ENOMEM;
}

void report_rec_object(struct report_rec *parent, const char *key, struct report_rec *child)
{
	open_child(parent, key, false, true, child);
	if (parent->text != REPORT_TEXT_ROW || !parent->cells || child->rc != CD_OK)
		return;
	/* an object of a row: its labelled fields are cells of that row */
	child->text = REPORT_TEXT_ROW;
	child->cells = parent->cells;
	child->table_item = parent->table_item;
	child->row_borrowed = true;
}

void report_rec_array(struct report_rec *parent, const char *key, struct report_rec *list)
{
	open_child(parent, key, true, true, list);
}

void report_rec_table(struct report_rec *parent, const char *key, size_t ncols,
		      const char *const headers[], struct report_rec *table)
{
	int rc;

	open_child(parent, key, true, key != NULL, table);
	table->table = true;
	table->text = parent->text == REPORT_TEXT_KV ? REPORT_TEXT_ROW : REPORT_TEXT_NONE;
	if (table->rc != CD_OK || table->text != REPORT_TEXT_ROW)
		return; /* a table inside a JSON-only record has no text */
	if ((rc = report_table(table->r, ncols, headers)) != CD_OK) {
		report_rec_fail(table, rc);
		return;
	}
	table->table_item = table->r->n_items - 1;
}

void report_rec_item(struct report_rec *list, struct report_rec *item)
{
	open_child(list, NULL, false, true, item);
	if (!list->table || list->text != REPORT_TEXT_ROW || item->rc != CD_OK)
		return;
	item->text = REPORT_TEXT_ROW;
	item->table_item = list->table_item;
	item->cells = calloc(list->r->items[list->table_item].ncols, sizeof(char *));
	if (!item->cells) {
		item->text = REPORT_TEXT_NONE;
		report_rec_fail(item, CD_ENOMEM);
	}
}

void report_rec_item_json(struct report_rec *list, struct report_rec *item)
{
	open_child(list, NULL, false, true, item);
	item->text = REPORT_TEXT_NONE; /* no cells: its end adds no row */
}

void report_rec_push(struct report_rec *list, struct report_value v)
{
	json_t *j;

	if (list->rc != CD_OK || !list->json) {
		if (v.kind == RV_JSON)
			json_decref(v.j);
		return;
	}
	if (!json_is_array(list->json)) {
		if (v.kind == RV_JSON)
			json_decref(v.j);
		report_rec_fail(list, CD_EUSAGE);
		return;
	}
	j = value_json(&v);
	if (!j)
		report_rec_fail(list, v.kind == RV_JSON ? CD_EINTERNAL : CD_ENOMEM);
	else if (json_array_append_new(list->json, j) != 0)
		report_rec_fail(list, CD_ENOMEM);
}

void report_rec_text_only(struct report_rec *parent, struct report_rec *child)
{
	open_child(parent, NULL, false, false, child);
}

void report_rec_commands(struct report_rec *w, bool on)
{
	w->commands = on;
}

void report_rec_text(struct report_rec *w, enum report_text mode)
{
	if (mode == REPORT_TEXT_ROW && !w->cells)
		mode = REPORT_TEXT_NONE; /* only a table's row has cells */
	w->text = mode;
}

void report_rec_section(struct report_rec *w, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	if (w->rc != CD_OK || w->text != REPORT_TEXT_KV)
		return;
	va_start(ap, fmt);
	s = cd_vasprintf(fmt, ap);
	va_end(ap);
	rc = s ? report_section(w->r, "%s", s) : CD_ENOMEM;
	free(s);
	if (rc != CD_OK)
		report_rec_fail(w, rc);
}

void report_rec_line(struct report_rec *w, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	if (w->rc != CD_OK || w->text != REPORT_TEXT_KV)
		return;
	va_start(ap, fmt);
	s = cd_vasprintf(fmt, ap);
	va_end(ap);
	rc = s ? report_line(w->r, "%s", s) : CD_ENOMEM;
	free(s);
	if (rc != CD_OK)
		report_rec_fail(w, rc);
	else
		w->r->items[w->r->n_items - 1].command = w->commands;
}

static json_t *list_json(const char *s, const char *seps, bool numbers);

static json_t *value_json(const struct report_value *v)
{
	switch (v->kind) {
	case RV_NULL: return json_null();
	case RV_STRING: return report_json_text(v->s);
	case RV_INT:
	case RV_BYTES: return json_integer((json_int_t)v->i);
	case RV_BOOL: return json_boolean(v->b);
	case RV_REAL: return json_real(v->d);
	case RV_LIST: return list_json(v->s, v->seps, false);
	case RV_JSON: /* stolen; a tree built by hand gets its strings made safe here */
		if (v->j && report_json_make_safe(v->j) != CD_OK) {
			json_decref(v->j);
			return NULL;
		}
		return v->j;
	}
	return NULL;
}

static char *int_text(long long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	return cd_strdup(p);
}

/* The value's own text form; NULL with *rc set when it has none or memory ran out. */
static char *value_text(const struct report_value *v, int *rc)
{
	struct strbuf sb;
	size_t i;
	json_t *e;
	char *s = NULL, buf[UNITS_BUF];

	*rc = CD_ENOMEM;
	switch (v->kind) {
	case RV_NULL: s = cd_strdup("none"); break;
	case RV_STRING: s = cd_strdup(v->s); break;
	case RV_INT: s = int_text(v->i); break;
	case RV_BYTES: s = cd_strdup(units_fmt_bytes((uint64_t)v->i, buf, sizeof(buf))); break;
	case RV_BOOL: s = cd_strdup(v->b ? "yes" : "no"); break;
	case RV_REAL: s = cd_asprintf("%g", v->d); break;
	case RV_LIST: {
		const char *p = v->s, *item;
		size_t n;

		sb_init(&sb);
		while (field_list_next(&p, v->seps, &item, &n))
			sb_printf(&sb, "%s%.*s", sb.len ? ", " : "", (int)n, item);
		s = sb.len ? sb_detach(&sb) : (sb_free(&sb), cd_strdup(""));
		break;
	}
	case RV_JSON:
		if (!v->j)
			return NULL;
		if (!json_is_array(v->j)) {
			*rc = CD_EUSAGE;
			return NULL;
		}
		sb_init(&sb);
		json_array_foreach(v->j, i, e) {
			if (!json_is_string(e)) {
				sb_free(&sb);
				*rc = CD_EUSAGE;
				return NULL;
			}
			sb_printf(&sb, "%s%s", i ? ", " : "", json_string_value(e));
		}
		s = sb.len ? sb_detach(&sb) : (sb_free(&sb), cd_strdup(""));
		break;
	}
	return s;
}

/* Text: a key/value line, or the cell of the column named label. Takes text. */
static void put_text(struct report_rec *w, const char *label, char *text)
{
	const struct report_item *t;
	int rc;

	if (w->text == REPORT_TEXT_KV) {
		rc = w->commands ? report_kv_command(w->r, label, "%s", text) : report_kv(w->r, label, "%s", text);
		free(text);
		if (rc != CD_OK)
			report_rec_fail(w, rc);
		return;
	}
	if (!w->cells) { /* a table's own fields have no cell */
		free(text);
		report_rec_fail(w, CD_EUSAGE);
		return;
	}
	t = &w->r->items[w->table_item];
	for (size_t k = 0; k < t->ncols; k++) {
		size_t c = (w->next_col + k) % t->ncols; /* rows mostly fill their columns in order */

		if (strcmp(t->cells[c], label) != 0)
			continue;
		free(w->cells[c]);
		w->cells[c] = text;
		w->next_col = c + 1;
		return;
	}
	free(text);
	report_rec_fail(w, CD_EUSAGE);
}

/* Takes text (NULL: no text form, text_rc says why) and v's stolen JSON. */
static void field(struct report_rec *w, const char *label, const char *key,
		  const struct report_value *v, char *text, int text_rc)
{
	bool keep = key && w->json && w->rc == CD_OK;
	json_t *j = keep ? value_json(v) : NULL;

	if (!keep && v->kind == RV_JSON)
		json_decref(v->j);
	if (w->rc != CD_OK) {
		free(text);
		return;
	}
	if (keep && (!j || json_object_set_new(w->json, key, j) != 0)) {
		free(text);
		/* strings are safe text, so a value refused is a bug (or a value given as NULL) */
		report_rec_fail(w, j ? CD_ENOMEM : CD_EINTERNAL);
		return;
	}
	if (!label || w->text == REPORT_TEXT_NONE)
		free(text);
	else if (!text)
		report_rec_fail(w, text_rc);
	else
		put_text(w, label, text);
}

static bool wants_text(const struct report_rec *w, const char *label)
{
	return label && w->rc == CD_OK && w->text != REPORT_TEXT_NONE;
}

void report_field(struct report_rec *w, const char *label, const char *key, struct report_value v)
{
	int rc = CD_OK;
	char *text = wants_text(w, label) ? value_text(&v, &rc) : NULL;

	field(w, label, key, &v, text, rc);
}

/* The text of a field: the common "%s" copied, a short one formatted once on the stack (a
 * listing of 6,000 images is 66,000 cells). */
static char *format_text(const char *fmt, va_list ap)
{
	char buf[256];
	va_list again;
	int n;

	if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		const char *s = va_arg(ap, const char *);

		return cd_strdup(s ? s : "");
	}
	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, again);
	va_end(again);
	if (n < 0)
		return NULL;
	return (size_t)n < sizeof(buf) ? cd_strdup(buf) : cd_vasprintf(fmt, ap);
}

void report_vfieldf(struct report_rec *w, const char *label, const char *key, struct report_value v,
		    const char *fmt, va_list ap)
{
	char *text = wants_text(w, label) ? format_text(fmt, ap) : NULL;

	field(w, label, key, &v, text, CD_ENOMEM);
}

void report_fieldf(struct report_rec *w, const char *label, const char *key, struct report_value v,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_vfieldf(w, label, key, v, fmt, ap);
	va_end(ap);
}

/* ---- fields from a table ---- */

/* A list as a JSON array of strings (of integers: numbers); NULL when out of memory. */
static json_t *list_json(const char *s, const char *seps, bool numbers)
{
	json_t *a = json_array();
	const char *p = s, *item;
	size_t n;

	while (a && field_list_next(&p, seps, &item, &n)) {
		json_t *e;
		if (numbers) {
			char num[32];
			snprintf(num, sizeof num, "%.*s", (int)(n < sizeof num ? n : sizeof num - 1), item);
			e = json_integer(strtoll(num, NULL, 10));
		} else {
			e = report_json_textn(item, n);
		}
		if (json_array_append_new(a, e) != 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

static struct report_value field_rv(const struct field *f, const struct field_value *v)
{
	switch (v->kind) {
	case FV_INT: return rv_int(v->i);
	case FV_REAL: return rv_real(v->d);
	case FV_BOOL: return rv_bool(v->b);
	case FV_STR: return rv_str(v->s);
	case FV_LIST: return rv_json(list_json(v->s, v->seps, f->kind == FK_DIMS));
	case FV_NULL: break;
	}
	return rv_null();
}

static bool has_metrics(const struct field_table *t)
{
	if (t->info_metric)
		return true;
	for (size_t i = 0; i < t->n; i++)
		if (t->fields[i].metric || t->fields[i].prom_label)
			return true;
	return false;
}

/* obj's values into r->facts, for the Prometheus renderer. */
static int keep_fact(struct report *r, const struct field_table *t, const void *obj)
{
	struct report_fact *grown, *fc;
	struct field_value v;
	char buf[256];

	grown = realloc(r->facts, (r->n_facts + 1) * sizeof(*grown));
	if (!grown)
		return CD_ENOMEM;
	r->facts = grown;
	fc = &r->facts[r->n_facts];
	fc->table = t;
	fc->num = calloc(t->n, sizeof(*fc->num));
	fc->label = calloc(t->n, sizeof(*fc->label));
	if (!fc->num || !fc->label) {
		free(fc->num);
		free(fc->label);
		return CD_ENOMEM;
	}
	r->n_facts++;
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->fields[i];
		bool known = field_value_of(t, f, obj, &v);

		fc->num[i] = !known ? NAN : v.kind == FV_INT ? (double)v.i : v.kind == FV_REAL ? v.d
			   : v.kind == FV_BOOL ? (double)v.b : NAN;
		if (!f->prom_label || !known)
			continue;
		if (v.kind == FV_STR)
			fc->label[i] = report_text_take(cd_strdup(v.s));
		else if (v.kind == FV_INT)
			fc->label[i] = cd_asprintf("%lld", v.i);
		else
			fc->label[i] = cd_strdup(field_text(t, f, obj, buf, sizeof buf));
		if (!fc->label[i])
			return CD_ENOMEM;
	}
	return CD_OK;
}

/* Field f of obj under label (NULL: no text) and key (NULL: no JSON): the value's JSON (null
 * when unknown) and its text, or the unknown text; an unknown FIELD_OMIT field is left out. */
static void put_field(struct report_rec *w, const struct field_table *t, const struct field *f, const void *obj,
		      const char *label, const char *key)
{
	bool row = w->text == REPORT_TEXT_ROW;
	char buf[8192];
	struct field_value v;
	const char *text = NULL;

	if (!field_value_of(t, f, obj, &v) && (f->flags & FIELD_OMIT))
		return;
	if (label) {
		text = field_text(t, f, obj, buf, sizeof buf);
		if ((f->flags & FIELD_QUIET) && field_value_empty(&v))
			text = row ? "" : NULL;
		if (!text && row)
			text = "-";
		if (!text)
			label = NULL;
	}
	if (label || key) {
		bool commands = w->commands;

		w->commands = commands || (f->flags & FIELD_COMMAND);
		report_fieldf(w, label, key, field_rv(f, &v), "%s", text ? text : "");
		w->commands = commands;
	}
}

void report_fields(struct report_rec *w, const struct field_table *t, const void *obj, unsigned view)
{
	int rc;

	for (size_t i = 0; i < t->n && w->rc == CD_OK; i++) {
		const struct field *f = &t->fields[i];

		put_field(w, t, f, obj, f->label && (f->views & view) ? f->label : NULL, f->key);
	}
	if (w->rc == CD_OK && w->json && has_metrics(t) && (rc = keep_fact(w->r, t, obj)) != CD_OK)
		report_rec_fail(w, rc);
}

void report_fields_keep(struct report_rec *w, const struct field_table *t, const void *obj)
{
	int rc;

	if (w->rc == CD_OK && w->json && has_metrics(t) && (rc = keep_fact(w->r, t, obj)) != CD_OK)
		report_rec_fail(w, rc);
}

void report_one_field(struct report_rec *w, const struct field_table *t, size_t i, const void *obj)
{
	put_field(w, t, &t->fields[i], obj, t->fields[i].label, t->fields[i].key);
}

void report_one_field_as(struct report_rec *w, const char *label, const char *key, const struct field_table *t,
			 size_t i, const void *obj)
{
	put_field(w, t, &t->fields[i], obj, label, key);
}

void report_one_json(struct report_rec *w, const struct field_table *t, size_t i, const void *obj)
{
	put_field(w, t, &t->fields[i], obj, NULL, t->fields[i].key);
}

void report_one_fieldf(struct report_rec *w, const struct field_table *t, size_t i, const void *obj,
		       const char *fmt, ...)
{
	const struct field *f = &t->fields[i];
	struct field_value v;
	va_list ap;

	if (!field_value_of(t, f, obj, &v)) {
		put_field(w, t, f, obj, f->label, f->key);
		return;
	}
	va_start(ap, fmt);
	report_vfieldf(w, f->label, f->key, field_rv(f, &v), fmt, ap);
	va_end(ap);
}

size_t report_fields_headers(const struct field_table *t, unsigned view, const char **headers, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n && n < max; i++)
		if (t->fields[i].label && (t->fields[i].views & view))
			headers[n++] = t->fields[i].label;
	return n;
}

json_t *report_fields_json(const struct field_table *t, const void *obj)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < t->n; i++) {
		const struct field *f = &t->fields[i];
		struct field_value v;
		json_t *j;

		if (!f->key)
			continue;
		field_value_of(t, f, obj, &v);
		struct report_value rv = field_rv(f, &v);
		j = value_json(&rv);
		if (!j || json_object_set_new(o, f->key, j) != 0) {
			json_decref(o);
			o = NULL;
		}
	}
	return o;
}

int report_rec_end(struct report_rec *w)
{
	int rc;

	if (w->row_borrowed)
		w->cells = NULL; /* the row's, ended with it */
	if (w->cells) {
		size_t n = w->r->items[w->table_item].ncols;

		if (w->rc == CD_OK && (rc = report_table_row_take_at(w->r, w->table_item, w->cells)) != CD_OK)
			report_rec_fail(w, rc);
		for (size_t c = 0; c < n; c++)
			free(w->cells[c]);
		free(w->cells);
		w->cells = NULL;
	}
	if (w->parent && w->rc != CD_OK && w->parent->rc == CD_OK)
		w->parent->rc = w->rc;
	return w->rc;
}
