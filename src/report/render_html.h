/* The report as one self-contained HTML page: header, findings, every section with its
 * key/values, tables and charts. */
#ifndef CUDOCTOR_RENDER_HTML_H
#define CUDOCTOR_RENDER_HTML_H

#include <stdio.h>

#include "report/report.h"

int render_html(const struct report *r, FILE *out);
/* Writes the page to path: CD_OK, or CD_EIO with "--html PATH: reason" in err. */
int render_html_file(const struct report *r, const char *path, char *err);

#endif
