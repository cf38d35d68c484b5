/* A struct's fields written into a record from its field table (util/rec_field.h): the
 * value read once through the table entry becomes the JSON value and the text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>

#include "report/report.h"
#include "util/units.h"

#define TEXT_BUF 1024 /* an RF_TEXT value: a CPU list, a name */

/* The JSON value of a valid field; s is the string of a string kind. */
static struct report_value value_of(const struct rec_field *f, const void *obj, const char *s)
{
	switch (f->kind) {
	case RF_BOOL: return rv_bool(rec_field_int(f, obj) != 0);
	case RF_DOUBLE: return rv_real(*(const double *)((const char *)obj + f->offset));
	case RF_CHARS:
	case RF_NAMED:
	case RF_TEXT: return rv_str(s);
	default: return rv_int(rec_field_int(f, obj));
	}
}

/* The value's default text into buf, after the field's unit. */
static const char *text_of(const struct rec_field *f, const void *obj, const char *s, char *buf, size_t cap)
{
	long long v;

	switch (f->kind) {
	case RF_CHARS:
	case RF_NAMED:
	case RF_TEXT: return s;
	case RF_BOOL: return rec_field_int(f, obj) ? "yes" : "no";
	case RF_DOUBLE: snprintf(buf, cap, "%g", *(const double *)((const char *)obj + f->offset)); return buf;
	default: break;
	}
	if (f->unit == RU_YESNO)
		return rec_field_int(f, obj) ? "yes" : "no";
	if (f->kind == RF_U64) {
		uint64_t u = *(const uint64_t *)((const char *)obj + f->offset);

		if (f->unit == RU_BYTES)
			return units_fmt_bytes(u, buf, cap);
		snprintf(buf, cap, "%llu", (unsigned long long)u);
		return buf;
	}
	v = rec_field_int(f, obj);
	if (f->unit == RU_BYTES && v < 0) {
		buf[0] = '-';
		units_fmt_bytes((uint64_t)-v, buf + 1, cap - 1);
	} else if (f->unit == RU_BYTES) {
		units_fmt_bytes((uint64_t)v, buf, cap);
	} else {
		snprintf(buf, cap, "%lld", v);
	}
	return buf;
}

/* Reads f of obj: false when it is to be left out; else *v and, unless text is NULL, *text
 * (NULL when the field has no valid value: the unknown text is the caller's). */
static bool read_field(const struct rec_field *f, const void *obj, char *sbuf, char *tbuf, size_t cap,
		       struct report_value *v, const char **text)
{
	const char *s = rec_field_str(f, obj, sbuf, cap);
	bool valid = rec_field_valid(f, obj) && (s || (f->kind != RF_NAMED && f->kind != RF_TEXT));

	if (!valid) {
		*v = rv_null();
		if (text)
			*text = NULL;
		return f->absent != RFA_OMIT;
	}
	*v = value_of(f, obj, s);
	if (text)
		*text = text_of(f, obj, s, tbuf, cap);
	return true;
}

/* A field with no valid value that is not left out: JSON null, the unknown text or none. */
static void unknown(struct report_rec *w, const struct rec_field *f)
{
	report_fieldf(w, f->absent == RFA_QUIET ? NULL : f->label, f->key, rv_null(), "%s",
		      f->unknown ? f->unknown : "?");
}

void report_struct_field(struct report_rec *w, const struct rec_field *f, const void *obj)
{
	char sbuf[TEXT_BUF], tbuf[TEXT_BUF];
	struct report_value v;
	const char *text;

	if (!read_field(f, obj, sbuf, tbuf, sizeof(sbuf), &v, &text))
		return;
	if (!text)
		unknown(w, f);
	else
		report_fieldf(w, f->label, f->key, v, "%s", text);
}

void report_struct_field_as(struct report_rec *w, const char *label, const char *key, const struct rec_field *f,
			    const void *obj)
{
	struct rec_field as = *f;

	as.label = label;
	as.key = key;
	report_struct_field(w, &as, obj);
}

void report_struct_fields(struct report_rec *w, const struct rec_field *table, size_t n, const void *obj)
{
	for (size_t i = 0; i < n; i++)
		report_struct_field(w, &table[i], obj);
}

void report_struct_fieldf(struct report_rec *w, const struct rec_field *f, const void *obj, const char *fmt, ...)
{
	char sbuf[TEXT_BUF];
	struct report_value v;
	va_list ap;

	if (!read_field(f, obj, sbuf, NULL, sizeof(sbuf), &v, NULL))
		return;
	if (v.kind == RV_NULL) {
		unknown(w, f);
		return;
	}
	va_start(ap, fmt);
	report_vfieldf(w, f->label, f->key, v, fmt, ap);
	va_end(ap);
}

void report_struct_json(struct report_rec *w, const struct rec_field *f, const void *obj)
{
	char sbuf[TEXT_BUF];
	struct report_value v;

	if (read_field(f, obj, sbuf, NULL, sizeof(sbuf), &v, NULL))
		report_field(w, NULL, f->key, v);
}
