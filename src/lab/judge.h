/* Verdict logic: pure functions from a lab's measurements to confirmed / refuted /
 * inconclusive, each writing the numbers that decided it into r->decided.
 * Bands come from docs/reference/bench_anchors.md §5 (see docs/lab.md). */
#ifndef CUDOCTOR_LAB_JUDGE_H
#define CUDOCTOR_LAB_JUDGE_H

#include <stddef.h>

#include "lab/lab.h"

/* n-way bank conflict of 32 lanes reading 4-byte words lane*stride apart (0: broadcast) */
int lab_bank_ways(unsigned stride);

void judge_hello(struct lab_result *r, unsigned expected, unsigned seen, unsigned dup, unsigned missing);
void judge_index2d(struct lab_result *r, size_t pixels, size_t once, size_t guard_writes,
		   size_t expected_guard, size_t warp_errors);
/* strides[0] must be 1; offset_ratio = worst misaligned / aligned bandwidth */
void judge_coalescing(struct lab_result *r, const unsigned *strides, const double *gbs, size_t n,
		      double offset_ratio);
void judge_bank(struct lab_result *r, const unsigned *strides, const double *ms, size_t n);
/* paths[0] must be 1 */
void judge_divergence(struct lab_result *r, const int *paths, const double *lane_ms, const double *warp_ms,
		      size_t n);
/* active = resident threads per SM the occupancy API predicts for each block size */
void judge_blocksize(struct lab_result *r, const int *bs, const double *gbs, const double *occupancy, size_t n);
/* cycles per hop for each working-set size */
void judge_latency(struct lab_result *r, const size_t *bytes, const double *cycles, size_t n, size_t l2_bytes,
		   double *l1, double *l2, double *dram);
/* bytes/s; peak 0 when unknown */
void judge_bandwidth(struct lab_result *r, double copy, double scale, double add, double triad, double dot,
		     double peak);
/* pinned copies reach at least this share of the PCIe link's rate per direction (below it:
 * the wrong NUMA node or a degraded link; docs/lab.md) */
#define HOSTXFER_MIN_OF_LINK 0.63
/* bytes/s at the largest size; link 0 when unknown */
void judge_hostxfer(struct lab_result *r, double pin_h2d, double pin_d2h, double page_h2d, double page_d2h,
		    double link);
/* the model: max(h2d, k, d2h) + (sum of the other two) / k, with copies summed when one copy engine */
/* duplex: H2D and D2H of the whole array at the same time, ms (0: not measured) */
double lab_streams_model(double h2d, double kern, double d2h, double duplex, int k, int copy_engines);
void judge_streams(struct lab_result *r, const int *k, const double *ms, size_t n, double h2d, double kern,
		   double d2h, double duplex, int copy_engines);
void judge_graphs(struct lab_result *r, double stream_us, double graph_us);
/* distinct[0] must be 1 */
void judge_constant(struct lab_result *r, const unsigned *distinct, const double *ms, size_t n);
void judge_transpose(struct lab_result *r, double naive, double tiled, double padded, double copy);
void judge_jit(struct lab_result *r, double sass_ms, double ptx_cold_ms, double ptx_warm_ms, bool same,
	       bool cache_disabled);

/* libraries: one data type at its largest size, in FLOP/s (0: not measured); peak 0 when
 * the arch is not in kb/sm_flops.tsv. library_error is non-empty when cuBLAS was not used. */
struct lab_gemm_point {
	char dtype[8];
	int n;
	double naive, tiled, library, peak;
};
void judge_libraries(struct lab_result *r, const struct lab_gemm_point *p, size_t n, const char *library_error);


/* occupancy: Little's law with one request of request_bytes in flight per warp */
struct lab_occ_model {
	double latency_ns; /* idle DRAM latency (pointer chase) */
	double peak;       /* DRAM peak from clocks, bytes/s; 0 unknown */
	int sm_count;
	int request_bytes;
};
/* bytes/s that `warps` resident warps per SM sustain: SMs x warps x request / latency, at most the peak */
double lab_occ_little(const struct lab_occ_model *m, double warps);
/* resident warps per SM whose requests fill latency x peak */
double lab_occ_warps_needed(const struct lab_occ_model *m);
/* warps ascending, bw in bytes/s */
void judge_occupancy(struct lab_result *r, const int *warps, const double *bw, size_t n,
		     const struct lab_occ_model *m);

/* texture: one workload's median ms per path; 0 = not measured */
struct lab_tex_point {
	char work[16]; /* "stencil", "bilinear" */
	double plain, ldg, tex;
};
void judge_texture(struct lab_result *r, const struct lab_tex_point *p, size_t n);

/* lab p2p: one ordered pair of GPUs, data flowing from a to b (CUDA ordinals). Rates in
 * bytes/s, 0 where not measured; the peer rows need peer access enabled both ways. */
struct p2p_meas {
	int a, b;
	bool peer;                 /* peer access enabled: the CE and SM rows were measured */
	double ce_write, ce_read;  /* cuMemcpyPeerAsync issued on the source's / destination's stream */
	double ce_both;            /* a -> b while b -> a runs at the same time */
	double sm_write, sm_read;  /* copy kernel on the source (stores to the peer) / destination (loads) */
	double sm_both;
	double host;               /* staged through pinned host memory, peer access not used */
	double theory;             /* the link's rate per direction; 0 unknown */
	char theory_text[128];
};
/* Bands (docs/lab.md): the best one-way peer copy within [0.60, 1.05] x theory, a -> b
 * within 15% of b -> a, each direction both ways at once >= 70% of one way, and the
 * peer copy >= 95% of the host path. */
#define P2P_MIN_OF_THEORY 0.60
#define P2P_MAX_OF_THEORY 1.05
#define P2P_MAX_ASYMMETRY 0.15
#define P2P_MIN_DUPLEX 0.70
#define P2P_MIN_OVER_HOST 0.95
double p2p_best_peer(const struct p2p_meas *m);
void judge_p2p(struct lab_result *r, const struct p2p_meas *m, size_t n, int gpus);


/* device-malloc: one scratch size, median ms per path; nulls are malloc() calls that
 * returned NULL over all the size's launches */
struct lab_dm_point {
	unsigned bytes;
	double prealloc, per_thread, per_block;
	unsigned long long null_thread, null_block;
};
void judge_device_malloc(struct lab_result *r, const struct lab_dm_point *p, size_t n);

/* sync, the cost half: one block per SM, k iterations with and without a barrier each;
 * cycles per iteration from clock64 (median over blocks and runs) */
struct lab_sync_cost {
	int block;
	double bar_cycles, nobar_cycles;
};
/* sync, one divergent-barrier experiment: threads counted over the grid (side A: the
 * warps with the barrier, side B: the others), the counts the kernel returned */
struct lab_sync_div {
	bool run;
	unsigned long long a_threads, b_threads;
	unsigned long long a_passed, exchanged, b_saw, b_clock, b_watchdog, a_saw_gone;
	double ms; /* host clock from launch to the stream's completion */
};
/* mismatched: a __syncthreads() in each branch; one_sided: only side A has one and side B
 * waits for a flag A sets after it, released by the clock budget; watchdog: the same,
 * released by the host's watchdog word; early_exit: side B returns first */
struct lab_sync_divergent {
	struct lab_sync_div mismatched, one_sided, watchdog, early_exit;
};
void judge_sync(struct lab_result *r, const struct lab_sync_cost *c, size_t n, const struct lab_sync_divergent *d);


#endif
