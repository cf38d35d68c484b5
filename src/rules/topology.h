/* Rules from topology facts (probe/topology.h) to findings, and the theoretical bandwidth
 * of each link from kb/links.tsv: pure functions, shared by topo, doctor and lab p2p. */
#ifndef CUDOCTOR_RULES_TOPOLOGY_H
#define CUDOCTOR_RULES_TOPOLOGY_H

#include <stdbool.h>

#include "facts/gpu.h"
#include "facts/topology.h"
#include "report/report.h"

struct topo_theory {
	bool known;
	bool nvlink;                 /* else PCIe */
	int generation;              /* NVLink or PCIe generation */
	int lanes;                   /* NVLinks, or PCIe lanes */
	double gbs;                  /* GB/s per direction (1 GB = 1e9 bytes) */
	bool uncertain;
	char text[128];              /* "NVLink 4: 18 links x 25 GB/s = 450 GB/s per direction" */
	const char *source;          /* kb source keys */
};

/* What the link between a and b should carry per direction: NVLink when they share
 * active NVLinks, else the slower of the two GPUs' PCIe links (their maximum). */
void topo_pair_theory(const struct topo_probe *t, const struct topo_pair *p, struct topo_theory *out);
/* One GPU's PCIe link at its maximum generation and width. */
void topo_pcie_theory(const struct gpu_info *g, struct topo_theory *out);

/* "NV18", or the PCIe level name ("PXB"), "X" for a == b, "?" when unknown:
 * the cell nvidia-smi topo -m prints. */
void topo_cell(const struct topo_probe *t, size_t a, size_t b, char *buf, size_t len);

/* p2p-unsupported, nvlink-down, numa-affinity. */
int topo_rules(struct report *r, const struct topo_probe *t);

/* "GPU1 (NVIDIA H200)" */
void topo_gpu_label(const struct topo_probe *t, size_t i, char *buf, size_t len);

#endif
