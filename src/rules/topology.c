/* Topology rules (topology.h): which pairs cannot use P2P and why, NVLinks that are down,
 * a process placed on another NUMA node than its GPU; and each link's theory from the kb. */
#include <stdio.h>
#include <string.h>

#include "kb/links.h"
#include "rules/rules.h"
#include "rules/catalogue.h"
#include "rules/topology.h"
#include "util/err.h"

/* The one GPU subject (rules/subject.c): "GPU 0 (NVIDIA H200)" by CUDA's number, as every
 * other finding names a GPU; the matrix keeps nvidia-smi's GPU0..GPUn. */
void topo_gpu_label(const struct topo_probe *t, size_t i, char *buf, size_t len)
{
	gpu_subject(t->gpus[i].info, buf, len);
}

void topo_pcie_theory(const struct gpu_info *g, struct topo_theory *out)
{
	long long gen = gpu_has(g, GF_PCIE_GEN_MAX) ? g->pcie_gen_max : gpu_has(g, GF_PCIE_GEN_CURRENT) ? g->pcie_gen_current : 0;
	long long width = gpu_has(g, GF_PCIE_WIDTH_MAX) ? g->pcie_width_max
			  : gpu_has(g, GF_PCIE_WIDTH_CURRENT) ? g->pcie_width_current : 0;
	const struct kb_link *k = gen > 0 ? kb_pcie_gen((int)gen) : NULL;

	memset(out, 0, sizeof(*out));
	if (!k || width <= 0)
		return;
	out->known = true;
	out->generation = (int)gen;
	out->lanes = (int)width;
	out->gbs = k->gbs * (double)width;
	out->uncertain = k->uncertain;
	out->source = k->source;
	snprintf(out->text, sizeof out->text, "PCIe Gen%lld x%lld: %.1f GB/s per direction", gen, width, out->gbs);
}

void topo_pair_theory(const struct topo_probe *t, const struct topo_pair *p, struct topo_theory *out)
{
	const struct gpu_info *a = t->gpus[p->a].info, *b = t->gpus[p->b].info;

	memset(out, 0, sizeof(*out));
	if (p->nvlinks > 0) {
		const struct kb_link *k = gpu_has(a, GF_CC) ? kb_nvlink_for_cc((int)a->cc_major, (int)a->cc_minor) : NULL;
		if (!k)
			return;
		out->known = out->nvlink = true;
		out->generation = k->generation;
		out->lanes = p->nvlinks;
		out->gbs = k->gbs * p->nvlinks;
		out->uncertain = k->uncertain;
		out->source = k->source;
		snprintf(out->text, sizeof out->text, "NVLink %d%s: %d links x %g GB/s = %g GB/s per direction", k->generation,
			 p->via_switch ? " via NVSwitch" : "", p->nvlinks, k->gbs, out->gbs);
		return;
	}
	struct topo_theory ta, tb;
	topo_pcie_theory(a, &ta);
	topo_pcie_theory(b, &tb);
	if (!ta.known || !tb.known)
		return;
	*out = ta.gbs <= tb.gbs ? ta : tb;
}

void topo_cell(const struct topo_probe *t, size_t a, size_t b, char *buf, size_t len)
{
	const struct topo_pair *p = topo_pair_of(t, a, b);

	if (a == b)
		snprintf(buf, len, "X");
	else if (p && p->nvlinks > 0)
		snprintf(buf, len, "NV%d", p->nvlinks);
	else if (p && p->has_level)
		snprintf(buf, len, "%s", topo_level_name(p->level));
	else
		snprintf(buf, len, "?");
}

/* ---- p2p-unsupported ---- */

static bool nvml_says_no(const struct topo_pair *p, int *status)
{
	for (int cap = NVML_P2P_CAPS_INDEX_READ; cap <= NVML_P2P_CAPS_INDEX_WRITE; cap++)
		if (p->has_p2p[cap] && p->p2p[cap] != NVML_P2P_STATUS_OK) {
			*status = p->p2p[cap];
			return true;
		}
	return false;
}

/* One line per direction: CUDA's answer and NVML's read, write and atomics status. */
static int p2p_direction_evidence(struct finding *f, const struct topo_pair *p)
{
	static const char *const caps[] = { "read", "write", "nvlink", "atomics", "prop" };
	static const int shown[] = { NVML_P2P_CAPS_INDEX_READ, NVML_P2P_CAPS_INDEX_WRITE, NVML_P2P_CAPS_INDEX_ATOMICS };
	char nv[256] = "";
	size_t used = 0;

	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		if (p->has_p2p[shown[i]] && used < sizeof nv)
			used += (size_t)snprintf(nv + used, sizeof nv - used, "%s%s %s", used ? ", " : "; NVML P2P status: ",
						 caps[shown[i]], topo_p2p_status_text(p->p2p[shown[i]]));
	return finding_evidence(f, "GPU%d -> GPU%d: cuDeviceCanAccessPeer %s%s", p->a, p->b,
				!p->has_can_access ? "unknown" : p->can_access ? "1" : "0", nv);
}

static int p2p_unsupported(struct report *r, const struct topo_probe *t, size_t a, size_t b)
{
	const struct topo_pair *ab = topo_pair_of(t, a, b), *ba = topo_pair_of(t, b, a);
	int status = -1;
	bool cuda_no = (ab->has_can_access && !ab->can_access) || (ba->has_can_access && !ba->can_access);
	bool nvml_no = nvml_says_no(ab, &status) || nvml_says_no(ba, &status);
	char la[320], lb[320], cell[16];
	struct finding_vars v;
	struct finding *f;

	if (!cuda_no && !nvml_no)
		return CD_OK;
	topo_gpu_label(t, a, la, sizeof la);
	topo_gpu_label(t, b, lb, sizeof lb);
	topo_cell(t, a, b, cell, sizeof cell);
	/* over NVLink or below one host bridge P2P is expected; across the CPU interconnect
	 * many platforms do not forward it */
	bool expected = ab->nvlinks > 0 || (ab->has_level && ab->level <= NVML_TOPOLOGY_HOSTBRIDGE);
	finding_vars_init(&v);
	finding_var(&v, "gpu_a", "%zu", a);
	finding_var(&v, "gpu_b", "%zu", b);
	if (status >= 0)
		finding_var(&v, "peer_status", "%s", topo_p2p_status_text(status));
	finding_var(&v, "link", "%s", cell);
	finding_flag(&v, "regkey", status == NVML_P2P_STATUS_DISABLED_BY_REGKEY);
	finding_flag(&v, "chipset", status == NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED ||
					 status == NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED);
	f = finding_make(r, expected ? SEV_WARN : SEV_INFO, "p2p-unsupported", la, &v);
	if (!f)
		return CD_ENOMEM;
	bool ok = finding_evidence(f, "peer: %s; link: %s", lb, cell) == CD_OK;
	ok &= p2p_direction_evidence(f, ab) == CD_OK;
	ok &= p2p_direction_evidence(f, ba) == CD_OK;
	return ok ? CD_OK : CD_ENOMEM;
}

/* ---- nvlink-down ---- */

static int nvlink_down(struct report *r, const struct topo_probe *t, size_t i)
{
	const struct topo_gpu *g = &t->gpus[i];
	const struct kb_link *model = kb_nvlink_model(g->info->name);
	int down = 0;
	char label[320], list[160] = "";
	struct finding_vars v;
	struct finding *f;

	for (int l = 0; l < NVML_NVLINK_MAX_LINKS; l++)
		if (g->links[l].state == TOPO_LINK_DOWN) {
			size_t n = strlen(list);
			snprintf(list + n, sizeof list - n, "%s%d", n ? "," : "", l);
			down++;
		}
	/* a PCIe card without bridges reports every link inactive: only partial fabrics and
	 * SXM parts (whose links are all wired) count; no link at all means NVML cannot say */
	/* a GPU alone (one visible, no link up) has no fabric to train against: only a
	 * partial fabric says something is broken then */
	bool alone = t->n_gpus == 1 && g->links_up == 0;
	bool short_of_model = model && g->links_up < model->links && !alone;
	if (g->links_present == 0 || (!short_of_model && !(g->links_up > 0 && down > 0)))
		return CD_OK;
	topo_gpu_label(t, i, label, sizeof label);
	finding_vars_init(&v);
	finding_var(&v, "links_up", "%d", g->links_up);
	finding_var(&v, "links", "%d", model && model->links > g->links_present ? model->links : g->links_present);
	finding_var(&v, "gpu_index", "%zu", i);
	f = finding_make(r, SEV_WARN, "nvlink-down", label, &v);
	if (!f)
		return CD_ENOMEM;
	bool ok = finding_evidence(f, "NVML: %d links present, %d active%s%s", g->links_present, g->links_up,
			       down ? "; inactive: " : "", down ? list : "") == CD_OK;
	if (model)
		ok &= finding_evidence(f, "the %s has %d NVLinks (kb/links.tsv, %s)", model->key, model->links, model->source) == CD_OK;
	return ok ? CD_OK : CD_ENOMEM;
}

/* ---- numa-affinity ---- */

static void nodes_of(const struct topo_probe *t, const struct topo_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int n = 0; n < 64; n++)
		if (t->has_node[n] && topo_cpuset_intersects(&t->node_cpus[n], s) && used + 8 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", n);
}

static int numa_affinity(struct report *r, const struct topo_probe *t, size_t i)
{
	const struct topo_gpu *g = &t->gpus[i];
	const struct topo_cpuset *gpu_cpus = g->has_local_cpus ? &g->local_cpus : g->has_cpu_affinity ? &g->cpu_affinity : NULL;
	char label[320], pc[512], gc[512], pn[64], gn[64];
	struct finding_vars v;
	struct finding *f;

	if (!t->has_process_cpus || !gpu_cpus || g->cuda_ordinal < 0 || topo_cpuset_intersects(&t->process_cpus, gpu_cpus))
		return CD_OK;
	topo_gpu_label(t, i, label, sizeof label);
	topo_cpuset_format(&t->process_cpus, pc, sizeof pc);
	topo_cpuset_format(gpu_cpus, gc, sizeof gc);
	nodes_of(t, &t->process_cpus, pn, sizeof pn);
	if (g->has_numa_node)
		snprintf(gn, sizeof gn, "%d", g->numa_node);
	else
		nodes_of(t, gpu_cpus, gn, sizeof gn);
	finding_vars_init(&v);
	finding_var(&v, "process_cpus", "%s", pc);
	if (pn[0])
		finding_var(&v, "process_nodes", "%s", pn);
	finding_var(&v, "gpu_cpus", "%s", gc);
	/* numactl binds to one node: a GPU near several leaves the line out */
	if (gn[0] && strchr(gn, ',') == NULL)
		finding_var(&v, "gpu_node", "%s", gn);
	f = finding_make(r, SEV_WARN, "numa-affinity", label, &v);
	if (!f)
		return CD_ENOMEM;
	bool ok = finding_evidence(f, "sched_getaffinity: CPUs %s", pc) == CD_OK;
	ok &= finding_evidence(f, "GPU%zu: CPUs %s (%s)%s%s", i, gc, g->has_local_cpus ? "sysfs local_cpulist" : "nvmlDeviceGetCpuAffinity",
			       gn[0] ? ", NUMA node " : "", gn) == CD_OK;
	return ok ? CD_OK : CD_ENOMEM;
}

int topo_rules(struct report *r, const struct topo_probe *t)
{
	int rc;

	for (size_t a = 0; a < t->n_gpus; a++)
		for (size_t b = a + 1; b < t->n_gpus; b++)
			if ((rc = p2p_unsupported(r, t, a, b)) != CD_OK)
				return rc;
	for (size_t i = 0; i < t->n_gpus; i++) {
		if ((rc = nvlink_down(r, t, i)) != CD_OK || (rc = numa_affinity(r, t, i)) != CD_OK)
			return rc;
	}
	return CD_OK;
}
