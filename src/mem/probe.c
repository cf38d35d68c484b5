/* The probe and the fragmentation demonstration, on the driver API only. Every
 * allocation made here is released before a function returns, on every path. */
#include "mem/probe.h"

#include <string.h>

#include "util/clock.h"
#include "util/err.h"

static double now_ms(void)
{
	return cd_now_s() * 1e3;
}

static uint64_t down(uint64_t v, uint64_t g)
{
	return v / g * g;
}

static uint64_t up(uint64_t v, uint64_t g)
{
	return (v + g - 1) / g * g;
}

/* One attempt: allocated and freed at once. 1 = it fitted, 0 = out of memory, <0 error. */
static int try_alloc(const struct cudrv *d, uint64_t size, struct mem_probe *p, char *err)
{
	CUdeviceptr ptr = 0;
	p->n_calls++;
	CUresult r = d->MemAlloc(&ptr, (size_t)size);
	if (r == CUDA_ERROR_OUT_OF_MEMORY)
		return 0;
	if (r != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemAlloc", r);
	r = d->MemFree(ptr);
	if (r != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemFree", r);
	return 1;
}

int mem_probe_measure(const struct cudrv *d, double max_fraction, struct mem_probe *p, char *err)
{
	size_t f = 0, t = 0;
	CUdeviceptr blocks[MEM_PROBE_MAX_BLOCKS];
	int rc = CD_OK;
	memset(p, 0, sizeof *p);
	if (!d->MemGetInfo || !d->MemAlloc || !d->MemFree)
		return cd_fail(err, CD_EDRIVER, "libcuda lacks cuMemGetInfo/cuMemAlloc/cuMemFree");
	if (!(max_fraction > 0 && max_fraction <= 1))
		return cd_fail(err, CD_EUSAGE, "--max must be in (0, 1]");
	CUresult r = d->MemGetInfo(&f, &t);
	if (r != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemGetInfo", r);
	p->free_before = f;
	p->total = t;
	p->limit = down((uint64_t)((double)f * max_fraction), MEM_PROBE_GRAIN);
	double t0 = now_ms();
	if (p->limit == 0)
		goto blocks;
	/* bisection on [lo fits, hi fails] until the bracket is within 0.1 % (or one grain) */
	rc = try_alloc(d, p->limit, p, err);
	if (rc < 0)
		goto out;
	if (rc == 1) {
		p->largest = p->limit;
		p->largest_capped = true;
	} else {
		uint64_t lo = 0, hi = p->limit;
		while (hi - lo > MEM_PROBE_GRAIN && hi - lo > lo / 1000) {
			uint64_t mid = down(lo + (hi - lo) / 2, MEM_PROBE_GRAIN);
			if (mid <= lo)
				break;
			rc = try_alloc(d, mid, p, err);
			if (rc < 0)
				goto out;
			if (rc)
				lo = mid;
			else
				hi = mid;
		}
		p->largest = lo;
		p->smallest_failed = hi;
	}
blocks:
	/* total in blocks: take the largest that fits, then halve, holding them all */
	rc = CD_OK;
	for (uint64_t want = p->largest; p->n_blocks < MEM_PROBE_MAX_BLOCKS && want >= MEM_PROBE_GRAIN &&
					 p->in_blocks < p->limit;) {
		uint64_t size = want < p->limit - p->in_blocks ? want : p->limit - p->in_blocks;
		CUdeviceptr ptr = 0;
		p->n_calls++;
		r = d->MemAlloc(&ptr, (size_t)size);
		if (r == CUDA_SUCCESS) {
			blocks[p->n_blocks++] = ptr;
			p->in_blocks += size;
		} else if (r == CUDA_ERROR_OUT_OF_MEMORY) {
			want = down(want / 2, MEM_PROBE_GRAIN);
		} else {
			rc = cudrv_fail(d, err, "cuMemAlloc", r);
			break;
		}
	}
	for (unsigned i = 0; i < p->n_blocks; i++) {
		r = d->MemFree(blocks[i]);
		if (r != CUDA_SUCCESS && rc == CD_OK)
			rc = cudrv_fail(d, err, "cuMemFree", r);
	}
out:
	p->held_ms = now_ms() - t0;
	if (d->MemGetInfo(&f, &t) == CUDA_SUCCESS)
		p->free_after = f;
	return rc < 0 ? rc : CD_OK;
}

/* ---- the demonstration ---- */

#define DEMO_SEGMENTS 8
#define DEMO_BLOCKS 4 /* per segment; blocks 1 and 3 are freed */
#define DEMO_N (DEMO_SEGMENTS * DEMO_BLOCKS)

static bool is_hole(unsigned i)
{
	return i % DEMO_BLOCKS == 1 || i % DEMO_BLOCKS == 3;
}

static int64_t used_now(const struct cudrv *d, uint64_t free0)
{
	size_t f = 0, t = 0;
	if (d->MemGetInfo(&f, &t) != CUDA_SUCCESS)
		return 0;
	return (int64_t)free0 - (int64_t)f;
}

/* Caching-allocator segments: each segment is one cuMemAlloc split into blocks.
 * Freed blocks stay inside their segment; only neighbours in one segment merge. */
static int demo_segments(const struct cudrv *d, struct mem_demo *m, char *err)
{
	CUdeviceptr seg[DEMO_SEGMENTS] = {0}, extra = 0;
	size_t f0 = 0, t = 0;
	int rc = CD_OK;
	CUresult r = d->MemGetInfo(&f0, &t);
	if (r != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemGetInfo", r);
	for (unsigned s = 0; s < DEMO_SEGMENTS; s++)
		if ((r = d->MemAlloc(&seg[s], (size_t)(m->block * DEMO_BLOCKS))) != CUDA_SUCCESS) {
			rc = cudrv_fail(d, err, "cuMemAlloc (segment)", r);
			goto out;
		}
	m->seg_reserved_before = (uint64_t)DEMO_N * m->block;
	m->freed = 0;
	for (unsigned i = 0; i < DEMO_N; i++)
		if (is_hole(i))
			m->freed += m->block;
	m->largest_hole = m->block; /* holes 1 and 3 of a segment are parted by live block 2 */
	/* the request is larger than any hole but far smaller than the holes together:
	 * the allocator has to ask the driver for a new segment */
	if ((r = d->MemAlloc(&extra, (size_t)m->request)) != CUDA_SUCCESS) {
		rc = cudrv_fail(d, err, "cuMemAlloc (new segment)", r);
		goto out;
	}
	m->seg_reserved_after = m->seg_reserved_before + m->request;
	m->seg_driver_used_delta = used_now(d, f0);
out:
	if (extra)
		d->MemFree(extra);
	for (unsigned s = 0; s < DEMO_SEGMENTS; s++)
		if (seg[s])
			d->MemFree(seg[s]);
	return rc;
}

static bool vmm_calls_present(const struct cudrv *d)
{
	return d->MemAddressReserve && d->MemAddressFree && d->MemCreate && d->MemRelease && d->MemMap &&
	       d->MemUnmap && d->MemSetAccess && d->MemGetAllocationGranularity;
}

/* The same pattern on one reserved virtual range: freeing a block unmaps it and gives
 * its pages back; the request maps new pages at the end of the same range. */
static int demo_vmm(const struct cudrv *d, CUdevice dev, struct mem_demo *m, char *err)
{
	CUmemGenericAllocationHandle h[DEMO_N + 1] = {0};
	bool mapped[DEMO_N + 1] = {false};
	CUdeviceptr va = 0;
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	size_t f0 = 0, t = 0;
	uint64_t span = (uint64_t)DEMO_N * m->block + m->request;
	int rc = CD_OK;
	CUresult r;

	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	memset(&acc, 0, sizeof acc);
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if ((r = d->MemGetInfo(&f0, &t)) != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemGetInfo", r);
	if ((r = d->MemAddressReserve(&va, (size_t)span, 0, 0, 0)) != CUDA_SUCCESS)
		return cudrv_fail(d, err, "cuMemAddressReserve", r);
	for (unsigned i = 0; i <= DEMO_N; i++) {
		uint64_t size = i < DEMO_N ? m->block : m->request;
		if (i == DEMO_N) { /* after the frees: the request, mapped right after the last block */
			for (unsigned j = 0; j < DEMO_N; j++)
				if (is_hole(j)) {
					if ((r = d->MemUnmap(va + (uint64_t)j * m->block, (size_t)m->block)) != CUDA_SUCCESS) {
						rc = cudrv_fail(d, err, "cuMemUnmap", r);
						goto out;
					}
					mapped[j] = false;
					d->MemRelease(h[j]);
					h[j] = 0;
				}
			m->vmm_mapped_before = (uint64_t)DEMO_N * m->block;
		}
		if ((r = d->MemCreate(&h[i], (size_t)size, &prop, 0)) != CUDA_SUCCESS) {
			rc = cudrv_fail(d, err, "cuMemCreate", r);
			goto out;
		}
		if ((r = d->MemMap(va + (uint64_t)i * m->block, (size_t)size, 0, h[i], 0)) != CUDA_SUCCESS) {
			rc = cudrv_fail(d, err, "cuMemMap", r);
			goto out;
		}
		mapped[i] = true;
		if ((r = d->MemSetAccess(va + (uint64_t)i * m->block, (size_t)size, &acc, 1)) != CUDA_SUCCESS) {
			rc = cudrv_fail(d, err, "cuMemSetAccess", r);
			goto out;
		}
	}
	m->vmm_request_contiguous = true;
	m->vmm_mapped_after = (uint64_t)(DEMO_N - (DEMO_N / 2)) * m->block + m->request;
	m->vmm_driver_used_delta = used_now(d, f0);
out:
	for (unsigned i = 0; i <= DEMO_N; i++) {
		if (mapped[i])
			d->MemUnmap(va + (uint64_t)i * m->block, (size_t)(i < DEMO_N ? m->block : m->request));
		if (h[i])
			d->MemRelease(h[i]);
	}
	d->MemAddressFree(va, (size_t)span);
	return rc;
}

int mem_demo_run(const struct cudrv *d, CUdevice dev, uint64_t limit, struct mem_demo *m, char *err)
{
	memset(m, 0, sizeof *m);
	if (!d->MemGetInfo || !d->MemAlloc || !d->MemFree)
		return cd_fail(err, CD_EDRIVER, "libcuda lacks cuMemGetInfo/cuMemAlloc/cuMemFree");
	m->segments = DEMO_SEGMENTS;
	m->blocks_per_segment = DEMO_BLOCKS;
	m->granularity = MEM_PROBE_GRAIN;
	int vmm = 0;
	m->vmm_supported = vmm_calls_present(d) && d->DeviceGetAttribute &&
			   d->DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) == CUDA_SUCCESS &&
			   vmm;
	if (m->vmm_supported) {
		CUmemAllocationProp prop;
		size_t g = 0;
		memset(&prop, 0, sizeof prop);
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = dev;
		if (d->MemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS && g)
			m->granularity = g;
	}
	/* at most half the probe's limit and 1 GiB in play, in whole granules */
	uint64_t work = limit / 2 < (1ull << 30) ? limit / 2 : (1ull << 30);
	m->block = down(work / DEMO_N, m->granularity);
	if (m->block == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "too little free memory for the demonstration (%llu bytes)",
			       (unsigned long long)limit);
	m->block = up(m->block, m->granularity);
	m->work = (uint64_t)DEMO_N * m->block;
	m->request = 2 * m->block;
	int rc = demo_segments(d, m, err);
	if (rc == CD_OK && m->vmm_supported)
		rc = demo_vmm(d, dev, m, err);
	return rc;
}
