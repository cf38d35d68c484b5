/* The topology probe (topology.h): NVML's and CUDA's answers per GPU and pair, sysfs for
 * NUMA placement and NICs. Records what it sees; failures become errors[], never a stop. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/host.h"
#include "probe/paths.h"
#include "probe/topology.h"
#include "util/err.h"
#include "util/host_path.h"
#include "util/file.h"

static void note_error(struct topo_probe *t, const char *call, const char *what)
{
	size_t len = strlen(t->errors);

	if (len + 4 >= sizeof(t->errors) || strstr(t->errors, call))
		return;
	snprintf(t->errors + len, sizeof(t->errors) - len, "%s%s: %s", len ? "; " : "", call, what);
}

static void nvml_error(struct topo_probe *t, const struct nvml *nv, const char *call, nvmlReturn_t r)
{
	if (r != NVML_ERROR_NOT_SUPPORTED && r != NVML_ERROR_INVALID_ARGUMENT && r != NVML_ERROR_FUNCTION_NOT_FOUND)
		note_error(t, call, nvml_result_name(r));
	(void)nv;
}

/* ---- CPU sets ---- */



bool topo_cpuset_parse(const char *text, struct topo_cpuset *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (*p && isspace((unsigned char)*p))
		p++;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= TOPO_MAX_CPUS)
			return false;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= TOPO_MAX_CPUS)
				return false;
			p = end;
		}
		for (long c = a; c <= b; c++)
			topo_cpuset_add(out, c);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return false;
	}
	return true;
}




/* ---- names ---- */




/* ---- sysfs ---- */


static bool read_small(const char *path, char *buf, size_t len)
{
	char *text = NULL;
	size_t n = 0;

	if (file_read_text(path, 64 * 1024, &text, &n, NULL) != CD_OK)
		return false;
	snprintf(buf, len, "%s", text);
	free(text);
	return true;
}

static bool read_numa(const char *dir, int *node)
{
	char path[PROBE_PATH], buf[32];

	if (path_join(path, sizeof path, dir, "numa_node") != CD_OK || !read_small(path, buf, sizeof buf))
		return false;
	*node = atoi(buf);
	return *node >= 0;
}

static void sysfs_gpu(struct topo_gpu *g, const char *root)
{
	char dir[PROBE_PATH], path[PROBE_PATH], buf[4096];

	if (!g->info->pci_bus_id[0] || snprintf(dir, sizeof dir, "%s/bus/pci/devices/%s", root, g->info->pci_bus_id) >= (int)sizeof dir)
		return;
	if (path_real(dir, path) && strlen(path) < sizeof g->pci_path)
		memcpy(g->pci_path, path, strlen(path) + 1);
	g->has_numa_node = read_numa(dir, &g->numa_node);
	/* "16.0 GT/s PCIe" is gen 4; a width of 0 or a speed sysfs cannot say stays unknown */
	if (path_join(path, sizeof path, dir, "current_link_speed") == CD_OK && read_small(path, buf, sizeof buf)) {
		double gts = atof(buf);

		g->sysfs_link_gen = gts >= 60 ? 6 : gts >= 30 ? 5 : gts >= 15 ? 4 : gts >= 7 ? 3 : gts >= 4 ? 2 : gts > 0 ? 1 : 0;
	}
	if (path_join(path, sizeof path, dir, "current_link_width") == CD_OK && read_small(path, buf, sizeof buf))
		g->sysfs_link_width = atoi(buf) > 0 ? atoi(buf) : 0;
	if (path_join(path, sizeof path, dir, "local_cpulist") == CD_OK && read_small(path, buf, sizeof buf))
		g->has_local_cpus = topo_cpuset_parse(buf, &g->local_cpus) && !topo_cpuset_empty(&g->local_cpus);
}

static bool nic_known(const struct topo_probe *t, const char *bus)
{
	for (size_t i = 0; i < t->n_nics; i++)
		if (strcmp(t->nics[i].bus_id, bus) == 0)
			return true;
	return false;
}

/* NICs: InfiniBand devices by their verbs name (as nvidia-smi lists them), then network
 * interfaces backed by a PCI device not listed yet (virtual interfaces have none). */
static int sysfs_nics(struct topo_probe *t, const char *root, const char *cls)
{
	char dir[PROBE_PATH], dev[PROBE_PATH], real[PROBE_PATH];
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (snprintf(dir, sizeof dir, "%s/class/%s", root, cls) >= (int)sizeof dir)
		return CD_OK;
	if ((rc = dir_names(dir, NULL, NULL, &names, &n)) != CD_OK)
		return rc;
	for (size_t i = 0; i < n && t->n_nics < TOPO_MAX_NICS; i++) {
		if (snprintf(dev, sizeof dev, "%s/%s/device", dir, names[i]) >= (int)sizeof dev || !path_real(dev, real))
			continue;
		const char *bus = strrchr(real, '/');
		char busbuf[32];
		if (!bus || !gpu_normalize_pci_bus_id(bus + 1, busbuf, sizeof busbuf) || nic_known(t, busbuf))
			continue;
		struct topo_nic *nic = &t->nics[t->n_nics++];
		snprintf(nic->name, sizeof nic->name, "%s", names[i]);
		snprintf(nic->bus_id, sizeof nic->bus_id, "%s", busbuf);
		if (strlen(real) < sizeof nic->pci_path)
			memcpy(nic->pci_path, real, strlen(real) + 1);
		nic->has_numa_node = read_numa(real, &nic->numa_node);
	}
	names_free(names, n);
	return CD_OK;
}

static void sysfs_nodes(struct topo_probe *t, const char *root)
{
	char path[PROBE_PATH], buf[4096];

	for (int i = 0; i < 64; i++) {
		if (snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", root, i) >= (int)sizeof path)
			continue;
		if (read_small(path, buf, sizeof buf))
			t->has_node[i] = topo_cpuset_parse(buf, &t->node_cpus[i]);
	}
}

static void add_process_cpu(int cpu, void *arg)
{
	topo_cpuset_add(arg, cpu);
}

static void process_cpus(struct topo_probe *t)
{
	t->has_process_cpus = os_process_cpus(add_process_cpu, &t->process_cpus);
}

/* ---- NVML ---- */

static void nvml_links(struct topo_probe *t, struct topo_gpu *g, const struct nvml *nv, nvmlDevice_t h)
{
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS && nv->DeviceGetNvLinkState; l++) {
		struct topo_nvlink *k = &g->links[l];
		int active = 0;
		nvmlReturn_t r = nv->DeviceGetNvLinkState(h, l, &active);

		k->remote_type = -1;
		if (r != NVML_SUCCESS) {
			nvml_error(t, nv, "nvmlDeviceGetNvLinkState", r);
			continue;
		}
		g->links_present++;
		k->state = active ? TOPO_LINK_UP : TOPO_LINK_DOWN;
		if (!active)
			continue;
		g->links_up++;
		if (nv->DeviceGetNvLinkVersion && nv->DeviceGetNvLinkVersion(h, l, &k->version) == NVML_SUCCESS)
			k->has_version = true;
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof pci);
		if (nv->DeviceGetNvLinkRemotePciInfo && nv->DeviceGetNvLinkRemotePciInfo(h, l, &pci) == NVML_SUCCESS)
			k->has_remote = gpu_normalize_pci_bus_id(pci.busId[0] ? pci.busId : pci.busIdLegacy,
								 k->remote_bus_id, sizeof k->remote_bus_id);
		int type;
		if (nv->DeviceGetNvLinkRemoteDeviceType && nv->DeviceGetNvLinkRemoteDeviceType(h, l, &type) == NVML_SUCCESS)
			k->remote_type = type;
		if (k->remote_type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
			g->links_to_switch++;
	}
}

static void nvml_affinity(struct topo_probe *t, struct topo_gpu *g, const struct nvml *nv, nvmlDevice_t h)
{
	enum { WORDS = TOPO_MAX_CPUS / (8 * sizeof(unsigned long)) };
	unsigned long set[WORDS];
	const unsigned bits = 8 * sizeof(unsigned long);

	if (!nv->DeviceGetCpuAffinity)
		return;
	memset(set, 0, sizeof set);
	nvmlReturn_t r = nv->DeviceGetCpuAffinity(h, WORDS, set);
	if (r != NVML_SUCCESS) {
		nvml_error(t, nv, "nvmlDeviceGetCpuAffinity", r);
		return;
	}
	for (unsigned c = 0; c < WORDS * bits; c++)
		if ((set[c / bits] >> (c % bits)) & 1UL)
			topo_cpuset_add(&g->cpu_affinity, (long)c);
	g->has_cpu_affinity = !topo_cpuset_empty(&g->cpu_affinity);
	/* nvidia-smi's NUMA column is NVML's memory affinity: it names a node where sysfs says
	 * -1 (one-node machines, many VMs). One node set: that node; else sysfs stands. */
	unsigned long nodes[1] = { 0 };
	if (nv->DeviceGetMemoryAffinity && nv->DeviceGetMemoryAffinity(h, 1, nodes, 0) == NVML_SUCCESS &&
	    nodes[0] && !(nodes[0] & (nodes[0] - 1))) {
		g->numa_node = __builtin_ctzl(nodes[0]);
		g->has_numa_node = true;
	}
}

static int count_links_to(const struct topo_gpu *a, const struct topo_gpu *b)
{
	int n = 0;

	for (int l = 0; l < NVML_NVLINK_MAX_LINKS; l++)
		if (a->links[l].state == TOPO_LINK_UP && a->links[l].has_remote &&
		    strcmp(a->links[l].remote_bus_id, b->info->pci_bus_id) == 0)
			n++;
	return n;
}

static void nvml_pair(struct topo_probe *t, struct topo_pair *p, const struct nvml *nv, nvmlDevice_t ha, nvmlDevice_t hb)
{
	nvmlReturn_t r;

	if (nv->DeviceGetTopologyCommonAncestor) {
		r = nv->DeviceGetTopologyCommonAncestor(ha, hb, &p->level);
		p->has_level = r == NVML_SUCCESS;
		if (r != NVML_SUCCESS)
			nvml_error(t, nv, "nvmlDeviceGetTopologyCommonAncestor", r);
	}
	for (int cap = 0; cap < 5 && nv->DeviceGetP2PStatus; cap++) {
		r = nv->DeviceGetP2PStatus(ha, hb, cap, &p->p2p[cap]);
		p->has_p2p[cap] = r == NVML_SUCCESS;
		if (r != NVML_SUCCESS)
			nvml_error(t, nv, "nvmlDeviceGetP2PStatus", r);
	}
}

static void cuda_pair(struct topo_probe *t, struct topo_pair *p, const struct cudrv *cu)
{
	const struct topo_gpu *a = &t->gpus[p->a], *b = &t->gpus[p->b];
	CUdevice da, db;
	int v;

	if (a->cuda_ordinal < 0 || b->cuda_ordinal < 0 || !cu->DeviceGet ||
	    cu->DeviceGet(&da, a->cuda_ordinal) != CUDA_SUCCESS || cu->DeviceGet(&db, b->cuda_ordinal) != CUDA_SUCCESS)
		return;
	if (cu->DeviceCanAccessPeer) {
		CUresult r = cu->DeviceCanAccessPeer(&v, da, db);
		p->has_can_access = r == CUDA_SUCCESS;
		p->can_access = p->has_can_access && v;
		if (r != CUDA_SUCCESS)
			note_error(t, "cuDeviceCanAccessPeer", cudrv_result_name(cu, r));
	}
	/* CUdevice_P2PAttribute 1..4: performance rank, access, native atomics, CUDA arrays */
	for (int i = 0; i < 4 && cu->DeviceGetP2PAttribute; i++) {
		CUresult r = cu->DeviceGetP2PAttribute(&p->attr[i], i + 1, da, db);
		p->has_attr[i] = r == CUDA_SUCCESS;
		if (r != CUDA_SUCCESS)
			note_error(t, "cuDeviceGetP2PAttribute", cudrv_result_name(cu, r));
	}
}

static void order_gpus(struct topo_probe *t, const struct gpu_probe *p)
{
	/* NVML order first (nvidia-smi's GPU0, GPU1, ...), then GPUs only CUDA sees */
	for (int idx = 0; idx < GPU_PROBE_MAX_GPUS && t->n_gpus < TOPO_MAX_GPUS; idx++)
		for (size_t i = 0; i < p->n_gpus; i++)
			if (p->gpus[i].nvml_index == idx && t->n_gpus < TOPO_MAX_GPUS)
				t->gpus[t->n_gpus++].info = &p->gpus[i];
	for (size_t i = 0; i < p->n_gpus && t->n_gpus < TOPO_MAX_GPUS; i++)
		if (p->gpus[i].nvml_index < 0)
			t->gpus[t->n_gpus++].info = &p->gpus[i];
	for (size_t i = 0; i < t->n_gpus; i++) {
		t->gpus[i].nvml_index = t->gpus[i].info->nvml_index;
		t->gpus[i].cuda_ordinal = t->gpus[i].info->cuda_ordinal;
	}
}

int topo_probe_collect(struct topo_probe *t, const struct gpu_probe *p, const struct cudrv *cu,
		       const struct nvml *nv, const char *root_arg, char *err)
{
	char sys[PROBE_PATH];
	const char *root = root_arg ? root_arg : host_path(sys, sizeof sys, NULL, "/sys") == CD_OK ? sys : "/sys";
	nvmlDevice_t handles[TOPO_MAX_GPUS] = { 0 };
	bool nvml_up = false;
	int rc = CD_OK;

	memset(t, 0, sizeof(*t));
	order_gpus(t, p);
	process_cpus(t);
	sysfs_nodes(t, root);
	if ((rc = sysfs_nics(t, root, "infiniband")) != CD_OK || (rc = sysfs_nics(t, root, "net")) != CD_OK)
		goto nomem;
	for (size_t i = 0; i < t->n_gpus; i++)
		sysfs_gpu(&t->gpus[i], root);

	if (nv && nv->Init && nv->DeviceGetHandleByIndex && nv->Init() == NVML_SUCCESS) {
		nvml_up = true;
		t->nvml_ok = true;
		for (size_t i = 0; i < t->n_gpus; i++) {
			struct topo_gpu *g = &t->gpus[i];
			if (g->nvml_index < 0 || nv->DeviceGetHandleByIndex((unsigned)g->nvml_index, &handles[i]) != NVML_SUCCESS) {
				handles[i] = NULL;
				continue;
			}
			nvml_links(t, g, nv, handles[i]);
			nvml_affinity(t, g, nv, handles[i]);
		}
	}
	/* the GPU probe called cuInit for the run; its answer stands */
	t->cuda_ok = cu && driver_has(p, DF_CUDA_INIT) && p->cuda_init_result == CUDA_SUCCESS;

	if (t->n_gpus > 1) {
		t->n_pairs = t->n_gpus * (t->n_gpus - 1);
		t->pairs = calloc(t->n_pairs, sizeof(*t->pairs));
		if (!t->pairs) {
			rc = CD_ENOMEM;
			goto nomem;
		}
	}
	for (size_t a = 0; a < t->n_gpus; a++)
		for (size_t b = 0; b < t->n_gpus; b++) {
			struct topo_pair *pr = (struct topo_pair *)topo_pair_of(t, a, b);
			const struct topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
			if (!pr)
				continue;
			pr->a = (int)a;
			pr->b = (int)b;
			pr->nvlinks = count_links_to(ga, gb);
			if (pr->nvlinks == 0 && ga->links_to_switch && gb->links_to_switch) {
				pr->via_switch = true;
				pr->nvlinks = ga->links_to_switch < gb->links_to_switch ? ga->links_to_switch : gb->links_to_switch;
			}
			if (handles[a] && handles[b])
				nvml_pair(t, pr, nv, handles[a], handles[b]);
			if (t->cuda_ok)
				cuda_pair(t, pr, cu);
		}
	if (nvml_up && nv->Shutdown)
		nv->Shutdown();
	return CD_OK;
nomem:
	if (nvml_up && nv->Shutdown)
		nv->Shutdown();
	topo_probe_free(t);
	return cd_fail(err, CD_ENOMEM, "topology probe: out of memory");
}

void topo_probe_free(struct topo_probe *t)
{
	free(t->pairs);
	t->pairs = NULL;
	t->n_pairs = 0;
}
