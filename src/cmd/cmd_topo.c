/* `cudoctor topo`: how the GPUs connect (nvidia-smi topo -m, plus what CUDA and NVML say
 * about P2P per pair and what each link should carry), with topology findings. */
#include <getopt.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/driver_check.h"
#include "cmd/gpu_findings.h"
#include "cmd/topo_report.h"
#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "kb/links.h"
#include "probe/gpus.h"
#include "probe/topology.h"
#include "rules/topology.h"
#include "util/err.h"

struct topo_run {
	struct gpu_probe p;
	struct topo_probe t;
	struct cudrv cu;
	struct nvml nv;
};

static int topo_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	static const struct option opts[] = { { 0, 0, 0, 0 } };
	struct topo_run *x;
	bool cu_ok = false, nv_ok = false, have_t = false;
	int c, rc;

	(void)g;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1)
		return cd_fail(err, CD_EUSAGE, "unknown option '%s'", argv[optind - 1]);
	if (optind < argc)
		return cd_fail(err, CD_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if ((rc = kb_links_load(err)) != CD_OK)
		return rc;
	x = calloc(1, sizeof(*x));
	if (!x)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	cu_ok = cudrv_load(&x->cu, x->p.cuda_load_error) == CD_OK;
	nv_ok = nvml_load(&x->nv, x->p.nvml_load_error) == CD_OK;
	if ((rc = gpu_probe_collect(&x->p, cu_ok ? &x->cu : NULL, nv_ok ? &x->nv : NULL, err)) != CD_OK)
		goto out;
	if ((rc = topo_probe_collect(&x->t, &x->p, cu_ok ? &x->cu : NULL, nv_ok ? &x->nv : NULL, NULL, err)) != CD_OK)
		goto out;
	have_t = true;
	if ((rc = driver_check_facts(r, &x->p, err)) != CD_OK)
		goto out;
	if ((rc = gpu_pcie_findings(r, &x->p)) != CD_OK || (rc = topo_rules(r, &x->t)) != CD_OK ||
	    (rc = topo_report_full(r, &x->t)) != CD_OK)
		rc = cd_fail(err, rc, "out of memory");
out:
	if (have_t)
		topo_probe_free(&x->t);
	gpu_probe_free(&x->p);
	if (cu_ok)
		cudrv_unload(&x->cu);
	if (nv_ok)
		nvml_unload(&x->nv);
	free(x);
	return rc;
}

const struct cd_command cmd_topo = {
	.name = "topo",
	.summary = "how the GPUs connect: NVLink, PCIe path, P2P support, NUMA placement, link theory",
	.help = "usage: cudoctor topo\n"
		"\n"
		"The matrix nvidia-smi topo -m prints (NV# = NVLinks between two GPUs, else the PCIe\n"
		"path PIX/PXB/PHB/NODE/SYS from nvmlDeviceGetTopologyCommonAncestor; NICs found in sysfs\n"
		"under the GPUs' PCI trees; each GPU's CPU and NUMA affinity), then per pair what CUDA\n"
		"says (cuDeviceCanAccessPeer; P2P attributes: performance rank, access, native atomics,\n"
		"CUDA arrays) and what NVML says (nvmlDeviceGetP2PStatus for read, write, atomics,\n"
		"NVLink, prop), and what each link should carry per direction: NVLink generation x\n"
		"active links x per-link rate, or PCIe generation x width (kb/links.tsv). With one GPU,\n"
		"the per-GPU part and \"no pair\". Reads only; creates no CUDA context.\n"
		"\n"
		"Findings: p2p-unsupported (CUDA or NVML refuses peer access, with NVML's reason),\n"
		"nvlink-down (an inactive link, or fewer active links than the model has),\n"
		"numa-affinity (this process may only run on CPUs of another NUMA node than a GPU),\n"
		"pcie-link-degraded, and the driver findings doctor reports.\n"
		"--json: the \"topology\" object (docs/json.md).\n"
		"Environment: CUDOCTOR_LIBCUDA, CUDOCTOR_LIBNVML select the driver libraries;\n"
		"CUDOCTOR_SYSFS reads sysfs from another directory than /sys (a copy of another machine's).\n",
	.run = topo_run,
};
