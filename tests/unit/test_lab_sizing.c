/* Lab sizes come from the device: the same lab fits an 8 GB laptop GPU and an H200,
 * with DRAM working sets several times the L2. Plus medians and spreads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "lab/sizing.h"
#include "lab/stats.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* attribute values as the driver reports them on each part */
static struct lab_dev h200(void)
{
	struct lab_dev d;
	memset(&d, 0, sizeof d);
	d.cc_major = 9;
	d.sm_count = 132;
	d.warp_size = 32;
	d.max_threads_per_block = 1024;
	d.max_threads_per_sm = 2048;
	d.l2_bytes = 60 * (int)MIB;
	d.mem_clock_khz = 3201000;
	d.bus_width_bits = 6016;
	d.total_mem = 143155 * MIB;
	d.free_mem = 142000 * MIB;
	return d;
}

static struct lab_dev laptop(void) /* RTX 4060 Laptop: 8 GB, 32 MB L2 */
{
	struct lab_dev d = h200();
	d.cc_major = 8;
	d.sm_count = 24;
	d.max_threads_per_sm = 1536;
	d.l2_bytes = 32 * (int)MIB;
	d.mem_clock_khz = 8001000;
	d.bus_width_bits = 128;
	d.total_mem = 8188 * MIB;
	d.free_mem = 7400 * MIB;
	return d;
}

static struct lab_dev small(void) /* 2 GB card with a 2 MB L2 */
{
	struct lab_dev d = laptop();
	d.l2_bytes = 2 * (int)MIB;
	d.total_mem = 2048 * MIB;
	d.free_mem = 1500 * MIB;
	d.max_threads_per_block = 512;
	return d;
}

static void test_dram_bytes(void **state)
{
	(void)state;
	struct lab_dev a = h200(), b = laptop(), c = small();
	assert_int_equal(lab_dram_bytes(&a, 3, false), 2 * GIB);
	assert_true(lab_defeats_l2(&a, lab_dram_bytes(&a, 3, true)));
	assert_int_equal(lab_dram_bytes(&a, 3, true), 480 * MIB);
	/* the laptop: 3 arrays must share half of 7.4 GB */
	size_t lb = lab_dram_bytes(&b, 3, false);
	assert_true(3 * lb <= b.free_mem / 2);
	assert_true(lab_defeats_l2(&b, lb));
	assert_int_equal(lb % MIB, 0);
	/* 16 x a 2 MB L2 */
	assert_int_equal(lab_dram_bytes(&c, 1, false), 32 * MIB);
	assert_int_equal(lab_dram_bytes(&c, 1, true), 64 * MIB);
	/* no memory reported: still at least 1 MiB, never zero */
	struct lab_dev z = c;
	z.free_mem = z.total_mem = 0;
	assert_int_equal(lab_dram_bytes(&z, 3, false), MIB);
}

static void check_latency_sizes(const struct lab_dev *d, bool quick)
{
	size_t s[64];
	size_t n = lab_latency_sizes(d, quick, s, 64);
	assert_true(n >= 7);
	assert_int_equal(s[0], 4096);
	for (size_t i = 1; i < n; i++)
		assert_true(s[i] > s[i - 1]);
	assert_true(s[n - 1] >= 8 * (size_t)d->l2_bytes || s[n - 1] >= d->free_mem / 4 - 4096);
	assert_true(s[n - 1] <= d->free_mem / 4);
	/* points inside the L2, on both sides of its halfway mark */
	bool below = false, above = false;
	for (size_t i = 0; i < n; i++) {
		below |= s[i] >= 2 * MIB && s[i] <= (size_t)d->l2_bytes / 2;
		above |= s[i] > (size_t)d->l2_bytes / 2 && s[i] <= (size_t)d->l2_bytes;
	}
	assert_true(below && above);
}

static void test_latency_sizes(void **state)
{
	(void)state;
	struct lab_dev a = h200(), b = laptop(), c = small();
	check_latency_sizes(&a, false);
	check_latency_sizes(&a, true);
	check_latency_sizes(&b, false);
	check_latency_sizes(&b, true);
	size_t s[64];
	size_t n = lab_latency_sizes(&a, false, s, 64);
	assert_int_equal(s[n - 1], 4 * GIB); /* past the TLB's reach on the H200 */
	n = lab_latency_sizes(&c, false, s, 64);
	assert_true(s[n - 1] <= c.free_mem / 4);
	/* a tiny output array is respected */
	assert_true(lab_latency_sizes(&a, false, s, 3) <= 3);
	assert_true(lab_chase_hops(true) % 16 == 0 && lab_chase_hops(false) % 16 == 0);
}

static void test_xfer_and_block_sizes(void **state)
{
	(void)state;
	struct lab_dev a = h200(), c = small();
	size_t s[16];
	size_t n = lab_xfer_sizes(&a, false, s, 16);
	assert_int_equal(n, 10);
	assert_int_equal(s[0], 4096);
	assert_int_equal(s[n - 1], GIB);
	n = lab_xfer_sizes(&c, false, s, 16);
	assert_true(s[n - 1] <= c.free_mem / 4);
	n = lab_xfer_sizes(&a, true, s, 16);
	assert_true(n >= 3 && s[n - 1] >= 64 * MIB);

	int b[64];
	n = lab_block_sizes(&a, false, b, 64);
	assert_int_equal(n, 34);
	assert_int_equal(b[0], 32);
	assert_int_equal(b[1], 33);
	assert_int_equal(b[n - 1], 1024);
	bool has100 = false;
	for (size_t i = 0; i < n; i++) {
		has100 |= b[i] == 100;
		if (i)
			assert_true(b[i] > b[i - 1]);
	}
	assert_true(has100);
	n = lab_block_sizes(&c, false, b, 64);
	assert_int_equal(b[n - 1], 512);
	n = lab_block_sizes(&a, true, b, 64);
	assert_true(n < 12 && b[1] == 33);
}

static void test_sync_and_heap_sizes(void **state)
{
	(void)state;
	struct lab_dev a = h200(), c = small();
	int b[16];
	size_t n = lab_sync_block_sizes(&a, false, b, 16);
	assert_int_equal(n, 6);
	assert_int_equal(b[0], 32);
	assert_int_equal(b[5], 1024);
	n = lab_sync_block_sizes(&a, true, b, 16);
	assert_int_equal(n, 3);
	assert_int_equal(b[0], 32);
	assert_int_equal(b[1], 256);
	assert_int_equal(b[2], 1024);
	n = lab_sync_block_sizes(&c, false, b, 16);
	assert_int_equal(b[n - 1], 512);
	assert_int_equal(lab_sync_block_sizes(&a, false, b, 2), 2);

	/* 67584 threads x 4 KiB live: twice that plus 16 MiB, whole MiB */
	size_t need = 67584ull * 4096, h = lab_heap_bytes(&a, need, 8 * MIB);
	assert_int_equal(h, (2 * need + 16 * MIB) / MIB * MIB);
	/* capped at an eighth of the free memory, never below what the context has */
	assert_int_equal(lab_heap_bytes(&c, 1500 * MIB, 8 * MIB), 1500 * MIB / 8 / MIB * MIB);
	assert_int_equal(lab_heap_bytes(&c, 0, 300 * MIB), 300 * MIB);
	/* threads that fit in half the heap: the default 8 MiB holds 1024 x 4 KiB */
	assert_int_equal(lab_heap_threads(8 * MIB, 4096, 256, 67584), 1024);
	assert_int_equal(lab_heap_threads(h, 4096, 256, 67584), 67584);
	assert_int_equal(lab_heap_threads(64 * 1024, 4096, 256, 67584), 256); /* at least one block */
	assert_int_equal(lab_heap_threads(8 * MIB, 16, 256, 1000), 768);    /* a multiple of the block */
	assert_int_equal(lab_heap_threads(8 * MIB, 16, 0, 1000), 0);
}

static void test_transpose_and_peaks(void **state)
{
	(void)state;
	struct lab_dev a = h200(), c = small();
	int n = lab_transpose_n(&a);
	assert_int_equal(n, 8192);
	assert_true((size_t)n * n * 4 >= 4 * (size_t)a.l2_bytes);
	n = lab_transpose_n(&c);
	assert_int_equal(n % 32, 0);
	assert_true((size_t)n * n * 16 <= c.free_mem);
	/* 2 x 3201 MHz x 6016 bit / 8 = 4814.3 GB/s, as BabelStream prints */
	assert_true(fabs(lab_peak_dram(&a) - 4814.304e9) < 1e6);
	struct lab_dev z = a;
	z.bus_width_bits = 0;
	assert_true(lab_peak_dram(&z) == 0);
	assert_true(fabs(lab_pcie_bytes_per_s(5, 16) - 63.015e9) < 0.01e9);
	assert_true(fabs(lab_pcie_bytes_per_s(4, 16) - 31.508e9) < 0.01e9);
	assert_true(fabs(lab_pcie_bytes_per_s(2, 8) - 4.0e9) < 1e6);
	assert_true(lab_pcie_bytes_per_s(0, 16) == 0 && lab_pcie_bytes_per_s(7, 16) == 0);
}

static void test_stats(void **state)
{
	(void)state;
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	struct lab_stats s = lab_stats_of(odd, 3);
	assert_true(s.median == 3 && s.min == 1 && s.max == 5);
	assert_true(fabs(s.spread - 4.0 / 3) < 1e-12);
	s = lab_stats_of(even, 4);
	assert_true(s.median == 2.5);
	assert_true(odd[0] == 5); /* input untouched */
	s = lab_stats_of(odd, 1);
	assert_true(s.median == 5 && s.spread == 0);
	s = lab_stats_of(odd, 0);
	assert_true(s.n == 0 && s.median == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dram_bytes),
		cmocka_unit_test(test_latency_sizes),
		cmocka_unit_test(test_xfer_and_block_sizes),
		cmocka_unit_test(test_sync_and_heap_sizes),
		cmocka_unit_test(test_transpose_and_peaks),
		cmocka_unit_test(test_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
