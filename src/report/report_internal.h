/* Between report.c and record.c: adding a row to a table that is not the latest item. */
#ifndef CUDOCTOR_REPORT_INTERNAL_H
#define CUDOCTOR_REPORT_INTERNAL_H

#include "report/report.h"

/* item: the index in r->items of an ITEM_TABLE; cells: its ncols strings (NULL: ""). */
int report_table_row_at(struct report *r, size_t item, const char *const cells[]);

#endif
