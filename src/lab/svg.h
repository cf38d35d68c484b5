/* SVG charts of lab results: lines over (log) axes, or labelled bars. */
#ifndef CUDOCTOR_LAB_SVG_H
#define CUDOCTOR_LAB_SVG_H

#include "lab/lab.h"

/* A complete standalone SVG document (caller frees), or NULL when the plot has no
 * finite point to draw or memory runs out. */
char *lab_svg_render(const struct lab_plot *p);
/* The heat map a plot with heatmap set renders as (lab_svg_render calls it): one cell
 * per (row, column) shaded by its value and labelled with it; the diagonal and cells
 * without a finite positive value are grey. NULL when series[0] is not a square matrix
 * or memory runs out. */
char *lab_svg_heatmap(const struct lab_plot *p);

#endif
