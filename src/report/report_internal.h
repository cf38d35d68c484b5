/* Between report.c and record.c: adding a row to a table that is not the latest item. */
#ifndef CUDOCTOR_REPORT_INTERNAL_H
#define CUDOCTOR_REPORT_INTERNAL_H

#include "report/report.h"

/* item: the index in r->items of an ITEM_TABLE; cells: its ncols strings (NULL: ""). */
int report_table_row_at(struct report *r, size_t item, const char *const cells[]);
/* The same taking the strings (allocated; NULL: ""): each is the table's or freed, even on
 * failure; every entry of cells is NULL afterwards. */
int report_table_row_take_at(struct report *r, size_t item, char **cells);

#endif
