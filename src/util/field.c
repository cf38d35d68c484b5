/* Reading one field of a struct through its table: the value, its validity, its text. */
#include "util/field.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/units.h"

static bool bit_set(const struct field_table *t, const struct field *f, const void *obj)
{
	const unsigned long long *bits;

	if (f->valid < 0 || t->valid_off < 0)
		return true;
	bits = (const unsigned long long *)((const char *)obj + t->valid_off);
	return (bits[f->valid / 64] >> (f->valid % 64)) & 1ULL;
}

/* The bool at .flag of a FIELD_IF_FLAG field. */
static bool flag_set(const struct field *f, const void *obj)
{
	bool b;

	if (!(f->flags & FIELD_IF_FLAG))
		return true;
	memcpy(&b, (const char *)obj + f->flag, sizeof b);
	return b;
}

static void set_int(struct field_value *v, const struct field *f, long long i)
{
	if (((f->flags & FIELD_NEG_UNKNOWN) && i < 0) || ((f->flags & FIELD_ZERO_UNKNOWN) && i == 0))
		return;
	v->kind = FV_INT;
	v->i = i;
}

static void set_str(struct field_value *v, const struct field *f, const char *s)
{
	if (!s || ((f->flags & FIELD_ZERO_UNKNOWN) && !*s))
		return;
	v->kind = FV_STR;
	v->s = s;
}

bool field_value_of(const struct field_table *t, const struct field *f, const void *obj, struct field_value *v)
{
	const char *at = (const char *)obj + f->off;

	v->kind = FV_NULL;
	v->s = NULL;
	v->seps = NULL;
	if (!bit_set(t, f, obj) || !flag_set(f, obj))
		return false;
	switch (f->kind) {
	case FK_LLONG: {
		long long x;
		memcpy(&x, at, sizeof x);
		set_int(v, f, x);
		break;
	}
	case FK_ULLONG: {
		unsigned long long x;
		memcpy(&x, at, sizeof x);
		set_int(v, f, (long long)x);
		break;
	}
	case FK_INT: {
		int x;
		memcpy(&x, at, sizeof x);
		set_int(v, f, x);
		break;
	}
	case FK_UINT: {
		unsigned x;
		memcpy(&x, at, sizeof x);
		set_int(v, f, x);
		break;
	}
	case FK_BOOL:
		memcpy(&v->b, at, sizeof v->b);
		v->kind = (f->flags & FIELD_ZERO_UNKNOWN) && !v->b ? FV_NULL : FV_BOOL;
		break;
	case FK_CHARS:
		if (*at || (f->flags & FIELD_EMPTY_KNOWN))
			set_str(v, f, at);
		break;
	case FK_CSTR: {
		const char *s;
		memcpy(&s, at, sizeof s);
		if (s && (*s || (f->flags & FIELD_EMPTY_KNOWN))) {
			v->kind = FV_STR;
			v->s = s;
		}
		break;
	}
	case FK_DIMS: {
		long long d[3];
		memcpy(d, at, sizeof d);
		snprintf(v->buf, sizeof v->buf, "%lld %lld %lld", d[0], d[1], d[2]);
		v->kind = FV_LIST;
		v->s = v->buf;
		v->seps = " ";
		break;
	}
	case FK_WORDS:
	case FK_ITEMS:
		v->kind = FV_LIST;
		v->s = at;
		v->seps = f->kind == FK_WORDS ? " " : ";";
		break;
	case FK_CALC:
		if (!f->get || !f->get(obj, v))
			v->kind = FV_NULL;
		break;
	case FK_DOUBLE:
		memcpy(&v->d, at, sizeof v->d);
		if (!((f->flags & FIELD_NEG_UNKNOWN) && v->d < 0) && !((f->flags & FIELD_ZERO_UNKNOWN) && v->d == 0))
			v->kind = FV_REAL;
		break;
	case FK_NAMED: {
		int x;
		memcpy(&x, at, sizeof x);
		if (!((f->flags & FIELD_NEG_UNKNOWN) && x < 0) && !((f->flags & FIELD_ZERO_UNKNOWN) && x == 0))
			set_str(v, f, f->name ? f->name(x) : NULL);
		break;
	}
	case FK_TEXT:
		set_str(v, f, f->string ? f->string(obj, v->buf, sizeof v->buf) : NULL);
		break;
	}
	return v->kind != FV_NULL;
}

bool field_list_next(const char **p, const char *seps, const char **item, size_t *n)
{
	const char *s = *p, *e;

	for (;;) {
		while (*s && (strchr(seps, *s) || *s == ' '))
			s++;
		if (!*s) {
			*p = s;
			return false;
		}
		e = s + strcspn(s, seps);
		*p = e;
		while (e > s && e[-1] == ' ')
			e--;
		if (e > s) {
			*item = s;
			*n = (size_t)(e - s);
			return true;
		}
		s = *p;
	}
}

/* The value in its unit's words. */
static void unit_text(const struct field *f, long long i, char *buf, size_t len)
{
	switch (f->unit) {
	case FU_BYTES:
		if (i < 0 && len > 1) { /* a difference of sizes: -512 MiB */
			buf[0] = '-';
			units_fmt_bytes((uint64_t)0 - (uint64_t)i, buf + 1, len - 1);
		} else {
			units_fmt_bytes((uint64_t)i, buf, len);
		}
		break;
	case FU_YESNO:
		snprintf(buf, len, "%s", i ? "yes" : "no");
		break;
	case FU_KHZ:
		snprintf(buf, len, "%lld MHz", i / 1000);
		break;
	case FU_MHZ:
		snprintf(buf, len, "%lld MHz", i);
		break;
	case FU_MW:
		snprintf(buf, len, "%g W", (double)i / 1000);
		break;
	case FU_CELSIUS:
		snprintf(buf, len, "%lld C", i);
		break;
	case FU_BITS:
		snprintf(buf, len, "%lld bits", i);
		break;
	case FU_NONE:
		snprintf(buf, len, "%lld", i);
		break;
	}
}

const char *field_text(const struct field_table *t, const struct field *f, const void *obj, char *buf, size_t len)
{
	struct field_value v;
	const char *p, *item;
	size_t used = 0, n;

	if (len == 0)
		return NULL;
	buf[0] = '\0';
	if (!field_value_of(t, f, obj, &v))
		return f->unknown;
	if (f->text) {
		f->text(obj, buf, len);
		return buf;
	}
	switch (v.kind) {
	case FV_INT:
		unit_text(f, v.i, buf, len);
		break;
	case FV_BOOL:
		snprintf(buf, len, "%s", (f->flags & FIELD_ON_OFF) ? (v.b ? "on" : "off") : (v.b ? "yes" : "no"));
		break;
	case FV_STR:
		snprintf(buf, len, "%s", v.s);
		break;
	case FV_REAL:
		snprintf(buf, len, "%g", v.d);
		break;
	case FV_LIST:
		if (f->kind == FK_DIMS)
			used = (size_t)snprintf(buf, len, "(");
		for (p = v.s; used < len && field_list_next(&p, v.seps, &item, &n);) {
			int k = snprintf(buf + used, len - used, "%s%.*s",
					 used > (f->kind == FK_DIMS) ? ", " : "", (int)n, item);
			used += k > 0 ? (size_t)k : 0;
		}
		if (f->kind == FK_DIMS && used < len)
			snprintf(buf + used, len - used, ")");
		break;
	case FV_NULL:
		return f->unknown;
	}
	return buf;
}

bool field_value_empty(const struct field_value *v)
{
	const char *p, *item;
	size_t n;

	switch (v->kind) {
	case FV_NULL: return true;
	case FV_INT: return v->i == 0;
	case FV_REAL: return v->d == 0;
	case FV_BOOL: return !v->b;
	case FV_STR: return !v->s || !*v->s;
	case FV_LIST:
		p = v->s;
		return !field_list_next(&p, v->seps, &item, &n);
	}
	return true;
}

const struct field *field_find(const struct field_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fields[i].key && strcmp(t->fields[i].key, key) == 0)
			return &t->fields[i];
	return NULL;
}
