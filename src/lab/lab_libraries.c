/* libraries: square GEMMs in fp32, fp16 and bf16 (fp32 accumulate and output) by a naive
 * kernel, the shared-memory tiled kernel and cuBLAS, every result checked against exact
 * host values and against each other; FLOP/s against SMs x clock x kb/sm_flops.tsv. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kb/sm_flops.h"
#include "lab/gpu.h"
#include "driver/cublas.h"
#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { DT_F32, DT_F16, DT_BF16, NDT };
enum { V_NAIVE, V_TILED, V_BLAS, NV };
enum { MAXN = 4, SAMPLES = 64, MAXREPS = 20 };
static const char *const dt_name[NDT] = { "fp32", "fp16", "bf16" };
static const char *const dt_fn[NDT] = { "f32", "f16", "bf16" };
static const int dt_cuda[NDT] = { CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF };
static const char *const v_name[NV] = { "naive", "tiled", "cuBLAS" };
/* Every input has 8 significant bits, so each product is exact in fp32 and partial sums
 * (|s| < 2^8, multiples of 2^-16) stay exact: any difference is the variant's own
 * rounding. The tolerance, x sqrt(K), leaves the library room to reorder or to round
 * inside its tensor-core accumulation, while a wrong index (errors of order sqrt(K)/10)
 * stays far outside it. */
static const double dt_tol[NDT] = { 1e-5, 1e-3, 1e-3 };
/* The naive kernel takes seconds per 8192^3 product; it stops here. */
enum { NAIVE_MAX = 4096 };

/* Edges 1024 .. 8192 (quick: 1024, 4096) while A, B and three results fit in half the free
 * memory; 8192 only on GPUs with at least 64 SMs, where it takes well under a second. */
static size_t gemm_sizes(const struct lab_ctx *c, int *out)
{
	static const int full[] = { 1024, 2048, 4096, 8192 }, quick[] = { 1024, 4096 };
	const int *v = c->quick ? quick : full;
	size_t nv = c->quick ? 2 : 4, n = 0;
	size_t mem = c->info.free_mem ? c->info.free_mem : c->info.total_mem;
	if (c->tiny) {
		out[0] = 128;
		return 1;
	}
	for (size_t i = 0; i < nv; i++) {
		size_t e = (size_t)v[i];
		if (e * e * 4 * 5 > mem / 2 || (e > 4096 && c->info.sm_count < 64))
			continue;
		out[n++] = v[i];
	}
	return n;
}

static double host_value(uint64_t seed, uint64_t i)
{
	return (double)(lab_rand32(seed, i) >> 24) / 256.0 - 0.5;
}

struct gemm_run {
	CUfunction f;
	unsigned gx, gy, bx, by;
	CUdeviceptr A, B, C;
	int n;
	/* cuBLAS */
	struct cublas *b;
	cublasHandle_t h;
	int type;
	char blas_err[CD_ERRMSG];
};

static int kernel_body(struct lab_ctx *c, void *arg, char *err)
{
	struct gemm_run *g = arg;
	void *p[] = { &g->A, &g->B, &g->C, &g->n, &g->n, &g->n };
	return lab_launch(c, g->f, g->gx, g->gy, g->bx, g->by, 0, p, err);
}

/* Row-major C = A B is column-major C^T = B^T A^T: B goes first. */
static int blas_body(struct lab_ctx *c, void *arg, char *err)
{
	struct gemm_run *g = arg;
	float one = 1.0f, zero = 0.0f;
	(void)c;
	cublasStatus_t s = g->b->GemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &one, (const void *)g->B,
					g->type, g->n, (const void *)g->A, g->type, g->n, &zero, (void *)g->C,
					CUDA_R_32F, g->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	if (s != CUBLAS_STATUS_SUCCESS)
		return cd_fail(err, CD_EDRIVER, "cublasGemmEx: %s (%d)", cublas_status_name(s), s);
	return CD_OK;
}

/* Every rep enqueued between its own events, the SM clock read while the GPU is still busy
 * with them, then one wait: the clock the library actually ran at. */
static int time_busy(struct lab_ctx *c, lab_body_fn body, void *arg, int warm, int reps, double *ms, int *mhz,
		     char *err)
{
	int rc = CD_OK;
	CUevent ev[2 * MAXREPS] = { 0 };
	*mhz = 0;
	if (reps > MAXREPS)
		reps = MAXREPS;
	for (int i = 0; i < 2 * reps; i++)
		TRY(lab_cu(c, c->d->EventCreate(&ev[i], CU_EVENT_DEFAULT), "cuEventCreate", err));
	for (int i = 0; i < warm; i++)
		TRY(body(c, arg, err));
	for (int i = 0; i < reps; i++) {
		TRY(lab_cu(c, c->d->EventRecord(ev[2 * i], c->s), "cuEventRecord", err));
		TRY(body(c, arg, err));
		TRY(lab_cu(c, c->d->EventRecord(ev[2 * i + 1], c->s), "cuEventRecord", err));
	}
	if (c->sm_clock_mhz) {
		TRY(lab_cu(c, c->d->EventSynchronize(ev[reps]), "cuEventSynchronize", err)); /* mid-run */
		*mhz = c->sm_clock_mhz(c->clock_user);
	}
	TRY(lab_cu(c, c->d->EventSynchronize(ev[2 * reps - 1]), "cuEventSynchronize", err));
	for (int i = 0; i < reps; i++) {
		float t = 0;
		TRY(lab_cu(c, c->d->EventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]), "cuEventElapsedTime", err));
		ms[i] = t;
	}
out:
	for (int i = 0; i < 2 * MAXREPS; i++)
		if (ev[i])
			c->d->EventDestroy(ev[i]);
	return rc;
}

/* Compares x with y over n elements; bad and worst difference back to the host. */
static int compare(struct lab_ctx *c, CUfunction cmp, CUdeviceptr x, CUdeviceptr y, unsigned long long n, float tol,
		   CUdeviceptr scratch, unsigned long long *bad, float *worst, char *err)
{
	int rc = CD_OK;
	CUdeviceptr d_bad = scratch, d_max = scratch + 8;
	unsigned int bits = 0;
	TRY(lab_cu(c, c->d->MemsetD32(scratch, 0, 4), "cuMemsetD32", err));
	void *p[] = { &x, &y, &n, &tol, &d_bad, &d_max };
	TRY(lab_launch(c, cmp, lab_fill_grid(c, 4), 1, 256, 1, 0, p, err));
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(bad, d_bad, 8), "cuMemcpyDtoH", err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(&bits, d_max, 4), "cuMemcpyDtoH", err));
	memcpy(worst, &bits, 4);
out:
	return rc;
}

/* SAMPLES elements of C against the exact dot products the host computes in double. */
static int check_samples(struct lab_ctx *c, CUdeviceptr C, int n, uint64_t sa, uint64_t sb, double tol, int *bad,
			 double *worst, char *err)
{
	int rc = CD_OK;
	*bad = 0;
	*worst = 0;
	for (int s = 0; s < SAMPLES; s++) {
		uint64_t i = lab_rand32(c->seed ^ 0x5A3Full, (uint64_t)s) % (uint64_t)n;
		uint64_t j = lab_rand32(c->seed ^ 0x5A3Full, (uint64_t)s + SAMPLES) % (uint64_t)n;
		double want = 0;
		float got = 0;
		for (uint64_t k = 0; k < (uint64_t)n; k++)
			want += host_value(sa, i * (uint64_t)n + k) * host_value(sb, k * (uint64_t)n + j);
		TRY(lab_cu(c, c->d->MemcpyDtoH(&got, C + (i * (uint64_t)n + j) * 4, 4), "cuMemcpyDtoH", err));
		double d = fabs((double)got - want);
		if (!(d <= tol))
			(*bad)++;
		if (d > *worst || d != d)
			*worst = d;
	}
out:
	return rc;
}

static void setup_text(struct lab_result *r, const int *sizes, size_t ns, const char *blas)
{
	char list[64] = "";
	for (size_t i = 0; i < ns; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? ", " : "", sizes[i]);
	snprintf(r->setup, sizeof r->setup,
		 "C = A B, square n = %s; A, B in fp32, fp16 or bf16 (random k/256 - 1/2), fp32 accumulate and C; "
		 "naive (one thread per element, n <= %d), 32x32 shared-memory tiles, and %s (cublasGemmEx, "
		 "CUBLAS_COMPUTE_32F, default math); events around each run, median; %d sampled elements checked "
		 "against exact host sums and every element against the reference kernel",
		 list, NAIVE_MAX, blas, SAMPLES);
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK, sizes[MAXN];
	size_t ns = gemm_sizes(c, sizes);
	struct cublas b;
	cublasHandle_t h = NULL;
	char blas_err[CD_ERRMSG] = "", blas_desc[200] = "libcublas (not found)";
	CUdeviceptr A = 0, B = 0, Cv[NV] = { 0 }, scratch = 0;
	CUfunction cmp, fill[NDT], kern[NDT][2];
	struct lab_gemm_point pts[NDT];
	size_t npts = 0;
	int warm = c->quick ? 1 : 2, reps[NV] = { c->quick ? 2 : 3, c->quick ? 3 : 5, c->quick ? 10 : 20 };
	int clock_mhz = 0;

	memset(&b, 0, sizeof b);
	memset(pts, 0, sizeof pts);
	if (ns == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "no GEMM size fits this device's free memory");
	TRY(lab_fn(c, "lab_gemm_compare", &cmp, err));
	for (int d = 0; d < NDT; d++) {
		char name[48];
		snprintf(name, sizeof name, "lab_gemm_fill_%s", dt_fn[d]);
		TRY(lab_fn(c, name, &fill[d], err));
		snprintf(name, sizeof name, "lab_gemm_naive_%s", dt_fn[d]);
		TRY(lab_fn(c, name, &kern[d][V_NAIVE], err));
		snprintf(name, sizeof name, "lab_gemm_tiled_%s", dt_fn[d]);
		TRY(lab_fn(c, name, &kern[d][V_TILED], err));
	}
	if (!c->open_cublas)
		snprintf(blas_err, sizeof blas_err, "this run cannot look for libcublas");
	else if (c->open_cublas(c, &b, blas_err) == CD_OK) {
		cublasStatus_t s = b.Create(&h);
		int ver = 0;
		if (s != CUBLAS_STATUS_SUCCESS) {
			snprintf(blas_err, sizeof blas_err, "cublasCreate_v2 (%.120s): %s (%d)", b.lib.path, cublas_status_name(s),
				 s);
			h = NULL;
		} else if ((s = b.SetStream(h, c->s)) != CUBLAS_STATUS_SUCCESS ||
			   (s = b.SetMathMode(h, CUBLAS_DEFAULT_MATH)) != CUBLAS_STATUS_SUCCESS) {
			snprintf(blas_err, sizeof blas_err, "cublasSetStream/SetMathMode: %s (%d)", cublas_status_name(s), s);
		} else {
			b.GetVersion(h, &ver);
			snprintf(blas_desc, sizeof blas_desc, "cuBLAS %d.%d.%d (%.120s)", ver / 10000, ver / 100 % 100, ver % 100,
				 b.lib.path);
			lab_add(r, "", ver, "cuBLAS version (cublasGetVersion)");
		}
	}
	size_t top = (size_t)sizes[ns - 1];
	TRY(lab_alloc(c, &A, top * top * 4, err));
	TRY(lab_alloc(c, &B, top * top * 4, err));
	for (int v = 0; v < NV; v++)
		TRY(lab_alloc(c, &Cv[v], top * top * 4, err));
	TRY(lab_alloc(c, &scratch, 16, err));

	for (int d = 0; d < NDT; d++) {
		double peak = 0;
		struct kb_sm_flops kf;
		char kerr[CD_ERRMSG];
		bool have_peak = kb_sm_flops_find(c->info.cc_major * 10 + c->info.cc_minor, dt_name[d], &kf, kerr) == CD_OK;
		for (size_t si = 0; si < ns; si++) {
			int n = sizes[si];
			unsigned long long elems = (unsigned long long)n * (unsigned long long)n;
			uint64_t sa = c->seed ^ (0x6E33A0ull + (uint64_t)d), sb = c->seed ^ (0x6E33B0ull + (uint64_t)d);
			double tol = dt_tol[d] * sqrt((double)n), flops = 2.0 * n * (double)n * n, rate[NV] = { 0 };
			lab_progress(c, (double)(d * ns + si) / (double)(NDT * ns), "%s %d^3", dt_name[d], n);
			void *fa[] = { &A, &elems, &sa }, *fb[] = { &B, &elems, &sb };
			TRY(lab_launch(c, fill[d], lab_fill_grid(c, 4), 1, 256, 1, 0, fa, err));
			TRY(lab_launch(c, fill[d], lab_fill_grid(c, 4), 1, 256, 1, 0, fb, err));
			int ref = -1;
			for (int v = 0; v < NV; v++) {
				struct gemm_run g = { .A = A, .B = B, .C = Cv[v], .n = n, .b = &b, .h = h, .type = dt_cuda[d] };
				double ms[MAXREPS];
				int mhz = 0;
				if ((v == V_NAIVE && n > NAIVE_MAX) || (v == V_BLAS && (!h || blas_err[0])))
					continue;
				TRY(lab_cu(c, c->d->MemsetD32(Cv[v], 0xFFFFFFFFu, elems), "cuMemsetD32", err)); /* NaN */
				if (v == V_BLAS) {
					TRY(time_busy(c, blas_body, &g, warm + 1, reps[v], ms, &mhz, err));
					if (si == ns - 1 && mhz > 0)
						clock_mhz = mhz;
				} else {
					g.f = kern[d][v];
					g.bx = 32;
					g.by = v == V_NAIVE ? 8 : 32;
					g.gx = (unsigned)n / 32;
					g.gy = (unsigned)n / g.by;
					TRY(lab_time(c, kernel_body, &g, v == V_NAIVE ? 1 : warm, reps[v], ms, err));
				}
				TRY(lab_sync(c, err));
				/* verify before trusting the time */
				int sbad = 0;
				double sworst = 0;
				TRY(check_samples(c, Cv[v], n, sa, sb, tol, &sbad, &sworst, err));
				unsigned long long bad = 0;
				float worst = 0;
				if (ref >= 0)
					TRY(compare(c, cmp, Cv[v], Cv[ref], elems, (float)tol, scratch, &bad, &worst, err));
				if (sbad || bad) {
					r->wrong_result = true;
					snprintf(r->note, sizeof r->note,
						 "%s %s %d^3: %d of %d sampled elements off the exact sum (worst %.3g), %llu "
						 "elements differ from %s by more than %.3g (worst %.3g)",
						 v_name[v], dt_name[d], n, sbad, SAMPLES, sworst, bad, ref >= 0 ? v_name[ref] : "-",
						 tol, (double)worst);
					goto out;
				}
				if (ref < 0)
					ref = v;
				struct lab_stats st = lab_stats_of(ms, (size_t)reps[v]);
				rate[v] = st.median > 0 ? flops / (st.median * 1e-3) : 0;
				lab_add(r, "TFLOP/s", rate[v] / 1e12, "%s %d^3 %s", dt_name[d], n, v_name[v]);
				if (si == ns - 1)
					lab_add(r, "%", st.spread * 100, "%s %d^3 %s spread", dt_name[d], n, v_name[v]);
			}
			if (si != ns - 1)
				continue;
			/* peak at the clock the library ran at when NVML saw it, else at the driver's peak clock */
			int mhz = clock_mhz > 0 ? clock_mhz : c->info.clock_khz / 1000;
			if (have_peak) {
				peak = kf.flops_per_clk * c->info.sm_count * mhz * 1e6;
				lab_add(r, "TFLOP/s", peak / 1e12, "%s peak (%d SMs x %d MHz x %.0f %s)", dt_name[d],
					c->info.sm_count, mhz, kf.flops_per_clk, kf.unit);
				if (clock_mhz > 0 && c->info.clock_khz > 0)
					lab_add(r, "TFLOP/s", kf.flops_per_clk * c->info.sm_count * c->info.clock_khz * 1e3 / 1e12,
						"%s peak at the %d MHz peak clock", dt_name[d], c->info.clock_khz / 1000);
			}
			struct lab_gemm_point *p = &pts[npts++];
			snprintf(p->dtype, sizeof p->dtype, "%s", dt_name[d]);
			p->n = n;
			p->naive = rate[V_NAIVE];
			p->tiled = rate[V_TILED];
			p->library = rate[V_BLAS];
			p->peak = peak;
			for (int v = 0; v < NV; v++) {
				char label[16];
				snprintf(label, sizeof label, "%s %s", dt_name[d], v == V_BLAS ? "cuBLAS" : v_name[v]);
				if (rate[v] > 0)
					lab_plot_bar(&r->plot, label, rate[v] / 1e12);
			}
		}
	}
	if (clock_mhz > 0)
		lab_add(r, "MHz", clock_mhz, "SM clock while cuBLAS ran (NVML)");
	if (blas_err[0])
		snprintf(r->note, sizeof r->note,
			 "cuBLAS was not used: %s. Install it (pip install nvidia-cublas-cu12, or the CUDA toolkit) or "
			 "point CUDOCTOR_LIBCUBLAS at a libcublas.so",
			 blas_err);
	setup_text(r, sizes, ns, blas_desc);
	r->plot.logy = true;
	snprintf(r->plot.title, sizeof r->plot.title, "GEMM at %d^3: hand-written kernels vs cuBLAS", sizes[ns - 1]);
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "TFLOP/s (median)");
	judge_libraries(r, pts, npts, blas_err);
out:
	lab_free(c, &A);
	lab_free(c, &B);
	for (int v = 0; v < NV; v++)
		lab_free(c, &Cv[v]);
	lab_free(c, &scratch);
	if (h)
		b.Destroy(h);
	cublas_unload(&b);
	return rc;
}

const struct lab lab_libraries = {
	.name = "libraries",
	.concept = "libraries: cuBLAS against hand-written kernels",
	.measures = "GEMM TFLOP/s in fp32, fp16, bf16: naive, shared-memory tiled, cuBLAS, vs peak from SMs x clock",
	.claim = "an optimised library beats a hand-written kernel: cuBLAS runs GEMM at least 1.5x faster than a "
		 "naive or shared-memory tiled kernel, near the GPU's peak FLOP/s (>= 70% at 8192^3)",
	.lesson = "Call cuBLAS (or cuBLASLt, CUTLASS) for matrix products: tensor cores, register tiling and "
		  "asynchronous copies are what the peak takes, and a textbook tiled kernel has none of them.",
	.run = run,
};
