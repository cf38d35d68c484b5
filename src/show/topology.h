/* The topology as a report: nvidia-smi's matrix, the pairs with their theory and P2P
 * answers, per-GPU placement (text/Markdown), and the "topology" JSON object. */
#ifndef CUDOCTOR_SHOW_TOPOLOGY_H
#define CUDOCTOR_SHOW_TOPOLOGY_H

#include "facts/topology.h"
#include "report/report.h"

/* Sections for `cudoctor topo` and the "topology" JSON key. */
int topo_report_full(struct report *r, const struct topo_probe *t);
/* For doctor: with two or more GPUs, one section with a line per pair (link, theory,
 * P2P); nothing with fewer. */
int topo_report_summary(struct report *r, const struct topo_probe *t);
/* For topo -q: a line per pair of GPUs (link, theory, P2P), or "1 GPU: no links to judge". */
int topo_report_answer(struct report *r, const struct topo_probe *t);

#endif
