/* The load tests' judgements: pure functions from what a memory test, a GEMM stress and the
 * NVML and kernel-log samples taken meanwhile measured on one GPU, to findings. */
#ifndef CUDOCTOR_CHECK_JUDGE_H
#define CUDOCTOR_CHECK_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/deploy.h"
#include "facts/driver.h"
#include "lab/judge.h"
#include "report/report.h"

/* The memory test's patterns, in the order a pass writes them. */
enum check_pattern {
	CHECK_PAT_ZEROS,
	CHECK_PAT_ONES,
	CHECK_PAT_5555,
	CHECK_PAT_AAAA,
	CHECK_PAT_WALKING_ONES, /* word i holds 1 << (i % 64) */
	CHECK_PAT_ADDRESS,      /* word i holds its own device address */
	CHECK_PAT_COUNT
};
const char *check_pattern_name(unsigned pattern); /* "0x5555...", "address-in-address"; "?" out of range */

/* One word that read back wrong, as the verifying kernel recorded it. */
struct check_mem_error {
	unsigned long long offset;   /* bytes from the start of the tested range */
	unsigned long long expected, got;
	unsigned pattern;            /* enum check_pattern */
};

#define CHECK_MEM_RECORDS 16

struct check_mem_result {
	unsigned long long bytes;    /* tested per pattern */
	unsigned patterns;           /* patterns written and verified */
	unsigned long long errors;   /* 64-bit words that read back wrong, over every pattern */
	size_t n_recorded;           /* the first errors, at most CHECK_MEM_RECORDS */
	struct check_mem_error rec[CHECK_MEM_RECORDS];
};

/* load-memory-errors (error) when any word read back wrong: how many, the first offsets
 * with the bits that flipped, and whether they are single-bit flips. CD_OK or CD_ENOMEM. */
int check_judge_memory(struct report *r, const char *subject, const struct check_mem_result *m);

/* The GEMM stress on one GPU. */
struct check_gemm_result {
	char dtype[8];               /* "bf16", "fp16", "tf32", "fp32" */
	int n;                       /* n x n x n */
	unsigned long long gemms;    /* results compared against the reference */
	unsigned long long mismatches; /* results that differed from it beyond the tolerance */
	double worst_diff;           /* the largest element difference from the reference seen */
	double flops;                /* sustained FLOP/s, the median of the samples */
	double flops_per_clk_sm;     /* kb/sm_flops.tsv for this arch and type; 0 unknown */
	int sm_count;
	double sm_mhz;               /* median SM clock under load; 0 unknown */
};

/* What the GPU computes at most at the clock it ran: SMs x clock x FLOP per clock per SM;
 * 0 when any is unknown. */
double check_gemm_theory(const struct check_gemm_result *g);

/* cuBLAS at large sizes reaches >= 70% of the peak at the driver's peak clock (lab
 * libraries' band, docs/lab.md); at the clock it runs at, the ratio is higher, not lower. */
#define CHECK_GEMM_MIN_OF_THEORY 0.70

/* load-gemm-mismatch (error) when a result differed from the reference; load-gemm-slow
 * (warn, with the ratio) when the sustained rate is below CHECK_GEMM_MIN_OF_THEORY of the
 * theory at the measured clock. CD_OK or CD_ENOMEM. */
int check_judge_gemm(struct report *r, const char *subject, const struct check_gemm_result *g);

/* The pinned host<->device copies on one GPU (lab host-transfer's copy, lab/hostxfer.h). */
struct check_copy_result {
	size_t bytes;                /* per copy */
	double h2d, d2h;             /* bytes/s */
	bool h2d_same, d2h_same;     /* every byte arrived as sent */
	int gen, width;              /* the PCIe link read after the copies; 0 unknown */
	double link;                 /* its bytes/s per direction after line coding; 0 unknown */
};

/* lab host-transfer's band: pinned copies reach HOSTXFER_MIN_OF_LINK of the link each way */
#define CHECK_COPY_MIN_OF_LINK HOSTXFER_MIN_OF_LINK

/* load-copy-corrupt (error) when a direction's bytes arrived different; load-copy-slow (warn,
 * with the ratio) when the slower direction is below CHECK_COPY_MIN_OF_LINK of the link's
 * rate. Nothing is judged against an unknown link. CD_OK or CD_ENOMEM. */
int check_judge_copy(struct report *r, const char *subject, const struct check_copy_result *c);

/* NVML read during the load, once per sample; a field is -1 when NVML did not give it. */
struct check_sample {
	double t_s;                  /* since the load started */
	long long reasons;           /* clock event reasons mask (NVML_CLOCKS_EVENT_*) */
	int sm_mhz, temperature_c;
	long long power_mw;
	double gemm_flops;           /* the rate of the GEMM batch it was taken during; 0 none */
};

/* load-throttled: warn when a sample under load carries a hardware or thermal slowdown
 * reason (with the reasons, in how many samples, the lowest clock and the hottest
 * temperature); info when only the power cap held clocks down. CD_OK or CD_ENOMEM. */
int check_judge_throttle(struct report *r, const char *subject, const struct check_sample *s, size_t n);

/* load-new-xid (error; info for an Xid the catalogue says to ignore) for each kernel-log event that appeared or repeated between the
 * reads before and after the load (both must have been read: the caller says otherwise),
 * on the GPU the event names when gp lists it. CD_OK or CD_ENOMEM. */
int check_judge_new_xid(struct report *r, const struct kmsg_events *before, const struct kmsg_events *after,
			const struct gpu_probe *gp);

#endif
