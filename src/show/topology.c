/* Rendering of the topology facts and their theory (show/topology.h); judging is in
 * src/rules/topology.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show/topology.h"
#include "rules/topology.h"
#include "util/err.h"

/* The theory of a link: an object under key whose text is the cell labelled label, or null
 * and "unknown". */
static void theory_fields(struct report_rec *w, const char *key, const char *label, const struct topo_theory *th)
{
	struct report_rec o;

	if (!th->known) {
		report_fieldf(w, label, key, rv_null(), "unknown");
		return;
	}
	report_rec_object(w, key, &o);
	report_field(&o, NULL, "kind", rv_str(th->nvlink ? "nvlink" : "pcie"));
	report_field(&o, NULL, "generation", rv_int(th->generation));
	report_field(&o, NULL, "lanes", rv_int(th->lanes));
	report_field(&o, NULL, "gbs_per_direction", rv_real(th->gbs));
	report_field(&o, NULL, "uncertain", rv_bool(th->uncertain));
	report_field(&o, label, "text", rv_str(th->text));
	report_field(&o, NULL, "source", rv_str(th->source ? th->source : ""));
	if (report_rec_end(&o) != CD_OK)
		return; /* the failure is w's now */
}

static void nic_cell(const struct topo_probe *t, const struct topo_nic *n, size_t gpu, char *buf, size_t len)
{
	const struct topo_gpu *g = &t->gpus[gpu];
	bool same = g->has_numa_node && n->has_numa_node && g->numa_node == n->numa_node;
	int level = topo_sysfs_level(g->pci_path, n->pci_path, same);

	snprintf(buf, len, "%s", level < 0 ? "?" : topo_level_name(level));
}

/* nvidia-smi topo -m: GPUs and NICs against GPUs and NICs, then CPU and NUMA affinity; a
 * text table (the JSON has each GPU's and NIC's relations in their objects). */
static void put_matrix(struct report_rec *w, const struct topo_probe *t)
{
	size_t n = t->n_gpus + t->n_nics, ncols = n + 3;
	const char **head = calloc(ncols, sizeof(*head));
	char (*names)[32] = calloc(n + 1, sizeof(*names));
	struct report_rec tab, row;
	char cell[64];

	if (!head || !names) {
		report_rec_fail(w, CD_ENOMEM);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (i < t->n_gpus)
			snprintf(names[i], sizeof names[i], "GPU%zu", i);
		else
			snprintf(names[i], sizeof names[i], "NIC%zu", i - t->n_gpus);
		head[i + 1] = names[i];
	}
	head[0] = "";
	head[n + 1] = "CPU Affinity";
	head[n + 2] = "NUMA Affinity";
	report_rec_table(w, NULL, ncols, head, &tab);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&tab, &row);
		report_field(&row, "", NULL, rv_str(names[i]));
		for (size_t j = 0; j < n; j++) {
			if (i < t->n_gpus && j < t->n_gpus)
				topo_cell(t, i, j, cell, sizeof cell);
			else if (i < t->n_gpus)
				nic_cell(t, &t->nics[j - t->n_gpus], i, cell, sizeof cell);
			else if (j < t->n_gpus)
				nic_cell(t, &t->nics[i - t->n_gpus], j, cell, sizeof cell);
			else if (i == j)
				snprintf(cell, sizeof cell, "X");
			else {
				const struct topo_nic *x = &t->nics[i - t->n_gpus], *y = &t->nics[j - t->n_gpus];
				bool same = x->has_numa_node && y->has_numa_node && x->numa_node == y->numa_node;
				int level = topo_sysfs_level(x->pci_path, y->pci_path, same);
				snprintf(cell, sizeof cell, "%s", level < 0 ? "?" : topo_level_name(level));
			}
			report_field(&row, names[j], NULL, rv_str(cell));
		}
		if (i < t->n_gpus) {
			const struct topo_gpu *g = &t->gpus[i];
			if (g->has_cpu_affinity)
				topo_cpuset_format(&g->cpu_affinity, cell, sizeof cell);
			else if (g->has_local_cpus)
				topo_cpuset_format(&g->local_cpus, cell, sizeof cell);
			else
				snprintf(cell, sizeof cell, "N/A");
			report_field(&row, "CPU Affinity", NULL, rv_str(cell));
			if (g->has_numa_node)
				report_field(&row, "NUMA Affinity", NULL, rv_int(g->numa_node));
			else
				report_field(&row, "NUMA Affinity", NULL, rv_str("N/A"));
		} else { /* a NIC's affinity is not shown */
			report_field(&row, "CPU Affinity", NULL, rv_str(""));
			report_field(&row, "NUMA Affinity", NULL, rv_str(""));
		}
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		goto out; /* the failure is w's now */
out:
	free(head);
	free(names);
}

/* Under the matrix, a line per NIC; each NIC's object, with its relation to every GPU. */
static void nics_fields(struct report_rec *w, const struct topo_probe *t)
{
	struct report_rec arr, it;
	char cell[16];

	report_rec_array(w, "nics", &arr);
	for (size_t i = 0; i < t->n_nics; i++) {
		const struct topo_nic *n = &t->nics[i];
		struct report_rec rel;

		report_rec_item(&arr, &it);
		report_rec_line(&it, "NIC%zu: %s (%s)", i, n->name, n->bus_id);
		report_fields(&it, &topo_nic_field_table, n, FIELD_FULL);
		report_rec_array(&it, "gpus", &rel);
		for (size_t g = 0; g < t->n_gpus; g++) {
			nic_cell(t, n, g, cell, sizeof cell);
			report_rec_push(&rel, rv_str(cell));
		}
		if (report_rec_end(&rel) != CD_OK || report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return; /* the failure is w's now */
}

/* One row per GPU, each also an object of "gpus". */
static void gpus_fields(struct report_rec *w, const struct topo_probe *t)
{
	static const char *const head[] = { "GPU", "name", "bus id", "NVLinks active/present", "PCIe (max)", "NUMA",
					    "local CPUs" };
	struct report_rec tab, row, links, l;

	report_rec_table(w, "gpus", 7, head, &tab);
	for (size_t i = 0; i < t->n_gpus; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		struct topo_theory th;

		report_rec_item(&tab, &row);
		report_fieldf(&row, "GPU", "index", rv_int((long long)i), "GPU%zu", i);
		report_fields(&row, &topo_gpu_field_table, g, FIELD_FULL);
		report_fieldf(&row, "NVLinks active/present", NULL, rv_null(), "%d/%d", g->links_up, g->links_present);
		report_rec_array(&row, "nvlinks", &links);
		for (int k = 0; k < NVML_NVLINK_MAX_LINKS; k++) {
			if (g->links[k].state == TOPO_LINK_ABSENT)
				continue;
			report_rec_item(&links, &l);
			report_field(&l, NULL, "link", rv_int(k));
			report_fields(&l, &topo_nvlink_field_table, &g->links[k], FIELD_FULL);
			if (report_rec_end(&l) != CD_OK)
				break;
		}
		if (report_rec_end(&links) == CD_OK) {
			topo_pcie_theory(g->info, &th);
			theory_fields(&row, "pcie_theory", "PCIe (max)", &th);
		}
		/* ended whatever failed inside it: the row holds its cells until then */
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return; /* the failure is w's now */
}

/* One row per ordered pair, each also an object of "pairs". */
static void pairs_fields(struct report_rec *w, const struct topo_probe *t)
{
	static const char *const head[] = { "pair", "link", "theory per direction", "CUDA P2P", "atomics", "arrays",
					    "rank", "NVML read/write/atomics/nvlink" };
	static const int shown[4] = { NVML_P2P_CAPS_INDEX_READ, NVML_P2P_CAPS_INDEX_WRITE, NVML_P2P_CAPS_INDEX_ATOMICS,
				      NVML_P2P_CAPS_INDEX_NVLINK };
	struct report_rec tab, row, o;

	report_rec_table(w, "pairs", 8, head, &tab);
	for (size_t i = 0; i < t->n_pairs; i++) {
		const struct topo_pair *p = &t->pairs[i];
		struct topo_theory th;
		char cell[16], nv[32];
		size_t used = 0;

		report_rec_item(&tab, &row);
		report_fieldf(&row, "pair", NULL, rv_null(), "GPU%d -> GPU%d", p->a, p->b);
		report_fields(&row, &topo_pair_field_table, p, FIELD_FULL);
		topo_cell(t, (size_t)p->a, (size_t)p->b, cell, sizeof cell);
		report_field(&row, "link", "link", rv_str(cell));
		topo_pair_theory(t, p, &th);
		theory_fields(&row, "theory", "theory per direction", &th);
		report_rec_object(&row, "cuda", &o);
		report_fields(&o, &topo_pair_cuda_field_table, p, FIELD_FULL);
		if (report_rec_end(&o) == CD_OK) {
			report_rec_object(&row, "nvml_p2p", &o);
			report_fields(&o, &topo_pair_nvml_field_table, p, FIELD_FULL);
			if (report_rec_end(&o) == CD_OK) {
				nv[0] = '\0';
				for (int k = 0; k < 4; k++) {
					int c = shown[k];
					const char *v = !p->has_p2p[c] ? "?" : p->p2p[c] == NVML_P2P_STATUS_OK ? "OK" : "NS";

					used += (size_t)snprintf(nv + used, sizeof nv - used, "%s%s", k ? "/" : "", v);
				}
				report_field(&row, "NVML read/write/atomics/nvlink", NULL, rv_str(nv));
			}
		}
		/* ended whatever failed inside it: the row holds its cells until then */
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return; /* the failure is w's now */
}

int topo_report_full(struct report *r, const struct topo_probe *t)
{
	struct report_rec top, w, none;
	int rc;

	report_rec_top(&top, r);
	report_rec_object(&top, "topology", &w);
	report_rec_section(&w, "Topology (as nvidia-smi topo -m)");
	put_matrix(&w, t);
	nics_fields(&w, t);
	report_rec_line(&w, "Legend: X = self, NV# = # NVLinks, PIX = one PCIe switch, PXB = several PCIe switches, "
			    "PHB = a PCIe host bridge, NODE = host bridges of one NUMA node, SYS = the CPU interconnect");
	report_rec_section(&w, "GPUs");
	gpus_fields(&w, t);
	report_one_field(&w, &topo_probe_field_table, TOPO_PROCESS_CPUS, t);
	report_one_json(&w, &topo_probe_field_table, TOPO_NVML_OK, t);
	report_one_json(&w, &topo_probe_field_table, TOPO_CUDA_OK, t);
	report_rec_section(&w, "Pairs");
	if (t->n_gpus < 2) {
		report_rec_line(&w, "no pair: %zu GPU%s (peer-to-peer needs two)", t->n_gpus, t->n_gpus == 1 ? "" : "s");
		report_rec_array(&w, "pairs", &none);
		if (report_rec_end(&none) != CD_OK)
			return report_rec_end(&w);
		report_one_json(&w, &topo_probe_field_table, TOPO_ERRORS, t);
	} else {
		pairs_fields(&w, t);
		if (t->errors[0])
			report_one_field(&w, &topo_probe_field_table, TOPO_ERRORS, t);
		else
			report_one_json(&w, &topo_probe_field_table, TOPO_ERRORS, t);
	}
	rc = report_rec_end(&w);
	return rc == CD_OK ? report_rec_end(&top) : rc;
}

/* "GPU0 - GPU1: NV18, NVLink 4: ..., P2P yes": one pair, as doctor and topo -q say it. */
static void pair_line(const struct topo_probe *t, size_t a, size_t b, char *buf, size_t len)
{
	const struct topo_pair *p = topo_pair_of(t, a, b);
	struct topo_theory th;
	char cell[16];

	topo_cell(t, a, b, cell, sizeof cell);
	topo_pair_theory(t, p, &th);
	snprintf(buf, len, "GPU%zu - GPU%zu: %s, %s, P2P %s", a, b, cell, th.known ? th.text : "theory unknown",
		 !p->has_can_access ? "unknown" : p->can_access ? "yes" : "no");
}

int topo_report_summary(struct report *r, const struct topo_probe *t)
{
	struct report_rec top;
	char line[320];

	if (t->n_gpus < 2)
		return CD_OK;
	report_rec_top(&top, r);
	report_rec_section(&top, "Topology");
	for (size_t a = 0; a < t->n_gpus; a++)
		for (size_t b = a + 1; b < t->n_gpus; b++) {
			pair_line(t, a, b, line, sizeof line);
			report_rec_line(&top, "%s", line);
		}
	return report_rec_end(&top);
}

int topo_report_answer(struct report *r, const struct topo_probe *t)
{
	char line[320];
	int rc = CD_OK;

	if (t->n_gpus < 2)
		return report_answer(r, "%zu GPU%s: no links to judge", t->n_gpus, t->n_gpus == 1 ? "" : "s");
	for (size_t a = 0; rc == CD_OK && a < t->n_gpus; a++)
		for (size_t b = a + 1; rc == CD_OK && b < t->n_gpus; b++) {
			pair_line(t, a, b, line, sizeof line);
			rc = report_answer(r, "%s", line);
		}
	return rc;
}
