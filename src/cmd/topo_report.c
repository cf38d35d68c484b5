/* Rendering of the topology facts and their theory (topo_report.h); judging is in
 * src/rules/topology.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/topo_report.h"
#include "rules/topology.h"
#include "util/err.h"

static const char *const cap_names[5] = { "read", "write", "nvlink", "atomics", "prop" };
static const char *const attr_names[4] = { "performance_rank", "access_supported", "native_atomic_supported",
					    "cuda_array_access_supported" };

static bool jset(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

static json_t *jint(bool valid, long long v)
{
	return valid ? json_integer(v) : json_null();
}

static json_t *jcpus(bool valid, const struct topo_cpuset *s)
{
	char buf[1024];

	if (!valid)
		return json_null();
	topo_cpuset_format(s, buf, sizeof buf);
	return json_string(buf);
}

static const char *remote_type_name(int type)
{
	switch (type) {
	case NVML_NVLINK_DEVICE_TYPE_GPU: return "gpu";
	case NVML_NVLINK_DEVICE_TYPE_IBMNPU: return "ibmnpu";
	case NVML_NVLINK_DEVICE_TYPE_SWITCH: return "nvswitch";
	default: return "unknown";
	}
}

static json_t *theory_json(const struct topo_theory *th)
{
	if (!th->known)
		return json_null();
	return json_pack("{s:s, s:i, s:i, s:f, s:b, s:s, s:s}", "kind", th->nvlink ? "nvlink" : "pcie", "generation",
			 th->generation, "lanes", th->lanes, "gbs_per_direction", th->gbs, "uncertain", th->uncertain,
			 "text", th->text, "source", th->source ? th->source : "");
}

static json_t *gpu_json(const struct topo_probe *t, size_t i)
{
	const struct topo_gpu *g = &t->gpus[i];
	json_t *o = json_object(), *links = json_array();
	struct topo_theory pcie;
	bool ok = o && links;

	topo_pcie_theory(g->info, &pcie);
	for (int l = 0; ok && l < NVML_NVLINK_MAX_LINKS; l++) {
		const struct topo_nvlink *k = &g->links[l];
		if (k->state == TOPO_LINK_ABSENT)
			continue;
		json_t *lo = json_pack("{s:i, s:s, s:o, s:o, s:o}", "link", l, "state", k->state == TOPO_LINK_UP ? "up" : "down",
				       "version", jint(k->has_version, k->version), "remote_pci_bus_id",
				       k->has_remote ? json_string(k->remote_bus_id) : json_null(), "remote_type",
				       k->remote_type >= 0 ? json_string(remote_type_name(k->remote_type)) : json_null());
		ok = lo && json_array_append_new(links, lo) == 0;
	}
	ok = ok && jset(o, "index", json_integer((json_int_t)i)) && jset(o, "name", json_string(g->info->name)) &&
	     jset(o, "pci_bus_id", json_string(g->info->pci_bus_id)) &&
	     jset(o, "cuda_ordinal", jint(g->cuda_ordinal >= 0, g->cuda_ordinal)) &&
	     jset(o, "nvml_index", jint(g->nvml_index >= 0, g->nvml_index)) &&
	     jset(o, "numa_node", jint(g->has_numa_node, g->numa_node)) &&
	     jset(o, "cpu_affinity", jcpus(g->has_cpu_affinity, &g->cpu_affinity)) &&
	     jset(o, "local_cpus", jcpus(g->has_local_cpus, &g->local_cpus)) &&
	     jset(o, "nvlinks_present", json_integer(g->links_present)) &&
	     jset(o, "nvlinks_active", json_integer(g->links_up)) &&
	     jset(o, "nvlinks_to_nvswitch", json_integer(g->links_to_switch)) && jset(o, "nvlinks", links) &&
	     jset(o, "pcie_theory", theory_json(&pcie));
	if (!ok) {
		if (!o || json_object_get(o, "nvlinks") != links)
			json_decref(links);
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *pair_json(const struct topo_probe *t, const struct topo_pair *p)
{
	json_t *o = json_object(), *cuda = json_object(), *nv = json_object();
	struct topo_theory th;
	char cell[16];
	bool ok = o && cuda && nv;

	topo_pair_theory(t, p, &th);
	topo_cell(t, (size_t)p->a, (size_t)p->b, cell, sizeof cell);
	ok = ok && jset(cuda, "can_access_peer", p->has_can_access ? json_boolean(p->can_access) : json_null());
	for (int i = 0; ok && i < 4; i++)
		ok = jset(cuda, attr_names[i], jint(p->has_attr[i], p->attr[i]));
	for (int i = 0; ok && i < 5; i++)
		ok = jset(nv, cap_names[i], p->has_p2p[i] ? json_string(topo_p2p_status_text(p->p2p[i])) : json_null());
	if (!ok) {
		json_decref(cuda);
		json_decref(nv);
		json_decref(o);
		return NULL;
	}
	ok = jset(o, "cuda", cuda);
	if (!ok)
		json_decref(cuda);
	ok = jset(o, "nvml_p2p", nv) && ok;
	if (!json_object_get(o, "nvml_p2p"))
		json_decref(nv);
	ok = ok && jset(o, "a", json_integer(p->a)) && jset(o, "b", json_integer(p->b)) && jset(o, "link", json_string(cell)) &&
	     jset(o, "nvlinks", json_integer(p->nvlinks)) && jset(o, "via_nvswitch", json_boolean(p->via_switch)) &&
	     jset(o, "pcie_path", p->has_level ? json_string(topo_level_name(p->level)) : json_null()) &&
	     jset(o, "theory", theory_json(&th));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void nic_cell(const struct topo_probe *t, const struct topo_nic *n, size_t gpu, char *buf, size_t len)
{
	const struct topo_gpu *g = &t->gpus[gpu];
	bool same = g->has_numa_node && n->has_numa_node && g->numa_node == n->numa_node;
	int level = topo_sysfs_level(g->pci_path, n->pci_path, same);

	snprintf(buf, len, "%s", level < 0 ? "?" : topo_level_name(level));
}

static json_t *nic_json(const struct topo_probe *t, const struct topo_nic *n)
{
	json_t *rel = json_array();
	json_t *o;
	char cell[16];

	for (size_t i = 0; rel && i < t->n_gpus; i++) {
		nic_cell(t, n, i, cell, sizeof cell);
		if (json_array_append_new(rel, json_string(cell))) {
			json_decref(rel);
			return NULL;
		}
	}
	if (!rel)
		return NULL;
	o = json_pack("{s:s, s:s, s:o, s:o}", "name", n->name, "pci_bus_id", n->bus_id, "numa_node",
		      jint(n->has_numa_node, n->numa_node), "gpus", rel);
	return o;
}

static int put_json(struct report *r, const struct topo_probe *t)
{
	json_t *o = json_object(), *gpus = json_array(), *pairs = json_array(), *nics = json_array();
	bool ok = o && gpus && pairs && nics;

	for (size_t i = 0; ok && i < t->n_gpus; i++) {
		json_t *g = gpu_json(t, i);
		ok = g && json_array_append_new(gpus, g) == 0;
	}
	for (size_t i = 0; ok && i < t->n_pairs; i++) {
		json_t *p = pair_json(t, &t->pairs[i]);
		ok = p && json_array_append_new(pairs, p) == 0;
	}
	for (size_t i = 0; ok && i < t->n_nics; i++) {
		json_t *n = nic_json(t, &t->nics[i]);
		ok = n && json_array_append_new(nics, n) == 0;
	}
	if (ok) {
		ok = jset(o, "gpus", gpus);
		gpus = NULL;
		ok = ok && jset(o, "pairs", pairs);
		pairs = NULL;
		ok = ok && jset(o, "nics", nics);
		nics = NULL;
		ok = ok && jset(o, "process_cpu_affinity", jcpus(t->has_process_cpus, &t->process_cpus)) &&
		     jset(o, "nvml_topology", json_boolean(t->nvml_ok)) && jset(o, "cuda", json_boolean(t->cuda_ok)) &&
		     jset(o, "errors", json_string(t->errors));
	}
	json_decref(gpus);
	json_decref(pairs);
	json_decref(nics);
	if (!ok) {
		json_decref(o);
		return CD_ENOMEM;
	}
	return report_json_set(r, "topology", o);
}

/* nvidia-smi topo -m: GPUs and NICs against GPUs and NICs, then CPU and NUMA affinity. */
static int put_matrix(struct report *r, const struct topo_probe *t)
{
	size_t n = t->n_gpus + t->n_nics, ncols = n + 3;
	const char **head = calloc(ncols, sizeof(*head));
	char (*cells)[64] = calloc(ncols, sizeof(*cells));
	const char **row = calloc(ncols, sizeof(*row));
	int rc = CD_OK;

	if (!head || !cells || !row) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (i < t->n_gpus)
			snprintf(cells[i], sizeof cells[i], "GPU%zu", i);
		else
			snprintf(cells[i], sizeof cells[i], "NIC%zu", i - t->n_gpus);
		head[i + 1] = cells[i];
	}
	head[0] = "";
	head[n + 1] = "CPU Affinity";
	head[n + 2] = "NUMA Affinity";
	if ((rc = report_table(r, ncols, head)) != CD_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char (*c)[64] = calloc(ncols, sizeof(*c));
		if (!c) {
			rc = CD_ENOMEM;
			goto out;
		}
		snprintf(c[0], sizeof c[0], "%s", cells[i]);
		for (size_t j = 0; j < n; j++) {
			char *cell = c[j + 1];
			if (i < t->n_gpus && j < t->n_gpus)
				topo_cell(t, i, j, cell, 64);
			else if (i < t->n_gpus)
				nic_cell(t, &t->nics[j - t->n_gpus], i, cell, 64);
			else if (j < t->n_gpus)
				nic_cell(t, &t->nics[i - t->n_gpus], j, cell, 64);
			else if (i == j)
				snprintf(cell, 64, "X");
			else {
				const struct topo_nic *x = &t->nics[i - t->n_gpus], *y = &t->nics[j - t->n_gpus];
				bool same = x->has_numa_node && y->has_numa_node && x->numa_node == y->numa_node;
				int level = topo_sysfs_level(x->pci_path, y->pci_path, same);
				snprintf(cell, 64, "%s", level < 0 ? "?" : topo_level_name(level));
			}
		}
		if (i < t->n_gpus) {
			const struct topo_gpu *g = &t->gpus[i];
			if (g->has_cpu_affinity)
				topo_cpuset_format(&g->cpu_affinity, c[n + 1], 64);
			else if (g->has_local_cpus)
				topo_cpuset_format(&g->local_cpus, c[n + 1], 64);
			else
				snprintf(c[n + 1], 64, "N/A");
			if (g->has_numa_node)
				snprintf(c[n + 2], 64, "%d", g->numa_node);
			else
				snprintf(c[n + 2], 64, "N/A");
		}
		for (size_t j = 0; j < ncols; j++)
			row[j] = c[j];
		rc = report_table_row(r, row);
		free(c);
		if (rc != CD_OK)
			goto out;
	}
	for (size_t i = 0; i < t->n_nics && rc == CD_OK; i++)
		rc = report_line(r, "NIC%zu: %s (%s)", i, t->nics[i].name, t->nics[i].bus_id);
out:
	free(head);
	free(cells);
	free(row);
	return rc;
}

static void yes_no(char *buf, size_t len, bool has, int v)
{
	snprintf(buf, len, "%s", !has ? "?" : v ? "yes" : "no");
}

static int put_pairs(struct report *r, const struct topo_probe *t)
{
	static const char *const head[] = { "pair", "link", "theory per direction", "CUDA P2P", "atomics", "arrays",
					    "rank", "NVML read/write/atomics/nvlink" };
	int rc = report_table(r, 8, head);

	for (size_t i = 0; rc == CD_OK && i < t->n_pairs; i++) {
		const struct topo_pair *p = &t->pairs[i];
		char pair[64], cell[32], theory[160], access[8], atom[8], arr[8], rank[32], nv[160];
		const char *row[8] = { pair, cell, theory, access, atom, arr, rank, nv };
		struct topo_theory th;
		size_t used = 0;

		snprintf(pair, sizeof pair, "GPU%d -> GPU%d", p->a, p->b);
		topo_cell(t, (size_t)p->a, (size_t)p->b, cell, sizeof cell);
		topo_pair_theory(t, p, &th);
		snprintf(theory, sizeof theory, "%s", th.known ? th.text : "unknown");
		yes_no(access, sizeof access, p->has_can_access, p->can_access);
		yes_no(atom, sizeof atom, p->has_attr[2], p->attr[2]);
		yes_no(arr, sizeof arr, p->has_attr[3], p->attr[3]);
		if (p->has_attr[0])
			snprintf(rank, sizeof rank, "%d", p->attr[0]);
		else
			snprintf(rank, sizeof rank, "?");
		nv[0] = '\0';
		static const int order[4] = { NVML_P2P_CAPS_INDEX_READ, NVML_P2P_CAPS_INDEX_WRITE, NVML_P2P_CAPS_INDEX_ATOMICS,
					      NVML_P2P_CAPS_INDEX_NVLINK };
		for (int k = 0; k < 4; k++) {
			int cap = order[k];
			const char *v = !p->has_p2p[cap] ? "?" : p->p2p[cap] == NVML_P2P_STATUS_OK ? "OK" : "NS";
			used += (size_t)snprintf(nv + used, sizeof nv - used, "%s%s", k ? "/" : "", v);
		}
		rc = report_table_row(r, row);
	}
	return rc;
}

static int put_gpus(struct report *r, const struct topo_probe *t)
{
	static const char *const head[] = { "GPU", "name", "bus id", "NVLinks active/present", "PCIe (max)", "NUMA", "local CPUs" };
	int rc = report_table(r, 7, head);

	for (size_t i = 0; rc == CD_OK && i < t->n_gpus; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		char idx[32], links[48], pcie[160], numa[32], cpus[512];
		const char *row[7] = { idx, g->info->name, g->info->pci_bus_id, links, pcie, numa, cpus };
		struct topo_theory th;

		snprintf(idx, sizeof idx, "GPU%zu", i);
		snprintf(links, sizeof links, "%d/%d", g->links_up, g->links_present);
		topo_pcie_theory(g->info, &th);
		snprintf(pcie, sizeof pcie, "%s", th.known ? th.text : "unknown");
		if (g->has_numa_node)
			snprintf(numa, sizeof numa, "%d", g->numa_node);
		else
			snprintf(numa, sizeof numa, "N/A");
		if (g->has_local_cpus)
			topo_cpuset_format(&g->local_cpus, cpus, sizeof cpus);
		else
			snprintf(cpus, sizeof cpus, "N/A");
		rc = report_table_row(r, row);
	}
	return rc;
}

int topo_report_full(struct report *r, const struct topo_probe *t)
{
	char pc[1024];
	int rc;

	if ((rc = put_json(r, t)) != CD_OK)
		return rc;
	if ((rc = report_section(r, "Topology (as nvidia-smi topo -m)")) != CD_OK || (rc = put_matrix(r, t)) != CD_OK)
		return rc;
	if ((rc = report_line(r, "Legend: X = self, NV# = # NVLinks, PIX = one PCIe switch, PXB = several PCIe switches, "
				 "PHB = a PCIe host bridge, NODE = host bridges of one NUMA node, SYS = the CPU interconnect")) != CD_OK)
		return rc;
	if ((rc = report_section(r, "GPUs")) != CD_OK || (rc = put_gpus(r, t)) != CD_OK)
		return rc;
	if (t->has_process_cpus) {
		topo_cpuset_format(&t->process_cpus, pc, sizeof pc);
		if ((rc = report_kv(r, "this process may run on CPUs", "%s", pc)) != CD_OK)
			return rc;
	}
	if ((rc = report_section(r, "Pairs")) != CD_OK)
		return rc;
	if (t->n_gpus < 2)
		return report_line(r, "no pair: %zu GPU%s (peer-to-peer needs two)", t->n_gpus, t->n_gpus == 1 ? "" : "s");
	if ((rc = put_pairs(r, t)) != CD_OK)
		return rc;
	if (t->errors[0])
		rc = report_kv(r, "failed queries", "%s", t->errors);
	return rc;
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
	char line[320];
	int rc;

	if (t->n_gpus < 2)
		return CD_OK;
	if ((rc = report_section(r, "Topology")) != CD_OK)
		return rc;
	for (size_t a = 0; a < t->n_gpus; a++)
		for (size_t b = a + 1; b < t->n_gpus; b++) {
			pair_line(t, a, b, line, sizeof line);
			if ((rc = report_line(r, "%s", line)) != CD_OK)
				return rc;
		}
	return CD_OK;
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
