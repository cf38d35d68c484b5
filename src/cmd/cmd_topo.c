/* `cudoctor topo`: how the GPUs connect (nvidia-smi topo -m, plus what CUDA and NVML say
 * about P2P per pair and what each link should carry), with topology findings. */
#include "cmd/cmd.h"
#include "facts/topology.h"
#include "kb/links.h"
#include "rules/rules.h"
#include "rules/topology.h"
#include "show/topology.h"
#include "util/err.h"

/* The driver comes from the run context (NEEDS_DRIVER): libcuda, NVML and the GPU facts are
 * collected and the driver findings added before this runs; the topology is its part, read
 * through them. */
static const struct cli_opt topo_opts[] = { { 0 } };

static int topo_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const struct gpu_probe *p;
	const struct topo_probe *t;
	int rc;

	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "topo takes no arguments (got '%.60s')", argv[1]);
	if ((rc = kb_links_load(err)) != CD_OK || (rc = cd_run_driver(g->run, &p, err)) != CD_OK ||
	    (rc = cd_run_topology(g->run, &t, err)) != CD_OK)
		return rc;
	/* NVIDIA's links only (NVLink, NVML's P2P): on an AMD machine that is what the answer says */
	if ((rc = rules_gpu_pcie(p, r)) != CD_OK || (rc = topo_rules(r, t)) != CD_OK || (rc = topo_report_full(r, t)) != CD_OK ||
	    (rc = !p->n_gpus && cd_run_amd_only(g->run)
			  ? report_answer(r, "no NVIDIA GPU: an AMD machine (topo reads NVIDIA GPUs' links)")
			  : topo_report_answer(r, t)) != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
	return rc;
}

const struct cd_command cmd_topo = {
	.name = "topo",
	.summary = "how the GPUs connect: NVLink, PCIe path, P2P support, NUMA placement, link theory",
	.usage = "cudoctor topo",
	.opts = topo_opts,
	.help = "The matrix nvidia-smi topo -m prints (NV# = NVLinks between two GPUs, else the PCIe "
		"path PIX/PXB/PHB/NODE/SYS from nvmlDeviceGetTopologyCommonAncestor; NICs found in sysfs "
		"under the GPUs' PCI trees; each GPU's CPU and NUMA affinity), then per pair what CUDA "
		"says (cuDeviceCanAccessPeer; P2P attributes: performance rank, access, native atomics, "
		"CUDA arrays) and what NVML says (nvmlDeviceGetP2PStatus for read, write, atomics, "
		"NVLink, prop), and what each link should carry per direction: NVLink generation x "
		"active links x per-link rate, or PCIe generation x width (kb/links.tsv). With one GPU, "
		"the per-GPU part and \"no pair\". Reads only; creates no CUDA context.\n\n"
		"Findings: p2p-unsupported (CUDA or NVML refuses peer access, with NVML's reason), "
		"nvlink-down (an inactive link, or fewer active links than the model has), "
		"numa-affinity (this process may only run on CPUs of another NUMA node than a GPU), "
		"pcie-link-degraded, and the driver findings doctor reports. "
		"--json: the \"topology\" object (docs/json.md). -q prints a line per pair (link, what it "
		"should carry, P2P), or \"1 GPU: no links to judge\", and the warn and error findings.",
	.notes = "Environment: CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML select the driver libraries; "
		 "CUDOCTOR_HOST_ROOT reads /sys (and every other host file) under another directory (a copy of "
		 "another machine's).\n"
		 "Linux only: on Windows it says so and exits 2.",
	.needs = NEEDS_DRIVER,
	.linux_only = "it reads the PCIe tree, NICs and NUMA nodes from Linux's /sys",
	.run = topo_run,
};
