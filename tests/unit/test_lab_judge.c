/* The lab verdicts, fed fabricated measurements: each rule confirms what the model
 * predicts, refutes what it does not, and calls nonsense inconclusive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "lab/judge.h"

static struct lab_result res;

static int reset(void **state)
{
	(void)state;
	memset(&res, 0, sizeof res);
	return 0;
}

static void test_bank_ways(void **state)
{
	(void)state;
	assert_int_equal(lab_bank_ways(0), 1);
	assert_int_equal(lab_bank_ways(1), 1);
	assert_int_equal(lab_bank_ways(2), 2);
	assert_int_equal(lab_bank_ways(6), 2);
	assert_int_equal(lab_bank_ways(24), 8);
	assert_int_equal(lab_bank_ways(32), 32);
	assert_int_equal(lab_bank_ways(33), 1);
	assert_int_equal(lab_bank_ways(64), 32);
}

static void test_hello(void **state)
{
	(void)state;
	judge_hello(&res, 32, 32, 0, 0);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "32 of 32"));
	judge_hello(&res, 32, 32, 1, 1);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_hello(&res, 32, 31, 0, 1);
	assert_int_equal(res.verdict, LAB_REFUTED);
}

static void test_index2d(void **state)
{
	(void)state;
	judge_index2d(&res, 2073600, 2073600, 15360, 15360, 0);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_index2d(&res, 2073600, 2073599, 15360, 15360, 0);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_index2d(&res, 2073600, 2073600, 0, 15360, 0);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_index2d(&res, 2073600, 2073600, 15360, 15360, 32);
	assert_int_equal(res.verdict, LAB_REFUTED);
}

static void test_coalescing(void **state)
{
	(void)state;
	/* the H200 numbers of bench/lab.md */
	const unsigned s[] = { 1, 2, 4, 8, 16, 32 };
	const double good[] = { 4305, 2220, 1117, 560, 280, 228 };
	judge_coalescing(&res, s, good, 6, 0.71);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "stride 8: 7.69x"));
	/* a cache-resident buffer: stride costs nothing */
	const double flat[] = { 4000, 3900, 3800, 3700, 3000, 2000 };
	judge_coalescing(&res, s, flat, 6, 0.9);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* a misaligned start that halves bandwidth is not "a modest loss" */
	judge_coalescing(&res, s, good, 6, 0.5);
	assert_int_equal(res.verdict, LAB_REFUTED);
	const unsigned nobase[] = { 2, 4 };
	judge_coalescing(&res, nobase, good, 2, 1);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);

}

static void test_bank(void **state)
{
	(void)state;
	const unsigned s[] = { 0, 1, 2, 4, 8, 16, 32, 33 };
	const double good[] = { 1.0, 1.0, 1.99, 3.97, 7.93, 15.8, 31.6, 1.0 };
	judge_bank(&res, s, good, 8);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	double bad[8];
	memcpy(bad, good, sizeof bad);
	bad[7] = 31.0; /* padding did not help */
	judge_bank(&res, s, bad, 8);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "stride 33: 31.00x (1-way) OUT OF BAND"));
	const unsigned nobase[] = { 2, 4 };
	judge_bank(&res, nobase, good, 2);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

static void test_divergence(void **state)
{
	(void)state;
	const int k[] = { 1, 2, 4, 8, 16, 32 };
	const double lane[] = { 1, 1.82, 3.49, 6.84, 13.5, 26.9 }, warp[] = { 1, 1.01, 1.01, 1.03, 1.04, 1.07 };
	judge_divergence(&res, k, lane, warp, 6);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	/* the compiler if-converted the paths: no cost */
	const double flat[] = { 1, 1, 1.1, 1.1, 1.2, 1.2 };
	judge_divergence(&res, k, flat, warp, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* a warp-uniform branch that costs as much as a divergent one */
	judge_divergence(&res, k, lane, lane, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
}

static void test_blocksize(void **state)
{
	(void)state;
	const int bs[] = { 32, 33, 64, 128, 256, 1024 };
	const double gbs[] = { 851, 878, 1701, 3362, 3920, 3488 }, occ[] = { 0.5, 1, 1, 1, 1, 1 };
	judge_blocksize(&res, bs, gbs, occ, 6);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	/* 33 threads doing as well as 64: lanes would not be the limit */
	const double same[] = { 851, 1690, 1701, 3362, 3920, 3488 };
	judge_blocksize(&res, bs, same, occ, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* best bandwidth at low predicted occupancy */
	const double low_occ[] = { 0.5, 1, 1, 1, 0.25, 1 };
	judge_blocksize(&res, bs, gbs, low_occ, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_blocksize(&res, bs + 3, gbs + 3, occ + 3, 3);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

static void test_latency(void **state)
{
	(void)state;
	size_t k = 1024, m = k * k, l2 = 60 * m;
	const size_t sz[] = { 4 * k, 16 * k, 32 * k, 2 * m, 8 * m, 15 * m, 45 * m, 960 * m, 4096 * m };
	const double cy[] = { 32, 33, 34, 277, 280, 317, 420, 657, 665 };
	double l1, l2c, dram;
	judge_latency(&res, sz, cy, 9, l2, &l1, &l2c, &dram);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_true(l1 == 33);
	assert_true(l2c == 280);
	assert_true(dram == 657);
	/* no step: everything hits one level */
	const double flat[] = { 300, 300, 300, 300, 300, 300, 300, 310, 310 };
	judge_latency(&res, sz, flat, 9, l2, &l1, &l2c, &dram);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* an L1 of 5 cycles is not a dependent load */
	const double fast[] = { 5, 5, 5, 277, 280, 317, 420, 657, 665 };
	judge_latency(&res, sz, fast, 9, l2, &l1, &l2c, &dram);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	/* a sweep that never leaves the L2 */
	judge_latency(&res, sz, cy, 5, l2, &l1, &l2c, &dram);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

static void test_bandwidth(void **state)
{
	(void)state;
	double peak = 4.814e12;
	judge_bandwidth(&res, 4.297e12, 4.3e12, 4.39e12, 4.388e12, 4.53e12, peak);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_bandwidth(&res, 2.0e12, 2.0e12, 2.1e12, 2.1e12, 2.2e12, peak);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* faster than the memory can go: the data sat in L2 */
	judge_bandwidth(&res, 4.3e12, 4.3e12, 4.4e12, 4.4e12, 9.0e12, peak);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_bandwidth(&res, 4.3e12, 4.3e12, 4.4e12, 4.4e12, 4.5e12, 0);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

static void test_hostxfer(void **state)
{
	(void)state;
	double link = 63.0e9;
	judge_hostxfer(&res, 55.5e9, 55.4e9, 8.5e9, 16.4e9, link);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_hostxfer(&res, 30e9, 55.4e9, 8.5e9, 16.4e9, link);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_hostxfer(&res, 55e9, 55e9, 60e9, 16e9, link);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_hostxfer(&res, 70e9, 70e9, 8e9, 8e9, link);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_hostxfer(&res, 20e9, 20e9, 8e9, 8e9, 0);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "unknown"));
}

static void test_streams(void **state)
{
	(void)state;
	/* the model: max + rest / k; one copy engine sums the copies */
	assert_true(lab_streams_model(4, 4, 4, 4, 1, 2) == 12);
	assert_true(lab_streams_model(4, 4, 4, 4, 4, 2) == 6);
	/* copies both ways at once slower than one way (half duplex in part): the steady stage */
	assert_true(lab_streams_model(4, 4, 4, 6, 4, 2) == 6 + 8.0 / 4);
	/* not measured (0): the slower direction alone */
	assert_true(lab_streams_model(4, 4, 4, 0, 4, 2) == 6);
	assert_true(lab_streams_model(4, 4, 4, 4, 4, 1) == 8 + 4.0 / 4);
	const int k[] = { 1, 2, 4, 8 };
	const double ms[] = { 13.7, 9.43, 7.43, 6.72 };
	judge_streams(&res, k, ms, 4, 4.84, 3.93, 4.86, 4.90, 3);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	const double serial[] = { 13.7, 13.6, 13.6, 13.7 };
	judge_streams(&res, k, serial, 4, 4.84, 3.93, 4.86, 4.90, 3);
	assert_int_equal(res.verdict, LAB_REFUTED);
	const double impossible[] = { 13.7, 9.4, 3.0, 2.0 };
	judge_streams(&res, k, impossible, 4, 4.84, 3.93, 4.86, 4.90, 3);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	/* H200 run: H2D 5.07, kernel 4.06, D2H 4.90 ms alone; 4 streams 8.21, 8 streams 7.03 ms;
	 * the model without the duplex copy put them +16% and +18% off. If both copies at once take 6.0 ms,
	 * the steady stage is 6.0 and both land within 5%. */
	{
		int kk[] = { 1, 2, 4, 8 };
		double h200[] = { 13.67, 9.5, 8.21, 7.03 };
		judge_streams(&res, kk, h200, 4, 5.07, 4.06, 4.90, 6.0, 3);
		assert_int_equal(res.verdict, LAB_CONFIRMED);
		assert_non_null(strstr(res.decided, "4 streams: 8.21 ms vs model 8.24 ms"));
	}
}

static void test_graphs_constant_transpose_jit(void **state)
{
	(void)state;
	judge_graphs(&res, 3.07, 1.13);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_graphs(&res, 3.07, 3.5);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_graphs(&res, 0.1, 0.05);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);

	const unsigned d[] = { 1, 2, 4, 8, 16, 32 };
	/* the H200: 1.71 2.95 6.21 7.21 7.96 */
	const double good[] = { 1, 1.71, 2.95, 6.21, 7.21, 7.96 }, flat[] = { 1, 1, 1, 1.1, 1.2, 1.3 };
	const double dip[] = { 1, 1.71, 2.95, 6.21, 3.0, 7.96 }, free2[] = { 1, 0.91, 1.45, 2.5, 11.9, 30 };
	judge_constant(&res, d, good, 6);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_constant(&res, d, flat, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_constant(&res, d, dip, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "16 addresses per warp: 3.00x FASTER THAN FEWER"));
	judge_constant(&res, d, free2, 6);
	assert_int_equal(res.verdict, LAB_REFUTED);

	judge_transpose(&res, 557e9, 1615e9, 3587e9, 3777e9);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_transpose(&res, 557e9, 3500e9, 3587e9, 3777e9);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_transpose(&res, 557e9, 1615e9, 5000e9, 3777e9);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);

	judge_jit(&res, 2.0, 40.0, 1.0, true, false);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	judge_jit(&res, 2.0, 40.0, 39.0, true, true);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_jit(&res, 2.0, 40.0, 39.0, true, false);
	assert_int_equal(res.verdict, LAB_REFUTED);
	judge_jit(&res, 2.0, 40.0, 1.0, false, false);
	assert_int_equal(res.verdict, LAB_REFUTED);
}

/* fabricated H200-like numbers: cuBLAS bf16 750 TFLOP/s of a 1070 peak, tiled 15, naive 2 */
static void test_libraries(void **state)
{
	(void)state;
	struct lab_gemm_point p[3] = {
		{ "fp32", 8192, 0, 12e12, 50e12, 67e12 },
		{ "fp16", 8192, 0, 14e12, 760e12, 1070e12 },
		{ "bf16", 8192, 0, 14e12, 750e12, 1070e12 },
	};
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "bf16 8192^3: cuBLAS 750.0 TFLOP/s = 70% of peak 1070"));
	assert_non_null(strstr(res.decided, "53.6x"));
	/* fast, but below 70% of peak at 8192^3: the library did not run at its rate */
	p[2].library = 600e12;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "BELOW BAND"));
	/* at 4096^3 the band is 50% */
	for (int i = 0; i < 3; i++)
		p[i].n = 4096;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	/* above the peak: the table or the clock is wrong */
	p[1].library = 1200e12;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "ABOVE PEAK"));
	p[1].library = 760e12;
	/* the hand-written kernel wins: refuted, whatever the peak says */
	p[0].tiled = 60e12;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "SLOWER"));
	/* a win of less than 1.5x is no lesson */
	p[0].tiled = 40e12;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "NOT A CLEAR WIN"));
	/* unknown arch: ratios only */
	p[0].tiled = 12e12;
	for (int i = 0; i < 3; i++)
		p[i].peak = 0;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "peak unknown"));
	/* no cuBLAS: nothing to compare with */
	judge_libraries(&res, p, 3, "CUDOCTOR_LIBCUBLAS=/x: cannot open shared object file");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "no cuBLAS to compare with: CUDOCTOR_LIBCUBLAS=/x"));
	/* a variant missing */
	p[1].library = 0;
	judge_libraries(&res, p, 3, "");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_libraries(&res, p, 0, "");
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

static void test_occupancy(void **state)
{
	(void)state;
	/* an H200-like part: 650 ns idle latency, 4.8 TB/s, 132 SMs, 512 B per warp */
	struct lab_occ_model m = { .latency_ns = 650, .peak = 4.8e12, .sm_count = 132, .request_bytes = 512 };
	assert_true(fabs(lab_occ_little(&m, 1) - 132 * 512 / 650e-9) < 1);
	assert_true(lab_occ_little(&m, 64) == 4.8e12); /* capped at the peak */
	assert_true(fabs(lab_occ_warps_needed(&m) - 4.8e12 / (132 * 512 / 650e-9)) < 1e-9);
	int w[] = { 1, 2, 4, 8, 16, 32, 64 };
	double ok[] = { 95e9, 185e9, 360e9, 700e9, 1300e9, 3000e9, 4100e9 };
	judge_occupancy(&res, w, ok, 7, &m);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "1 warps/SM: 95 GB/s = 0.91x Little's law"));
	assert_non_null(strstr(res.decided, "best 4100 GB/s = 85% of peak at 64 warps/SM"));
	/* bandwidth that does not grow with warps */
	double flat[] = { 95e9, 100e9, 105e9, 110e9, 1300e9, 3000e9, 4100e9 };
	judge_occupancy(&res, w, flat, 7, &m);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "1 -> 2 warps: bandwidth grew only 1.05x"));
	/* far below the law at low occupancy */
	double slow[] = { 30e9, 60e9, 120e9, 240e9, 1300e9, 3000e9, 4100e9 };
	judge_occupancy(&res, w, slow, 7, &m);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "BELOW BAND"));
	/* never near the peak */
	double low[] = { 95e9, 185e9, 360e9, 700e9, 1300e9, 2000e9, 2500e9 };
	judge_occupancy(&res, w, low, 7, &m);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "never reached 60%"));
	/* more in flight than one request per warp: the premise failed */
	double hot[] = { 200e9, 400e9, 800e9, 1600e9, 3200e9, 4000e9, 4100e9 };
	judge_occupancy(&res, w, hot, 7, &m);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "ABOVE THE LAW"));
	/* above the peak */
	double cached[] = { 95e9, 185e9, 360e9, 700e9, 1300e9, 3000e9, 5200e9 };
	judge_occupancy(&res, w, cached, 7, &m);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	/* no latency, no peak, too few points */
	struct lab_occ_model none = m;
	none.latency_ns = 0;
	judge_occupancy(&res, w, ok, 7, &none);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	none = m;
	none.peak = 0;
	judge_occupancy(&res, w, ok, 7, &none);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_occupancy(&res, w, ok, 2, &m);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	/* a sweep that starts saturated */
	int big[] = { 32, 48, 64 };
	double sat[] = { 3000e9, 3900e9, 4100e9 };
	judge_occupancy(&res, big, sat, 3, &m);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "never was latency-bound"));
}

static void test_texture(void **state)
{
	(void)state;
	/* ms per path: the stencil the same on every path, the rotated sample faster from the texture */
	struct lab_tex_point p[2] = { { "stencil", 1.00, 0.98, 1.02 }, { "bilinear", 2.0, 1.9, 1.2 } };
	judge_texture(&res, p, 2);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "stencil: texture 0.98x plain (no difference)"));
	assert_non_null(strstr(res.decided, "bilinear: texture 1.67x plain (helps)"));
	/* the texture no faster for the rotated sample: refuted, whatever the stencil does */
	p[1].tex = 1.95;
	p[0].tex = 0.5;
	judge_texture(&res, p, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "stencil: texture 2.00x plain (helps)"));
	p[1].tex = 2.5;
	judge_texture(&res, p, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "bilinear: texture 0.80x plain (hurts)"));
	/* missing numbers */
	p[1].tex = 0;
	judge_texture(&res, p, 2);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_texture(&res, p, 1);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "no bilinear sample measured"));
}

static void test_device_malloc(void **state)
{
	(void)state;
	/* ms per path at three sizes: per-thread malloc far slower, per-block close to the buffer */
	struct lab_dm_point p[3] = { { 16, 0.010, 0.900, 0.020, 0, 0 },
				     { 256, 0.030, 1.100, 0.045, 0, 0 },
				     { 4096, 0.400, 6.000, 0.600, 0, 0 } };
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "16 B per thread: malloc per thread 90.0x, one per block 2.00x"));
	assert_non_null(strstr(res.decided, "4096 B per thread: malloc per thread 15.0x, one per block 1.50x"));
	assert_null(strstr(res.decided, "NULL"));
	/* a size where malloc costs little: the advice does not hold there */
	p[2].per_thread = 0.44;
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "1.1x, one per block 1.50x the preallocated buffer's time NO REAL COST"));
	/* a loss, but not a clear one */
	p[2].per_thread = 0.6;
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "NOT A CLEAR LOSS"));
	/* NULLs from a full heap make the times incomparable, and are said */
	p[2].per_thread = 6.0;
	p[2].null_thread = 12;
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "4096 B: 12 per-thread and 0 per-block malloc() returned NULL"));
	/* a refutation outranks the NULLs */
	p[0].per_thread = 0.011;
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_REFUTED);
	/* nothing or a path missing */
	judge_device_malloc(&res, p, 0);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	p[0].per_thread = 0.9;
	p[2].null_thread = 0;
	p[1].per_block = 0;
	judge_device_malloc(&res, p, 3);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "256 B: a path was not measured"));
}

/* what a deadlocked one-sided barrier returns: every waiter out on the clock, side A through */
static struct lab_sync_div deadlocked(unsigned long long clock, unsigned long long watchdog)
{
	struct lab_sync_div d = { .run = true, .a_threads = 16896, .b_threads = 16896, .a_passed = 16896,
				  .b_clock = clock, .b_watchdog = watchdog, .a_saw_gone = 16896, .ms = 1.2 };
	return d;
}

static void test_sync(void **state)
{
	(void)state;
	/* cycles per loop iteration, with and without a barrier, one block per SM */
	struct lab_sync_cost c[3] = { { 32, 30.0, 8.0 }, { 256, 52.0, 20.0 }, { 1024, 140.0, 70.0 } };
	struct lab_sync_divergent d = { 0 };
	d.one_sided = deadlocked(16896, 0);
	d.watchdog = deadlocked(0, 16896);
	d.watchdog.ms = 20.4;
	d.mismatched = (struct lab_sync_div){ .run = true, .a_threads = 16896, .b_threads = 16896, .a_passed = 16896,
					      .exchanged = 33792 };
	d.early_exit = (struct lab_sync_div){ .run = true, .a_threads = 16896, .b_threads = 16896, .a_passed = 16896 };
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "cycles per barrier by block size: 32: 22.0 (one warp), 256: 32.0, 1024: 70.0"));
	assert_non_null(strstr(res.decided, "one-sided: deadlock until all 16896 waiters gave up (16896 clock64, 0 "
					    "watchdog), 1.2 ms"));
	assert_non_null(strstr(res.decided, "host-released: deadlock until all 16896 waiters gave up (0 clock64, 16896 "
					    "watchdog), 20.4 ms"));
	assert_non_null(strstr(res.decided, "__syncthreads() per branch: paired as one (33792/33792 tokens)"));
	assert_non_null(strstr(res.decided, "early return: side A passed (16896/16896), exited threads not waited for"));
	assert_true(strlen(res.decided) < sizeof res.decided - 1); /* nothing cut off */
	struct lab_sync_cost six[6] = { c[0], c[0], c[1], c[1], c[2], c[2] };
	judge_sync(&res, six, 6, &d);
	assert_non_null(strstr(res.decided, "exited threads not waited for")); /* the last clause fits */
	/* mismatched barriers that do not pair are reported, not judged (undefined behaviour) */
	d.mismatched.exchanged = 100;
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "did NOT pair (100/33792 tokens)"));
	/* a barrier that costs nothing at one size */
	c[1].bar_cycles = 20.5;
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "256: 0.5 NO COST"));
	c[1].bar_cycles = 52;
	/* a full block cheaper per barrier than eight warps */
	c[2].bar_cycles = 95;
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "1024 threads paid less per barrier than 256"));
	c[2].bar_cycles = 140;
	/* one warp's barrier waits for no other warp: free there is no refutation (measured on
	 * the H200: 32 threads -0.0 cycles, 256: 10.0, 1024: 43.5) */
	c[0].bar_cycles = c[0].nobar_cycles;
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "32: 0.0 (one warp)"));
	c[0].bar_cycles = 30;
	/* only one-warp blocks: nothing to judge */
	judge_sync(&res, c, 1, &d);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	/* side A got through while side B still waited: no deadlock on this GPU */
	d.one_sided.b_saw = 16896;
	d.one_sided.b_clock = 0;
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "16896 of 16896 waiting threads saw side A pass its barrier without them"));
	/* counts that do not add up */
	d.one_sided = deadlocked(16000, 0);
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "counts do not add up (16896/16896 side-A threads passed, 16000/16896"));
	/* the host's watchdog not seen before the clock budget: the safety net is unproven */
	d.one_sided = deadlocked(16896, 0);
	d.watchdog = deadlocked(16000, 896);
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "the watchdog reached only 896 of 16896 waiters"));
	/* no divergent half: the cost alone decides, and says so */
	judge_sync(&res, c, 3, NULL);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "divergent barriers not run"));
	d.one_sided.run = false;
	d.watchdog = deadlocked(0, 16896);
	judge_sync(&res, c, 3, &d);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	judge_sync(&res, c, 0, NULL);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bank_ways, reset),
		cmocka_unit_test_setup(test_hello, reset),
		cmocka_unit_test_setup(test_index2d, reset),
		cmocka_unit_test_setup(test_coalescing, reset),
		cmocka_unit_test_setup(test_bank, reset),
		cmocka_unit_test_setup(test_divergence, reset),
		cmocka_unit_test_setup(test_blocksize, reset),
		cmocka_unit_test_setup(test_latency, reset),
		cmocka_unit_test_setup(test_bandwidth, reset),
		cmocka_unit_test_setup(test_hostxfer, reset),
		cmocka_unit_test_setup(test_streams, reset),
		cmocka_unit_test_setup(test_graphs_constant_transpose_jit, reset),
		cmocka_unit_test_setup(test_libraries, reset),
		cmocka_unit_test_setup(test_occupancy, reset),
		cmocka_unit_test_setup(test_texture, reset),
		cmocka_unit_test_setup(test_device_malloc, reset),
		cmocka_unit_test_setup(test_sync, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
