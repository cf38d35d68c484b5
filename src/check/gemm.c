/* check's GEMM stress on one GPU: cuBLAS in the GPU's fastest GemmEx type or a type --gemm names, every result
 * compared on the GPU with the first, rate per batch and NVML sampled while batches run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/load.h"
#include "driver/cublas.h"
#include "kb/sm_flops.h"
#include "lab/gpu.h"
#include "lab/stats.h"
#include "util/err.h"

#define BATCH 16
/* the sustained rate: the median of the last batches, once the GPU has warmed up */
#define LAST_BATCHES 256
#define TOLERANCE 1e-3f

const struct check_gemm_type check_gemm_types[CHECK_GEMM_TYPES] = {
	{ "bf16", CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4, "lab_gemm_fill_bf16", "lab_gemm_compare", 80 },
	{ "fp16", CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4, "lab_gemm_fill_f16", "lab_gemm_compare", 53 },
	/* fp32 inputs rounded to TF32 on the tensor cores: the inputs' 8 significant bits survive */
	{ "tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, "lab_gemm_fill_f32", "lab_gemm_compare", 80 },
	{ "fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, "lab_gemm_fill_f32", "lab_gemm_compare", 0 },
	{ "fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8, "lab_gemm_fill_f64", "lab_gemm_compare_f64", 0 },
};

const struct check_gemm_type *check_gemm_type_named(const char *name)
{
	for (size_t i = 0; i < CHECK_GEMM_TYPES; i++)
		if (strcmp(check_gemm_types[i].name, name) == 0)
			return &check_gemm_types[i];
	return NULL;
}

int check_gemm_types_parse(const char *list, unsigned *set, char *err)
{
	const char *p = list;

	*set = 0;
	if (strcmp(list, "all") == 0) {
		*set = (1u << CHECK_GEMM_TYPES) - 1;
		return CD_OK;
	}
	for (;;) {
		size_t k = strcspn(p, ",");
		char word[8];
		const struct check_gemm_type *t = NULL;

		if (k > 0 && k < sizeof word) {
			memcpy(word, p, k);
			word[k] = 0;
			t = check_gemm_type_named(word);
		}
		if (!t)
			return cd_fail(err, CD_EUSAGE, "--gemm: '%.*s' is not a type (bf16, fp16, tf32, fp32, fp64 or all)",
				       (int)(k < 40 ? k : 40), p);
		*set |= 1u << (t - check_gemm_types);
		if (!p[k])
			return CD_OK;
		p += k + 1;
	}
}

const char *check_gemm_dtype(int cc_major, int *type)
{
	if (cc_major >= 8) {
		*type = CUDA_R_16BF;
		return "bf16";
	}
	if (cc_major >= 7) {
		*type = CUDA_R_16F;
		return "fp16";
	}
	*type = CUDA_R_32F;
	return "fp32";
}

static int gemm(struct cublas *b, cublasHandle_t h, int n, const struct check_gemm_type *t, CUdeviceptr A, CUdeviceptr B,
		CUdeviceptr C, char *err)
{
	float one = 1.0f, zero = 0.0f;
	double one_d = 1.0, zero_d = 0.0;
	bool dbl = t->compute == CUBLAS_COMPUTE_64F; /* alpha and beta in the compute type */
	/* row-major C = A B is column-major C^T = B^T A^T: B goes first */
	cublasStatus_t s = b->GemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, dbl ? (const void *)&one_d : (const void *)&one,
				     (const void *)B, t->in_type, n, (const void *)A, t->in_type, n,
				     dbl ? (const void *)&zero_d : (const void *)&zero, (void *)C, t->out_type, n, t->compute,
				     CUBLAS_GEMM_DEFAULT);
	if (s != CUBLAS_STATUS_SUCCESS)
		return cd_fail(err, CD_EDRIVER, "cublasGemmEx: %s (%d)", cublas_status_name(s), s);
	return CD_OK;
}

/* g's type, its peak from kb/sm_flops.tsv and the size: o->n, halved until one GEMM takes at
 * most a tenth of a second at the peak (at 1.5 GHz, the clock not known yet), since FP64 on a
 * GeForce card runs at 1/64 of FP32 */
static const struct check_gemm_type *gemm_setup(const struct lab_ctx *c, const struct check_gemm_opts *o,
						struct check_gemm_result *g)
{
	const struct check_gemm_type *t = o->type;
	struct kb_sm_flops kf;
	char kerr[CD_ERRMSG];
	int type;

	memset(g, 0, sizeof *g);
	if (!t)
		t = check_gemm_type_named(check_gemm_dtype(c->info.cc_major, &type));
	snprintf(g->dtype, sizeof g->dtype, "%s", t->name);
	g->n = o->n;
	g->sm_count = c->info.sm_count;
	if (kb_sm_flops_find(c->info.cc_major * 10 + c->info.cc_minor, g->dtype, &kf, kerr) == CD_OK)
		g->flops_per_clk_sm = kf.flops_per_clk;
	if (g->flops_per_clk_sm > 0 && g->sm_count > 0)
		while (g->n > 1024 && 2.0 * g->n * (double)g->n * g->n / (g->flops_per_clk_sm * g->sm_count * 1.5e9) > 0.1)
			g->n /= 2;
	return t;
}

/* the clock the GEMMs ran at: the median of this stress's last samples (one per batch) from
 * first on; 0 unknown */
static double gemm_clock(const struct check_samples *sm, size_t first)
{
	double mhz[LAST_BATCHES];
	size_t k = 0;

	if (!sm)
		return 0;
	if (sm->n > first + LAST_BATCHES)
		first = sm->n - LAST_BATCHES;
	for (size_t i = first; i < sm->n; i++)
		if (sm->s[i].sm_mhz > 0)
			mhz[k++] = sm->s[i].sm_mhz;
	return k ? lab_stats_of(mhz, k).median : 0;
}

/* A and B from the seed, the inputs every GEMM of the stress multiplies */
static int gemm_fill(struct lab_ctx *c, CUfunction fill, CUdeviceptr A, CUdeviceptr B, size_t elems, char *err)
{
	unsigned long long n64 = elems, seed_a = c->seed, seed_b = c->seed ^ 0x5bd1e995ull;
	void *pa[] = { &A, &n64, &seed_a }, *pb[] = { &B, &n64, &seed_b };
	int rc;

	if ((rc = lab_launch(c, fill, lab_fill_grid(c, 8), 1, 256, 1, 0, pa, err)) != CD_OK)
		return rc;
	return lab_launch(c, fill, lab_fill_grid(c, 8), 1, 256, 1, 0, pb, err);
}

int check_gemm(struct lab_ctx *c, struct cublas *b, const struct check_gemm_opts *o, struct check_gemm_result *g,
	       struct check_gemm_run *run, char *err)
{
	CUdeviceptr A = 0, B = 0, C = 0, R = 0, bad = 0, worst = 0;
	CUevent ev[2 * BATCH] = { 0 };
	cublasHandle_t h = NULL;
	CUfunction ffill, fcmp;
	double *rates = NULL, t0, flop;
	unsigned long long hbad[BATCH];
	unsigned hworst[BATCH];
	size_t in_elems, first_sample = o->samples ? o->samples->n : 0;
	const struct check_gemm_type *t = gemm_setup(c, o, g);
	int rc = CD_OK;
	cublasStatus_t s;

	memset(run, 0, sizeof *run);
	in_elems = (size_t)g->n * (size_t)g->n;
	flop = 2.0 * g->n * (double)g->n * g->n;

	if (!(rates = calloc(LAST_BATCHES, sizeof *rates))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	TRY(lab_fn(c, t->fill, &ffill, err));
	TRY(lab_fn(c, t->compare, &fcmp, err));
	TRY(lab_alloc(c, &A, in_elems * t->in_size, err));
	TRY(lab_alloc(c, &B, in_elems * t->in_size, err));
	TRY(lab_alloc(c, &C, in_elems * t->out_size, err));
	TRY(lab_alloc(c, &R, in_elems * t->out_size, err));
	TRY(lab_alloc(c, &bad, sizeof hbad, err));
	TRY(lab_alloc(c, &worst, sizeof hworst, err));
	for (int i = 0; i < 2 * BATCH; i++)
		TRY(lab_cu(c, c->d->EventCreate(&ev[i], CU_EVENT_DEFAULT), "cuEventCreate", err));
	TRY(gemm_fill(c, ffill, A, B, in_elems, err));
	if ((s = b->Create(&h)) != CUBLAS_STATUS_SUCCESS) {
		h = NULL;
		rc = cd_fail(err, CD_EDRIVER, "cublasCreate: %s (%d)", cublas_status_name(s), s);
		goto out;
	}
	if ((s = b->SetStream(h, c->s)) != CUBLAS_STATUS_SUCCESS || (s = b->SetMathMode(h, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS) {
		rc = cd_fail(err, CD_EDRIVER, "cublasSetStream/SetMathMode: %s (%d)", cublas_status_name(s), s);
		goto out;
	}
	/* the reference: the first result, before the GPU has warmed up */
	TRY(gemm(b, h, g->n, t, A, B, R, err));
	TRY(lab_sync(c, err));

	t0 = lab_now_s();
	do {
		unsigned long long n64 = in_elems;
		float tol = TOLERANCE;
		double ms_sum = 0;

		TRY(lab_cu(c, c->d->MemsetD8(bad, 0, sizeof hbad), "cuMemsetD8", err));
		TRY(lab_cu(c, c->d->MemsetD8(worst, 0, sizeof hworst), "cuMemsetD8", err));
		for (int i = 0; i < BATCH; i++) {
			CUdeviceptr bi = bad + i * sizeof hbad[0], wi = worst + i * sizeof hworst[0];
			void *pc[] = { &C, &R, &n64, &tol, &bi, &wi };
			TRY(lab_cu(c, c->d->EventRecord(ev[2 * i], c->s), "cuEventRecord", err));
			TRY(gemm(b, h, g->n, t, A, B, C, err));
			TRY(lab_cu(c, c->d->EventRecord(ev[2 * i + 1], c->s), "cuEventRecord", err));
			/* stream order: the next GEMM overwrites C only after this compare read it */
			TRY(lab_launch(c, fcmp, lab_fill_grid(c, 8), 1, 256, 1, 0, pc, err));
		}
		check_samples_add(o->samples);
		TRY(lab_sync(c, err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(hbad, bad, sizeof hbad), "cuMemcpyDtoH", err));
		TRY(lab_cu(c, c->d->MemcpyDtoH(hworst, worst, sizeof hworst), "cuMemcpyDtoH", err));
		for (int i = 0; i < BATCH; i++) {
			float ms = 0, w;
			TRY(lab_cu(c, c->d->EventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]), "cuEventElapsedTime", err));
			ms_sum += ms;
			g->mismatches += hbad[i] != 0;
			memcpy(&w, &hworst[i], sizeof w);
			if (w > g->worst_diff)
				g->worst_diff = w;
		}
		g->gemms += BATCH;
		double rate = ms_sum > 0 ? BATCH * flop / (ms_sum * 1e-3) : 0;
		if (run->batches == 0)
			run->first_flops = rate;
		run->last_flops = rate;
		rates[run->batches % LAST_BATCHES] = rate;
		check_samples_gemm(o->samples, rate);
		run->batches++;
	} while (lab_now_s() - t0 < o->seconds);
	run->seconds = lab_now_s() - t0;
	g->flops = lab_stats_of(rates, run->batches < LAST_BATCHES ? run->batches : LAST_BATCHES).median;
	g->sm_mhz = gemm_clock(o->samples, first_sample);
out:
	if (h)
		b->Destroy(h);
	for (int i = 0; i < 2 * BATCH; i++)
		if (ev[i])
			c->d->EventDestroy(ev[i]);
	lab_free(c, &A);
	lab_free(c, &B);
	lab_free(c, &C);
	lab_free(c, &R);
	lab_free(c, &bad);
	lab_free(c, &worst);
	free(rates);
	return rc;
}
