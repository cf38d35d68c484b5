/* Renderer entry points shared between the render files. */
#ifndef CUDOCTOR_RENDER_INTERNAL_H
#define CUDOCTOR_RENDER_INTERNAL_H

#include <stdio.h>

#include "report/render.h"

int render_text(const struct report *r, const struct render_opts *o, FILE *out);
int render_markdown(const struct report *r, const struct render_opts *o, FILE *out);
int render_prometheus(const struct report *r, const struct render_opts *o, FILE *out);

#endif
