/* Verdicts from measurements. Every function is pure: fabricated numbers in tests
 * exercise exactly the logic the GPU run uses. */
#include "lab/judge.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void say(struct lab_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct lab_result *r, const char *fmt, ...)
{
	size_t len = strlen(r->decided);
	if (len + 1 >= sizeof r->decided)
		return;
	if (len) {
		r->decided[len++] = ';';
		r->decided[len++] = ' ';
		r->decided[len] = 0;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->decided + len, sizeof r->decided - len, fmt, ap);
	va_end(ap);
}

static void set(struct lab_result *r, enum lab_verdict v)
{
	r->verdict = v;
	r->decided[0] = 0;
}

/* worst verdict wins: refuted > inconclusive > confirmed */
static void worsen(struct lab_result *r, enum lab_verdict v)
{
	if (v == LAB_REFUTED || (v == LAB_INCONCLUSIVE && r->verdict == LAB_CONFIRMED))
		r->verdict = v;
}

static bool within(double measured, double expected, double tol)
{
	return expected > 0 && fabs(measured / expected - 1.0) <= tol;
}

int lab_bank_ways(unsigned stride)
{
	if (stride == 0)
		return 1;
	unsigned a = stride, b = 32;
	while (b) {
		unsigned t = a % b;
		a = b;
		b = t;
	}
	return (int)a;
}

void judge_hello(struct lab_result *r, unsigned expected, unsigned seen, unsigned dup, unsigned missing)
{
	set(r, seen == expected && dup == 0 && missing == 0 ? LAB_CONFIRMED : LAB_REFUTED);
	say(r, "%u of %u (block, thread) pairs seen, %u twice, %u missing", seen, expected, dup, missing);
}

void judge_index2d(struct lab_result *r, size_t pixels, size_t once, size_t guard_writes, size_t expected_guard,
		   size_t warp_errors)
{
	set(r, once == pixels && guard_writes == expected_guard && warp_errors == 0 ? LAB_CONFIRMED : LAB_REFUTED);
	say(r, "%zu of %zu pixels written exactly once", once, pixels);
	say(r, "%zu writes past the image without the bounds check (grid overhang: %zu)", guard_writes,
	    expected_guard);
	say(r, "%zu threads outside the warp their linear id predicts", warp_errors);
}

void judge_coalescing(struct lab_result *r, const unsigned *strides, const double *gbs, size_t n,
		      double offset_ratio)
{
	set(r, LAB_CONFIRMED);
	if (n < 2 || strides[0] != 1 || gbs[0] <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no stride-1 baseline");
		return;
	}
	int checked = 0;
	for (size_t i = 1; i < n; i++) {
		if (strides[i] > 8 || gbs[i] <= 0)
			continue;
		double ratio = gbs[0] / gbs[i];
		checked++;
		bool ok = within(ratio, strides[i], 0.25);
		say(r, "stride %u: %.2fx slower (expected %ux)%s", strides[i], ratio, strides[i], ok ? "" : " OUT OF BAND");
		if (!ok)
			worsen(r, LAB_REFUTED);
	}
	if (!checked) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no stride between 2 and 8 measured");
		return;
	}
	if (offset_ratio > 0) {
		say(r, "worst misaligned offset keeps %.0f%% of aligned bandwidth", offset_ratio * 100);
		/* one extra sector and a second cache line per warp: a modest loss, never a stride's */
		if (offset_ratio < 0.6)
			worsen(r, LAB_REFUTED);
	}
}

void judge_bank(struct lab_result *r, const unsigned *strides, const double *ms, size_t n)
{
	set(r, LAB_CONFIRMED);
	double base = 0;
	for (size_t i = 0; i < n; i++)
		if (strides[i] == 1)
			base = ms[i];
	if (base <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no stride-1 baseline");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (strides[i] == 1)
			continue;
		int ways = lab_bank_ways(strides[i]);
		double ratio = ms[i] / base;
		bool ok = within(ratio, ways, 0.25);
		say(r, "stride %u: %.2fx (%d-way)%s", strides[i], ratio, ways, ok ? "" : " OUT OF BAND");
		if (!ok)
			worsen(r, LAB_REFUTED);
	}
}

void judge_divergence(struct lab_result *r, const int *paths, const double *lane_ms, const double *warp_ms,
		      size_t n)
{
	set(r, LAB_CONFIRMED);
	if (n < 2 || paths[0] != 1 || lane_ms[0] <= 0 || warp_ms[0] <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no single-path baseline");
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double lr = lane_ms[i] / lane_ms[0], wr = warp_ms[i] / warp_ms[0];
		bool lok = within(lr, paths[i], 0.25), wok = wr <= 1.25;
		say(r, "%d paths: %.2fx within a warp (expected %dx), %.2fx across warps (expected 1x)%s", paths[i], lr,
		    paths[i], wr, lok && wok ? "" : " OUT OF BAND");
		if (!lok || !wok)
			worsen(r, LAB_REFUTED);
	}
}

void judge_blocksize(struct lab_result *r, const int *bs, const double *gbs, const double *occupancy, size_t n)
{
	double b32 = 0, b33 = 0, b64 = 0, best = 0, best_occ = 0, max_occ = 0;
	int best_bs = 0;
	for (size_t i = 0; i < n; i++) {
		if (bs[i] == 32)
			b32 = gbs[i];
		if (bs[i] == 33)
			b33 = gbs[i];
		if (bs[i] == 64)
			b64 = gbs[i];
		if (gbs[i] > best) {
			best = gbs[i];
			best_bs = bs[i];
			best_occ = occupancy[i];
		}
		if (occupancy[i] > max_occ)
			max_occ = occupancy[i];
	}
	set(r, LAB_CONFIRMED);
	if (b32 <= 0 || b33 <= 0 || b64 <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "block sizes 32, 33 and 64 are all needed");
		return;
	}
	double r33_64 = b33 / b64, r33_32 = b33 / b32;
	say(r, "33 threads (2 warps, 31 lanes idle) reach %.0f%% of 64 threads' bandwidth and %.0f%% of 32's", r33_64 * 100,
	    r33_32 * 100);
	say(r, "best %.0f GB/s at %d threads, predicted occupancy %.0f%% (max %.0f%%)", best / 1e9, best_bs,
	    best_occ * 100, max_occ * 100);
	if (r33_64 > 0.85 || !within(r33_32, 1.0, 0.25))
		worsen(r, LAB_REFUTED);
	if (best_occ < 0.75 * max_occ)
		worsen(r, LAB_REFUTED);
}

static double median_in(const size_t *bytes, const double *cycles, size_t n, size_t lo, size_t hi)
{
	double v[128];
	size_t m = 0;
	for (size_t i = 0; i < n && m < 128; i++)
		if (bytes[i] >= lo && bytes[i] <= hi && cycles[i] > 0)
			v[m++] = cycles[i];
	if (!m)
		return 0;
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

void judge_latency(struct lab_result *r, const size_t *bytes, const double *cycles, size_t n, size_t l2_bytes,
		   double *l1, double *l2, double *dram)
{
	size_t k = 1024, m = k * k;
	*l1 = median_in(bytes, cycles, n, 0, 32 * k);
	*l2 = median_in(bytes, cycles, n, 2 * m, l2_bytes / 4 > 2 * m ? l2_bytes / 4 : 2 * m);
	*dram = median_in(bytes, cycles, n, 8 * l2_bytes, 1024 * m);
	if (*dram == 0)
		*dram = median_in(bytes, cycles, n, 4 * l2_bytes, (size_t)-1);
	set(r, LAB_CONFIRMED);
	if (*l1 <= 0 || *l2 <= 0 || *dram <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "the sweep did not reach every level (L1 %.0f, L2 %.0f, DRAM %.0f cycles)", *l1, *l2, *dram);
		return;
	}
	say(r, "L1 %.0f, L2 %.0f, DRAM %.0f cycles per dependent load", *l1, *l2, *dram);
	if (*l1 < 15) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "L1 under 15 cycles: the chase is not measuring dependent loads");
	}
	if (*l2 < 2.0 * *l1 || *dram < 1.3 * *l2) {
		worsen(r, LAB_REFUTED);
		say(r, "no clear step between levels");
	}
}

void judge_bandwidth(struct lab_result *r, double copy, double scale, double add, double triad, double dot,
		     double peak)
{
	set(r, LAB_CONFIRMED);
	if (peak <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "the driver reports no memory clock or bus width, so there is no peak to compare with");
		return;
	}
	double lo = fmin(copy, triad), hi = fmax(fmax(fmax(copy, scale), fmax(add, triad)), dot);
	say(r, "copy %.0f%%, triad %.0f%% of the %.2f TB/s peak from clocks", copy / peak * 100, triad / peak * 100,
	    peak / 1e12);
	if (hi > peak * 1.02) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "%.2f TB/s is above the peak: the data sat in cache or bytes were miscounted", hi / 1e12);
	}
	if (lo < 0.70 * peak) {
		worsen(r, LAB_REFUTED);
		say(r, "below 70%% of peak");
	}
}

void judge_hostxfer(struct lab_result *r, double pin_h2d, double pin_d2h, double page_h2d, double page_d2h,
		    double link)
{
	set(r, LAB_CONFIRMED);
	say(r, "pinned %.1f / %.1f GB/s, pageable %.1f / %.1f GB/s (H2D / D2H)", pin_h2d / 1e9, pin_d2h / 1e9,
	    page_h2d / 1e9, page_d2h / 1e9);
	if (pin_h2d <= page_h2d || pin_d2h <= page_d2h) {
		worsen(r, LAB_REFUTED);
		say(r, "pageable was not slower than pinned");
	}
	if (link > 0) {
		double worst = fmin(pin_h2d, pin_d2h) / link, best = fmax(pin_h2d, pin_d2h) / link;
		say(r, "pinned reaches %.0f%%-%.0f%% of the %.1f GB/s link", worst * 100, best * 100, link / 1e9);
		if (best > 1.02) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "faster than the link: the timing or the link reading is wrong");
		} else if (worst < HOSTXFER_MIN_OF_LINK) {
			worsen(r, LAB_REFUTED);
			say(r, "pinned below %.0f%% of the link (wrong NUMA node, or a degraded link)", HOSTXFER_MIN_OF_LINK * 100);
		}
	} else {
		say(r, "link generation and width unknown: judged on pinned vs pageable only");
	}
}

double lab_streams_model(double h2d, double kern, double d2h, double duplex, int k, int copy_engines)
{
	if (k < 1)
		k = 1;
	if (copy_engines < 2) {
		/* one copy engine: both directions queue on it */
		double copies = h2d + d2h;
		double mx = fmax(copies, kern);
		return mx + (copies + kern - mx) / k;
	}
	/* Two engines: H2D and D2H of different chunks run at once, so in steady state the copies
	 * take as long as both directions together (duplex, measured; never less than the slower
	 * direction alone), and the pipeline as long as the slower of that and the kernel. */
	double mx = fmax(fmax(h2d, kern), d2h);
	double steady = fmax(kern, fmax(duplex, fmax(h2d, d2h)));
	return steady + (h2d + kern + d2h - mx) / k;
}

void judge_streams(struct lab_result *r, const int *k, const double *ms, size_t n, double h2d, double kern,
		   double d2h, double duplex, int copy_engines)
{
	set(r, LAB_CONFIRMED);
	double serial = 0;
	for (size_t i = 0; i < n; i++)
		if (k[i] == 1)
			serial = ms[i];
	if (serial <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no serial (1 stream) baseline");
		return;
	}
	double floor_ms = fmax(fmax(h2d, kern), d2h);
	int judged = 0;
	for (size_t i = 0; i < n; i++) {
		if (k[i] < 4)
			continue;
		double model = lab_streams_model(h2d, kern, d2h, duplex, k[i], copy_engines);
		double off = ms[i] / model - 1;
		judged++;
		say(r, "%d streams: %.2f ms vs model %.2f ms (%+.0f%%), serial %.2f ms", k[i], ms[i], model, off * 100, serial);
		if (ms[i] < floor_ms * 0.97) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "faster than the slowest stage alone: a timing error");
		} else if (ms[i] >= serial * 0.97) {
			worsen(r, LAB_REFUTED);
			say(r, "no gain over serial");
		} else if (fabs(off) > 0.15) {
			worsen(r, LAB_REFUTED);
		}
	}
	if (!judged) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no run with 4 or more streams");
	}
}

void judge_graphs(struct lab_result *r, double stream_us, double graph_us)
{
	set(r, LAB_CONFIRMED);
	say(r, "%.2f us per kernel in a stream, %.2f us per graph node (%.2fx)", stream_us, graph_us,
	    graph_us > 0 ? stream_us / graph_us : 0);
	if (stream_us < 0.5) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "under 0.5 us per plain launch: launches were not what was timed");
	} else if (graph_us >= stream_us * 0.95) {
		worsen(r, LAB_REFUTED);
	}
}

void judge_constant(struct lab_result *r, const unsigned *distinct, const double *ms, size_t n)
{
	set(r, LAB_CONFIRMED);
	if (n < 2 || distinct[0] != 1 || ms[0] <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no broadcast baseline");
		return;
	}
	/* serialised: every extra address costs, time never falls as d grows; the H200
	 * shows 1.7x at 2 addresses and ~8x at 32 (bench/lab.md) */
	double prev = 1.0, top = 0, two = 0;
	unsigned top_d = 0;
	for (size_t i = 1; i < n; i++) {
		double ratio = ms[i] / ms[0];
		bool ok = ratio >= prev * 0.9;
		say(r, "%u addresses per warp: %.2fx%s", distinct[i], ratio, ok ? "" : " FASTER THAN FEWER");
		if (!ok)
			worsen(r, LAB_REFUTED);
		prev = ratio > prev ? ratio : prev;
		if (distinct[i] == 2)
			two = ratio;
		if (distinct[i] > top_d) {
			top_d = distinct[i];
			top = ratio;
		}
	}
	if (two < 1.3 || top_d < 32 || top < 4) {
		worsen(r, LAB_REFUTED);
		say(r, "want >= 1.3x at 2 addresses and >= 4x at 32 (got %.2fx and %.2fx)", two, top);
	}
}

void judge_transpose(struct lab_result *r, double naive, double tiled, double padded, double copy)
{
	set(r, LAB_CONFIRMED);
	say(r, "naive %.0f, tiled %.0f, tiled+padded %.0f GB/s; plain copy %.0f GB/s", naive / 1e9, tiled / 1e9,
	    padded / 1e9, copy / 1e9);
	if (padded < 1.15 * tiled) {
		worsen(r, LAB_REFUTED);
		say(r, "padding gained less than 15%%");
	}
	if (padded < 1.3 * naive) {
		worsen(r, LAB_REFUTED);
		say(r, "tiling gained less than 30%% over naive");
	}
	if (copy > 0 && padded > copy * 1.1) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "transpose faster than a plain copy: a timing error");
	}
}

void judge_jit(struct lab_result *r, double sass_ms, double ptx_cold_ms, double ptx_warm_ms, bool same,
	       bool cache_disabled)
{
	set(r, LAB_CONFIRMED);
	say(r, "SASS load %.2f ms, PTX first load %.2f ms (JIT), PTX again %.2f ms", sass_ms, ptx_cold_ms, ptx_warm_ms);
	if (!same) {
		worsen(r, LAB_REFUTED);
		say(r, "the two modules computed different results");
	}
	if (ptx_cold_ms < 2 * sass_ms) {
		worsen(r, LAB_REFUTED);
		say(r, "PTX loaded less than 2x slower than SASS");
	}
	if (cache_disabled) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "CUDA_CACHE_DISABLE is set, so the cache effect cannot show");
	} else if (ptx_warm_ms > 0.5 * ptx_cold_ms) {
		worsen(r, LAB_REFUTED);
		say(r, "the second PTX load was not at least 2x faster (JIT cache)");
	}
}

void judge_libraries(struct lab_result *r, const struct lab_gemm_point *p, size_t n, const char *library_error)
{
	set(r, LAB_CONFIRMED);
	if (library_error && library_error[0]) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no cuBLAS to compare with: %s", library_error);
		return;
	}
	if (n == 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "nothing measured");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double hand = p[i].naive > p[i].tiled ? p[i].naive : p[i].tiled;
		if (p[i].library <= 0 || hand <= 0) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "%s %d^3: a variant was not measured", p[i].dtype, p[i].n);
			continue;
		}
		/* "beats": a clear margin (>= 1.5x), not noise */
		double ratio = p[i].library / hand;
		const char *flag = ratio < 1.0 ? " SLOWER" : ratio < 1.5 ? " NOT A CLEAR WIN" : "";
		if (ratio < 1.0)
			worsen(r, LAB_REFUTED);
		else if (ratio < 1.5)
			worsen(r, LAB_INCONCLUSIVE);
		if (p[i].peak <= 0) {
			say(r, "%s %d^3: cuBLAS %.1f TFLOP/s, %.1fx the best hand-written kernel (%.1f)%s; peak unknown",
			    p[i].dtype, p[i].n, p[i].library / 1e12, ratio, hand / 1e12, flag);
			continue;
		}
		/* a library should run near the hardware's rate on large problems: >= 70% at 8192^3,
		 * >= 50% from 4096^3; smaller problems do not fill the GPU and are only reported */
		double f = p[i].library / p[i].peak, need = p[i].n >= 8192 ? 0.70 : p[i].n >= 4096 ? 0.50 : 0;
		char naive[48] = ""; /* naive is not run at the largest sizes */
		if (p[i].naive > 0)
			snprintf(naive, sizeof naive, ", naive %.2f%%", p[i].naive / p[i].peak * 100);
		say(r, "%s %d^3: cuBLAS %.1f TFLOP/s = %.0f%% of peak %.0f%s, %.1fx the best hand-written (tiled %.1f%%%s "
		       "of peak)%s",
		    p[i].dtype, p[i].n, p[i].library / 1e12, f * 100, p[i].peak / 1e12,
		    f > 1.05 ? " ABOVE PEAK" : f < need ? " BELOW BAND" : "", ratio, p[i].tiled / p[i].peak * 100, naive,
		    flag);
		if (f > 1.05 || f < need)
			worsen(r, LAB_INCONCLUSIVE);
	}
}

static double occ_uncapped(const struct lab_occ_model *m, double warps)
{
	return m->latency_ns > 0 ? m->sm_count * warps * m->request_bytes / (m->latency_ns * 1e-9) : 0;
}

double lab_occ_little(const struct lab_occ_model *m, double warps)
{
	double v = occ_uncapped(m, warps);
	return m->peak > 0 && v > m->peak ? m->peak : v;
}

double lab_occ_warps_needed(const struct lab_occ_model *m)
{
	double per_warp = occ_uncapped(m, 1);
	return per_warp > 0 && m->peak > 0 ? m->peak / per_warp : 0;
}

void judge_occupancy(struct lab_result *r, const int *warps, const double *bw, size_t n,
		     const struct lab_occ_model *m)
{
	set(r, LAB_CONFIRMED);
	if (m->latency_ns <= 0 || m->sm_count <= 0 || m->request_bytes <= 0 || n < 3) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no DRAM latency or fewer than 3 occupancy points to judge");
		return;
	}
	if (m->peak <= 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "the driver reports no memory clock or bus width, so there is no peak to saturate at");
		return;
	}
	say(r, "idle DRAM latency %.0f ns: the %.2f TB/s peak needs %.0f KiB in flight, %.1f warps per SM", m->latency_ns,
	    m->peak / 1e12, m->latency_ns * 1e-9 * m->peak / 1024, lab_occ_warps_needed(m));
	/* the latency-bound points: Little's law predicts under half the peak there */
	size_t bound = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		double pred = occ_uncapped(m, warps[i]);
		if (pred >= 0.5 * m->peak || bw[i] <= 0)
			continue;
		double ratio = bw[i] / pred;
		const char *flag = ratio > 1.25 ? " ABOVE THE LAW" : ratio < 0.5 ? " BELOW BAND" : "";
		say(r, "%d warps/SM: %.0f GB/s = %.2fx Little's law%s", warps[i], bw[i] / 1e9, ratio, flag);
		if (ratio > 1.25) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "more than one request per warp was in flight: the kernel broke the premise");
		} else if (ratio < 0.5) {
			worsen(r, LAB_REFUTED);
		}
		if (bound++ > 0) {
			double g = (bw[i] / bw[prev]) / ((double)warps[i] / warps[prev]);
			if (g < 0.7) {
				worsen(r, LAB_REFUTED);
				say(r, "%d -> %d warps: bandwidth grew only %.2fx", warps[prev], warps[i], bw[i] / bw[prev]);
			}
		}
		prev = i;
	}
	if (bound < 2) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "fewer than 2 points below half the peak: the sweep never was latency-bound");
	}
	double best = 0;
	int at = 0;
	for (size_t i = 0; i < n; i++)
		if (bw[i] > best) {
			best = bw[i];
			at = warps[i];
		}
	say(r, "best %.0f GB/s = %.0f%% of peak at %d warps/SM", best / 1e9, best / m->peak * 100, at);
	if (best > 1.02 * m->peak) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "above the peak: the data sat in cache or bytes were miscounted");
	} else if (best < 0.6 * m->peak) {
		worsen(r, LAB_REFUTED);
		say(r, "never reached 60%% of peak: more warps did not hide the latency");
	}
}

static const char *tex_word(double speedup)
{
	return speedup >= 1.1 ? "helps" : speedup <= 0.9 ? "hurts" : "no difference";
}

void judge_texture(struct lab_result *r, const struct lab_tex_point *p, size_t n)
{
	set(r, LAB_CONFIRMED);
	bool judged = false;
	for (size_t i = 0; i < n; i++) {
		if (p[i].plain <= 0 || p[i].ldg <= 0 || p[i].tex <= 0) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "%s: a path was not measured", p[i].work);
			continue;
		}
		double tex = p[i].plain / p[i].tex, ldg = p[i].plain / p[i].ldg;
		say(r, "%s: texture %.2fx plain (%s), __ldg %.2fx plain (%s), texture %.2fx __ldg", p[i].work, tex,
		    tex_word(tex), ldg, tex_word(ldg), p[i].ldg / p[i].tex);
		/* the claim is about reads across rows: the rotated sample decides it */
		if (strcmp(p[i].work, "bilinear") == 0) {
			judged = true;
			if (tex < 1.1)
				worsen(r, LAB_REFUTED);
		}
	}
	if (!judged) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "no bilinear sample measured");
	}
}

double p2p_best_peer(const struct p2p_meas *m)
{
	return m->peer ? fmax(fmax(m->ce_write, m->ce_read), fmax(m->sm_write, m->sm_read)) : 0;
}

static const struct p2p_meas *p2p_reverse(const struct p2p_meas *m, size_t n, const struct p2p_meas *p)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].a == p->b && m[i].b == p->a)
			return &m[i];
	return NULL;
}

/* both ways at once over one way, the worse of CE and SM; 0 when neither was measured */
static double p2p_duplex(const struct p2p_meas *p)
{
	double d = 0;
	if (p->ce_both > 0 && p->ce_write > 0)
		d = p->ce_both / p->ce_write;
	if (p->sm_both > 0 && p->sm_write > 0 && (d == 0 || p->sm_both / p->sm_write < d))
		d = p->sm_both / p->sm_write;
	return d;
}

void judge_p2p(struct lab_result *r, const struct p2p_meas *m, size_t n, int gpus)
{
	set(r, LAB_CONFIRMED);
	if (gpus < 2 || n == 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "%d GPU%s visible: there is no pair to measure", gpus, gpus == 1 ? "" : "s");
		return;
	}
	size_t peers = 0, judged = 0;
	double lo = INFINITY, hi = 0, asym = 0, duplex = INFINITY, over_host = INFINITY;
	for (size_t i = 0; i < n; i++) {
		const struct p2p_meas *p = &m[i], *rev = p2p_reverse(m, n, p);
		double best = p2p_best_peer(p);
		if (!p->peer || best <= 0)
			continue;
		peers++;
		if (p->theory > 0) {
			judged++;
			lo = fmin(lo, best / p->theory);
			hi = fmax(hi, best / p->theory);
		}
		if (rev && p2p_best_peer(rev) > 0)
			asym = fmax(asym, fabs(best / p2p_best_peer(rev) - 1));
		if (p2p_duplex(p) > 0)
			duplex = fmin(duplex, p2p_duplex(p));
		if (p->host > 0)
			over_host = fmin(over_host, best / p->host);
	}
	say(r, "%zu of %zu ordered pairs with peer access", peers, n);
	if (peers == 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "%zu ordered pairs, none with peer access: only the path through the host was measured", n);
		return;
	}
	if (judged)
		say(r, "best one-way peer copy %.0f%%-%.0f%% of the link theory", lo * 100, hi * 100);
	say(r, "directions differ by up to %.0f%%", asym * 100);
	if (isfinite(duplex))
		say(r, "both ways at once keep >= %.0f%% per direction", duplex * 100);
	if (isfinite(over_host))
		say(r, "peer >= %.2fx the host path", over_host);
	/* then each pair outside a band, as long as there is room */
	for (size_t i = 0; i < n; i++) {
		const struct p2p_meas *p = &m[i], *rev = p2p_reverse(m, n, p);
		double best = p2p_best_peer(p);
		if (!p->peer || best <= 0)
			continue;
		if (p->theory <= 0) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "GPU%d->GPU%d: no link theory to judge %.1f GB/s against", p->a, p->b, best / 1e9);
		} else if (best > P2P_MAX_OF_THEORY * p->theory) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "GPU%d->GPU%d: %.1f GB/s is faster than %s: the timing or the link reading is wrong", p->a,
			    p->b, best / 1e9, p->theory_text[0] ? p->theory_text : "the link");
		} else if (best < P2P_MIN_OF_THEORY * p->theory) {
			worsen(r, LAB_REFUTED);
			say(r, "GPU%d->GPU%d: %.1f GB/s is %.0f%% of %s", p->a, p->b, best / 1e9, best / p->theory * 100,
			    p->theory_text[0] ? p->theory_text : "the link");
		}
		double rbest = rev ? p2p_best_peer(rev) : 0;
		if (rbest > 0 && p->a < p->b && fabs(best / rbest - 1) > P2P_MAX_ASYMMETRY) {
			worsen(r, LAB_REFUTED);
			say(r, "GPU%d->GPU%d %.1f GB/s but GPU%d->GPU%d %.1f GB/s", p->a, p->b, best / 1e9, p->b, p->a,
			    rbest / 1e9);
		}
		double d = p2p_duplex(p);
		if (d > 0 && d < P2P_MIN_DUPLEX) {
			worsen(r, LAB_REFUTED);
			say(r, "GPU%d->GPU%d keeps %.0f%% of its one-way rate while GPU%d->GPU%d runs", p->a, p->b, d * 100,
			    p->b, p->a);
		}
		if (p->host > 0 && best < P2P_MIN_OVER_HOST * p->host) {
			worsen(r, LAB_REFUTED);
			say(r, "GPU%d->GPU%d: peer %.1f GB/s is slower than through the host (%.1f GB/s)", p->a, p->b,
			    best / 1e9, p->host / 1e9);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!m[i].peer || p2p_best_peer(&m[i]) <= 0)
			say(r, "GPU%d->GPU%d: no peer access, host path %.1f GB/s", m[i].a, m[i].b, m[i].host / 1e9);
}

void judge_device_malloc(struct lab_result *r, const struct lab_dm_point *p, size_t n)
{
	set(r, LAB_CONFIRMED);
	if (n == 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "nothing measured");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (p[i].prealloc <= 0 || p[i].per_thread <= 0 || p[i].per_block <= 0) {
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "%u B: a path was not measured", p[i].bytes);
			continue;
		}
		double t = p[i].per_thread / p[i].prealloc, b = p[i].per_block / p[i].prealloc;
		/* "avoid": a clear loss (>= 2x) for the per-thread pattern the advice is about;
		 * under 1.25x the advice does not hold here */
		const char *flag = t < 1.25 ? " NO REAL COST" : t < 2 ? " NOT A CLEAR LOSS" : "";
		say(r, "%u B per thread: malloc per thread %.1fx, one per block %.2fx the preallocated buffer's time%s",
		    p[i].bytes, t, b, flag);
		if (t < 1.25)
			worsen(r, LAB_REFUTED);
		else if (t < 2)
			worsen(r, LAB_INCONCLUSIVE);
		if (p[i].null_thread || p[i].null_block) {
			/* a thread without scratch skips the work: its time is not comparable */
			worsen(r, LAB_INCONCLUSIVE);
			say(r, "%u B: %llu per-thread and %llu per-block malloc() returned NULL (heap full)",
			    p[i].bytes, p[i].null_thread, p[i].null_block);
		}
	}
}

static void judge_sync_div(struct lab_result *r, const char *what, const struct lab_sync_div *d, bool by_watchdog)
{
	if (!d->run)
		return;
	unsigned long long gave_up = d->b_clock + d->b_watchdog;
	if (d->b_saw > 0) {
		/* side A got past its barrier while side B was still waiting: no deadlock */
		worsen(r, LAB_REFUTED);
		say(r, "%s: %llu of %llu waiting threads saw side A pass its barrier without them", what, d->b_saw,
		    d->b_threads);
		return;
	}
	if (gave_up != d->b_threads || d->a_passed != d->a_threads) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "%s: counts do not add up (%llu/%llu side-A threads passed, %llu/%llu waiters gave up)", what,
		    d->a_passed, d->a_threads, gave_up, d->b_threads);
		return;
	}
	say(r, "%s: deadlock until all %llu waiters gave up (%llu clock64, %llu watchdog), %.1f ms", what, d->b_threads,
	    d->b_clock, d->b_watchdog, d->ms);
	if (by_watchdog && d->b_watchdog != d->b_threads) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "the watchdog reached only %llu of %llu waiters", d->b_watchdog, d->b_threads);
	}
}

void judge_sync(struct lab_result *r, const struct lab_sync_cost *c, size_t n, const struct lab_sync_divergent *d)
{
	set(r, LAB_CONFIRMED);
	if (n == 0) {
		set(r, LAB_INCONCLUSIVE);
		say(r, "no block size measured");
	}
	char list[256] = "";
	size_t len = 0, first_multi = n;
	/* A barrier costs what the last warp to arrive makes the others wait: with few warps that
	 * hides under each warp's own dependent chain (measured on the H200: 32 threads -0.0
	 * cycles, 64: 0.0, 128: 2.0, 1024: 43.5), so only the full block must pay, and pay no
	 * less than smaller blocks; a one-warp block waits for no other warp at all. */
	for (size_t i = 0; i < n; i++) {
		double cyc = c[i].bar_cycles - c[i].nobar_cycles;
		bool multi = c[i].block > 32;
		if (multi && first_multi == n)
			first_multi = i;
		if (len < sizeof list)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%d: %.1f%s", i ? ", " : "", c[i].block,
						cyc, multi ? (cyc < 1 ? (i + 1 == n ? " NO COST" : " (hidden)") : "") : " (one warp)");
	}
	if (n)
		say(r, "cycles per barrier by block size: %s", list);
	if (n > 0 && first_multi == n) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "no block of more than one warp measured");
	} else if (n > 0 && c[n - 1].bar_cycles - c[n - 1].nobar_cycles < 1) {
		worsen(r, LAB_REFUTED);
		say(r, "the largest block (%d threads) paid nothing per barrier", c[n - 1].block);
	}
	if (first_multi + 1 < n) {
		double first = c[first_multi].bar_cycles - c[first_multi].nobar_cycles;
		double last = c[n - 1].bar_cycles - c[n - 1].nobar_cycles;
		/* a barrier over every warp of a full block waits at least as long as one over fewer warps */
		if (last < 0.9 * first) {
			worsen(r, LAB_REFUTED);
			say(r, "%d threads paid less per barrier than %d", c[n - 1].block, c[first_multi].block);
		}
	}
	if (!d) {
		say(r, "divergent barriers not run");
		return;
	}
	if (!d->one_sided.run) {
		worsen(r, LAB_INCONCLUSIVE);
		say(r, "no one-sided barrier run, so no deadlock shown");
	}
	judge_sync_div(r, "one-sided", &d->one_sided, false);
	judge_sync_div(r, "host-released", &d->watchdog, true);
	/* undefined behaviour that happens to complete: reported, not judged */
	const struct lab_sync_div *m = &d->mismatched, *e = &d->early_exit;
	unsigned long long all = m->a_threads + m->b_threads;
	if (m->run)
		say(r, "__syncthreads() per branch: %s (%llu/%llu tokens)", m->exchanged == all ? "paired as one" : "did NOT pair",
		    m->exchanged, all);
	if (e->run)
		say(r, "early return: side A passed (%llu/%llu)%s", e->a_passed, e->a_threads,
		    e->a_passed == e->a_threads ? ", exited threads not waited for" : "");
}
