/* Sizing every lab from the device's limits. */
#include "lab/sizing.h"
#include "util/sort.h"

#include <stdlib.h>

static size_t clamp_mib(size_t v)
{
	v -= v % LAB_MIB;
	return v < LAB_MIB ? LAB_MIB : v;
}

size_t lab_dram_bytes(const struct lab_dev *d, int arrays, bool quick)
{
	size_t l2 = d->l2_bytes > 0 ? (size_t)d->l2_bytes : 4 * LAB_MIB;
	size_t want = 16 * l2;
	if (l2 >= 32 * LAB_MIB)
		want = 2048 * LAB_MIB;
	if (quick)
		want = 8 * l2 > 64 * LAB_MIB ? 8 * l2 : 64 * LAB_MIB;
	if (want > 2048 * LAB_MIB)
		want = 2048 * LAB_MIB;
	if (arrays < 1)
		arrays = 1;
	size_t mem = d->free_mem ? d->free_mem : d->total_mem;
	size_t cap = mem / 2 / (size_t)arrays;
	if (want > cap)
		want = cap;
	return clamp_mib(want);
}

bool lab_defeats_l2(const struct lab_dev *d, size_t bytes)
{
	return d->l2_bytes <= 0 || bytes >= 4 * (size_t)d->l2_bytes;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static size_t add_size(size_t *out, size_t n, size_t max, size_t v)
{
	v -= v % 4096;
	if (v >= 4096 && n < max)
		out[n++] = v;
	return n;
}

size_t lab_latency_sizes(const struct lab_dev *d, bool quick, size_t *out, size_t max)
{
	size_t n = 0, k = 1024;
	size_t l2 = d->l2_bytes > 0 ? (size_t)d->l2_bytes : 4 * LAB_MIB;
	size_t mem = d->free_mem ? d->free_mem : d->total_mem;
	size_t top = (size_t)4 << 30;
	if (top > mem / 4)
		top = mem / 4;
	if (quick) {
		static const size_t small[] = { 4, 16, 64, 1024, 2048, 4096 };
		for (size_t i = 0; i < 6; i++)
			n = add_size(out, n, max, small[i] * k);
		n = add_size(out, n, max, l2 / 4);
		n = add_size(out, n, max, l2 * 3 / 4);
		n = add_size(out, n, max, 16 * l2 < top ? 16 * l2 : top);
	} else {
		static const size_t small[] = { 4, 8, 16, 32, 64, 96, 128, 160, 192, 224, 256, 320, 512, 1024, 2048 };
		for (size_t i = 0; i < sizeof small / sizeof *small; i++)
			n = add_size(out, n, max, small[i] * k);
		for (int e = 1; e <= 8; e++)              /* L2/8 .. L2 */
			n = add_size(out, n, max, l2 * (size_t)e / 8);
		static const size_t mult[] = { 3, 4, 8, 16, 32, 64 }; /* x L2 / 2 */
		for (size_t i = 0; i < sizeof mult / sizeof *mult; i++)
			if (l2 * mult[i] / 2 <= top)
				n = add_size(out, n, max, l2 * mult[i] / 2);
		for (size_t g = (size_t)1 << 30; g <= top; g *= 2)
			if (g > l2 * 32)
				n = add_size(out, n, max, g);
	}
	cd_qsort(out, n, sizeof *out, cmp_size);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if ((m == 0 || out[i] != out[m - 1]) && out[i] <= (top > 4096 ? top : 4096))
			out[m++] = out[i];
	return m;
}

unsigned long long lab_chase_hops(bool quick)
{
	return quick ? 16384 : 65536;
}

size_t lab_xfer_sizes(const struct lab_dev *d, bool quick, size_t *out, size_t max)
{
	size_t n = 0;
	size_t mem = d->free_mem ? d->free_mem : d->total_mem;
	size_t cap = (size_t)1 << 30;
	if (cap > mem / 4)
		cap = mem / 4;
	for (size_t s = 4096; s <= cap && n < max; s *= 4) {
		if (quick && s != 65536 && s != ((size_t)4 << 20) && s < ((size_t)64 << 20))
			continue;
		if (quick && s > ((size_t)256 << 20))
			break;
		out[n++] = s;
	}
	return n;
}

size_t lab_block_sizes(const struct lab_dev *d, bool quick, int *out, size_t max)
{
	size_t n = 0;
	int top = d->max_threads_per_block > 0 ? d->max_threads_per_block : 1024;
	int ws = d->warp_size > 0 ? d->warp_size : 32;
	for (int b = ws; b <= top && n < max; b += ws) {
		if (quick && b != 32 && b != 64 && b != 128 && b != 256 && b != 512 && b != top)
			continue;
		if (b == 64 && n < max)
			out[n++] = 33;
		if (b == 128 && n < max)
			out[n++] = 100;
		if (n < max)
			out[n++] = b;
	}
	return n;
}

int lab_transpose_n(const struct lab_dev *d)
{
	size_t l2 = d->l2_bytes > 0 ? (size_t)d->l2_bytes : 4 * LAB_MIB;
	size_t mem = d->free_mem ? d->free_mem : d->total_mem;
	int n = 1024;
	while ((size_t)n * n * 4 < 4 * l2 && n < 16384)
		n *= 2;
	while (n > 256 && (size_t)n * n * 4 * 4 > mem)
		n /= 2;
	return n;
}

double lab_peak_dram(const struct lab_dev *d)
{
	if (d->mem_clock_khz <= 0 || d->bus_width_bits <= 0)
		return 0;
	return 2.0 * d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0);
}

double lab_pcie_bytes_per_s(int gen, int width)
{
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	if (gen < 1 || gen > 6 || width <= 0)
		return 0;
	/* gen 1-2 use 8b/10b coding; gen 3-5 128b/130b; gen 6 FLIT mode ~242/256 */
	double eff = gen <= 2 ? 0.8 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
	return gts[gen] * 1e9 * eff * width / 8.0;
}

size_t lab_p2p_bytes(size_t min_free, bool quick, bool tiny)
{
	size_t want = tiny ? 4 * LAB_MIB : quick ? 256 * LAB_MIB : 1024 * LAB_MIB;
	size_t cap = min_free / 4;
	if (want > cap)
		want = cap;
	want -= want % LAB_MIB;
	return want;
}

size_t lab_p2p_latency_sizes(bool quick, size_t *out, size_t max)
{
	static const size_t full[] = { 4, 4096, 65536 }, fast[] = { 4, 65536 };
	const size_t *v = quick ? fast : full;
	size_t n = quick ? sizeof fast / sizeof *fast : sizeof full / sizeof *full, m = 0;
	for (size_t i = 0; i < n && m < max; i++)
		out[m++] = v[i];
	return m;
}

size_t lab_sync_block_sizes(const struct lab_dev *d, bool quick, int *out, size_t max)
{
	int ws = d->warp_size > 0 ? d->warp_size : 32, top = d->max_threads_per_block;
	int all[32];
	size_t n = 0, k = 0;
	for (int b = ws; b <= top && n < sizeof all / sizeof *all; b *= 2)
		all[n++] = b;
	for (size_t i = 0; i < n && k < max; i++)
		if (!quick || i == 0 || i == n / 2 || i + 1 == n)
			out[k++] = all[i];
	return k;
}

size_t lab_heap_bytes(const struct lab_dev *d, size_t need, size_t current)
{
	size_t mem = d->free_mem ? d->free_mem : d->total_mem, want = 2 * need + 16 * LAB_MIB;
	if (want > mem / 8)
		want = mem / 8;
	want -= want % LAB_MIB;
	return want > current ? want : current;
}

unsigned lab_heap_threads(size_t heap, unsigned bytes, unsigned block, unsigned max_threads)
{
	if (block == 0)
		return 0;
	size_t fit = bytes ? heap / 2 / bytes : max_threads;
	if (fit > max_threads)
		fit = max_threads;
	fit -= fit % block;
	return fit < block ? block : (unsigned)fit;
}
