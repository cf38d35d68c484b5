/* host-transfer: host<->device copies from pageable (malloc) and pinned (page-locked)
 * memory, both directions, 4 KiB..1 GiB, against the PCIe link's bandwidth. Pinned
 * copies are timed with events; pageable ones with the host clock around
 * synchronous copies, as the driver stages them through its own pinned buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/gpu.h"
#include "lab/hostxfer.h"
#include "lab/judge.h"
#include "lab/rng.h"
#include "lab/sizing.h"
#include "lab/stats.h"
#include "util/err.h"

enum { MAXS = 16 };

struct xfer {
	bool h2d, pinned;
	void *host;
	CUdeviceptr dev;
	size_t bytes;
	int count;
};

static int copy_n(struct lab_ctx *c, void *arg, char *err)
{
	int rc = CD_OK;
	struct xfer *x = arg;
	for (int i = 0; i < x->count; i++) {
		if (x->pinned && x->h2d)
			TRY(lab_cu(c, c->d->MemcpyHtoDAsync(x->dev, x->host, x->bytes, c->s), "cuMemcpyHtoDAsync", err));
		else if (x->pinned)
			TRY(lab_cu(c, c->d->MemcpyDtoHAsync(x->host, x->dev, x->bytes, c->s), "cuMemcpyDtoHAsync", err));
		else if (x->h2d)
			TRY(lab_cu(c, c->d->MemcpyHtoD(x->dev, x->host, x->bytes), "cuMemcpyHtoD", err));
		else
			TRY(lab_cu(c, c->d->MemcpyDtoH(x->host, x->dev, x->bytes), "cuMemcpyDtoH", err));
	}
	/* a pageable H2D copy can return before its last DMA lands */
	if (!x->pinned)
		TRY(lab_cu(c, c->d->CtxSynchronize(), "cuCtxSynchronize", err));
out:
	return rc;
}

/* seconds per copy: events for pinned, host clock for the synchronous pageable copies */
static int time_xfer(struct lab_ctx *c, struct xfer *x, int reps, double *sec, char *err)
{
	int rc = CD_OK;
	double v[16];
	if (reps > 16)
		reps = 16;
	if (x->pinned) {
		TRY(lab_time(c, copy_n, x, 1, reps, v, err));
		for (int i = 0; i < reps; i++)
			v[i] = v[i] * 1e-3 / x->count;
	} else {
		TRY(copy_n(c, x, err));
		for (int i = 0; i < reps; i++) {
			double t0 = lab_now_s();
			TRY(copy_n(c, x, err));
			v[i] = (lab_now_s() - t0) / x->count;
		}
	}
	*sec = lab_stats_of(v, (size_t)reps).median;
out:
	return rc;
}

void lab_pcie_link_now(struct lab_ctx *c, int *gen, int *width, const char **src)
{
	*src = "NVML";
	if (c->pcie_link && c->pcie_link(c->clock_user, gen, width) == 0 && *gen > 0 && *width > 0)
		return;
	*src = "sysfs";
	if (!c->sysfs_link || c->sysfs_link(c, gen, width) != 0 || *gen <= 0 || *width <= 0)
		*gen = *width = 0;
}

int lab_pinned_copy(struct lab_ctx *c, size_t bytes, int reps, struct lab_pinned_copy *o, char *err)
{
	int rc = CD_OK;
	void *src = NULL, *dst = NULL;
	unsigned char *held = NULL; /* what the device holds after the H2D copies, read back */
	CUdeviceptr dev = 0;
	double sec = 0;
	size_t cnt = ((size_t)256 << 20) / (bytes ? bytes : 1);
	struct xfer x = { .pinned = true, .bytes = bytes, .count = cnt < 1 ? 1 : cnt > 100 ? 100 : (int)cnt };

	memset(o, 0, sizeof *o);
	o->bytes = bytes;
	TRY(lab_cu(c, c->d->MemHostAlloc(&src, bytes, 0), "cuMemHostAlloc", err));
	TRY(lab_cu(c, c->d->MemHostAlloc(&dst, bytes, 0), "cuMemHostAlloc", err));
	if (!(held = malloc(bytes))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory for a %zu MiB host buffer", bytes >> 20);
		goto out;
	}
	TRY(lab_alloc(c, &dev, bytes, err));
	for (size_t i = 0; i < bytes / 4; i++)
		((uint32_t *)src)[i] = lab_rand32(c->seed ^ 0x4057ull, i);
	x.dev = dev;
	/* host to device, then read back through a plain copy and compared */
	x.h2d = true;
	x.host = src;
	TRY(lab_cu(c, c->d->MemsetD8(dev, 0xA5, bytes), "cuMemsetD8", err));
	TRY(time_xfer(c, &x, reps, &sec, err));
	TRY(lab_sync(c, err));
	o->h2d = (double)bytes / sec;
	TRY(lab_cu(c, c->d->MemcpyDtoH(dst, dev, bytes), "cuMemcpyDtoH", err));
	o->h2d_same = memcmp(dst, src, bytes) == 0;
	/* device to host, compared with what the device held (the source's bytes unless the
	 * H2D copies already differed) */
	memcpy(held, dst, bytes);
	x.h2d = false;
	x.host = dst;
	memset(dst, 0x5A, bytes);
	TRY(time_xfer(c, &x, reps, &sec, err));
	TRY(lab_sync(c, err));
	o->d2h = (double)bytes / sec;
	o->d2h_same = memcmp(dst, held, bytes) == 0;
out:
	free(held);
	if (src)
		c->d->MemFreeHost(src);
	if (dst)
		c->d->MemFreeHost(dst);
	lab_free(c, &dev);
	return rc;
}

static int run(struct lab_ctx *c, struct lab_result *r, char *err)
{
	int rc = CD_OK;
	size_t sizes[MAXS];
	size_t ns = lab_xfer_sizes(&c->info, c->quick, sizes, MAXS);
	if (c->tiny && ns > 2)
		ns = 2;
	if (ns == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "no transfer size fits this device");
	size_t top = sizes[ns - 1];
	void *pin_src = NULL, *pin_dst = NULL;
	unsigned char *page_src = NULL, *page_dst = NULL;
	CUdeviceptr dev = 0;
	int reps = c->quick ? 3 : 5;
	double bw[4][MAXS]; /* pinned h2d, pinned d2h, pageable h2d, pageable d2h */
	static const char *const names[4] = { "pinned H2D", "pinned D2H", "pageable H2D", "pageable D2H" };
	TRY(lab_cu(c, c->d->MemHostAlloc(&pin_src, top, 0), "cuMemHostAlloc", err));
	TRY(lab_cu(c, c->d->MemHostAlloc(&pin_dst, top, 0), "cuMemHostAlloc", err));
	page_src = malloc(top);
	page_dst = malloc(top);
	if (!page_src || !page_dst) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory for %zu MiB host buffers", top >> 20);
		goto out;
	}
	TRY(lab_alloc(c, &dev, top, err));
	for (size_t i = 0; i < top / 4; i++)
		((uint32_t *)pin_src)[i] = lab_rand32(c->seed ^ 0x4057ull, i);
	memcpy(page_src, pin_src, top);
	memset(page_dst, 0, top); /* touch every page before timing */
	for (size_t i = 0; i < ns; i++) {
		lab_progress(c, (double)i / (double)ns, "%zu KiB", sizes[i] >> 10);
		for (int k = 0; k < 4; k++) {
			bool pinned = k < 2, h2d = k % 2 == 0;
			struct xfer x = { .h2d = h2d, .pinned = pinned, .dev = dev, .bytes = sizes[i] };
			x.host = h2d ? (pinned ? pin_src : (void *)page_src) : (pinned ? pin_dst : (void *)page_dst);
			size_t cnt = ((size_t)256 << 20) / sizes[i];
			x.count = cnt < 1 ? 1 : cnt > 100 ? 100 : (int)cnt;
			if (h2d)
				TRY(lab_cu(c, c->d->MemsetD8(dev, 0xA5, sizes[i]), "cuMemsetD8", err));
			else
				memset(x.host, 0x5A, sizes[i]);
			double sec = 0;
			TRY(time_xfer(c, &x, reps, &sec, err));
			TRY(lab_sync(c, err));
			/* check: the bytes arrived */
			bool ok;
			if (h2d) {
				TRY(lab_cu(c, c->d->MemcpyDtoH(pin_dst, dev, sizes[i]), "cuMemcpyDtoH", err));
				ok = memcmp(pin_dst, pin_src, sizes[i]) == 0;
			} else {
				ok = memcmp(x.host, pin_src, sizes[i]) == 0;
			}
			if (!ok) {
				r->wrong_result = true;
				snprintf(r->note, sizeof r->note, "%s of %zu bytes: data differs after the copy", names[k], sizes[i]);
				goto out;
			}
			bw[k][i] = (double)sizes[i] / sec;
			lab_plot_point(&r->plot, (size_t)k, names[k], (double)sizes[i], bw[k][i] / 1e9);
		}
	}
	/* the link as it is right after the copies (links drop to a lower generation when idle) */
	int gen = 0, width = 0;
	const char *link_src;
	lab_pcie_link_now(c, &gen, &width, &link_src);
	double link = lab_pcie_bytes_per_s(gen, width);
	for (size_t i = 0; i < ns; i++)
		if (sizes[i] >= ((size_t)1 << 20) || i == ns - 1)
			for (int k = 0; k < 4; k++)
				lab_add(r, "GB/s", bw[k][i] / 1e9, "%s %zu MiB", names[k], sizes[i] >> 20);
	for (int k = 0; k < 2; k++)
		lab_add(r, "us", (double)sizes[0] / bw[k][0] * 1e6, "%s of %zu KiB (fixed cost)", names[k], sizes[0] >> 10);
	lab_add(r, "x", bw[0][ns - 1] / bw[2][ns - 1], "pinned / pageable H2D at %zu MiB", top >> 20);
	if (link > 0)
		lab_add(r, "GB/s", link / 1e9, "PCIe gen %d x%d per direction after line coding", gen, width);
	snprintf(r->setup, sizeof r->setup,
		 "%zu sizes %zu KiB..%zu MiB; pinned = cuMemHostAlloc, timed with events around up to 100 async "
		 "copies; pageable = malloc'd and touched, timed with the host clock around synchronous copies; median "
		 "of %d; every copy's bytes compared; link %s%s",
		 ns, sizes[0] >> 10, top >> 20, reps, link > 0 ? "read from " : "unknown", link > 0 ? link_src : "");
	r->plot.logx = true;
	snprintf(r->plot.title, sizeof r->plot.title, "Host<->device bandwidth vs transfer size");
	snprintf(r->plot.xlabel, sizeof r->plot.xlabel, "bytes per copy");
	snprintf(r->plot.ylabel, sizeof r->plot.ylabel, "GB/s");
	judge_hostxfer(r, bw[0][ns - 1], bw[1][ns - 1], bw[2][ns - 1], bw[3][ns - 1], link);
out:
	if (pin_src)
		c->d->MemFreeHost(pin_src);
	if (pin_dst)
		c->d->MemFreeHost(pin_dst);
	free(page_src);
	free(page_dst);
	lab_free(c, &dev);
	return rc;
}

const struct lab lab_hostxfer = {
	.name = "host-transfer",
	.concept = "memory hierarchy: host <-> device over PCIe",
	.measures = "pageable vs pinned copy bandwidth, both directions, 4 KiB..1 GiB",
	.claim = "copies from pinned (page-locked) host memory run near the PCIe link's bandwidth; pageable copies "
		 "are staged through a driver buffer and run slower; small copies are dominated by a fixed cost of "
		 "microseconds",
	.lesson = "Allocate host buffers you transfer often with cudaMallocHost / cudaHostAlloc, batch small "
		  "transfers into large ones, and use cudaMemcpyAsync from pinned memory to overlap copies with work.",
	.run = run,
};
