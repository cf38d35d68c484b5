/* Facts about how the GPUs connect (what `nvidia-smi topo -m` and `-p2p` show): NVLinks per
 * GPU and pair, the PCIe common ancestor of each pair, NVML's and CUDA's P2P answers, each
 * GPU's CPU and NUMA placement, NICs under the same PCI tree, and this process's CPU
 * affinity. Collects only, never judges; every fact has a has_ flag. */
#ifndef CUDOCTOR_PROBE_TOPOLOGY_H
#define CUDOCTOR_PROBE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/topology.h"
#include "probe/gpus.h"

/* From a collected GPU probe and the libraries it used (either may be NULL). GPUs in NVML
 * order (as nvidia-smi numbers them), then those only CUDA sees. sysfs_root: NULL for
 * the host's /sys (under $CUDOCTOR_HOST_ROOT), else a directory that stands for /sys. CUDA's
 * answers only where p's cuInit succeeded (the probe's call is the run's one). Only running out
 * of memory fails. */
int topo_probe_collect(struct topo_probe *t, const struct gpu_probe *p, const struct cudrv *cu,
		       const struct nvml *nv, const char *sysfs_root, char *err);
void topo_probe_free(struct topo_probe *t);

/* Parses a sysfs cpulist ("0-3,8,10-11"); false when malformed. */
bool topo_cpuset_parse(const char *text, struct topo_cpuset *out);
#endif
