/* Link rates from kb/links.tsv: NVLink per generation (by compute capability), the NVLinks
 * each SXM model has, and PCIe throughput per lane; loaded once on first use. */
#ifndef CUDOCTOR_KB_LINKS_H
#define CUDOCTOR_KB_LINKS_H

#include <stdbool.h>
#include <stddef.h>

enum kb_link_kind { KB_LINK_NVLINK, KB_LINK_MODEL, KB_LINK_PCIE };

struct kb_link {
	enum kb_link_kind kind;
	const char *key;             /* "9.0", "NVIDIA H200", "5" */
	int generation;              /* NVLink or PCIe generation */
	double gbs;                  /* GB/s per direction: per NVLink, or per PCIe lane */
	int links;                   /* NVLinks of the chip or model; 0 for PCIe rows */
	bool uncertain;
	const char *notes, *source;
};

/* Parses the embedded links.tsv once. CD_OK, or CD_EFORMAT / CD_ENOMEM with "links.tsv:line: why". */
int kb_links_load(char *err);
size_t kb_link_count(void);
const struct kb_link *kb_link_at(size_t i);
/* The NVLink generation of a GPU of this compute capability; NULL when unknown. */
const struct kb_link *kb_nvlink_for_cc(int major, int minor);
/* The SXM model row by exact driver name (how many NVLinks it has); NULL for other GPUs. */
const struct kb_link *kb_nvlink_model(const char *name);
/* The PCIe row of a generation; NULL when unknown. */
const struct kb_link *kb_pcie_gen(int gen);

#endif
