/* Reading a struct's field through its field table entry (rec_field.h). */
#include "util/rec_field.h"

#include <stdint.h>
#include <string.h>

static const void *at(const void *obj, size_t offset)
{
	return (const char *)obj + offset;
}

long long rec_field_int(const struct rec_field *f, const void *obj)
{
	const void *p = at(obj, f->offset);

	switch (f->kind) {
	case RF_INT:
	case RF_NAMED: return *(const int *)p;
	case RF_UINT: return *(const unsigned *)p;
	case RF_U64: return (long long)*(const uint64_t *)p;
	case RF_I64: return (long long)*(const int64_t *)p;
	case RF_BOOL: return *(const bool *)p;
	case RF_DOUBLE: return (long long)*(const double *)p;
	case RF_CHARS:
	case RF_TEXT: return 0;
	}
	return 0;
}

const char *rec_field_str(const struct rec_field *f, const void *obj, char *buf, size_t cap)
{
	switch (f->kind) {
	case RF_CHARS: return (const char *)at(obj, f->offset);
	case RF_NAMED: return f->name ? f->name(*(const int *)at(obj, f->offset)) : NULL;
	case RF_TEXT: return f->text ? f->text(obj, buf, cap) : NULL;
	default: return NULL;
	}
}

bool rec_field_valid(const struct rec_field *f, const void *obj)
{
	switch (f->valid) {
	case RFV_ALWAYS: return true;
	case RFV_FLAG: return *(const bool *)at(obj, f->flag);
	case RFV_NONNEG:
		if (f->kind == RF_DOUBLE)
			return *(const double *)at(obj, f->offset) >= 0;
		return rec_field_int(f, obj) >= 0;
	case RFV_NONZERO:
		if (f->kind == RF_CHARS)
			return *(const char *)at(obj, f->offset) != '\0';
		if (f->kind == RF_DOUBLE)
			return *(const double *)at(obj, f->offset) != 0;
		return rec_field_int(f, obj) != 0;
	}
	return true;
}
