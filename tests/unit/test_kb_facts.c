/* Published facts the kb must answer as NVIDIA's pages state them. Each expected value is
 * taken from the page named beside it, not from what cudoctor printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kb/kb.h"
#include "kb/sm_limits.h"
#include "util/err.h"

static int load(void **state)
{
	char err[CD_ERRMSG] = "";

	(void)state;
	if (kb_load(err) != CD_OK) {
		print_error("kb_load: %s\n", err);
		return -1;
	}
	return 0;
}

static struct version V(const char *s)
{
	struct version v;

	assert_int_equal(version_parse(s, &v), CD_OK);
	return v;
}

static void cc_of(const char *spec, int major, int minor)
{
	struct gpu_spec g;
	char err[CD_ERRMSG] = "";

	if (kb_parse_gpu_spec(spec, &g, err) != CD_OK)
		fail_msg("%s: %s", spec, err);
	if (g.cc_major != major || g.cc_minor != minor)
		fail_msg("%s: CC %d.%d, the CUDA GPUs page says %d.%d", spec, g.cc_major, g.cc_minor, major,
			 minor);
}

/* https://developer.nvidia.com/cuda-gpus */
static void compute_capabilities(void **state)
{
	(void)state;
	cc_of("RTX 5090", 12, 0);
	cc_of("RTX PRO 6000", 12, 0);
	cc_of("B200", 10, 0);
	cc_of("GB300", 10, 3);
	cc_of("DGX Spark", 12, 1);
	cc_of("Jetson AGX Thor", 11, 0);
	cc_of("Jetson AGX Orin", 8, 7);
	cc_of("H100 PCIe", 9, 0);
	cc_of("L40S", 8, 9);
	cc_of("L4", 8, 9);
	cc_of("A100", 8, 0);
	cc_of("RTX 3090", 8, 6);
	cc_of("T4", 7, 5);
	cc_of("V100", 7, 0);
	cc_of("GTX 1080", 6, 1);
	cc_of("Jetson Nano", 5, 3);
}

static void min_driver(const char *release, const char *linux_min)
{
	struct version v = V(release);
	const struct kb_toolkit *t = kb_toolkit_find(&v);

	assert_non_null(t);
	assert_true(t->has_min_driver);
	assert_string_equal(t->min_driver_text, linux_min);
}

/* Release notes Table 3, "CUDA Toolkit and Corresponding Driver Versions", Linux x86_64:
 * https://docs.nvidia.com/cuda/archive/13.2.2/cuda-toolkit-release-notes/index.html and
 * https://docs.nvidia.com/cuda/archive/13.3.0/cuda-toolkit-release-notes/index.html */
static void toolkit_minimum_drivers(void **state)
{
	struct version v = V("13.4");
	const struct kb_toolkit *t;

	(void)state;
	min_driver("8.0", "367.48");
	min_driver("9.1", "390.46");
	min_driver("10.2", "440.33");
	min_driver("11.0", "450.51.05");
	min_driver("11.8", "520.61.05");
	min_driver("12.0", "525.60.13");
	min_driver("12.8", "570.26");
	min_driver("12.9", "575.51.03");
	min_driver("13.0", "580.65.06");
	min_driver("13.1", "590.44.01");
	min_driver("13.2", "595.45.04");
	min_driver("13.3", "610.43.02");
	/* 13.4's Linux toolkit bundles no driver and no Table 3 number was published: unknown */
	t = kb_toolkit_find(&v);
	assert_non_null(t);
	assert_false(t->has_min_driver);
	assert_true(t->uncertain);
}

static void toolkit_range(int arch, const char *first, const char *last)
{
	struct kb_arch a = { arch, 0 };
	const struct kb_toolkit *f, *l;

	assert_int_equal(kb_arch_toolkit_range(a, &f, &l), CD_OK);
	assert_string_equal(f->release_text, first);
	if (last)
		assert_string_equal(l->release_text, last);
	else
		assert_null(l);
}

/* Pascal compatibility guide (CUDA 8.0 first builds sm_6x):
 * https://docs.nvidia.com/cuda/pascal-compatibility-guide/index.html; CUDA 13.0 release
 * notes (offline compilation for sm_50..sm_72 removed, so 12.9 is the last):
 * https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/index.html;
 * CUDA 12.0 removed Kepler sm_35/sm_37, CUDA 11.0 sm_30/sm_32. */
static void first_and_last_toolkits(void **state)
{
	(void)state;
	toolkit_range(60, "8.0", "12.9");
	toolkit_range(52, "8.0", "12.9");
	toolkit_range(72, "9.1", "12.9");
	toolkit_range(35, "8.0", "11.8");
	toolkit_range(30, "8.0", "10.2");
	toolkit_range(75, "10.0", NULL);
	toolkit_range(90, "11.8", NULL);
	toolkit_range(120, "12.8", NULL);
	toolkit_range(121, "12.9", NULL);
	toolkit_range(110, "13.0", NULL);
}

static void sm(int arch, unsigned threads_per_sm, unsigned blocks, unsigned smem_block, unsigned smem_sm)
{
	struct kb_sm_limits l;
	char err[CD_ERRMSG] = "";

	if (kb_sm_limits_find(arch, &l, err) != CD_OK)
		fail_msg("sm_%d: %s", arch, err);
	assert_int_equal(l.arch, arch);
	assert_false(l.inferred);
	assert_false(l.uncertain);
	if (l.max_warps_per_sm * 32 != threads_per_sm || l.max_blocks_per_sm != blocks ||
	    l.max_smem_per_block_kib != smem_block || l.smem_per_sm_kib != smem_sm)
		fail_msg("sm_%d: %u threads, %u blocks, %u/%u KB; the guide says %u, %u, %u/%u", arch,
			 l.max_warps_per_sm * 32, l.max_blocks_per_sm, l.max_smem_per_block_kib, l.smem_per_sm_kib,
			 threads_per_sm, blocks, smem_block, smem_sm);
	assert_int_equal(l.regs_per_sm, 65536);
	assert_int_equal(l.max_regs_per_thread, 255);
	assert_int_equal(l.max_threads_per_block, 1024);
}

/* CUDA Programming Guide, Compute Capabilities, Table 30 (resident blocks, warps, threads
 * per SM) and Table 31 (shared memory per SM and per block, with opt-in):
 * https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html */
static void per_sm_limits(void **state)
{
	(void)state;
	sm(75, 1024, 16, 64, 64);
	sm(80, 2048, 32, 163, 164);
	sm(86, 1536, 16, 99, 100);
	sm(87, 1536, 16, 163, 164);
	sm(89, 1536, 24, 99, 100);
	sm(90, 2048, 32, 227, 228);
	sm(100, 2048, 32, 227, 228);
	sm(103, 2048, 32, 227, 228);
	sm(110, 1536, 24, 227, 228);
	sm(120, 1536, 24, 99, 100);
	sm(121, 1536, 24, 99, 100);
}

/* CUDA 12.9 C++ Programming Guide, Technical Specifications per Compute Capability:
 * https://docs.nvidia.com/cuda/archive/12.9.1/cuda-c-programming-guide/index.html#features-and-technical-specifications-technical-specifications-per-compute-capability */
static void per_sm_limits_before_turing(void **state)
{
	struct kb_sm_limits l;
	char err[CD_ERRMSG] = "";

	(void)state;
	sm(52, 2048, 32, 48, 96);
	sm(61, 2048, 32, 48, 96);
	sm(70, 2048, 32, 96, 96);
	assert_int_equal(kb_sm_limits_find(62, &l, err), CD_OK);
	assert_int_equal(l.max_regs_per_block, 32768);
}

/* The 390 branch began with the 390.12 Linux beta (https://github.com/smxi/sgfxi/pull/16);
 * 390.25 followed it as the first stable release
 * (https://github.com/LibreELEC/LibreELEC.tv/pull/2456). */
static void driver_branches(void **state)
{
	struct version v = V("390.25");
	const struct kb_driver_branch *b;
	bool exact;

	(void)state;
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_OK);
	assert_int_equal(b->branch, 390);
	assert_string_equal(b->first_version_text, "390.12");
	v = V("580.65.06");
	assert_int_equal(kb_driver_branch_of(&v, &b, &exact), CD_OK);
	assert_int_equal(b->cuda.major, 13);
	assert_int_equal(b->cuda.minor, 0);
}

/* RTX 3080 Ti and 3070 Ti Laptop GPUs: CES 2022, in laptops from 1 February 2022
 * (https://www.hardwareluxx.de/index.php/news/hardware/grafikkarten/57843-nvidia-bringt-zwei-ti-versionen-der-rtx-30-familie-ins-notebook.html) */
static void laptop_years(void **state)
{
	const struct kb_gpu *g;

	(void)state;
	g = kb_gpu_by_name("NVIDIA GeForce RTX 3080 Ti Laptop GPU");
	assert_non_null(g);
	assert_int_equal(g->year, 2022);
	g = kb_gpu_by_name("NVIDIA GeForce RTX 3070 Ti Laptop GPU");
	assert_non_null(g);
	assert_int_equal(g->year, 2022);
}

static void gpu_is(const char *name, int arch, int year, double memory_gb)
{
	const struct kb_gpu *g = kb_gpu_by_name(name);

	if (!g)
		fail_msg("%s: no such row", name);
	if (g->arch != arch || g->year != year || g->n_memory_gb < 1 || g->memory_gb[0] != memory_gb)
		fail_msg("%s: sm_%d, %d, %.0f GB; the pages say sm_%d, %d, %.0f GB", name, g->arch, g->year,
			 g->n_memory_gb ? g->memory_gb[0] : 0.0, arch, year, memory_gb);
}

/* Compute capability from https://developer.nvidia.com/cuda-gpus and
 * https://developer.nvidia.com/cuda-legacy-gpus; memory and launch year from NVIDIA's product
 * pages and datasheets (H100 https://www.nvidia.com/en-us/data-center/h100/, H200
 * https://www.nvidia.com/en-us/data-center/h200/, A100 https://www.nvidia.com/en-us/data-center/a100/,
 * L40S https://www.nvidia.com/en-us/data-center/l40s/, L4 https://www.nvidia.com/en-us/data-center/l4/,
 * T4 https://www.nvidia.com/en-us/data-center/tesla-t4/, V100 https://www.nvidia.com/en-us/data-center/v100/,
 * GeForce https://www.nvidia.com/en-us/geforce/graphics-cards/) and
 * https://en.wikipedia.org/wiki/List_of_Nvidia_graphics_processing_units; the exact names are
 * the driver's, from https://github.com/NVIDIA/open-gpu-kernel-modules (README, 595.45.04). */
static void products(void **state)
{
	(void)state;
	gpu_is("NVIDIA H100 PCIe", 90, 2022, 80);
	gpu_is("NVIDIA H100 80GB HBM3", 90, 2022, 80);
	gpu_is("NVIDIA H100 NVL", 90, 2023, 94);
	gpu_is("NVIDIA H200", 90, 2024, 141);
	gpu_is("NVIDIA H200 NVL", 90, 2024, 141);
	gpu_is("NVIDIA H20", 90, 2024, 96);
	gpu_is("NVIDIA A100-SXM4-40GB", 80, 2020, 40);
	gpu_is("NVIDIA A100-SXM4-80GB", 80, 2020, 80);
	gpu_is("NVIDIA A100 80GB PCIe", 80, 2021, 80);
	gpu_is("NVIDIA A30", 80, 2021, 24);
	gpu_is("NVIDIA A40", 86, 2020, 48);
	gpu_is("NVIDIA A10", 86, 2021, 24);
	gpu_is("NVIDIA L40S", 89, 2023, 48);
	gpu_is("NVIDIA L4", 89, 2023, 24);
	gpu_is("Tesla T4", 75, 2018, 16);
	gpu_is("Tesla V100-SXM2-32GB", 70, 2018, 32);
	gpu_is("Tesla P100-PCIE-16GB", 60, 2016, 16);
	gpu_is("Tesla P40", 61, 2016, 24);
	gpu_is("Tesla K80", 37, 2014, 12);
	gpu_is("Tesla M40", 52, 2015, 12);
	gpu_is("NVIDIA GeForce RTX 5090", 120, 2025, 32);
	gpu_is("NVIDIA GeForce RTX 5090 Laptop GPU", 120, 2025, 24);
	gpu_is("NVIDIA GeForce RTX 4090", 89, 2022, 24);
	gpu_is("NVIDIA GeForce RTX 4090 Laptop GPU", 89, 2023, 16);
	gpu_is("NVIDIA GeForce RTX 3090", 86, 2020, 24);
	gpu_is("NVIDIA GeForce RTX 2080 Ti", 75, 2018, 11);
	gpu_is("NVIDIA GeForce RTX 2080 with Max-Q Design", 75, 2019, 8);
	gpu_is("NVIDIA TITAN RTX", 75, 2018, 24);
	gpu_is("NVIDIA GeForce GTX 1080 Ti", 61, 2017, 11);
	gpu_is("NVIDIA RTX 6000 Ada Generation", 89, 2022, 48);
	gpu_is("NVIDIA RTX A6000", 86, 2020, 48);
	gpu_is("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 120, 2025, 96);
	gpu_is("NVIDIA GB10", 121, 2025, 128);
}

/* Names that are not what they look like: the CUDA GPUs pages put the RTX 2050 (GA107) under
 * Ampere, the GTX 16 series under Turing, and the Quadro K2200/K620 under Maxwell 5.0. */
static void misleading_names(void **state)
{
	(void)state;
	cc_of("RTX 2050", 8, 6);
	cc_of("GTX 1660 Ti", 7, 5);
	cc_of("GTX 1650", 7, 5);
	cc_of("Quadro K2200", 5, 0);
	cc_of("GTX 960M", 5, 0);
	cc_of("GTX 980M", 5, 2);
	cc_of("Jetson TX2", 6, 2);
	cc_of("Jetson AGX Xavier", 7, 2);
	cc_of("A2", 8, 6);
	cc_of("A30", 8, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compute_capabilities),
		cmocka_unit_test(toolkit_minimum_drivers),
		cmocka_unit_test(first_and_last_toolkits),
		cmocka_unit_test(per_sm_limits),
		cmocka_unit_test(per_sm_limits_before_turing),
		cmocka_unit_test(driver_branches),
		cmocka_unit_test(laptop_years),
		cmocka_unit_test(products),
		cmocka_unit_test(misleading_names),
	};
	return cmocka_run_group_tests(tests, load, NULL);
}
