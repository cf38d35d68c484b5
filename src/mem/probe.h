/* The memory probe: how large a block cuMemAlloc gives now, how much in blocks,
 * and a fragmentation demonstration inside our own context. Uses only the driver
 * calls in struct cudrv (plain cuMemAlloc, never managed memory); every block is
 * freed before returning. The caller makes a context current. */
#ifndef CUDOCTOR_MEM_PROBE_H
#define CUDOCTOR_MEM_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/cudrv.h"
#include "util/field.h"

#define MEM_PROBE_GRAIN (2ull << 20) /* the driver's large-page size; sizes step by it */
#define MEM_PROBE_MAX_BLOCKS 64

struct mem_probe {
	uint64_t free_before, total, free_after;
	uint64_t limit;          /* --max x free, rounded down to the grain */
	uint64_t largest;        /* largest single block that was allocated */
	bool largest_capped;     /* the limit itself succeeded: the real largest may be more */
	uint64_t smallest_failed;/* the smallest size that failed (0 if none) */
	uint64_t in_blocks;      /* allocated at once in up to MEM_PROBE_MAX_BLOCKS blocks */
	unsigned n_blocks;
	unsigned n_calls;        /* cuMemAlloc calls made */
	double held_ms;          /* wall time from the first allocation to the last free */
};

/* Described once (util/field.h; mem/fields.c): each GPU's object of `mem probe` and the
 * labels of its lines. */
enum mem_probe_field {
	MEM_PROBE_FREE, MEM_PROBE_TOTAL, MEM_PROBE_LIMIT, MEM_PROBE_LARGEST, MEM_PROBE_CAPPED,
	MEM_PROBE_SMALLEST_FAILED, MEM_PROBE_IN_BLOCKS, MEM_PROBE_BLOCKS, MEM_PROBE_CALLS, MEM_PROBE_ELAPSED,
	MEM_PROBE_FREE_AFTER, MEM_PROBE_FIELDS
};
extern const struct field_table mem_probe_field_table;

/* max_fraction in (0, 1]. CD_EDRIVER (err names the call) on a failure that is
 * not out-of-memory; blocks already taken are freed first. */
int mem_probe_measure(const struct cudrv *d, double max_fraction, struct mem_probe *p, char *err);

/* The demonstration: a caching allocator's segments (one cuMemAlloc each) with
 * every other block freed, against the same pattern on one virtual reservation
 * (cuMemAddressReserve + cuMemCreate/cuMemMap, what expandable_segments uses). */
struct mem_demo {
	uint64_t work;            /* bytes in play, <= the probe limit / 2 */
	unsigned segments, blocks_per_segment;
	uint64_t block;           /* bytes per block */
	uint64_t freed;           /* bytes freed in holes */
	uint64_t largest_hole;    /* the largest contiguous free run inside any segment */
	uint64_t request;         /* the request made after the frees */
	/* segments: the request cannot use the holes, so reserved memory grows */
	uint64_t seg_reserved_before, seg_reserved_after;
	int64_t seg_driver_used_delta;   /* cuMemGetInfo: device memory used for the whole phase */
	/* virtual memory: holes unmapped (pages back to the driver), request mapped contiguously */
	bool vmm_supported;
	uint64_t granularity;
	uint64_t vmm_mapped_before, vmm_mapped_after;
	int64_t vmm_driver_used_delta;
	bool vmm_request_contiguous;
};

/* Its "demo" object and the labels of its two lines. */
enum mem_demo_field {
	MEM_DEMO_BLOCK, MEM_DEMO_FREED, MEM_DEMO_LARGEST_HOLE, MEM_DEMO_REQUEST, MEM_DEMO_SEG_RESERVED_AFTER,
	MEM_DEMO_SEG_DRIVER_USED, MEM_DEMO_VMM, MEM_DEMO_VMM_MAPPED_AFTER, MEM_DEMO_VMM_DRIVER_USED,
	MEM_DEMO_GRANULARITY, MEM_DEMO_FIELDS
};
extern const struct field_table mem_demo_field_table;

int mem_demo_run(const struct cudrv *d, CUdevice dev, uint64_t limit, struct mem_demo *m, char *err);

#endif
