/* Between report.c and record.c: the body's items as the records write them (sections, lines,
 * key/values, tables), private to src/report/ so that every command writes through records
 * (report.h's report_rec_* and field tables: text and JSON from one description). */
#ifndef CUDOCTOR_REPORT_INTERNAL_H
#define CUDOCTOR_REPORT_INTERNAL_H

#include "report/report.h"

/* The text body, rendered as text or Markdown (JSON is r->data, which the records fill beside). */
int report_section(struct report *r, const char *title_fmt, ...) __attribute__((format(printf, 2, 3)));
int report_kv(struct report *r, const char *key, const char *value_fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A key/value whose value is a command to copy (pip install ..., nvcc flags): the text
 * renderer prints it whole on its line, never wrapped. */
int report_kv_command(struct report *r, const char *key, const char *value_fmt, ...)
	__attribute__((format(printf, 3, 4)));
int report_line(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts a table; rows go to the most recent table. */
int report_table(struct report *r, size_t ncols, const char *const headers[]);
int report_table_row(struct report *r, const char *const cells[]);


/* item: the index in r->items of an ITEM_TABLE; cells: its ncols strings (NULL: ""). */
int report_table_row_at(struct report *r, size_t item, const char *const cells[]);
/* The same taking the strings (allocated; NULL: ""): each is the table's or freed, even on
 * failure; every entry of cells is NULL afterwards. */
int report_table_row_take_at(struct report *r, size_t item, char **cells);

#endif
