/* Renderer entry points shared between the render files. */
#ifndef CUDOCTOR_RENDER_INTERNAL_H
#define CUDOCTOR_RENDER_INTERNAL_H

#include <stdio.h>

#include "report/render.h"

/* Where a report comes from (its "header" object: docs/json.md): the keys in the order the
 * Markdown and HTML renderers show them, and their labels. */
#define REPORT_HEADER_FIELDS 8
extern const char *const report_header_keys[REPORT_HEADER_FIELDS];
extern const char *const report_header_labels[REPORT_HEADER_FIELDS];

int render_text(const struct report *r, const struct render_opts *o, FILE *out);
int render_markdown(const struct report *r, const struct render_opts *o, FILE *out);
int render_prometheus(const struct report *r, const struct render_opts *o, FILE *out);

#endif
