/* check's load tests on one GPU, run through the lab's layer (lab/gpu.h) on a context the
 * command opened: what each measures goes into check/judge.h's structs for the judges. */
#ifndef CUDOCTOR_CHECK_LOAD_H
#define CUDOCTOR_CHECK_LOAD_H

#include <stdbool.h>

#include "check/judge.h"
#include "lab/lab.h"
#include "lab/nvml_dev.h"

/* NVML samples taken while the load runs (at most CHECK_MAX_SAMPLES; later ones are dropped) */
#define CHECK_MAX_SAMPLES 4096
struct check_samples {
	const struct lab_nvml *nv;  /* the GPU's NVML device; samples are empty without one */
	double t0;                  /* lab_now_s() when the load started */
	size_t n;
	struct check_sample s[CHECK_MAX_SAMPLES];
	/* called at every offer, sampled or not (NULL: none): the command's progress line */
	void (*tick)(void *user);
	void *tick_user;
};
/* Reads v now into s; fields NVML does not give stay -1. */
void check_sample_take(const struct lab_nvml *v, double t_s, struct check_sample *s);
/* Appends a reading to sm (NULL: nothing) unless the last is under CHECK_SAMPLE_EVERY_S old
 * or sm is full: at most 10 a second, so a 5-minute run fits. */
#define CHECK_SAMPLE_EVERY_S 0.1
void check_samples_add(struct check_samples *sm);

/* Gives the newest sample the rate of the GEMM batch it was taken during (known once the
 * batch is done); NULL or no sample: nothing. */
void check_samples_gemm(struct check_samples *sm, double flops);

/* One GPU's samples as the report keeps them and its charts draw them: the time they span cut
 * in CHECK_TIMELINE_POINTS equal parts, a point per part that holds samples, each value the
 * mean of the part's known ones (NaN when none is known). */
#define CHECK_TIMELINE_POINTS 80
struct check_timeline {
	size_t n;
	double t_s[CHECK_TIMELINE_POINTS], sm_mhz[CHECK_TIMELINE_POINTS], temperature_c[CHECK_TIMELINE_POINTS],
		power_w[CHECK_TIMELINE_POINTS], gemm_flops[CHECK_TIMELINE_POINTS];
};
void check_timeline_make(const struct check_sample *s, size_t n, struct check_timeline *tl);

struct check_mem_opts {
	double seconds;          /* passes repeat until this is spent; at least one pass */
	bool inject;             /* CUDOCTOR_CHECK_INJECT=bitflip: flip bits between write and verify */
	unsigned long long seed;
	struct check_samples *samples; /* offered one per pattern while its kernels run; NULL: none */
};

/* What the memory test measured beside its result. */
struct check_mem_run {
	unsigned chunks;         /* allocations the tested range is made of */
	unsigned passes;         /* every pattern over every chunk */
	double seconds;
	double bytes_per_s;      /* written plus read back, over the passes */
	unsigned injected;       /* bit flips the test put in (0 unless inject) */
};

/* Writes and verifies every pattern over most of the free memory (all of it but a 5%, at
 * least 512 MiB, reserve), in 1 GiB chunks (fewer when an allocation fails). CD_OK with m
 * and run filled; a driver error as lab_cu gives it (err names the call). */
int check_memtest(struct lab_ctx *c, const struct check_mem_opts *o, struct check_mem_result *m,
		  struct check_mem_run *run, char *err);

struct cublas;

/* A type the GEMM stress multiplies in: cuBLAS's input, output and compute types, the kernels
 * that fill its inputs and compare its results, and the compute capability it needs. */
struct check_gemm_type {
	const char *name;        /* "bf16" ...: also kb/sm_flops.tsv's dtype */
	int in_type, out_type, compute;
	unsigned in_size, out_size;
	const char *fill, *compare;
	int min_cc;              /* 10 * major + minor */
};

#define CHECK_GEMM_TYPES 5
/* bf16, fp16, tf32, fp32, fp64: fastest first on a GPU with tensor cores */
extern const struct check_gemm_type check_gemm_types[CHECK_GEMM_TYPES];
const struct check_gemm_type *check_gemm_type_named(const char *name);

/* The types --gemm names, in check_gemm_types' order, as a bit set: "all" (every type),
 * or names joined by commas. CD_OK; CD_EUSAGE naming the word it does not know. */
int check_gemm_types_parse(const char *list, unsigned *set, char *err);

struct check_gemm_opts {
	double seconds;          /* batches repeat until this is spent; at least one */
	int n;                   /* n x n x n at most: smaller where the type's peak on this GPU would
				  * make one GEMM last past a tenth of a second */
	const struct check_gemm_type *type; /* NULL: check_gemm_dtype's */
	struct check_samples *samples; /* offered one per batch while it runs; NULL: none */
};

/* What the GEMM stress measured beside its result. */
struct check_gemm_run {
	unsigned batches;
	double seconds;
	double first_flops, last_flops; /* the first and the last batch's rate: the drift under heat */
};

/* The type the GPU multiplies fastest through cublasGemmEx: bf16 from compute capability 8.0,
 * fp16 from 7.0, else fp32; its CUDA data type in *type. */
const char *check_gemm_dtype(int cc_major, int *type);

/* C = A B with cuBLAS (b, loaded) in o->type (fp32 accumulation, fp64 for fp64), the first
 * result kept as the reference and every later one compared with it element by element on
 * the GPU (lab_gemm_compare: a difference above 1e-3 counts); each batch's GEMMs timed one by
 * one between events, its rate the batch's FLOP over their summed time. g is filled with the
 * median rate of the last 256 batches and the median SM clock of their samples; flops_per_clk_sm from
 * kb/sm_flops.tsv (0 when the table has no row). CD_OK, or the failed call in err. */
int check_gemm(struct lab_ctx *c, struct cublas *b, const struct check_gemm_opts *o, struct check_gemm_result *g,
	       struct check_gemm_run *run, char *err);

#endif
