/* The labs' driver-API layer: context and module set-up, checked launches,
 * allocations and event timing. */
#define _POSIX_C_SOURCE 200809L
#include "lab/gpu.h"
#include "util/clock.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/err.h"

double lab_now_s(void)
{
	return cd_now_s();
}

/* An int of the view: the fact when its bit is set, else fallback. */
static int fact(const struct gpu_info *g, enum gpu_field f, long long v, int fallback)
{
	return gpu_has(g, f) && v > 0 && v <= 0x7fffffff ? (int)v : fallback;
}

int lab_dev_of(const struct gpu_probe *p, int ordinal, struct lab_dev *o, char *err)
{
	const struct gpu_info *g = NULL;

	memset(o, 0, sizeof *o);
	for (size_t i = 0; p && i < p->n_gpus && !g; i++)
		if (p->gpus[i].cuda_ordinal == ordinal)
			g = &p->gpus[i];
	if (!g)
		return cd_fail(err, CD_EDRIVER, "the driver facts have no CUDA device %d", ordinal);
	snprintf(o->name, sizeof o->name, "%s", gpu_name(g) ? gpu_name(g) : "");
	o->cc_major = fact(g, GF_CC, g->cc_major, 0);
	o->cc_minor = gpu_has(g, GF_CC) ? (int)g->cc_minor : 0;
	o->sm_count = fact(g, GF_SM_COUNT, g->sm_count, 0);
	o->max_threads_per_block = fact(g, GF_MAX_THREADS_PER_BLOCK, g->max_threads_per_block, 0);
	if (o->sm_count <= 0 || o->max_threads_per_block <= 0)
		return cd_fail(err, CD_EDRIVER, "the driver reports no multiprocessors for this device");
	o->warp_size = fact(g, GF_WARP_SIZE, g->warp_size, 32);
	o->max_threads_per_sm = fact(g, GF_MAX_THREADS_PER_SM, g->max_threads_per_sm, 1024);
	o->max_blocks_per_sm = fact(g, GF_MAX_BLOCKS_PER_SM, g->max_blocks_per_sm, 16);
	o->smem_per_block = fact(g, GF_SMEM_PER_BLOCK, g->smem_per_block_bytes, 0);
	o->smem_per_block_optin = fact(g, GF_SMEM_PER_BLOCK_OPTIN, g->smem_per_block_optin_bytes, 0);
	o->smem_per_sm = fact(g, GF_SMEM_PER_SM, g->smem_per_sm_bytes, 0);
	o->regs_per_sm = fact(g, GF_REGS_PER_SM, g->regs_per_sm, 0);
	o->l2_bytes = fact(g, GF_L2_CACHE, g->l2_cache_bytes, 0);
	o->clock_khz = fact(g, GF_CLOCK_RATE, g->clock_rate_khz, 0);
	o->mem_clock_khz = fact(g, GF_MEMORY_CLOCK_RATE, g->memory_clock_rate_khz, 0);
	o->bus_width_bits = fact(g, GF_MEMORY_BUS_WIDTH, g->memory_bus_width_bits, 0);
	o->async_engines = fact(g, GF_COPY_ENGINES, g->copy_engines, 0);
	o->const_bytes = fact(g, GF_CONST_MEMORY, g->const_memory_bytes, 0);
	o->total_mem = gpu_has(g, GF_MEMORY_TOTAL) && g->memory_total_bytes > 0 ? (size_t)g->memory_total_bytes : 0;
	return CD_OK;
}

int lab_cu(const struct lab_ctx *c, CUresult r, const char *call, char *err)
{
	return r == CUDA_SUCCESS ? CD_OK : cudrv_fail(c->d, err, call, r);
}

/* Every entry point a lab calls or cleans up with; the optional ones (device name, PCI
 * bus id, total memory) are tested where they are read. */
#define ENTRY(field, name) { offsetof(struct cudrv, field), name }
static const struct {
	size_t offset;
	const char *name;
} needed[] = {
	ENTRY(Init, "cuInit"),
	ENTRY(DeviceGetCount, "cuDeviceGetCount"),
	ENTRY(DeviceGet, "cuDeviceGet"),
	ENTRY(DeviceGetAttribute, "cuDeviceGetAttribute"),
	ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	ENTRY(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease"),
	ENTRY(CtxSetCurrent, "cuCtxSetCurrent"),
	ENTRY(CtxSynchronize, "cuCtxSynchronize"),
	ENTRY(MemGetInfo, "cuMemGetInfo"),
	ENTRY(MemAlloc, "cuMemAlloc"),
	ENTRY(MemFree, "cuMemFree"),
	ENTRY(MemHostAlloc, "cuMemHostAlloc"),
	ENTRY(MemFreeHost, "cuMemFreeHost"),
	ENTRY(MemcpyHtoD, "cuMemcpyHtoD"),
	ENTRY(MemcpyDtoH, "cuMemcpyDtoH"),
	ENTRY(MemcpyHtoDAsync, "cuMemcpyHtoDAsync"),
	ENTRY(MemcpyDtoHAsync, "cuMemcpyDtoHAsync"),
	ENTRY(MemsetD8, "cuMemsetD8"),
	ENTRY(MemsetD32, "cuMemsetD32"),
	ENTRY(ModuleLoadData, "cuModuleLoadData"),
	ENTRY(ModuleUnload, "cuModuleUnload"),
	ENTRY(ModuleGetFunction, "cuModuleGetFunction"),
	ENTRY(ModuleGetGlobal, "cuModuleGetGlobal"),
	ENTRY(FuncGetAttribute, "cuFuncGetAttribute"),
	ENTRY(LaunchKernel, "cuLaunchKernel"),
	ENTRY(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
	ENTRY(StreamCreate, "cuStreamCreate"),
	ENTRY(StreamDestroy, "cuStreamDestroy"),
	ENTRY(StreamSynchronize, "cuStreamSynchronize"),
	ENTRY(StreamBeginCapture, "cuStreamBeginCapture"),
	ENTRY(StreamEndCapture, "cuStreamEndCapture"),
	ENTRY(GraphInstantiate, "cuGraphInstantiate"),
	ENTRY(GraphLaunch, "cuGraphLaunch"),
	ENTRY(GraphExecDestroy, "cuGraphExecDestroy"),
	ENTRY(GraphDestroy, "cuGraphDestroy"),
	ENTRY(EventCreate, "cuEventCreate"),
	ENTRY(EventRecord, "cuEventRecord"),
	ENTRY(EventSynchronize, "cuEventSynchronize"),
	ENTRY(EventElapsedTime, "cuEventElapsedTime"),
	ENTRY(EventDestroy, "cuEventDestroy"),
	ENTRY(CtxGetLimit, "cuCtxGetLimit"),
	ENTRY(CtxSetLimit, "cuCtxSetLimit"),
	ENTRY(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
	ENTRY(StreamQuery, "cuStreamQuery"),
};
#undef ENTRY

static int check_entry_points(const struct cudrv *d, char *err)
{
	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
		void (*fn)(void);

		memcpy(&fn, (const char *)d + needed[i].offset, sizeof fn);
		if (!fn)
			return cd_fail(err, CD_EDRIVER, "%s is missing from %s", needed[i].name, d->path);
	}
	return CD_OK;
}

int lab_open(struct lab_ctx *c, struct cudrv *d, int ordinal, const void *image, char *err)
{
	int rc = CD_OK;
	size_t total = 0;
	c->d = d;
	TRY(check_entry_points(d, err));
	/* the run's probe called cuInit on this driver already: once is enough */
	if (!c->probe || !driver_has(c->probe, DF_CUDA_INIT) || c->probe->cuda_init_result != CUDA_SUCCESS)
		TRY(lab_cu(c, c->d->Init(0), "cuInit", err));
	int count = 0;
	TRY(lab_cu(c, c->d->DeviceGetCount(&count), "cuDeviceGetCount", err));
	if (ordinal < 0 || ordinal >= count) {
		rc = cd_fail(err, CD_EUSAGE, "no CUDA device %d (%d visible)", ordinal, count);
		goto out;
	}
	TRY(lab_cu(c, c->d->DeviceGet(&c->dev, ordinal), "cuDeviceGet", err));
	c->ordinal = ordinal;
	TRY(lab_dev_of(c->probe, ordinal, &c->info, err));
	TRY(lab_cu(c, c->d->DevicePrimaryCtxRetain(&c->ctx, c->dev), "cuDevicePrimaryCtxRetain", err));
	TRY(lab_cu(c, c->d->CtxSetCurrent(c->ctx), "cuCtxSetCurrent", err));
	TRY(lab_cu(c, c->d->MemGetInfo(&c->info.free_mem, &total), "cuMemGetInfo", err));
	TRY(lab_cu(c, c->d->ModuleLoadData(&c->mod, image), "cuModuleLoadData", err));
	/* a blocking stream: the synchronous cuMemcpy/cuMemset calls that upload inputs and
	 * poison outputs run on the legacy stream, and must stay ordered with the kernels */
	TRY(lab_cu(c, c->d->StreamCreate(&c->s, CU_STREAM_DEFAULT), "cuStreamCreate", err));
out:
	if (rc != CD_OK)
		lab_close(c);
	return rc;
}

void lab_close(struct lab_ctx *c)
{
	/* unloading or releasing under a kernel that still runs would wait for it */
	if (!c->d || c->hung)
		return;
	if (c->s)
		c->d->StreamDestroy(c->s);
	if (c->mod)
		c->d->ModuleUnload(c->mod);
	if (c->ctx)
		c->d->DevicePrimaryCtxRelease(c->dev);
	c->s = NULL;
	c->mod = NULL;
	c->ctx = NULL;
}

int lab_fn(struct lab_ctx *c, const char *name, CUfunction *f, char *err)
{
	int rc = CD_OK;
	CUresult r = c->d->ModuleGetFunction(f, c->mod, name);
	if (r != CUDA_SUCCESS)
		rc = cd_fail(err, CD_EDRIVER, "cuModuleGetFunction(%s): %s (%d)", name, cudrv_result_name(c->d, r), r);
	return rc;
}

int lab_launch(struct lab_ctx *c, CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
	       unsigned smem, void **args, char *err)
{
	int rc = CD_OK;
	TRY(lab_cu(c, c->d->LaunchKernel(f, gx, gy, 1, bx, by, 1, smem, c->s, args, NULL), "cuLaunchKernel", err));
out:
	return rc;
}

int lab_launch1d_body(struct lab_ctx *c, void *arg, char *err)
{
	const struct lab_launch1d *a = arg;
	return lab_launch(c, a->f, a->grid, 1, a->block, 1, 0, a->params, err);
}

int lab_alloc(struct lab_ctx *c, CUdeviceptr *p, size_t bytes, char *err)
{
	int rc = CD_OK;
	*p = 0;
	TRY(lab_cu(c, c->d->MemAlloc(p, bytes), "cuMemAlloc", err));
out:
	return rc;
}

void lab_free(struct lab_ctx *c, CUdeviceptr *p)
{
	if (*p)
		c->d->MemFree(*p);
	*p = 0;
}

int lab_sync(struct lab_ctx *c, char *err)
{
	int rc = CD_OK;
	TRY(lab_cu(c, c->d->StreamSynchronize(c->s), "cuStreamSynchronize", err));
out:
	return rc;
}

unsigned lab_fill_grid(const struct lab_ctx *c, int per_sm)
{
	long g = (long)c->info.sm_count * (per_sm > 0 ? per_sm : 1);
	return g > 0 ? (unsigned)g : 1u;
}

int lab_time(struct lab_ctx *c, lab_body_fn body, void *arg, int warmup, int reps, double *ms, char *err)
{
	int rc = CD_OK;
	CUevent a = NULL, b = NULL;
	TRY(lab_cu(c, c->d->EventCreate(&a, CU_EVENT_DEFAULT), "cuEventCreate", err));
	TRY(lab_cu(c, c->d->EventCreate(&b, CU_EVENT_DEFAULT), "cuEventCreate", err));
	for (int i = 0; i < warmup; i++)
		TRY(body(c, arg, err));
	for (int i = 0; i < reps; i++) {
		float t = 0;
		TRY(lab_cu(c, c->d->EventRecord(a, c->s), "cuEventRecord", err));
		TRY(body(c, arg, err));
		TRY(lab_cu(c, c->d->EventRecord(b, c->s), "cuEventRecord", err));
		TRY(lab_cu(c, c->d->EventSynchronize(b), "cuEventSynchronize", err));
		TRY(lab_cu(c, c->d->EventElapsedTime(&t, a, b), "cuEventElapsedTime", err));
		ms[i] = t;
	}
out:
	if (a)
		c->d->EventDestroy(a);
	if (b)
		c->d->EventDestroy(b);
	return rc;
}
