/* SVG charts of lab results: lines over (log) axes, or labelled bars. */
#ifndef CUDOCTOR_LAB_SVG_H
#define CUDOCTOR_LAB_SVG_H

#include "lab/lab.h"

/* A complete standalone SVG document (caller frees), or NULL when the plot has no
 * finite point to draw or memory runs out. */
char *lab_svg_render(const struct lab_plot *p);

#endif
