/* A command's report: findings, human-readable sections and the command's JSON keys.
 * Commands fill it; renderers (render.h) print it; nothing here prints. */
#ifndef CUDOCTOR_REPORT_H
#define CUDOCTOR_REPORT_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/field.h"

enum severity { SEV_OK = 0, SEV_INFO = 1, SEV_WARN = 2, SEV_ERROR = 3 };

const char *severity_name(enum severity s); /* "ok" "info" "warn" "error" */

/* {id, severity, subject, title, evidence[], why, fix[]}; ids are catalogued in docs/findings.md */
struct finding {
	char *id;
	enum severity severity;
	char *subject; /* what it is about: "GPU 0 (NVIDIA H200)", "/usr/lib/libfoo.so" */
	char *title;   /* one line */
	char **evidence;
	size_t n_evidence;
	char *why;     /* the programming-model reason, one to three sentences */
	char **fix;    /* commands or concrete steps */
	size_t n_fix;
};

/* ITEM_FIGURE: a chart (a: caption, b: a standalone SVG document) that only the HTML page draws */
enum report_item_kind { ITEM_SECTION, ITEM_KV, ITEM_LINE, ITEM_TABLE, ITEM_FIGURE };

struct report_item {
	enum report_item_kind kind;
	char *a;        /* section title, kv key, or line text */
	char *b;        /* kv value */
	size_t ncols;   /* table: columns */
	size_t nrows;   /* table: rows including the header row */
	char **cells;   /* table: row-major, nrows * ncols */
	bool command;   /* kv, line: the value (a line: the text) is a command to copy, printed
			 * whole, never wrapped; a code span in Markdown */
};

/* One record written from a field table (report_fields) whose table has metrics: its
 * values as the Prometheus renderer reads them, per field of the table. */
struct report_fact {
	const struct field_table *table;
	double *num;   /* the number (a bool 0 or 1); NaN when unknown or not a number */
	char **label;  /* fields with a prom_label: the value's text; NULL when unknown */
};

struct report {
	const char *command;
	json_t *data;              /* the command's own top-level JSON keys (an object) */
	struct finding *findings;
	size_t n_findings, cap_findings;
	struct report_item *items;
	size_t n_items, cap_items;
	bool oom;                  /* some add failed for lack of memory */
	bool internal;             /* a JSON value came back NULL where no memory ran out: a bug
				    * (every string is safe text, so none can be refused) */
	int exit_override;         /* -1: exit code from findings; else this code */
	bool self_rendered;        /* the command printed its own stdout (arch --cuobjdump): render nothing */
	char **answer;             /* the essential answer: what -q prints, alone (report_answer) */
	size_t n_answer;
	bool answer_only;          /* print only the answer even without -q (gencode --format nvcc) */
	bool findings_answered;    /* the findings are the answer lines (explain): not repeated on stderr */
	int format;                /* -1: the command line's format; else the enum output_format
				    * (render.h) the command's --format chose (doctor --format prometheus) */
	/* where the report comes from, for sharing it (docs/json.md "header"): version, os,
	 * kernel, glibc, cpu, date, hostname, node...; NULL: none (report_set_header) */
	json_t *header;
	struct report_fact *facts;  /* in the order written */
	size_t n_facts;
};

int report_init(struct report *r, const char *command);
void report_free(struct report *r);

/* A finding's title, why and fix are written by rules/catalogue.h's finding_make from the id's
 * row (report/finding_write.h); what a command saw is its evidence. A finding's pointer stays
 * valid until the next finding is added. */
int finding_evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool report_has_errors(const struct report *r);
bool report_has_finding(const struct report *r, const char *id);
const struct finding *report_find(const struct report *r, const char *id); /* first with id */

/* One line of the essential answer, the whole of stdout under -q (or answer_only):
 * gencode's flags, doctor's verdict, arch's verdict per file and GPU. The warn and error
 * findings then go to stderr a line each, so a script reads the answer or nothing. */
int report_answer(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For a command whose findings are its answer (explain): one answer line per finding of
 * at least min severity, errors first ("warn ecc-errors: TITLE [SUBJECT]"); they are then
 * not repeated on stderr. Call it after the command's last finding. */
int report_answer_findings(struct report *r, enum severity min);
/* A finding in one line, "SEVERITY ID: TITLE [SUBJECT]" (malloc'd; NULL when out of memory). */
char *finding_oneline(const struct finding *f);
/* The body as it is built: report_items_mark says where it stands; report_items_truncate
 * drops what was added after a mark (details a command decides not to show); report_items_move
 * puts the items from mark `from` on before those from mark `at` (a summary made last but
 * shown first). */
static inline size_t report_items_mark(const struct report *r) { return r->n_items; }
void report_items_truncate(struct report *r, size_t mark);
void report_items_move(struct report *r, size_t from, size_t at);
/* A chart for the HTML page (copied); text, Markdown and JSON leave it out. */
int report_figure(struct report *r, const char *caption, const char *svg);

/* The report's header object (steals it; NULL header: CD_ENOMEM). */
int report_set_header(struct report *r, json_t *header);

/* What --anonymize takes out of a report before it is shared. */
struct report_anon {
	const char *hostname; /* replaced wherever it stands as a word, and header.hostname/node */
	const char *home;     /* $HOME: replaced by /home/USER like every /home/NAME */
};
/* Replaces, in every string of the report (header, findings, sections, answers, JSON):
 * the host name and the node name by "anon-" and a stable hash of each, UUIDs (GPU-..., MIG-...)
 * by "anon-" and a stable hash, /home/NAME and the home directory by /home/USER, a Windows
 * user's folder (\Users\NAME, /Users/NAME) by \Users\USER or /Users/USER, and the
 * value of every JSON key that holds a serial number by "anon". CD_OK or CD_ENOMEM. */
int report_anonymize(struct report *r, const struct report_anon *a);

/* ---- Text from inputs ----
 *
 * Every string the report stores (findings, sections, lines, cells, answers) and every
 * string of its JSON is safe text (util/safetext.h, newlines and tabs kept): valid UTF-8,
 * control bytes and bidirectional overrides shown as \xNN / \uNNNN. The report makes it so
 * where it takes a string, so no caller can forget and the JSON library never refuses one.
 * Object keys are the callers' own names and are left as they are. */

/* s itself when it is safe text, else a safe copy (s freed); NULL: s was NULL or memory
 * ran out. */
char *report_text_take(char *s);
/* s (n bytes) as a JSON string of safe text; NULL s: JSON null. NULL only when out of
 * memory. */
json_t *report_json_text(const char *s);
json_t *report_json_textn(const char *s, size_t n);
/* Every string value in j, however deep, made safe text in place (a tree built by hand, or
 * read from a report). CD_OK or CD_ENOMEM. */
int report_json_make_safe(json_t *j);

/* Sets one of the command's top-level keys (steals value; its strings made safe text). A
 * NULL value is a value the JSON library would not make: kept in r->internal as a bug, and
 * CD_EINTERNAL. */
int report_json_set(struct report *r, const char *key, json_t *value);

/* ---- Describing a thing once: records ----
 *
 * A record is one thing a command reports (a GPU, a toolkit, the command's own top-level
 * keys, one row of a table). Each field is written once, with its text label and its JSON
 * key side by side; the record sends the label to the text body and the key to JSON:
 *
 *     struct report_rec top, gpus, g;
 *
 *     report_rec_top(&top, r);                      // r->data's keys; text as key/values
 *     report_field(&top, NULL, "topic", rv_str("gpu"));           // JSON only
 *     report_rec_array(&top, "gpus", &gpus);        // "gpus": [ ... ]
 *     report_rec_item(&gpus, &g);                   // one object of that array
 *     report_rec_section(&g, "%s", name);           // text only
 *     report_fieldf(&g, "compute capability", "compute_capability", rv_str("9.0"),
 *                   "9.0 (sm_90), %s", "Hopper");   // text "9.0 (sm_90), Hopper", JSON "9.0"
 *     report_field(&g, "segment", "segment", rv_str("datacenter"));
 *     TRY(report_rec_end(&g));
 *     TRY(report_rec_end(&gpus));
 *     TRY(report_rec_end(&top));
 *
 * A field with label NULL is JSON only; with key NULL it is text only. Text goes where the
 * record's mode says: REPORT_TEXT_KV, one aligned "label  value" line per field (report_kv);
 * REPORT_TEXT_ROW, the cell under the column whose header equals the label (a record made
 * by report_rec_item on a table); REPORT_TEXT_NONE, nowhere (a JSON-only view, switched
 * with report_rec_text). Children inherit the mode; items of a table are rows; an object
 * opened in a row (report_rec_object) fills that row's cells with its labelled fields.
 *
 * Errors are sticky, as in struct strbuf: the first failure (CD_ENOMEM; CD_EUSAGE for a row
 * label that is no column header, or a JSON value with no text form) is kept, later writes
 * to the record are ignored, and report_rec_end returns it and hands it to the parent.
 * Every record must be ended, children before parents; the end is what must be checked.
 * An out-of-memory also sets r->oom, like every report_* call. */

enum report_text { REPORT_TEXT_KV, REPORT_TEXT_ROW, REPORT_TEXT_NONE };

enum report_value_kind { RV_NULL, RV_STRING, RV_INT, RV_BOOL, RV_REAL, RV_JSON, RV_BYTES, RV_LIST };

/* A field's JSON value; its text form, when the field has no format, is the string itself,
 * the integer in decimal, "yes"/"no", %g, "none" for null, a JSON array of strings or a list
 * joined with ", ", and a size as units_fmt_bytes writes it ("1.5 GiB"; JSON: the bytes). */
struct report_value {
	enum report_value_kind kind;
	const char *s;
	long long i;
	double d;
	bool b;
	json_t *j;
	const char *seps; /* RV_LIST */
};

static inline struct report_value rv_null(void)
{
	return (struct report_value){ .kind = RV_NULL };
}
static inline struct report_value rv_str(const char *s) /* NULL: null */
{
	return (struct report_value){ .kind = s ? RV_STRING : RV_NULL, .s = s };
}
static inline struct report_value rv_int(long long i)
{
	return (struct report_value){ .kind = RV_INT, .i = i };
}
static inline struct report_value rv_bool(bool b)
{
	return (struct report_value){ .kind = RV_BOOL, .b = b };
}
static inline struct report_value rv_real(double d)
{
	return (struct report_value){ .kind = RV_REAL, .d = d };
}
static inline struct report_value rv_bytes(unsigned long long bytes)
{
	return (struct report_value){ .kind = RV_BYTES, .i = (long long)bytes };
}
/* Items of s separated by any of seps, blanks around them dropped (field_list_next): JSON an
 * array of strings, [] for none. */
static inline struct report_value rv_list(const char *s, const char *seps)
{
	return (struct report_value){ .kind = RV_LIST, .s = s ? s : "", .seps = seps };
}
/* Steals j (an array or object built by the caller; its strings are made safe text). NULL,
 * a value the JSON library would not make, is the record's CD_EINTERNAL. */
static inline struct report_value rv_json(json_t *j)
{
	return (struct report_value){ .kind = RV_JSON, .j = j };
}

/* A copy of j, a value read from an input (a report compared); NULL: null. */
static inline struct report_value rv_json_copy(const json_t *j)
{
	return rv_json(j ? json_deep_copy(j) : json_null());
}

struct report_rec {
	struct report *r;
	struct report_rec *parent;  /* errors go up to it at the end; NULL for the top */
	json_t *json;               /* the object or array filled (borrowed); NULL: no JSON */
	enum report_text text;
	bool table;                 /* an array whose items are the rows of a text table */
	size_t table_item;          /* that table's index in r->items */
	char **cells;               /* a row's cells until its end */
	bool commands;              /* KV fields are commands to copy (report_kv_command) */
	bool row_borrowed;          /* cells are the enclosing row's (an object nested in a row) */
	size_t next_col;            /* where a row's next label is looked for first */
	int rc;                     /* first error */
};

/* The command's top-level JSON keys (r->data), text as key/values. */
void report_rec_top(struct report_rec *top, struct report *r);
/* A JSON-only record over obj (borrowed), outside any report: one description of a thing
 * serves a caller that wants its JSON alone. */
void report_rec_json(struct report_rec *w, json_t *obj);
/* A JSON object under parent's key (parent an object; items of arrays: report_rec_item). */
void report_rec_object(struct report_rec *parent, const char *key, struct report_rec *child);
/* A JSON array under parent's key; its items come from report_rec_item. */
void report_rec_array(struct report_rec *parent, const char *key, struct report_rec *list);
/* A text table with these headers whose rows are also the objects of a JSON array under
 * parent's key (key NULL: text only). */
void report_rec_table(struct report_rec *parent, const char *key, size_t ncols,
		      const char *const headers[], struct report_rec *table);
/* From here on, w's key/value fields and free lines are commands to copy (on) or plain
 * text (off). */
void report_rec_commands(struct report_rec *w, bool on);
/* One object of list (a record of report_rec_array or report_rec_table). */
void report_rec_item(struct report_rec *list, struct report_rec *item);
void report_rec_text(struct report_rec *w, enum report_text mode);
/* One object of list's JSON array that is no row of its text table (a table that shows its
 * first rows and lists every one in JSON); its labelled fields go nowhere. */
void report_rec_item_json(struct report_rec *list, struct report_rec *item);
/* One plain value appended to list's JSON array (strings, numbers: "evidence": [...]); JSON
 * only, the text says it its own way. A list that is an object is CD_EUSAGE. */
void report_rec_push(struct report_rec *list, struct report_value v);

/* A child of parent for text only: no JSON, parent's text mode (a summary shown apart
 * from the records that carry the JSON). */
void report_rec_text_only(struct report_rec *parent, struct report_rec *child);

/* Text only: a section title or a free line (KV mode; ignored in the other modes). */
void report_rec_section(struct report_rec *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report_rec_line(struct report_rec *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One field: label (text, NULL: none), key (JSON, NULL: none), value; the text is the
 * value's own form (report_field) or the format (report_fieldf). */
void report_field(struct report_rec *w, const char *label, const char *key, struct report_value v);
void report_fieldf(struct report_rec *w, const char *label, const char *key, struct report_value v,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void report_vfieldf(struct report_rec *w, const char *label, const char *key, struct report_value v,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));


/* A failure of the writer's own (an allocation beside the record) kept as w's error. */
void report_rec_fail(struct report_rec *w, int rc);

/* ---- Writing a struct from its field table (util/field.h) ----
 *
 * A fact struct in src/facts/ has a table of its fields beside it; one call writes the
 * struct into a record:
 *
 *     report_rec_item(&gpus, &g);
 *     report_fields(&g, &gpu_table, &probe->gpus[i], FIELD_FULL);
 *     TRY(report_rec_end(&g));
 *
 * Every field with a key goes into w's JSON (null when unknown); every field with a label
 * whose views include view goes into w's text, as a key/value line (left out when unknown
 * unless the field has an unknown text, and a FIELD_QUIET one when empty) or as the cell
 * under the column named by its label (a row; "-" when unknown). A table of such rows takes
 * its headers from report_fields_headers. When the table has metrics (a field's metric or
 * prom_label, or an info metric) and w has JSON, the values are also kept in r->facts for
 * the Prometheus renderer, so a metric says what --json says. */
void report_fields(struct report_rec *w, const struct field_table *t, const void *obj, unsigned view);
/* obj's values kept in r->facts for the Prometheus renderer, as report_fields keeps them, for
 * a record that wrote t's fields one by one (report_one_field*) in its own text formats. */
void report_fields_keep(struct report_rec *w, const struct field_table *t, const void *obj);
/* The labels of t's fields shown in view, in table order, into headers[0 .. max): the
 * columns of a text table whose rows are records of t. Returns how many. */
size_t report_fields_headers(const struct field_table *t, unsigned view, const char **headers, size_t max);
/* obj's keyed fields as one JSON object, for a command that builds its JSON by hand; NULL
 * when out of memory. */
json_t *report_fields_json(const struct field_table *t, const void *obj);

/* One field of t (t->fields[i]) of obj, whatever the view: its key and label as report_fields
 * writes them (report_one_field), its JSON alone where the text shows it elsewhere or not at
 * all (report_one_json), under another label and key, NULL for none (report_one_field_as: a
 * table whose rows are the fields of one object puts the field's label in one cell and its
 * value in another), or with the caller's sentence around the value as its text when known
 * (report_one_fieldf; unknown, it is what report_one_field writes). */
void report_one_field(struct report_rec *w, const struct field_table *t, size_t i, const void *obj);
void report_one_json(struct report_rec *w, const struct field_table *t, size_t i, const void *obj);
void report_one_field_as(struct report_rec *w, const char *label, const char *key, const struct field_table *t,
			 size_t i, const void *obj);
void report_one_fieldf(struct report_rec *w, const struct field_table *t, size_t i, const void *obj,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Ends w (a row is added to its table here); returns w's first error, else CD_OK. */
int report_rec_end(struct report_rec *w) __attribute__((warn_unused_result));

#endif
