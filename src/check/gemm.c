/* check's GEMM stress on one GPU: cuBLAS in the GPU's fastest GemmEx type, every result
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

static int gemm(struct cublas *b, cublasHandle_t h, int n, int type, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C,
		char *err)
{
	float one = 1.0f, zero = 0.0f;
	/* row-major C = A B is column-major C^T = B^T A^T: B goes first */
	cublasStatus_t s = b->GemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const void *)B, type, n, (const void *)A,
				     type, n, &zero, (void *)C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	if (s != CUBLAS_STATUS_SUCCESS)
		return cd_fail(err, CD_EDRIVER, "cublasGemmEx: %s (%d)", cublas_status_name(s), s);
	return CD_OK;
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
	size_t in_elems, elem, first_sample = o->samples ? o->samples->n : 0;
	int type, rc = CD_OK;
	cublasStatus_t s;
	struct kb_sm_flops kf;
	char kerr[CD_ERRMSG];

	memset(g, 0, sizeof *g);
	memset(run, 0, sizeof *run);
	snprintf(g->dtype, sizeof g->dtype, "%s", check_gemm_dtype(c->info.cc_major, &type));
	g->n = o->n;
	g->sm_count = c->info.sm_count;
	if (kb_sm_flops_find(c->info.cc_major * 10 + c->info.cc_minor, g->dtype, &kf, kerr) == CD_OK)
		g->flops_per_clk_sm = kf.flops_per_clk;
	elem = type == CUDA_R_32F ? 4 : 2;
	in_elems = (size_t)o->n * (size_t)o->n;
	flop = 2.0 * o->n * (double)o->n * o->n;

	if (!(rates = calloc(LAST_BATCHES, sizeof *rates))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	TRY(lab_fn(c, type == CUDA_R_16BF ? "lab_gemm_fill_bf16" : type == CUDA_R_16F ? "lab_gemm_fill_f16" : "lab_gemm_fill_f32",
		   &ffill, err));
	TRY(lab_fn(c, "lab_gemm_compare", &fcmp, err));
	TRY(lab_alloc(c, &A, in_elems * elem, err));
	TRY(lab_alloc(c, &B, in_elems * elem, err));
	TRY(lab_alloc(c, &C, in_elems * 4, err));
	TRY(lab_alloc(c, &R, in_elems * 4, err));
	TRY(lab_alloc(c, &bad, sizeof hbad, err));
	TRY(lab_alloc(c, &worst, sizeof hworst, err));
	for (int i = 0; i < 2 * BATCH; i++)
		TRY(lab_cu(c, c->d->EventCreate(&ev[i], CU_EVENT_DEFAULT), "cuEventCreate", err));
	{
		unsigned long long n64 = in_elems, seed_a = c->seed, seed_b = c->seed ^ 0x5bd1e995ull;
		void *pa[] = { &A, &n64, &seed_a }, *pb[] = { &B, &n64, &seed_b };
		TRY(lab_launch(c, ffill, lab_fill_grid(c, 8), 1, 256, 1, 0, pa, err));
		TRY(lab_launch(c, ffill, lab_fill_grid(c, 8), 1, 256, 1, 0, pb, err));
	}
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
	TRY(gemm(b, h, o->n, type, A, B, R, err));
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
			TRY(gemm(b, h, o->n, type, A, B, C, err));
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
	if (o->samples) {
		double mhz[LAST_BATCHES];
		size_t k = 0;
		/* the clock the GEMMs ran at: this stress's last samples (one per batch) */
		if (o->samples->n > first_sample + LAST_BATCHES)
			first_sample = o->samples->n - LAST_BATCHES;
		for (size_t i = first_sample; i < o->samples->n; i++)
			if (o->samples->s[i].sm_mhz > 0)
				mhz[k++] = o->samples->s[i].sm_mhz;
		g->sm_mhz = k ? lab_stats_of(mhz, k).median : 0;
	}
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
