/* lab nccl's arithmetic and verdict, pure: nccl-tests' bus-bandwidth factors, the per-link
 * NVLink rate by GPU generation, and the judgement of a sweep against the links' theory. */
#ifndef CUDOCTOR_LAB_NCCL_JUDGE_H
#define CUDOCTOR_LAB_NCCL_JUDGE_H

#include <stddef.h>

#include "lab/lab.h"

enum nccl_coll { NCCL_ALL_REDUCE, NCCL_ALL_GATHER, NCCL_REDUCE_SCATTER, NCCL_BROADCAST, NCCL_COLLS };

extern const char *const nccl_coll_name[NCCL_COLLS]; /* "all-reduce", ... */

/* busbw = algbw x factor: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n,
 * broadcast 1 (nccl-tests' doc/PERFORMANCE.md). */
double nccl_bus_factor(enum nccl_coll c, int nranks);

/* Bytes/s one NVLink moves per direction on a GPU of compute capability `cc_major`.x
 * (0 when the generation has none or is unknown). */
double nccl_nvlink_rate(int cc_major, int cc_minor); /* bytes/s per link and direction, kb/links.tsv; 0 unknown */

/* The sweep's verdict. busbw: the all-reduce's at the largest size (bytes/s); link: the
 * slowest GPU's link bandwidth per direction (0 unknown), link_what names it; wrong: the
 * number of results that failed verification. */
void judge_nccl(struct lab_result *r, int nranks, size_t verified, size_t wrong, double busbw, size_t top_bytes,
		double link, const char *link_what);

#endif
