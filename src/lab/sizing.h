/* Sizes and launch shapes derived from the device's limits, so the same lab runs on
 * an 8 GB laptop GPU and on an H200. Pure functions of struct lab_dev. */
#ifndef CUDOCTOR_LAB_SIZING_H
#define CUDOCTOR_LAB_SIZING_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/lab.h"

#define LAB_MIB ((size_t)1 << 20)

/* Bytes per array for a streaming lab with `arrays` arrays: quick, 8 x L2 (at least
 * 64 MiB); otherwise as large as 16 x L2
 * (2 GiB on GPUs with 32 MiB of L2 or more, as BabelStream's 2^28
 * doubles), never more than half the free
 * memory shared by all arrays; a multiple of 1 MiB, at least 1 MiB. */
size_t lab_dram_bytes(const struct lab_dev *d, int arrays, bool quick);
/* True when arrays of `bytes` are at least 4 x L2, so DRAM is what they measure. */
bool lab_defeats_l2(const struct lab_dev *d, size_t bytes);

/* Working-set sizes for the pointer chase, ascending: 4 KiB through the L1 and the
 * L2 (points at fractions of its size) to 16 x L2 and up to 4 GiB when memory allows. */
size_t lab_latency_sizes(const struct lab_dev *d, bool quick, size_t *out, size_t max);
/* Hops per timed chase: a multiple of 16. */
unsigned long long lab_chase_hops(bool quick);

/* Host transfer sizes, 4 KiB x 4^k up to 1 GiB, capped by free device memory / 4. */
size_t lab_xfer_sizes(const struct lab_dev *d, bool quick, size_t *out, size_t max);

/* Block sizes 32..max threads per block in steps of 32, plus 33 and 100. Ascending. */
size_t lab_block_sizes(const struct lab_dev *d, bool quick, int *out, size_t max);

/* Block sizes for the barrier sweep: powers of two from the warp size to the largest
 * block (quick: the smallest, one in the middle, the largest). Ascending. */
size_t lab_sync_block_sizes(const struct lab_dev *d, bool quick, int *out, size_t max);

/* Device malloc heap to ask for when `need` bytes are live at once: twice that (the
 * allocator's headers and fragmentation) plus 16 MiB, a multiple of 1 MiB, at most an
 * eighth of the free memory; never below `current`. */
size_t lab_heap_bytes(const struct lab_dev *d, size_t need, size_t current);
/* Threads whose `bytes` each fit in half of `heap`: a multiple of `block`, at least one
 * block, at most `max_threads`. */
unsigned lab_heap_threads(size_t heap, unsigned bytes, unsigned block, unsigned max_threads);

/* Square matrix edge for transpose: a multiple of 32 with n*n*4 bytes >= 4 x L2,
 * capped by memory. */
int lab_transpose_n(const struct lab_dev *d);

/* Peak DRAM bandwidth from clocks: 2 x memory clock x bus width / 8, in bytes/s
 * (0 when the driver does not report them). */
double lab_peak_dram(const struct lab_dev *d);
/* PCIe bandwidth per direction for gen/width, after 8b/10b or 128b/130b line
 * coding, in bytes/s (0 when unknown). */
double lab_pcie_bytes_per_s(int gen, int width);

/* lab p2p: bytes per copy buffer from the least free memory among the GPUs (each holds a
 * source and a destination): 1 GiB, quick 256 MiB, tiny 4 MiB, never more than a quarter
 * of that free memory; a multiple of 1 MiB; 0 when not even 1 MiB fits. */
size_t lab_p2p_bytes(size_t min_free, bool quick, bool tiny);
/* Copy sizes of the latency rows, ascending: 4 B, 4 KiB, 64 KiB (quick: 4 B and 64 KiB). */
size_t lab_p2p_latency_sizes(bool quick, size_t *out, size_t max);

#endif
