/* The load tests' judges (src/check/judge*.c) on recorded numbers: the memory test's errors,
 * the GEMM stress against the H200's lab run, clock samples, and kernel-log events that
 * appeared during the run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/judge.h"
#include "lab/sizing.h"
#include "driver/nvml.h"
#include "kb/kb.h"
#include "probe/kmsg.h"
#include "util/err.h"
#include "util/file.h"

#define KMSG_DIR CUDOCTOR_SOURCE_DIR "/tests/unit/kmsg/"

static bool evidence_has(const struct finding *f, const char *s)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (strstr(f->evidence[i], s))
			return true;
	return false;
}

static size_t count_id(const struct report *r, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += strcmp(r->findings[i].id, id) == 0;
	return n;
}

/* A clean run says nothing; errors name the count, the first offsets and the bits. */
static void test_memory(void **state)
{
	struct check_mem_result m = { .bytes = 120ull << 30, .patterns = CHECK_PAT_COUNT };
	const struct finding *f;
	struct report r;

	(void)state;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_memory(&r, "GPU 0 (NVIDIA H200)", &m), CD_OK);
	assert_int_equal(r.n_findings, 0);

	/* one bit stuck in two words under two patterns, and a word with two bits flipped */
	m.errors = 3;
	m.n_recorded = 3;
	m.rec[0] = (struct check_mem_error){ 0x1a2b3c40, 0, 1ull << 17, CHECK_PAT_ZEROS };
	m.rec[1] = (struct check_mem_error){ 0x1a2b3c40, 0x5555555555555555ull, 0x5555555555575555ull, CHECK_PAT_5555 };
	m.rec[2] = (struct check_mem_error){ 0x800, 0x800, 0x800 ^ 0x9ull << 40, CHECK_PAT_ADDRESS };
	assert_int_equal(check_judge_memory(&r, "GPU 0 (NVIDIA H200)", &m), CD_OK);
	f = report_find(&r, "load-memory-errors");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_string_equal(f->subject, "GPU 0 (NVIDIA H200)");
	/* 120 GiB / 8 bytes x 6 patterns */
	assert_non_null(strstr(f->title, "3 of 96636764160 memory words"));
	assert_true(evidence_has(f, "offset 0x1a2b3c40 (0x0000000000000000): wrote 0x0000000000000000, read "
				    "0x0000000000020000: bit 17 flipped"));
	assert_true(evidence_has(f, "offset 0x800 (address-in-address)"));
	assert_true(evidence_has(f, "bits 40, 43 flipped"));
	assert_true(evidence_has(f, "the first 3 errors: 2 single-bit; bits that flipped: 17, 40, 43"));
	assert_true(report_has_errors(&r));
	report_free(&r);

	/* more errors than recorded: the count is the kernel's, the records are bounded */
	assert_int_equal(report_init(&r, "check"), CD_OK);
	m.errors = 1000000;
	m.n_recorded = 1000; /* never trusted past the buffer */
	assert_int_equal(check_judge_memory(&r, "GPU 0", &m), CD_OK);
	assert_non_null(strstr(report_find(&r, "load-memory-errors")->title, "1000000 of"));
	report_free(&r);
	assert_string_equal(check_pattern_name(CHECK_PAT_COUNT), "?");
	assert_string_equal(check_pattern_name(CHECK_PAT_WALKING_ONES), "walking ones");
}

/* bench/results/labs_h200_2026-12-01.html: an H200 (132 SMs), bf16 4096^3 cuBLAS 786 TFLOP/s
 * with the SM clock at 1980 MHz, 4096 FLOP/clock/SM (kb/sm_flops.tsv): 73% of 1071, healthy.
 * The same GPU's 1024^3 run (248 TFLOP/s) stands for a GPU that falls short. */
static void test_gemm(void **state)
{
	struct check_gemm_result g = { .dtype = "bf16", .n = 4096, .gemms = 2000, .flops = 786e12,
				       .flops_per_clk_sm = 4096, .sm_count = 132, .sm_mhz = 1980 };
	const struct finding *f;
	struct report r;

	(void)state;
	assert_true(check_gemm_theory(&g) > 1070e12 && check_gemm_theory(&g) < 1071e12);
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_gemm(&r, "GPU 0", &g), CD_OK);
	assert_int_equal(r.n_findings, 0);

	g.flops = 248e12;
	assert_int_equal(check_judge_gemm(&r, "GPU 0", &g), CD_OK);
	f = report_find(&r, "load-gemm-slow");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_WARN);
	assert_non_null(strstr(f->title, "bf16 GEMM ran at 23% of what the GPU computes at its clock"));
	assert_true(evidence_has(f, "248.0 TFLOP/s sustained; theory 1070.5 TFLOP/s (132 SMs x 1980 MHz x 4096"));
	assert_true(evidence_has(f, "ratio 0.23, expected >= 0.70"));

	/* the clock is part of the theory: at 1400 MHz the 786 TFLOP/s run would exceed it, a
	 * 600 TFLOP/s run is 79% of it and healthy; without a clock nothing is judged */
	report_free(&r);
	assert_int_equal(report_init(&r, "check"), CD_OK);
	g.flops = 600e12;
	g.sm_mhz = 1400;
	assert_int_equal(check_judge_gemm(&r, "GPU 0", &g), CD_OK);
	g.flops = 100e12;
	g.sm_mhz = 0;
	assert_int_equal(check_judge_gemm(&r, "GPU 0", &g), CD_OK);
	assert_int_equal(r.n_findings, 0);

	/* a mismatch is an error whatever the rate */
	g.mismatches = 2;
	g.worst_diff = 0.125;
	assert_int_equal(check_judge_gemm(&r, "GPU 0", &g), CD_OK);
	f = report_find(&r, "load-gemm-mismatch");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_ERROR);
	assert_non_null(strstr(f->title, "2 of 2000 bf16 GEMM results differed"));
	assert_true(evidence_has(f, "largest element difference 0.125"));
	assert_int_equal(count_id(&r, "load-gemm-slow"), 0);
	report_free(&r);
}

/* Samples: a power cap is info, a thermal slowdown a warning with the reason and extremes;
 * idle and unread samples count for nothing. */
static void test_throttle(void **state)
{
	struct check_sample s[] = {
		{ 0.5, NVML_CLOCKS_EVENT_GPU_IDLE, 1980, 38, 90000, 0 },
		{ 1.0, 0, 1980, 45, 480000, 0 },
		{ 1.5, NVML_CLOCKS_EVENT_SW_POWER_CAP, 1755, 61, 699000, 0 },
		{ 2.0, -1, -1, -1, -1, 0 },
	};
	const struct finding *f;
	struct report r;

	(void)state;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_throttle(&r, "GPU 0", s, 2), CD_OK);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(check_judge_throttle(&r, "GPU 0", s, 4), CD_OK);
	f = report_find(&r, "load-throttled");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_INFO);
	assert_non_null(strstr(f->title, "power cap in 1 of 3 samples"));
	report_free(&r);

	assert_int_equal(report_init(&r, "check"), CD_OK);
	s[3] = (struct check_sample){ 2.0, NVML_CLOCKS_EVENT_SW_POWER_CAP | NVML_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN, 1410,
				      91, 701000, 0 };
	assert_int_equal(check_judge_throttle(&r, "GPU 0", s, 4), CD_OK);
	f = report_find(&r, "load-throttled");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_WARN);
	assert_non_null(strstr(f->title, "hw_thermal_slowdown"));
	assert_non_null(strstr(f->title, "in 1 of 4 samples"));
	assert_true(evidence_has(f, "lowest SM clock under load 1410 MHz"));
	assert_true(evidence_has(f, "hottest 91 C"));
	assert_true(evidence_has(f, "highest power 701.0 W"));
	assert_true(evidence_has(f, "hardware or thermal in 1 samples, power cap alone in 1"));
	report_free(&r);
}

static void parse_lines(const char *name, size_t lines, struct kmsg_events *k)
{
	char path[512], err[CD_ERRMSG], *text, *p;
	size_t len;

	snprintf(path, sizeof path, KMSG_DIR "%s", name);
	memset(k, 0, sizeof *k);
	assert_int_equal(file_read_text(path, 1 << 20, &text, &len, err), CD_OK);
	/* the log as it stood after its first `lines` lines */
	for (p = text; lines && (p = strchr(p, '\n')) != NULL; lines--)
		p++;
	kmsg_parse((const unsigned char *)text, p ? (size_t)(p - text) : len, k);
	free(text);
}

/* https://github.com/leptonai/gpud/pull/46 (tests/unit/kmsg/xid13_109.dmesg): read before
 * the load after its third line (two Xid 13), after it whole: Xid 13 repeated and Xid 109
 * appeared, each an error on the GPU at that address; the same log twice is quiet. */
static void test_new_xid(void **state)
{
	static struct kmsg_events before, after;
	struct gpu_info g = { 0 };
	struct gpu_probe gp = { .gpus = &g, .n_gpus = 1 };
	const struct finding *f;
	struct report r;

	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	g.cuda_ordinal = 0;
	snprintf(g.name, sizeof g.name, "NVIDIA H200");
	snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "0000:cb:00.0");
	parse_lines("xid13_109.dmesg", 3, &before);
	parse_lines("xid13_109.dmesg", 100, &after);
	assert_int_equal(before.n, 1);
	assert_int_equal(after.n, 2);

	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_new_xid(&r, &after, &after, &gp), CD_OK);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(check_judge_new_xid(&r, &before, &after, &gp), CD_OK);
	assert_int_equal(count_id(&r, "load-new-xid"), 2);
	for (size_t i = 0; i < r.n_findings; i++) {
		f = &r.findings[i];
		assert_int_equal(f->severity, SEV_ERROR);
		assert_non_null(strstr(f->subject, "GPU 0"));
		if (strstr(f->title, "Xid 13 ")) {
			assert_true(evidence_has(f, "logged 2 times before the load, 3 after"));
		} else {
			assert_non_null(strstr(f->title, "the kernel logged Xid 109 during the load"));
			assert_true(evidence_has(f, "logged 0 times before the load, 1 after"));
			assert_true(evidence_has(f, "Xid 109 is"));
		}
	}
	report_free(&r);

	/* a GPU the driver no longer lists is named by its address */
	gp.n_gpus = 0;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_new_xid(&r, &before, &after, &gp), CD_OK);
	assert_string_equal(r.findings[0].subject, "GPU at PCI 0000:cb:00");
	report_free(&r);

	/* https://github.com/akash-network/support/issues/244: an Xid 43 (the catalogue's IGNORE)
	 * that appeared during the load is info; the Xid 31 beside it (RESTART_APP) is an error
	 * here, since the program that ran was cudoctor's load */
	parse_lines("xid43_31_94.dmesg", 3, &before);
	parse_lines("xid43_31_94.dmesg", 8, &after);
	assert_int_equal(before.n, 0);
	assert_int_equal(after.n, 2);
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_new_xid(&r, &before, &after, &gp), CD_OK);
	assert_int_equal(r.n_findings, 2);
	for (size_t i = 0; i < r.n_findings; i++)
		assert_int_equal(r.findings[i].severity, strstr(r.findings[i].title, "Xid 43 ") ? SEV_INFO : SEV_ERROR);
	report_free(&r);
}

/* bench/results/final_h200.txt (an H200 on PCIe gen 5 x16, lab host-transfer at 1 GiB):
 * pinned 54.8 / 55.2 GB/s is 87% of the 63.0 GB/s link, quiet; the same run's pageable
 * 7.3 / 14.4 GB/s stands for a path below the band (12%), a warning with the ratio; bytes
 * that came back different are an error whatever the rate; an unknown link judges no rate */
static void test_copy(void **state)
{
	struct check_copy_result c = { .bytes = (size_t)1 << 30, .h2d = 54.8e9, .d2h = 55.2e9, .h2d_same = true,
				       .d2h_same = true, .gen = 5, .width = 16 };
	const struct finding *f;
	struct report r;

	(void)state;
	c.link = lab_pcie_bytes_per_s(5, 16);
	assert_true(c.link > 62.9e9 && c.link < 63.1e9);
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_copy(&r, "GPU 0", &c), CD_OK);
	assert_int_equal(r.n_findings, 0);
	c.h2d = 7.3e9;
	c.d2h = 14.4e9;
	assert_int_equal(check_judge_copy(&r, "GPU 0", &c), CD_OK);
	assert_int_equal(r.n_findings, 1);
	f = &r.findings[0];
	assert_string_equal(f->id, "load-copy-slow");
	assert_int_equal(f->severity, SEV_WARN);
	assert_string_equal(f->title, "pinned host-to-device copies ran at 7.3 GB/s, 12% of the PCIe gen 5 x16 link");
	assert_true(evidence_has(f, "the slower direction is 0.12 of it, lab host-transfer's band starts at 0.63"));
	report_free(&r);

	c.h2d = 54.8e9;
	c.d2h = 55.2e9;
	c.d2h_same = false;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_copy(&r, "GPU 0", &c), CD_OK);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].id, "load-copy-corrupt");
	assert_int_equal(r.findings[0].severity, SEV_ERROR);
	assert_string_equal(r.findings[0].title, "data copied from device to host arrived different");
	assert_true(evidence_has(&r.findings[0], "host to device same, device to host DIFFERENT"));
	report_free(&r);

	c.d2h_same = true;
	c.h2d = 7.3e9;
	c.link = 0;
	assert_int_equal(report_init(&r, "check"), CD_OK);
	assert_int_equal(check_judge_copy(&r, "GPU 0", &c), CD_OK);
	assert_int_equal(r.n_findings, 0);
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_new_xid),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
