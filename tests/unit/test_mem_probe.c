/* The probe's bisection, block count and demonstration against a simulated device:
 * free memory in a few extents (first fit), so the answers are known exactly, and
 * every byte taken must be given back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "mem/probe.h"
#include "util/err.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)
#define MAX_LIVE 256

static struct {
	uint64_t total;
	uint64_t ext_start[4], ext_len[4]; /* free extents */
	int n_ext;
	CUdeviceptr live_ptr[MAX_LIVE];
	uint64_t live_len[MAX_LIVE];
	int n_live;
	uint64_t physical;   /* cuMemCreate bytes outstanding */
	int handles, reserved, mapped;
	int fail_with;       /* a non-OOM error to inject on the next cuMemAlloc */
	uint64_t unusable;   /* counted free by cuMemGetInfo, never granted (driver reserve) */
} sim;

static uint64_t sim_used(void)
{
	uint64_t u = sim.physical;
	for (int i = 0; i < sim.n_live; i++)
		u += sim.live_len[i];
	return u;
}

static CUresult f_getinfo(size_t *f, size_t *t)
{
	*t = sim.total;
	uint64_t free_b = 0;
	for (int i = 0; i < sim.n_ext; i++)
		free_b += sim.ext_len[i];
	*f = free_b + sim.unusable - sim_used();
	return CUDA_SUCCESS;
}

/* First fit inside the extents, never overlapping a live block (extents are not split
 * permanently: a block is "placed" at the lowest free address of an extent). */
static CUresult f_alloc(CUdeviceptr *p, size_t n)
{
	if (sim.fail_with) {
		int e = sim.fail_with;
		sim.fail_with = 0;
		return e;
	}
	for (int e = 0; e < sim.n_ext; e++) {
		uint64_t at = sim.ext_start[e], end = sim.ext_start[e] + sim.ext_len[e];
		for (int i = 0; i < sim.n_live; i++) /* live blocks of this extent are packed at its front */
			if (sim.live_ptr[i] >= sim.ext_start[e] && sim.live_ptr[i] < end &&
			    sim.live_ptr[i] + sim.live_len[i] > at)
				at = sim.live_ptr[i] + sim.live_len[i];
		if (end - at >= n && sim_used() + n + sim.physical <= sim.total && sim.n_live < MAX_LIVE) {
			sim.live_ptr[sim.n_live] = at;
			sim.live_len[sim.n_live++] = n;
			*p = at;
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult f_free(CUdeviceptr p)
{
	for (int i = 0; i < sim.n_live; i++)
		if (sim.live_ptr[i] == p) {
			sim.live_ptr[i] = sim.live_ptr[--sim.n_live];
			sim.live_len[i] = sim.live_len[sim.n_live];
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult f_attr(int *v, int attrib, CUdevice dev)
{
	(void)dev;
	*v = attrib == CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
	return CUDA_SUCCESS;
}

static CUresult f_reserve(CUdeviceptr *p, size_t size, size_t al, CUdeviceptr addr, unsigned long long fl)
{
	(void)size, (void)al, (void)addr, (void)fl;
	*p = 1ull << 40;
	sim.reserved++;
	return CUDA_SUCCESS;
}
static CUresult f_addrfree(CUdeviceptr p, size_t size)
{
	(void)p, (void)size;
	sim.reserved--;
	return CUDA_SUCCESS;
}
static uint64_t handle_size[128];
static CUresult f_create(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
			 unsigned long long fl)
{
	(void)prop, (void)fl;
	if (sim.handles >= 127)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (unsigned i = 1; i < 128; i++)
		if (!handle_size[i]) {
			handle_size[i] = size;
			*h = i;
			sim.physical += size;
			sim.handles++;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_release(CUmemGenericAllocationHandle h)
{
	sim.physical -= handle_size[h];
	handle_size[h] = 0;
	sim.handles--;
	return CUDA_SUCCESS;
}
static CUresult f_map(CUdeviceptr p, size_t s, size_t o, CUmemGenericAllocationHandle h, unsigned long long f)
{
	(void)p, (void)s, (void)o, (void)h, (void)f;
	sim.mapped++;
	return CUDA_SUCCESS;
}
static CUresult f_unmap(CUdeviceptr p, size_t s)
{
	(void)p, (void)s;
	sim.mapped--;
	return CUDA_SUCCESS;
}
static CUresult f_access(CUdeviceptr p, size_t s, const CUmemAccessDesc *d, size_t n)
{
	(void)p, (void)s, (void)d, (void)n;
	return CUDA_SUCCESS;
}
static CUresult f_gran(size_t *g, const CUmemAllocationProp *p, int o)
{
	(void)p, (void)o;
	*g = 2 * MiB;
	return CUDA_SUCCESS;
}

static struct cudrv fake(void)
{
	struct cudrv d;
	memset(&d, 0, sizeof d);
	d.MemGetInfo = f_getinfo;
	d.MemAlloc = f_alloc;
	d.MemFree = f_free;
	d.DeviceGetAttribute = f_attr;
	d.MemAddressReserve = f_reserve;
	d.MemAddressFree = f_addrfree;
	d.MemCreate = f_create;
	d.MemRelease = f_release;
	d.MemMap = f_map;
	d.MemUnmap = f_unmap;
	d.MemSetAccess = f_access;
	d.MemGetAllocationGranularity = f_gran;
	return d;
}

static void device(uint64_t total, const uint64_t *extents, int n)
{
	memset(&sim, 0, sizeof sim);
	memset(handle_size, 0, sizeof handle_size);
	sim.total = total;
	uint64_t at = 0;
	for (int i = 0; i < n; i++) {
		sim.ext_start[i] = at + 64 * MiB; /* extents apart */
		sim.ext_len[i] = extents[i];
		at = sim.ext_start[i] + extents[i];
	}
	sim.n_ext = n;
}

static void one_free_extent_is_found_exactly(void **state)
{
	struct cudrv d = fake();
	struct mem_probe p;
	char err[CD_ERRMSG];
	(void)state;
	uint64_t ext[] = {70 * GiB + 123 * MiB};
	device(80 * GiB, ext, 1);
	sim.unusable = 100 * MiB;
	assert_int_equal(mem_probe_measure(&d, 1.0, &p, err), CD_OK);
	assert_int_equal(p.free_before, ext[0] + 100 * MiB);
	/* within 0.1 %: the bracket [largest, smallest_failed] is that tight */
	assert_true(p.largest <= ext[0]);
	assert_true(ext[0] - p.largest <= ext[0] / 1000 + MEM_PROBE_GRAIN);
	assert_true(p.smallest_failed > ext[0]);
	assert_false(p.largest_capped);
	assert_int_equal(sim.n_live, 0); /* everything given back */
	assert_int_equal(p.free_after, p.free_before);
	/* with the default 0.9, the limit itself is granted and nothing beyond is tried */
	assert_int_equal(mem_probe_measure(&d, 0.9, &p, err), CD_OK);
	assert_true(p.largest_capped);
	assert_true(p.largest <= (uint64_t)(0.9 * (double)p.free_before));
	assert_int_equal(p.in_blocks, p.largest);
	assert_int_equal(p.n_blocks, 1);
}

static void split_free_memory_shows_fragmentation(void **state)
{
	struct cudrv d = fake();
	struct mem_probe p;
	char err[CD_ERRMSG];
	(void)state;
	uint64_t ext[] = {5 * GiB, 3 * GiB};
	device(10 * GiB, ext, 2);
	assert_int_equal(mem_probe_measure(&d, 1.0, &p, err), CD_OK);
	assert_true(p.largest <= 5 * GiB && p.largest >= 5 * GiB - 6 * MiB);
	assert_true(p.in_blocks >= 8 * GiB - 64 * MiB);
	assert_true(p.in_blocks - p.largest > p.in_blocks / 10);
	assert_int_equal(sim.n_live, 0);
}

static void driver_error_is_reported_and_nothing_leaks(void **state)
{
	struct cudrv d = fake();
	struct mem_probe p;
	char err[CD_ERRMSG] = "";
	(void)state;
	uint64_t ext[] = {8 * GiB};
	device(10 * GiB, ext, 1);
	sim.fail_with = CUDA_ERROR_UNKNOWN;
	assert_int_equal(mem_probe_measure(&d, 0.5, &p, err), CD_EDRIVER);
	assert_non_null(strstr(err, "cuMemAlloc"));
	assert_int_equal(sim.n_live, 0);
	assert_int_equal(mem_probe_measure(&d, 0.0, &p, err), CD_EUSAGE);
}

static void demo_segments_versus_one_reservation(void **state)
{
	struct cudrv d = fake();
	struct mem_demo m;
	char err[CD_ERRMSG] = "";
	(void)state;
	uint64_t ext[] = {16 * GiB};
	device(20 * GiB, ext, 1);
	int rc = mem_demo_run(&d, 0, 8 * GiB, &m, err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(m.block, 32 * MiB); /* 1 GiB over 32 blocks */
	assert_int_equal(m.freed, 16 * m.block);
	assert_int_equal(m.largest_hole, m.block);
	assert_int_equal(m.request, 2 * m.block);
	/* segments: the driver holds all 32 blocks plus the new segment */
	assert_int_equal(m.seg_driver_used_delta, (int64_t)(34 * m.block));
	assert_true(m.vmm_supported);
	assert_true(m.vmm_request_contiguous);
	/* one reservation: 16 live blocks + the request */
	assert_int_equal(m.vmm_driver_used_delta, (int64_t)(18 * m.block));
	assert_int_equal(sim.n_live, 0);
	assert_int_equal(sim.handles, 0);
	assert_int_equal(sim.mapped, 0);
	assert_int_equal(sim.reserved, 0);
	assert_int_equal(sim.physical, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_free_extent_is_found_exactly),
		cmocka_unit_test(split_free_memory_shows_fragmentation),
		cmocka_unit_test(driver_error_is_reported_and_nothing_leaks),
		cmocka_unit_test(demo_segments_versus_one_reservation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
