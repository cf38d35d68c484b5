/* The simulated machine's topology, shared by the fake libcuda and libnvidia-ml: NVLinks,
 * PCIe paths, P2P support and CPU/NUMA placement of each GPU, from FAKE_TOPO* variables. */
#ifndef CUDOCTOR_FAKE_TOPO_H
#define CUDOCTOR_FAKE_TOPO_H

#include <stdbool.h>

#include "fake_gpus.h"

enum fake_layout { FAKE_LAYOUT_PCIE, FAKE_LAYOUT_PAIRS, FAKE_LAYOUT_SWITCH };

/* FAKE_TOPO=pcie (default) | nvlink-pairs | nvswitch */
enum fake_layout fake_topo_layout(void);
/* NVLinks the GPU has (FAKE_TOPO_NVLINKS, else by CC: 18 on 9.0/10.0, 12 on 8.0, ...);
 * 0 in the PCIe-only layout */
int fake_topo_links(const struct fake_gpu *g);
/* false for the links FAKE_TOPO_NVLINK_DOWN="GPU:LINK;..." names */
bool fake_topo_link_up(int gpu, int link);
/* The PCI-order index of the GPU an NVLink leads to, -1 for an NVSwitch or nothing. */
int fake_topo_link_peer(const struct fake_gpu *g, int n_gpus, int link);
/* nvmlGpuTopologyLevel_t: GPU i sits on NUMA node i/4; 2k and 2k+1 share a PCIe switch
 * (PXB = 20), the rest of a group of four a NUMA node (NODE = 40), others SYS (50). */
int fake_topo_level(int a, int b);
int fake_topo_numa(int gpu);
/* The GPU's local CPUs: 32 per NUMA node (node 1: 32-63), or FAKE_TOPO_CPUS="GPU:FIRST:LAST". */
void fake_topo_cpus(int gpu, int *first, int *last);
/* nvmlGpuP2PStatus_t for nvmlGpuP2PCapsIndex_t cap (0 read, 1 write, 2 nvlink, 3 atomics,
 * 4 prop); FAKE_P2P_DENY="A-B:STATUS;..." forces STATUS for every cap of that pair. */
int fake_topo_p2p_status(const struct fake_gpu *g, int n_gpus, int a, int b, int cap);
/* Active NVLinks between a and b (direct, or both on the switch: the smaller count). */
int fake_topo_nvlinks_between(const struct fake_gpu *g, int n_gpus, int a, int b);

#endif
