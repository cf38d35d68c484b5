/* A struct's fields described as data, once, beside the struct (curl's tool_writeout idea
 * over nvtop's validity bits): each field's JSON key, text label, kind, unit, validity bit,
 * the views whose text shows it and its Prometheus metric. report_fields (report/report.h)
 * writes a struct through its table, so one fact has one key, one label and one metric in
 * every command; field_value_of and field_text read a single field for anyone else.
 *
 *     static const struct field gpu_info_fields[] = {
 *         { .key = "memory_total_bytes", .label = "memory", .kind = FK_LLONG, .unit = FU_BYTES,
 *           .off = offsetof(struct gpu_info, memory_total_bytes), .valid = GF_MEMORY_TOTAL,
 *           .views = FIELD_BRIEF | FIELD_FULL, .metric = &memory_metric },
 *         ...
 *     };
 *     const struct field_table gpu_field_table = { "gpus[]", gpu_info_fields, 2, offsetof(struct gpu_info, valid) };
 *
 * A field is known when its validity bit is set (valid >= 0), the bool at .flag is true for a
 * FIELD_IF_FLAG field, and its kind's own test passes: a string is not "" (unless
 * FIELD_EMPTY_KNOWN), a pointer not NULL, a named number has a name, a FIELD_NEG_UNKNOWN
 * number is not negative, a FIELD_ZERO_UNKNOWN value not 0. What an unknown field becomes:
 * JSON null and the .unknown text (no text line without one), or nothing at all (FIELD_OMIT). */
#ifndef CUDOCTOR_UTIL_FIELD_H
#define CUDOCTOR_UTIL_FIELD_H

#include <stdbool.h>
#include <stddef.h>

enum field_kind {
	FK_LLONG,   /* long long */
	FK_ULLONG,  /* unsigned long long (JSON: as a signed integer) */
	FK_INT,     /* int */
	FK_UINT,    /* unsigned */
	FK_BOOL,    /* bool */
	FK_CHARS,   /* char[]: a string held in the struct */
	FK_CSTR,    /* const char *: a string pointed to */
	FK_DIMS,    /* long long[3]: JSON [x, y, z], text "(x, y, z)" */
	FK_WORDS,   /* char[]: items separated by blanks; JSON an array of strings, known even empty */
	FK_ITEMS,   /* char[]: items separated by ';' (blanks around them dropped); as FK_WORDS */
	FK_CALC,    /* computed from the whole struct by the field's get() */
	FK_DOUBLE,  /* double: JSON a real, text "%g" */
	FK_NAMED,   /* int that .name turns into a word ("up", "PIX"); unknown when it has none */
	FK_TEXT,    /* a string .string makes from the whole struct; unknown when NULL ("" is a value) */
};

enum field_unit {
	FU_NONE,
	FU_BYTES,   /* text "141 GiB" */
	FU_KHZ,     /* text in MHz */
	FU_MHZ,     /* text "1980 MHz" */
	FU_MW,      /* text in watts, "75.5 W" */
	FU_CELSIUS, /* text "61 C" */
	FU_BITS,    /* text "5120 bits" */
	FU_YESNO,   /* a number that is a flag: text yes/no, JSON the number */
};

/* Views: which text shows a field. A command writes a struct in one view. */
#define FIELD_BRIEF 0x1u /* the short listing: doctor's driver section and GPU table */
#define FIELD_FULL 0x2u  /* every fact: devices */
#define FIELD_ALL (FIELD_BRIEF | FIELD_FULL) /* a field every view shows */
#define FIELD_HEALTH 0x4u /* a GPU's health: check's GPU lines (with FIELD_FULL where devices shows it too) */

/* flags */
#define FIELD_NEG_UNKNOWN 0x1u /* a negative number is unknown (an ordinal or an id of -1) */
#define FIELD_QUIET 0x2u       /* no text line for false, 0, "" or an empty list (JSON as usual) */
#define FIELD_ON_OFF 0x4u      /* a bool's text is "on"/"off", not "yes"/"no" */
#define FIELD_PROM_ID 0x8u     /* prom_label goes on every metric of the record, not only its info metric */
#define FIELD_OMIT 0x10u       /* unknown: left out of JSON and text */
#define FIELD_ZERO_UNKNOWN 0x20u /* 0, false or "" is unknown */
#define FIELD_EMPTY_KNOWN 0x40u  /* an FK_CHARS or FK_CSTR "" is a value (JSON ""), not unknown */
#define FIELD_IF_FLAG 0x80u    /* known only while the bool at .flag is true */

#define FIELD_ALWAYS (-1) /* valid: the field has no validity bit */

/* A value as read from a struct: what the JSON and the text are made from. */
enum field_vkind { FV_NULL, FV_INT, FV_BOOL, FV_STR, FV_LIST, FV_REAL };

struct field_value {
	enum field_vkind kind;
	long long i;
	double d;         /* FV_REAL */
	bool b;
	const char *s;    /* FV_STR; FV_LIST: the items, separated by any of seps */
	const char *seps; /* FV_LIST */
	char buf[8192];   /* a computed value's own storage (s may point here) */
};

/* A metric of a field's value (render_prometheus.c). Fields that share name are one family,
 * written together; the first of them carries type and help. */
struct field_metric {
	const char *name;  /* "cudoctor_gpu_power_draw_watts" */
	const char *type;  /* "gauge", "counter" */
	const char *help;
	double scale;      /* the value times scale is the metric (1e-3: mW to W); 0 means 1 */
	const char *label, *label_value; /* one more label, for a family split by kind */
};

struct field {
	const char *key;   /* JSON key; NULL: not in JSON */
	const char *label; /* text label; NULL: not in the text */
	enum field_kind kind;
	enum field_unit unit;
	size_t off;        /* where the value is in the struct */
	int valid;         /* validity bit in the table's bit array, or FIELD_ALWAYS */
	size_t flag;       /* FIELD_IF_FLAG: where the bool that says the value is known is */
	unsigned views;    /* FIELD_BRIEF, FIELD_FULL: the views whose text shows the field */
	unsigned flags;
	/* FK_CALC: fills v from the struct; false when unknown */
	bool (*get)(const void *obj, struct field_value *v);
	/* a text of the field's own (when known): "580.159.04 (from NVML)"; else the value's */
	void (*text)(const void *obj, char *buf, size_t len);
	const char *(*name)(int value);                                 /* FK_NAMED */
	const char *(*string)(const void *obj, char *buf, size_t cap); /* FK_TEXT */
	const char *unknown; /* text when unknown; NULL: no key/value line, a table cell "-" */
	const struct field_metric *metric;
	const char *prom_label; /* the value as this Prometheus label (an info metric's, or FIELD_PROM_ID) */
};

struct field_table {
	const char *name;           /* the object's path in docs/json.md: "driver", "gpus[]" */
	const struct field *fields;
	size_t n;
	ptrdiff_t valid_off;        /* offset of the struct's unsigned long long valid[]; -1: no bits */
	/* a metric of value 1 per record whose labels are the prom_label fields; NULL: none */
	const char *info_metric, *info_help;
};

/* Field f of obj into v; false (v->kind FV_NULL) when unknown. */
bool field_value_of(const struct field_table *t, const struct field *f, const void *obj, struct field_value *v);

/* The text of field f of obj: its text hook, else the value's own form in its unit ("yes",
 * "141 GiB", "-512 MiB", a list joined with ", "); f->unknown when unknown; NULL when unknown
 * without one. Writes at most len bytes into buf and returns buf or f->unknown. */
const char *field_text(const struct field_table *t, const struct field *f, const void *obj, char *buf, size_t len);

/* The next item of a FV_LIST at *p (blanks around it dropped): its start and length, *p
 * moved past it; false at the end. */
bool field_list_next(const char **p, const char *seps, const char **item, size_t *n);

/* A value that a FIELD_QUIET field leaves out of the text: false, 0, "" or an empty list. */
bool field_value_empty(const struct field_value *v);

/* The field whose JSON key is key, or NULL. */
const struct field *field_find(const struct field_table *t, const char *key);

#endif
