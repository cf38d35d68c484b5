/* What each ordered pair of CUDA devices should carry per direction, for lab p2p: the
 * topology room's link theory indexed by CUDA ordinal (the command fills it: lab_ctx's
 * p2p_links). */
#ifndef CUDOCTOR_LAB_P2P_LINKS_H
#define CUDOCTOR_LAB_P2P_LINKS_H

#include "facts/topology.h"
#include "util/err.h"

struct p2p_links {
	double bps[TOPO_MAX_GPUS][TOPO_MAX_GPUS];        /* bytes/s per direction, 0 unknown */
	char text[TOPO_MAX_GPUS][TOPO_MAX_GPUS][128];    /* "NVLink 4: 18 links x 25 GB/s = ..." */
	char cell[TOPO_MAX_GPUS][TOPO_MAX_GPUS][16];     /* "NV18", "PXB", "?" as topo -m prints */
	char why_unknown[CD_ERRMSG];                     /* NVML's load error, when it did not load */
};

#endif
