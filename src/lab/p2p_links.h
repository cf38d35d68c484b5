/* What each ordered pair of CUDA devices should carry per direction, for lab p2p: the
 * topology room's link theory (rules/topology.h) indexed by CUDA ordinal. */
#ifndef CUDOCTOR_LAB_P2P_LINKS_H
#define CUDOCTOR_LAB_P2P_LINKS_H

#include "driver/cudrv.h"
#include "probe/topology.h"

struct p2p_links {
	double bps[TOPO_MAX_GPUS][TOPO_MAX_GPUS];        /* bytes/s per direction, 0 unknown */
	char text[TOPO_MAX_GPUS][TOPO_MAX_GPUS][128];    /* "NVLink 4: 18 links x 25 GB/s = ..." */
	char cell[TOPO_MAX_GPUS][TOPO_MAX_GPUS][16];     /* "NV18", "PXB", "?" as topo -m prints */
	char why_unknown[CD_ERRMSG];                     /* NVML's load error, when it did not load */
};

/* Loads NVML through the shared loader, collects the GPU and topology probes with the
 * caller's libcuda, and fills o. A missing NVML leaves the NVLink theory unknown (and
 * says why); only running out of memory or a broken kb table fails. */
/* From the run's libraries and facts (nv NULL without NVML); nothing is loaded again. */
int p2p_links_collect(const struct cudrv *cu, const struct nvml *nv, const struct gpu_probe *p,
		      struct p2p_links *o, char *err);

#endif
