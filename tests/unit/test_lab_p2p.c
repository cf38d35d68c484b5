/* lab p2p without a second GPU: the verdict fed published and fabricated pair
 * measurements, the buffer sizing, the heat map, and runs through the fake libcuda
 * (one GPU: no pair, exit 0; two GPUs whose peer calls fail: one clear finding). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab/judge.h"
#include "lab/sizing.h"
#include "lab/svg.h"
#include "testlib.h"

static struct lab_result res;

static int reset(void **state)
{
	(void)state;
	memset(&res, 0, sizeof res);
	return 0;
}

/* a -> b with peer access: every peer row at `bw`, both ways at `both`, host path `host` (GB/s) */
static struct p2p_meas pair(int a, int b, double bw, double both, double host, double theory)
{
	struct p2p_meas m;
	memset(&m, 0, sizeof m);
	m.a = a;
	m.b = b;
	m.peer = true;
	m.ce_write = m.ce_read = m.sm_write = m.sm_read = bw * 1e9;
	m.ce_both = m.sm_both = both * 1e9;
	m.host = host * 1e9;
	m.theory = theory * 1e9;
	snprintf(m.theory_text, sizeof m.theory_text, "the %g GB/s link", theory);
	return m;
}

static void test_one_gpu_is_no_pair(void **state)
{
	(void)state;
	judge_p2p(&res, NULL, 0, 1);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "1 GPU visible: there is no pair"));
	judge_p2p(&res, NULL, 0, 0);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "0 GPUs visible"));
}

/* HGX H100, p2pBandwidthLatencyTest: 380 GB/s one way of the 450 GB/s NVLink 4 rate,
 * 749 GB/s both ways together (~374 per direction):
 * https://github.com/NVIDIA/nccl/issues/1264 */
static void test_h100_nvlink_published(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 380, 374, 0, 450), pair(1, 0, 380, 374, 0, 450) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "2 of 2 ordered pairs with peer access"));
	assert_non_null(strstr(res.decided, "84%-84% of the link theory"));
	assert_non_null(strstr(res.decided, "keep >= 98% per direction"));
}

/* Six RTX A6000 on PCIe Gen4 x16 (31.5 GB/s per direction), nvbandwidth
 * device_to_device_memcpy_read_ce: 26.34 GB/s between near GPUs, 21.8 between far ones:
 * https://github.com/NVIDIA/nvbandwidth/issues/50 */
static void test_a6000_pcie_published(void **state)
{
	(void)state;
	double gen4 = 16.0 * 16 * 128 / 130 / 8;
	struct p2p_meas m[4] = { pair(0, 1, 26.34, 0, 0, gen4), pair(1, 0, 26.34, 0, 0, gen4),
				 pair(0, 3, 21.82, 0, 0, gen4), pair(3, 0, 21.82, 0, 0, gen4) };
	judge_p2p(&res, m, 4, 6);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "69%-84% of the link theory"));
}

static void test_below_the_link_is_refuted(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 200, 195, 40, 450), pair(1, 0, 200, 195, 40, 450) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "GPU0->GPU1: 200.0 GB/s is 44% of the 450 GB/s link"));
	assert_non_null(strstr(res.decided, "GPU1->GPU0: 200.0 GB/s is 44%"));
	/* just inside the band */
	m[0] = pair(0, 1, 271, 271, 40, 450);
	m[1] = pair(1, 0, 271, 271, 40, 450);
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
}

static void test_faster_than_the_link_is_inconclusive(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 480, 470, 40, 450), pair(1, 0, 480, 470, 40, 450) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "faster than the 450 GB/s link"));
}

static void test_one_slow_direction_is_refuted(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 380, 370, 40, 450), pair(1, 0, 300, 290, 40, 450) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "directions differ by up to 27%"));
	assert_non_null(strstr(res.decided, "GPU0->GPU1 380.0 GB/s but GPU1->GPU0 300.0 GB/s"));
	/* 10% apart is within the band */
	m[1] = pair(1, 0, 345, 340, 40, 450);
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
}

static void test_half_duplex_is_refuted(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 380, 190, 40, 450), pair(1, 0, 380, 190, 40, 450) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "GPU0->GPU1 keeps 50% of its one-way rate while GPU1->GPU0 runs"));
	/* only the SM rows halve: still refuted, by the worse of the two */
	m[0] = pair(0, 1, 380, 370, 40, 450);
	m[0].sm_both = 150e9;
	m[1] = pair(1, 0, 380, 370, 40, 450);
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "keeps 39%"));
}

static void test_slower_than_the_host_is_refuted(void **state)
{
	(void)state;
	double gen4 = 16.0 * 16 * 128 / 130 / 8;
	/* peer copies across the CPU's root complex at 20 GB/s, staging through memory at 24 */
	struct p2p_meas m[2] = { pair(0, 1, 20, 19, 24, gen4), pair(1, 0, 20, 19, 24, gen4) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_non_null(strstr(res.decided, "peer >= 0.83x the host path"));
	assert_non_null(strstr(res.decided, "GPU0->GPU1: peer 20.0 GB/s is slower than through the host (24.0 GB/s)"));
}

static void test_without_peer_access(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 0, 0, 24, 31.5), pair(1, 0, 0, 0, 23, 31.5) };
	m[0].peer = m[1].peer = false;
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "none with peer access"));
	/* one pair with access is judged; the other is listed with its host path */
	struct p2p_meas four[4] = { pair(0, 1, 380, 374, 40, 450), pair(1, 0, 380, 374, 40, 450), pair(0, 2, 0, 0, 22, 31.5),
				    pair(2, 0, 0, 0, 21, 31.5) };
	four[2].peer = four[3].peer = false;
	judge_p2p(&res, four, 4, 3);
	assert_int_equal(res.verdict, LAB_CONFIRMED);
	assert_non_null(strstr(res.decided, "2 of 4 ordered pairs with peer access"));
	assert_non_null(strstr(res.decided, "GPU0->GPU2: no peer access, host path 22.0 GB/s"));
}

static void test_no_theory_is_inconclusive(void **state)
{
	(void)state;
	struct p2p_meas m[2] = { pair(0, 1, 380, 374, 40, 0), pair(1, 0, 380, 374, 40, 0) };
	judge_p2p(&res, m, 2, 2);
	assert_int_equal(res.verdict, LAB_INCONCLUSIVE);
	assert_non_null(strstr(res.decided, "GPU0->GPU1: no link theory to judge 380.0 GB/s against"));
}

/* eight GPUs: the decided text stays one bounded line, the refutation still shows */
static void test_many_pairs_fit(void **state)
{
	(void)state;
	struct p2p_meas m[56];
	size_t k = 0;
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++)
			if (a != b)
				m[k++] = pair(a, b, a == 7 && b == 6 ? 100 : 380, 374, 40, 450);
	judge_p2p(&res, m, k, 8);
	assert_int_equal(res.verdict, LAB_REFUTED);
	assert_true(strlen(res.decided) < sizeof res.decided);
	assert_non_null(strstr(res.decided, "GPU7->GPU6: 100.0 GB/s is 22%"));
}

static void test_sizes(void **state)
{
	(void)state;
	size_t gib = (size_t)1 << 30, mib = (size_t)1 << 20;
	assert_int_equal(lab_p2p_bytes(141 * gib, false, false), gib);
	assert_int_equal(lab_p2p_bytes(141 * gib, true, false), 256 * mib);
	assert_int_equal(lab_p2p_bytes(141 * gib, false, true), 4 * mib);
	assert_int_equal(lab_p2p_bytes(2 * gib, false, false), 512 * mib);
	assert_int_equal(lab_p2p_bytes(101 * mib, false, false), 25 * mib);
	assert_int_equal(lab_p2p_bytes(3 * mib, false, false), 0);
	size_t s[8];
	assert_int_equal(lab_p2p_latency_sizes(false, s, 8), 3);
	assert_int_equal(s[0], 4);
	assert_int_equal(s[2], 65536);
	assert_int_equal(lab_p2p_latency_sizes(true, s, 8), 2);
	assert_int_equal(s[1], 65536);
	assert_int_equal(lab_p2p_latency_sizes(false, s, 1), 1);
}

static void test_heatmap(void **state)
{
	(void)state;
	struct lab_plot *p = calloc(1, sizeof *p);
	assert_non_null(p);
	p->heatmap = true;
	strcpy(p->title, "peer <copies>");
	strcpy(p->labels[0], "GPU0");
	strcpy(p->labels[1], "GPU1&");
	double v[4] = { NAN, 380.4, 41.25, NAN };
	for (int i = 0; i < 4; i++)
		lab_plot_point(p, 0, "GB/s", i, v[i]);
	char *svg = lab_svg_render(p);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<svg "));
	assert_non_null(strstr(svg, "peer &lt;copies&gt;"));
	assert_non_null(strstr(svg, ">380<"));
	assert_non_null(strstr(svg, ">41.2<"));
	assert_non_null(strstr(svg, ">X<"));
	assert_non_null(strstr(svg, "GPU1&amp;"));
	assert_null(strstr(svg, "GPU1&<"));
	/* the largest cell is darkest, with white text */
	assert_non_null(strstr(svg, "fill=\"#08306b\""));
	assert_non_null(strstr(svg, "fill=\"white\">380<"));
	free(svg);
	/* a missing off-diagonal value is n/a */
	p->series[0].y[1] = NAN;
	svg = lab_svg_render(p);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">n/a<"));
	free(svg);
	/* not a square matrix: nothing */
	lab_plot_point(p, 0, "GB/s", 4, 1.0);
	assert_null(lab_svg_render(p));
	free(p);
}

/* ---- through the fake libcuda ---- */

#define FAKE_CUDA "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1"
#define FAKE_NVML "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1"
#define TWO_H200 "FAKE_GPUS=NVIDIA H200:9.0:141GiB;NVIDIA H200:9.0:141GiB"

static json_t *run_p2p(const char *const env[], int *status)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "lab", "p2p", "--quick", NULL };
	struct run_result r;
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	*status = r.status;
	json_error_t je;
	json_t *o = json_loads(r.out, 0, &je);
	if (!o)
		fail_msg("not JSON: %s\nstderr: %s", r.out, r.err);
	run_result_free(&r);
	return o;
}

static json_t *only_lab(json_t *o)
{
	json_t *labs = json_object_get(o, "labs");
	assert_int_equal(json_array_size(labs), 1);
	return json_array_get(labs, 0);
}

static void test_fake_one_gpu(void **state)
{
	(void)state;
#if CUDOCTOR_HAVE_KERNELS
	const char *env[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_MODULES=1", NULL };
	int status;
	json_t *o = run_p2p(env, &status);
	json_t *l = only_lab(o);
	assert_int_equal(status, 0);
	assert_string_equal(json_string_value(json_object_get(l, "verdict")), "inconclusive");
	assert_non_null(strstr(json_string_value(json_object_get(l, "decided")), "there is no pair"));
	assert_int_equal(json_array_size(json_object_get(l, "measurements")), 0);
	json_t *f = json_array_get(json_object_get(o, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "lab-inconclusive");
	json_decref(o);
	/* the same through CUDA_VISIBLE_DEVICES on a two-GPU machine */
	const char *one[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_MODULES=1", TWO_H200, "CUDA_VISIBLE_DEVICES=1", NULL };
	o = run_p2p(one, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(json_string_value(json_object_get(only_lab(o), "decided")), "1 GPU visible"));
	json_decref(o);
#else
	skip();
#endif
}

static void test_fake_peer_failures(void **state)
{
	(void)state;
#if CUDOCTOR_HAVE_KERNELS
	/* CUDA allows the pair, enabling it fails: the call, the pair and the error are named */
	const char *refused[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_MODULES=1", TWO_H200, "FAKE_TOPO=nvswitch",
				  "FAKE_CUDA_PEER_RESULT=711", NULL };
	int status;
	json_t *o = run_p2p(refused, &status);
	json_t *l = only_lab(o);
	assert_int_equal(status, 1);
	assert_string_equal(json_string_value(json_object_get(l, "verdict")), "failed");
	json_t *f = json_array_get(json_object_get(o, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "lab-failed");
	const char *ev = json_string_value(json_array_get(json_object_get(f, "evidence"), 0));
	assert_non_null(strstr(ev, "cuCtxEnablePeerAccess (GPU0 to GPU1"));
	assert_non_null(strstr(ev, "CUDA_ERROR_TOO_MANY_PEERS (711)"));
	json_decref(o);

	/* CUDA refuses the pair (disabled by a registry key): the lab never asks to enable it
	 * (the fake would answer 217), and stops at the next call the fake cannot do */
	const char *denied[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_MODULES=1", TWO_H200, "FAKE_P2P_DENY=0-1:4", NULL };
	o = run_p2p(denied, &status);
	l = only_lab(o);
	assert_int_equal(status, 1);
	ev = json_string_value(json_array_get(json_object_get(json_array_get(json_object_get(o, "findings"), 0), "evidence"), 0));
	assert_null(strstr(ev, "PeerAccess"));
	assert_non_null(strstr(ev, "cuModuleGetFunction(lab_p2p_"));
	json_decref(o);

	/* peer access granted: the lab goes on to the calls the fake does not do, and says which */
	const char *granted[] = { FAKE_CUDA, FAKE_NVML, "FAKE_CUDA_MODULES=1", TWO_H200, "FAKE_TOPO=nvlink-pairs", NULL };
	o = run_p2p(granted, &status);
	assert_int_equal(status, 1);
	ev = json_string_value(json_array_get(json_object_get(json_array_get(json_object_get(o, "findings"), 0), "evidence"), 0));
	assert_non_null(strstr(ev, "CUDA_ERROR_NOT_SUPPORTED (801)"));
	json_decref(o);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_one_gpu_is_no_pair, reset),
		cmocka_unit_test_setup(test_h100_nvlink_published, reset),
		cmocka_unit_test_setup(test_a6000_pcie_published, reset),
		cmocka_unit_test_setup(test_below_the_link_is_refuted, reset),
		cmocka_unit_test_setup(test_faster_than_the_link_is_inconclusive, reset),
		cmocka_unit_test_setup(test_one_slow_direction_is_refuted, reset),
		cmocka_unit_test_setup(test_half_duplex_is_refuted, reset),
		cmocka_unit_test_setup(test_slower_than_the_host_is_refuted, reset),
		cmocka_unit_test_setup(test_without_peer_access, reset),
		cmocka_unit_test_setup(test_no_theory_is_inconclusive, reset),
		cmocka_unit_test_setup(test_many_pairs_fit, reset),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_heatmap),
		cmocka_unit_test(test_fake_one_gpu),
		cmocka_unit_test(test_fake_peer_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
