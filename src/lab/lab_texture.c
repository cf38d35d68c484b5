/* texture: a 5-point stencil and a rotated bilinear sample over a 2-D float image, each
 * through plain global loads, the read-only path (__ldg) and a texture object over a CUDA
 * array; every output checked against the host's values and the paths against each other. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/gpu.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/stats.h"
#include "util/err.h"

enum { W_STENCIL, W_BILINEAR, NW };
enum { P_PLAIN, P_LDG, P_TEX, NP };
enum { SAMPLES = 256, MAXREPS = 16, BX = 32, BY = 8 };
static const char *const w_name[NW] = { "stencil", "bilinear" };
static const char *const p_name[NP] = { "plain", "ldg", "texture" };
static const char *const kfn[NW][NP] = {
	{ "lab_tex_stencil_plain", "lab_tex_stencil_ldg", "lab_tex_stencil_tex" },
	{ "lab_tex_bilinear_plain", "lab_tex_bilinear_ldg", "lab_tex_bilinear_tex" },
};
/* The texture unit's linear filter weighs with 8 fractional bits (the programming guide's
 * texture fetching appendix): up to 2^-8 of a neighbour difference (< 1 here) per axis.
 * The rotated coordinates carry float rounding of up to ~1e-3 texel at 8192 pixels, which
 * moves a bilinear value by as much; a wrong index moves it by ~0.3. */
static const double tol_tex_linear = 0.01, tol_bilinear = 0.002, tol_exact = 2e-6;
#define ROT_DEG 30.0

static float host_in(uint64_t seed, uint64_t i)
{
	return 1.0f + (float)(lab_rand32(seed, i) >> 8) * (1.0f / 16777216.0f);
}

static int clampi(int v, int hi)
{
	return v < 0 ? 0 : v > hi ? hi : v;
}

static double expect(int work, uint64_t seed, int w, int h, int x, int y, float ca, float sa)
{
	if (work == W_STENCIL) {
		double c = host_in(seed, (uint64_t)y * w + x), n = host_in(seed, (uint64_t)clampi(y - 1, h - 1) * w + x);
		double s = host_in(seed, (uint64_t)clampi(y + 1, h - 1) * w + x);
		double e = host_in(seed, (uint64_t)y * w + clampi(x + 1, w - 1));
		double wv = host_in(seed, (uint64_t)y * w + clampi(x - 1, w - 1));
		return 0.5 * c + 0.125 * (n + s + e + wv);
	}
	double dx = x + 0.5 - 0.5 * w, dy = y + 0.5 - 0.5 * h;
	double u = 0.5 * w + dx * ca - dy * sa, v = 0.5 * h + dx * sa + dy * ca;
	double bx = u - 0.5, by = v - 0.5, fx0 = floor(bx), fy0 = floor(by), fx = bx - fx0, fy = by - fy0;
	int x0 = clampi((int)fx0, w - 1), x1 = clampi((int)fx0 + 1, w - 1);
	int y0 = clampi((int)fy0, h - 1), y1 = clampi((int)fy0 + 1, h - 1);
	double t00 = host_in(seed, (uint64_t)y0 * w + x0), t10 = host_in(seed, (uint64_t)y0 * w + x1);
	double t01 = host_in(seed, (uint64_t)y1 * w + x0), t11 = host_in(seed, (uint64_t)y1 * w + x1);
	double top = t00 + fx * (t10 - t00), bot = t01 + fx * (t11 - t01);
	return top + fy * (bot - top);
}

struct tex_run {
	CUfunction f;
	unsigned gx, gy;
	void **params;
};

static int body(struct lab_ctx *c, void *arg, char *err)
{
	struct tex_run *t = arg;
	return lab_launch(c, t->f, t->gx, t->gy, BX, BY, 0, t->params, err);
}

static int make_tex(struct lab_ctx *c, CUarray arr, int filter, CUtexObject *t, char *err)
{
	CUDA_RESOURCE_DESC rd;
	CUDA_TEXTURE_DESC td;
	memset(&rd, 0, sizeof rd);
	memset(&td, 0, sizeof td);
	rd.resType = CU_RESOURCE_TYPE_ARRAY;
	rd.res.array.hArray = arr;
	td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
	td.filterMode = filter;
	return lab_cu(c, c->d->TexObjectCreate(t, &rd, &td, NULL), "cuTexObjectCreate", err);
}

/* SAMPLES pixels of out against the host's values: bad count and worst difference */
static int check_samples(struct lab_ctx *c, int work, CUdeviceptr out, uint64_t seed, int w, int h, float ca,
			 float sa, double tol, int *bad, double *worst, char *err)
{
	int rc = CD_OK;
	*bad = 0;
	*worst = 0;
	for (int s = 0; s < SAMPLES; s++) {
		/* the corners first: edges are where clamping differs */
		int x = s < 4 ? (s & 1) * (w - 1) : (int)(lab_rand32(c->seed ^ 0x7E57ull, (uint64_t)s) % (uint64_t)w);
		int y = s < 4 ? (s >> 1) * (h - 1) : (int)(lab_rand32(c->seed ^ 0x7E58ull, (uint64_t)s) % (uint64_t)h);
		float got = 0;
		TRY(lab_cu(c, c->d->MemcpyDtoH(&got, out + ((uint64_t)y * w + x) * 4, 4), "cuMemcpyDtoH", err));
		double d = fabs((double)got - expect(work, seed, w, h, x, y, ca, sa));
		if (!(d <= tol))
			(*bad)++;
		if (!(d <= *worst))
			*worst = d;
	}
out:
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	int side = c->tiny ? 256 : c->quick ? 4096 : 8192;
	size_t mem = c->info.free_mem ? c->info.free_mem : c->info.total_mem;
	while (side > 256 && (size_t)side * side * 4 * 6 > mem / 2)
		side /= 2;
	int w = side, h = side, reps = c->tiny ? 1 : c->quick ? 5 : 10;
	unsigned long long px = (unsigned long long)w * h;
	uint64_t seed = c->seed ^ 0x7E7ull;
	float ca = (float)cos(ROT_DEG * M_PI / 180), sa = (float)sin(ROT_DEG * M_PI / 180);
	CUdeviceptr in = 0, out[NP] = { 0 }, scratch = 0;
	CUarray arr = NULL;
	CUtexObject tex_point = 0, tex_linear = 0;
	CUfunction fill, cmp, f[NW][NP];
	struct lab_tex_point pts[NW];
	double ms[MAXREPS];

	memset(pts, 0, sizeof pts);
	TRY(lab_fn(c, "lab_tex_fill", &fill, err));
	TRY(lab_fn(c, "lab_gemm_compare", &cmp, err));
	for (int k = 0; k < NW; k++)
		for (int p = 0; p < NP; p++)
			TRY(lab_fn(c, kfn[k][p], &f[k][p], err));
	TRY(lab_alloc(c, &in, px * 4, err));
	for (int p = 0; p < NP; p++)
		TRY(lab_alloc(c, &out[p], px * 4, err));
	TRY(lab_alloc(c, &scratch, 16, err));
	void *fp[] = { &in, &px, &seed };
	TRY(lab_launch(c, fill, lab_fill_grid(c, 4), 1, 256, 1, 0, fp, err));
	TRY(lab_sync(c, err));
	CUDA_ARRAY_DESCRIPTOR ad = { .Width = (size_t)w, .Height = (size_t)h, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1 };
	TRY(lab_cu(c, c->d->ArrayCreate(&arr, &ad), "cuArrayCreate", err));
	CUDA_MEMCPY2D cp;
	memset(&cp, 0, sizeof cp);
	cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	cp.srcDevice = in;
	cp.srcPitch = (size_t)w * 4;
	cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	cp.dstArray = arr;
	cp.WidthInBytes = (size_t)w * 4;
	cp.Height = (size_t)h;
	TRY(lab_cu(c, c->d->Memcpy2D(&cp), "cuMemcpy2D", err));
	TRY(make_tex(c, arr, CU_TR_FILTER_MODE_POINT, &tex_point, err));
	TRY(make_tex(c, arr, CU_TR_FILTER_MODE_LINEAR, &tex_linear, err));

	struct tex_run t = { .gx = (unsigned)(w + BX - 1) / BX, .gy = (unsigned)(h + BY - 1) / BY };
	for (int k = 0; k < NW; k++) {
		snprintf(pts[k].work, sizeof pts[k].work, "%s", w_name[k]);
		for (int p = 0; p < NP; p++) {
			lab_progress(c, (double)(k * NP + p) / (NW * NP), "%s %s", w_name[k], p_name[p]);
			CUtexObject *tx = k == W_STENCIL ? &tex_point : &tex_linear;
			void *pg[] = { &in, &out[p], &w, &h, &ca, &sa };
			void *pt[] = { tx, &out[p], &w, &h, &ca, &sa };
			t.f = f[k][p];
			t.params = p == P_TEX ? pt : pg;
			TRY(lab_cu(c, c->d->MemsetD32(out[p], 0xFFFFFFFFu, px), "cuMemsetD32", err)); /* NaN */
			TRY(lab_time(c, body, &t, 2, reps, ms, err));
			TRY(lab_sync(c, err));
			double tol = k == W_STENCIL ? tol_exact : p == P_TEX ? tol_tex_linear : tol_bilinear;
			int bad = 0;
			double worst = 0;
			TRY(check_samples(c, k, out[p], seed, w, h, ca, sa, tol, &bad, &worst, err));
			unsigned long long nbad = 0;
			unsigned bits = 0;
			if (p > P_PLAIN) {
				/* every pixel against the plain path */
				float ftol = (float)tol;
				CUdeviceptr d_bad = scratch, d_max = scratch + 8;
				TRY(lab_cu(c, c->d->MemsetD32(scratch, 0, 4), "cuMemsetD32", err));
				void *cpar[] = { &out[p], &out[P_PLAIN], &px, &ftol, &d_bad, &d_max };
				TRY(lab_launch(c, cmp, lab_fill_grid(c, 4), 1, 256, 1, 0, cpar, err));
				TRY(lab_sync(c, err));
				TRY(lab_cu(c, c->d->MemcpyDtoH(&nbad, d_bad, 8), "cuMemcpyDtoH", err));
				TRY(lab_cu(c, c->d->MemcpyDtoH(&bits, d_max, 4), "cuMemcpyDtoH", err));
			}
			if (bad || nbad) {
				float fw;
				memcpy(&fw, &bits, 4);
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note,
					 "%s %s: %d of %d sampled pixels off the host's value by more than %.3g (worst %.3g); "
					 "%llu pixels differ from the plain path (worst %.3g)",
					 w_name[k], p_name[p], bad, SAMPLES, tol, worst, nbad, (double)fw);
				goto out;
			}
			struct lab_stats st = lab_stats_of(ms, (size_t)reps);
			double gpix = st.median > 0 ? (double)px / (st.median * 1e-3) / 1e9 : 0;
			*(p == P_PLAIN ? &pts[k].plain : p == P_LDG ? &pts[k].ldg : &pts[k].tex) = st.median;
			lab_add(r, "Gpixel/s", gpix, "%s, %s", w_name[k], p_name[p]);
			lab_add(r, "%", st.spread * 100, "%s, %s spread", w_name[k], p_name[p]);
			char label[16];
			snprintf(label, sizeof label, "%s %s", k == W_STENCIL ? "stencil" : "bilin.", p == P_TEX ? "tex" : p_name[p]);
			lab_plot_bar(&r->plot, label, gpix);
		}
	}
	int mhz = c->sm_clock_mhz ? c->sm_clock_mhz(c->clock_user) : 0;
	if (mhz > 0)
		lab_add(r, "MHz", mhz, "SM clock NVML reports after the run");
	snprintf(r->setup, sizeof r->setup,
		 "%dx%d random floats (%llu MiB); 5-point stencil (clamped edges) and a bilinear sample of the image "
		 "rotated %.0f degrees; plain loads, const __restrict__ + __ldg, and tex2D on a CUDA array (point "
		 "filter for the stencil, the hardware linear filter for the sample); %dx%d blocks; median of %d runs "
		 "with events after 2 warm-up; %d pixels checked against the host, every pixel against the plain path "
		 "(texture filter within %.3g)",
		 w, h, px * 4 >> 20, ROT_DEG, BX, BY, reps, SAMPLES, tol_tex_linear);
	snprintf(r->plot.title, sizeof r->plot.title, "2-D reads: plain, read-only (__ldg) and texture paths");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "Gpixel/s (median)");
	judge_texture(r, pts, NW);
out:
	if (tex_point)
		c->d->TexObjectDestroy(tex_point);
	if (tex_linear)
		c->d->TexObjectDestroy(tex_linear);
	if (arr)
		c->d->ArrayDestroy(arr);
	lab_free(c, &in);
	for (int p = 0; p < NP; p++)
		lab_free(c, &out[p]);
	lab_free(c, &scratch);
	return rc;
}

const struct lab lab_texture = {
	.name = "texture",
	.concept = "memory hierarchy: texture and read-only data paths",
	.measures = "a 5-point stencil and a rotated bilinear sample: plain loads vs __ldg vs a texture object",
	.claim = "texture memory helps reads with 2-D locality: a rotated bilinear sample runs faster (>= 1.1x) from "
		 "a texture (block-linear CUDA array, hardware filtering) than from plain or read-only global loads",
	.lesson = "On GPUs whose L1 and texture cache are one (Volta and later) a stencil gains little from textures: "
		  "neighbours share cache lines anyway. Textures pay where a warp reads across rows (rotations, "
		  "warps, resampling) and where the free hardware filter replaces four loads and the arithmetic.",
	.run = run,
};
