/* Field tables: a struct's fields described once, in a const table beside the struct: each
 * field's JSON key, text label, how it is stored, its unit and when it is valid. Data only;
 * report_struct_fields (report/report.h) writes a record's fields from a table. */
#ifndef CUDOCTOR_UTIL_REC_FIELD_H
#define CUDOCTOR_UTIL_REC_FIELD_H

#include <stdbool.h>
#include <stddef.h>

enum rec_field_kind {
	RF_INT,    /* int */
	RF_UINT,   /* unsigned */
	RF_U64,    /* uint64_t */
	RF_I64,    /* int64_t or long long */
	RF_BOOL,   /* bool */
	RF_DOUBLE, /* double */
	RF_CHARS,  /* char[]: a string inside the struct */
	RF_NAMED,  /* an int that .name turns into a word ("up", "PIX", "OK") */
	RF_TEXT,   /* a string .text makes from the whole struct; NULL when it has none */
};

/* How the text shows a value; JSON always carries the plain value. */
enum rec_field_unit {
	RU_NONE,  /* a number in decimal, the string, yes/no for a bool */
	RU_BYTES, /* units_fmt_bytes ("80 GiB"); a negative size with a minus */
	RU_YESNO, /* an int that is a flag: yes/no */
};

enum rec_field_valid {
	RFV_ALWAYS,
	RFV_FLAG,    /* the bool at .flag says */
	RFV_NONNEG,  /* the value is >= 0 (a negative one means unknown) */
	RFV_NONZERO, /* the value is not 0; a string is not empty */
};

enum rec_field_absent {
	RFA_NULL,  /* JSON null, text .unknown */
	RFA_QUIET, /* JSON null, no text */
	RFA_OMIT,  /* left out of JSON and text */
};

struct rec_field {
	const char *key;     /* JSON key; NULL: text only */
	const char *label;   /* text label (a key/value line, or a table's column); NULL: JSON only */
	enum rec_field_kind kind;
	enum rec_field_unit unit;
	size_t offset;       /* of the value in the struct */
	enum rec_field_valid valid;
	size_t flag;         /* RFV_FLAG: offset of the bool */
	enum rec_field_absent absent; /* what a value that is not valid becomes */
	const char *unknown; /* RFA_NULL: its text; NULL: "?" */
	const char *(*name)(int value);                              /* RF_NAMED */
	const char *(*text)(const void *obj, char *buf, size_t cap); /* RF_TEXT */
};

/* Whether f of obj is valid (its flag, sign or zero, as the entry says). */
bool rec_field_valid(const struct rec_field *f, const void *obj);
/* The value of a numeric or bool field as a long long (a uint64_t above LLONG_MAX wraps). */
long long rec_field_int(const struct rec_field *f, const void *obj);
/* The value of an RF_CHARS, RF_NAMED or RF_TEXT field (buf: RF_TEXT's room); NULL: none. */
const char *rec_field_str(const struct rec_field *f, const void *obj, char *buf, size_t cap);

#endif
