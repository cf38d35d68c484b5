/* The labs' driver-API layer: context and module set-up, checked launches,
 * allocations and event timing. */
#define _POSIX_C_SOURCE 200809L
#include "lab/gpu.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/err.h"

double lab_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int attr(struct cudrv *d, CUdevice dev, int which, int *v)
{
	*v = 0;
	if (!d->DeviceGetAttribute)
		return -1;
	return d->DeviceGetAttribute(v, which, dev) == CUDA_SUCCESS ? 0 : -1;
}

int lab_read_dev(struct cudrv *d, CUdevice dev, struct lab_dev *o, char *err)
{
	memset(o, 0, sizeof *o);
	if (!d->DeviceGetAttribute)
		return cd_fail(err, CD_EDRIVER, "cuDeviceGetAttribute is missing from %s", d->path);
	if (d->DeviceGetName)
		d->DeviceGetName(o->name, (int)sizeof o->name - 1, dev);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &o->cc_major);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &o->cc_minor);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &o->sm_count);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &o->warp_size);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &o->max_threads_per_block);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &o->max_threads_per_sm);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &o->max_blocks_per_sm);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &o->smem_per_block);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &o->smem_per_block_optin);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &o->smem_per_sm);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &o->regs_per_sm);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &o->l2_bytes);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &o->clock_khz);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &o->mem_clock_khz);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &o->bus_width_bits);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, &o->async_engines);
	attr(d, dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, &o->const_bytes);
	if (d->DeviceTotalMem)
		d->DeviceTotalMem(&o->total_mem, dev);
	if (o->sm_count <= 0 || o->max_threads_per_block <= 0)
		return cd_fail(err, CD_EDRIVER, "the driver reports no multiprocessors for this device");
	if (o->warp_size <= 0)
		o->warp_size = 32;
	if (o->max_blocks_per_sm <= 0)
		o->max_blocks_per_sm = 16;
	if (o->max_threads_per_sm <= 0)
		o->max_threads_per_sm = 1024;
	return CD_OK;
}

int lab_open(struct lab_ctx *c, struct cudrv *d, int ordinal, const void *image, char *err)
{
	int rc = CD_OK;
	size_t total = 0;
	c->d = d;
	CU(Init, 0);
	int count = 0;
	CU(DeviceGetCount, &count);
	if (ordinal < 0 || ordinal >= count) {
		rc = cd_fail(err, CD_EUSAGE, "no CUDA device %d (%d visible)", ordinal, count);
		goto out;
	}
	CU(DeviceGet, &c->dev, ordinal);
	TRY(lab_read_dev(d, c->dev, &c->info, err));
	CU(DevicePrimaryCtxRetain, &c->ctx, c->dev);
	CU(CtxSetCurrent, c->ctx);
	CU(MemGetInfo, &c->info.free_mem, &total);
	CU(ModuleLoadData, &c->mod, image);
	/* a blocking stream: the synchronous cuMemcpy/cuMemset calls that upload inputs and
	 * poison outputs run on the legacy stream, and must stay ordered with the kernels */
	CU(StreamCreate, &c->s, CU_STREAM_DEFAULT);
out:
	if (rc != CD_OK)
		lab_close(c);
	return rc;
}

void lab_close(struct lab_ctx *c)
{
	if (!c->d)
		return;
	if (c->s && c->d->StreamDestroy)
		c->d->StreamDestroy(c->s);
	if (c->mod && c->d->ModuleUnload)
		c->d->ModuleUnload(c->mod);
	if (c->ctx && c->d->DevicePrimaryCtxRelease)
		c->d->DevicePrimaryCtxRelease(c->dev);
	c->s = NULL;
	c->mod = NULL;
	c->ctx = NULL;
}

int lab_fn(struct lab_ctx *c, const char *name, CUfunction *f, char *err)
{
	int rc = CD_OK;
	CUresult r = c->d->ModuleGetFunction ? c->d->ModuleGetFunction(f, c->mod, name) : CUDA_ERROR_NOT_FOUND;
	if (r != CUDA_SUCCESS)
		rc = cd_fail(err, CD_EDRIVER, "cuModuleGetFunction(%s): %s (%d)", name, cudrv_result_name(c->d, r), r);
	return rc;
}

int lab_launch(struct lab_ctx *c, CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
	       unsigned smem, void **args, char *err)
{
	int rc = CD_OK;
	CU(LaunchKernel, f, gx, gy, 1, bx, by, 1, smem, c->s, args, NULL);
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
	CU(MemAlloc, p, bytes);
out:
	return rc;
}

void lab_free(struct lab_ctx *c, CUdeviceptr *p)
{
	if (*p && c->d->MemFree)
		c->d->MemFree(*p);
	*p = 0;
}

int lab_sync(struct lab_ctx *c, char *err)
{
	int rc = CD_OK;
	CU(StreamSynchronize, c->s);
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
	CU(EventCreate, &a, CU_EVENT_DEFAULT);
	CU(EventCreate, &b, CU_EVENT_DEFAULT);
	for (int i = 0; i < warmup; i++)
		TRY(body(c, arg, err));
	for (int i = 0; i < reps; i++) {
		float t = 0;
		CU(EventRecord, a, c->s);
		TRY(body(c, arg, err));
		CU(EventRecord, b, c->s);
		CU(EventSynchronize, b);
		CU(EventElapsedTime, &t, a, b);
		ms[i] = t;
	}
out:
	if (a && c->d->EventDestroy)
		c->d->EventDestroy(a);
	if (b && c->d->EventDestroy)
		c->d->EventDestroy(b);
	return rc;
}
