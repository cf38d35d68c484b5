/* jit: the same kernel loaded from SASS (the embedded fatbin's sm_XY image) and from
 * PTX text that the driver must compile at load time; the second PTX load shows the
 * JIT cache. Both modules must compute the same result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/fatbin.h"
#include "lab/gpu.h"
#include "lab/jit_ptx.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "os/env.h"
#include "util/err.h"

enum { N = 1 << 20 };

/* load + the first cuModuleGetFunction: with lazy loading the work may happen at either */
static int load(struct lab_ctx *c, const void *image, CUmodule *m, double *ms, char *err)
{
	int rc = CD_OK;
	CUfunction f;
	double t0 = lab_now_s();
	TRY(lab_cu(c, c->d->ModuleLoadData(m, image), "cuModuleLoadData", err));
	TRY(lab_cu(c, c->d->ModuleGetFunction(&f, *m, "lab_jit_saxpy"), "cuModuleGetFunction", err));
	*ms = (lab_now_s() - t0) * 1e3;
out:
	return rc;
}

/* y = a x + y with the module's lab_jit_saxpy; result copied to host */
static int saxpy(struct lab_ctx *c, CUmodule m, CUdeviceptr y, CUdeviceptr x, const float *y0, float *out,
		 int *ptx_ver, int *bin_ver, char *err)
{
	int rc = CD_OK;
	CUfunction f;
	float a = 0.75f;
	unsigned long long n = N;
	TRY(lab_cu(c, c->d->ModuleGetFunction(&f, m, "lab_jit_saxpy"), "cuModuleGetFunction", err));
	TRY(lab_cu(c, c->d->FuncGetAttribute(ptx_ver, CU_FUNC_ATTRIBUTE_PTX_VERSION, f), "cuFuncGetAttribute", err));
	TRY(lab_cu(c, c->d->FuncGetAttribute(bin_ver, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f), "cuFuncGetAttribute", err));
	TRY(lab_cu(c, c->d->MemcpyHtoD(y, y0, N * sizeof *y0), "cuMemcpyHtoD", err));
	void *args[] = { &y, &x, &a, &n };
	TRY(lab_launch(c, f, lab_fill_grid(c, 4), 1, 256, 1, 0, args, err));
	TRY(lab_sync(c, err));
	TRY(lab_cu(c, c->d->MemcpyDtoH(out, y, N * sizeof *out), "cuMemcpyDtoH", err));
out:
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	CUmodule m_sass = NULL, m_cold = NULL, m_warm = NULL;
	CUdeviceptr x = 0, y = 0;
	char *ptx = NULL;
	float *hx = NULL, *hy = NULL, *o1 = NULL, *o2 = NULL;
	if (lab_jit_ptx_size == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "this cudoctor was built without the jit lab's PTX");
	/* a nonce comment makes this PTX text new to the JIT cache */
	size_t len = lab_jit_ptx_size + 80;
	ptx = malloc(len);
	hx = malloc(N * sizeof *hx);
	hy = malloc(N * sizeof *hy);
	o1 = malloc(N * sizeof *o1);
	o2 = malloc(N * sizeof *o2);
	if (!ptx || !hx || !hy || !o1 || !o2) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(ptx, len, "%s\n// cudoctor jit lab %016llx%016llx\n", lab_jit_ptx, c->seed,
		 (unsigned long long)(lab_now_s() * 1e9));
	double sass_ms, cold_ms, warm_ms;
	lab_progress(c, 0.1, "SASS");
	TRY(load(c, lab_fatbin, &m_sass, &sass_ms, err));
	lab_progress(c, 0.4, "PTX, first load");
	TRY(load(c, ptx, &m_cold, &cold_ms, err));
	lab_progress(c, 0.7, "PTX, again");
	TRY(load(c, ptx, &m_warm, &warm_ms, err));

	for (int i = 0; i < N; i++) {
		hx[i] = (float)lab_rand_unit(c->seed ^ 0x717ull, (uint64_t)i);
		hy[i] = (float)lab_rand_unit(c->seed ^ 0x718ull, (uint64_t)i);
	}
	TRY(lab_alloc(c, &x, N * sizeof *hx, err));
	TRY(lab_alloc(c, &y, N * sizeof *hy, err));
	TRY(lab_cu(c, c->d->MemcpyHtoD(x, hx, N * sizeof *hx), "cuMemcpyHtoD", err));
	int ptx1 = 0, bin1 = 0, ptx2 = 0, bin2 = 0;
	TRY(saxpy(c, m_sass, y, x, hy, o1, &ptx1, &bin1, err));
	TRY(saxpy(c, m_cold, y, x, hy, o2, &ptx2, &bin2, err));
	size_t wrong = 0;
	for (int i = 0; i < N; i++)
		wrong += o1[i] != fmaf(0.75f, hx[i], hy[i]);
	if (wrong) {
		r->wrong_result = true;
		snprintf(r->note, sizeof r->note, "the SASS kernel got %zu of %d elements wrong", wrong, N);
		goto out;
	}
	bool same = memcmp(o1, o2, N * sizeof *o1) == 0;
	const char *nocache = os_getenv("CUDA_CACHE_DISABLE");
	bool disabled = nocache && strcmp(nocache, "0") != 0;
	lab_add(r, "ms", sass_ms, "load the fatbin (SASS sm_%d%d picked)", c->info.cc_major, c->info.cc_minor);
	lab_add(r, "ms", cold_ms, "load PTX (compute_%d), first time: JIT", ptx2);
	lab_add(r, "ms", warm_ms, "load the same PTX again: JIT cache");
	lab_add(r, "x", cold_ms / (sass_ms > 0 ? sass_ms : 1e-3), "first PTX load / SASS load");
	lab_add(r, "", bin1, "SASS module: binary arch of the kernel");
	lab_add(r, "", bin2, "PTX module: binary arch the driver compiled for");
	lab_add(r, "", same ? 1 : 0, "same results from both (1 = yes)");
	lab_plot_bar(&r->plot, "SASS", sass_ms);
	lab_plot_bar(&r->plot, "PTX first", cold_ms);
	lab_plot_bar(&r->plot, "PTX again", warm_ms);
	snprintf(r->setup, sizeof r->setup,
		 "lab_jit_saxpy from the embedded fatbin (%zu bytes, SASS for every arch) and from %zu bytes of PTX "
		 "for the oldest arch, made unique with a comment so the cache has not seen it; cuModuleLoadData + "
		 "cuModuleGetFunction timed with the host clock; both kernels run on %d random floats and compared bit for bit%s",
		 lab_fatbin_size, lab_jit_ptx_size, N, disabled ? "; CUDA_CACHE_DISABLE is set" : "");
	snprintf(r->plot.title, sizeof r->plot.title, "Module load time: SASS vs PTX (JIT)");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "ms");
	judge_jit(r, sass_ms, cold_ms, warm_ms, same, disabled);
out:
	if (m_sass)
		c->d->ModuleUnload(m_sass);
	if (m_cold)
		c->d->ModuleUnload(m_cold);
	if (m_warm)
		c->d->ModuleUnload(m_warm);
	free(ptx);
	free(hx);
	free(hy);
	free(o1);
	free(o2);
	lab_free(c, &x);
	lab_free(c, &y);
	return rc;
}

const struct lab lab_jit = {
	.name = "jit",
	.concept = "compilation model: SASS vs PTX, JIT and its cache",
	.measures = "module load time from SASS, from new PTX (JIT) and from cached PTX",
	.claim = "a GPU runs SASS for its own arch; PTX is compiled by the driver at load time, which costs far "
		 "more than loading SASS (at least 2x here), and the JIT cache makes the second load of the same PTX "
		 "cheap; both give the same results",
	.lesson = "Ship SASS for every GPU you target (-gencode arch=compute_XY,code=sm_XY) plus PTX of the newest "
		  "for future GPUs; a binary that only carries PTX pays the JIT at every cold start, and fails where JIT "
		  "is disabled or the PTX is newer than the driver.",
	.run = run,
};
