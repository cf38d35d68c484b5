/* The pinned host<->device copy that lab host-transfer times, as one call check's load run
 * makes too, and the GPU's PCIe link as lab reads it. */
#ifndef CUDOCTOR_LAB_HOSTXFER_H
#define CUDOCTOR_LAB_HOSTXFER_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/lab.h"

/* One size copied each way between page-locked host memory and the device. */
struct lab_pinned_copy {
	size_t bytes;
	double h2d, d2h;             /* bytes/s, the median of reps, timed with events */
	bool h2d_same, d2h_same;     /* every byte arrived as sent */
};

/* Allocates bytes of pinned host memory twice and of device memory once, fills the source
 * with c->seed's random words, times reps (at most 16) batches of copies each way as lab
 * host-transfer does, and compares every byte after each direction. CD_OK with o filled (a
 * difference is o's bool, not an error), or the failed call in err. */
int lab_pinned_copy(struct lab_ctx *c, size_t bytes, int reps, struct lab_pinned_copy *o, char *err);

/* The GPU's PCIe link as it is now: c->pcie_link (NVML), else sysfs as the topology read it
 * (c->sysfs_link); *gen and *width 0 when neither says. *src names which answered ("NVML",
 * "sysfs"). */
void lab_pcie_link_now(struct lab_ctx *c, int *gen, int *width, const char **src);

#endif
