/* A command's report: findings, human-readable sections and the command's JSON keys.
 * Commands fill it; renderers (render.h) print it; nothing here prints. */
#ifndef CUDOCTOR_REPORT_H
#define CUDOCTOR_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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
};

struct report {
	const char *command;
	json_t *data;              /* the command's own top-level JSON keys (an object) */
	struct finding *findings;
	size_t n_findings, cap_findings;
	struct report_item *items;
	size_t n_items, cap_items;
	bool oom;                  /* some add failed for lack of memory */
	int exit_override;         /* -1: exit code from findings; else this code */
	bool self_rendered;        /* the command printed its own stdout (arch --cuobjdump): render nothing */
};

int report_init(struct report *r, const char *command);
void report_free(struct report *r);

/* Returns the new finding (owned by r) or NULL on OOM. Its pointer stays valid
 * until the next report_add_finding. */
struct finding *report_add_finding(struct report *r, enum severity sev, const char *id,
				   const char *subject, const char *title_fmt, ...)
	__attribute__((format(printf, 5, 6)));
int finding_evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int finding_why(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int finding_fix(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool report_has_errors(const struct report *r);
bool report_has_finding(const struct report *r, const char *id);
const struct finding *report_find(const struct report *r, const char *id); /* first with id */

/* Human-readable body, rendered as text or Markdown (JSON uses r->data instead). */
int report_section(struct report *r, const char *title_fmt, ...) __attribute__((format(printf, 2, 3)));
int report_kv(struct report *r, const char *key, const char *value_fmt, ...)
	__attribute__((format(printf, 3, 4)));
int report_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts a table; rows go to the most recent table. */
int report_table(struct report *r, size_t ncols, const char *const headers[]);
int report_table_row(struct report *r, const char *const cells[]);
/* A chart for the HTML page (copied); text, Markdown and JSON leave it out. */
int report_figure(struct report *r, const char *caption, const char *svg);

/* JSON helpers that record OOM in r instead of failing silently. */
int report_json_set(struct report *r, const char *key, json_t *value); /* steals value */

#endif
