/* The pointer chase of kernels/latency.cu as a measurement other labs call: cycles and ns
 * per dependent load at one working-set size (the latency lab sweeps it, occupancy takes
 * its DRAM latency for Little's law). */
#ifndef CUDOCTOR_LAB_CHASE_H
#define CUDOCTOR_LAB_CHASE_H

#include <stdint.h>

#include "lab/lab.h"

struct lab_chase {
	CUfunction chase, build, touch;
	CUdeviceptr buf, end, cycles, sink;
	size_t cap;   /* bytes of buf */
	uint64_t key; /* the permutation's key */
};

/* Functions and buffers for working sets up to max_bytes. */
int lab_chase_open(struct lab_ctx *c, struct lab_chase *ch, size_t max_bytes, char *err);
void lab_chase_close(struct lab_ctx *c, struct lab_chase *ch);
/* Builds a random single cycle over `bytes`, warms it, then `reps` timed chases of `hops`
 * (a multiple of 16): median cycles (clock64) and ns (events) per hop. A chase that ends
 * anywhere but where the host predicts sets r->wrong_result and r->note and returns CD_OK. */
int lab_chase_measure(struct lab_ctx *c, struct lab_chase *ch, size_t bytes, unsigned long long hops, int reps,
		      double *cycles, double *ns, struct lab_result *r, char *err);
/* The working set that measures DRAM: 8 x L2, within 1 GiB (the TLB's reach) and a quarter
 * of the free memory. */
size_t lab_chase_dram_bytes(const struct lab_dev *d);

#endif
