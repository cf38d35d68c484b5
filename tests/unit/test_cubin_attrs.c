/* binfmt/cubin_attrs against ptxas's own report: tests/fixtures/build.sh compiles res.cu with
 * -Xptxas -v for sm_75, sm_90, sm_120 and under -maxrregcount=32 and keeps what ptxas printed;
 * every kernel's registers, stack frame, static shared and cmem[0] (where printed) must equal
 * it. Then rules/arch_launch's largest blocks, kb/sm_limits.tsv, bad records, and the
 * commands: arch --resources (text and JSON) and explain --binary --block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_fixtures.h"
#include "binfmt/cubin_attrs.h"
#include "binfmt/elf.h"
#include "kb/sm_limits.h"
#include "rules/arch_launch.h"
#include "testlib.h"
#include "util/err.h"

struct ptxas_kernel {
	char name[64];
	long regs, frame, smem, cmem0; /* -1: not printed */
};

/* "Compiling entry function 'K' for 'sm_90'", "  N bytes stack frame, ...",
 * "Used R registers, used B barriers[, S bytes smem][, C bytes cmem[0]]" */
static size_t read_ptxas(const char *path, struct ptxas_kernel *k, size_t max)
{
	char line[512];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p;

		if ((p = strstr(line, "Compiling entry function '")) && n < max) {
			struct ptxas_kernel *e = &k[n++];

			memset(e, 0, sizeof(*e));
			e->regs = e->frame = e->smem = e->cmem0 = -1;
			sscanf(p + strlen("Compiling entry function '"), "%63[^']", e->name);
		} else if (n && (p = strstr(line, "bytes stack frame"))) {
			k[n - 1].frame = strtol(line, NULL, 10);
		} else if (n && (p = strstr(line, "Used "))) {
			const char *s;

			k[n - 1].regs = strtol(p + 5, NULL, 10);
			k[n - 1].smem = 0;
			if ((s = strstr(p, " bytes smem")) != NULL) {
				while (s > p && s[-1] >= '0' && s[-1] <= '9')
					s--;
				k[n - 1].smem = strtol(s, NULL, 10);
			}
			if ((s = strstr(p, " bytes cmem[0]")) != NULL) {
				while (s > p && s[-1] >= '0' && s[-1] <= '9')
					s--;
				k[n - 1].cmem0 = strtol(s, NULL, 10);
			}
		}
	}
	fclose(f);
	return n;
}

static const struct cubin_kernel_res *kernel(const struct cubin_resources *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->k[i].name, name) == 0)
			return &r->k[i];
	fail_msg("kernel %s not found", name);
	return NULL;
}

/* Reads fixture cubin and checks each kernel against ptxas's report of the same build. */
static void against_ptxas(const char *cubin, const char *report, unsigned sm, struct cubin_resources *r)
{
	struct ptxas_kernel pk[16];
	struct mapped_file mf;
	char err[CD_ERRMSG] = "", path[512];
	size_t n;

	if (access(ARCH_FIXTURES "/res_sm_90.cubin", R_OK) != 0) {
		fprintf(stderr, "skipping: resource fixtures missing (no nvcc at configure time)\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, cubin);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(cubin_resources_read(mf.data, mf.size, r, err), CD_OK);
	file_unmap(&mf);
	snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, report);
	n = read_ptxas(path, pk, 16);
	assert_int_equal(r->sm, sm);
	assert_int_equal(n, 5);
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct cubin_kernel_res *k = kernel(r, pk[i].name);

		assert_true(k->has_registers);
		assert_int_equal(k->registers, pk[i].regs);
		assert_int_equal(k->frame_bytes, pk[i].frame);
		assert_int_equal(k->static_shared, pk[i].smem);
		if (pk[i].cmem0 >= 0)
			assert_int_equal(k->param_bytes, pk[i].cmem0);
	}
	/* what the source declares, independently of ptxas */
	assert_int_equal(r->module_const, 64 * sizeof(float));                      /* coeff[64] */
	assert_int_equal(kernel(r, "tiled")->static_shared, (32 * 33 + 256) * 4); /* tile, counts */
	assert_int_equal(kernel(r, "bounded")->max_threads[0], 256);
	assert_int_equal(cubin_kernel_bound(kernel(r, "bounded")), 256);
	assert_int_equal(cubin_kernel_bound(kernel(r, "bounded_one")), 128);
	assert_int_equal(cubin_kernel_bound(kernel(r, "heavy")), 0);
	assert_int_equal(kernel(r, "bounded")->maxreg, 128); /* 64K / (256 threads x 2 blocks) */
	assert_int_equal(kernel(r, "spills")->frame_bytes >= 96 * sizeof(float), true);
}

static void test_sm75(void **state)
{
	struct cubin_resources r;

	(void)state;
	against_ptxas("res_sm_75.cubin", "res_sm_75.ptxas.txt", 75, &r);
	assert_int_equal(kernel(&r, "tiled")->reserved_shared, 0);
	cubin_resources_free(&r);
}

static void test_sm90(void **state)
{
	struct cubin_resources r;

	(void)state;
	against_ptxas("res_sm_90.cubin", "res_sm_90.ptxas.txt", 90, &r);
	assert_int_equal(kernel(&r, "tiled")->reserved_shared, 1024);
	cubin_resources_free(&r);
}

static void test_sm120(void **state)
{
	struct cubin_resources r;

	(void)state;
	against_ptxas("res_sm_120.cubin", "res_sm_120.ptxas.txt", 120, &r);
	cubin_resources_free(&r);
}

static void test_maxrregcount(void **state)
{
	struct cubin_resources r;

	(void)state;
	against_ptxas("res_r32.cubin", "res_r32.ptxas.txt", 90, &r);
	assert_int_equal(kernel(&r, "heavy")->registers, 32);
	assert_int_equal(kernel(&r, "heavy")->maxreg, 32);
	assert_true(kernel(&r, "heavy")->frame_bytes > 0); /* spilled */
	cubin_resources_free(&r);
}

static void limits(int arch, struct kb_sm_limits *l)
{
	char err[CD_ERRMSG];

	assert_int_equal(kb_sm_limits_find(arch, l, err), CD_OK);
}

static void test_launch_fit(void **state)
{
	struct cubin_kernel_res k = { .registers = 72, .has_registers = true };
	struct kb_sm_limits l;
	struct launch_fit f;

	(void)state;
	limits(90, &l);
	/* 72 x 32 = 2304 registers a warp; 65536 / 2304 = 28 warps */
	launch_fit_judge(&k, &l, 1024, &f);
	assert_int_equal(f.limit, LAUNCH_REGISTERS);
	assert_int_equal(f.regs_needed, 32 * 2304);
	assert_int_equal(f.largest, 896);
	launch_fit_judge(&k, &l, 896, &f);
	assert_int_equal(f.limit, LAUNCH_FITS);
	/* 255 registers: 8160 a warp, rounded to 8192: 8 warps */
	k.registers = 255;
	launch_fit_judge(&k, &l, 512, &f);
	assert_int_equal(f.limit, LAUNCH_REGISTERS);
	assert_int_equal(f.largest, 256);
	/* 2048 threads: over every GPU's block limit */
	k.registers = 16;
	launch_fit_judge(&k, &l, 2048, &f);
	assert_int_equal(f.limit, LAUNCH_BLOCK_LIMIT);
	assert_int_equal(f.largest, 1024);
	/* launch bounds */
	k.max_threads[0] = 256;
	launch_fit_judge(&k, &l, 512, &f);
	assert_int_equal(f.limit, LAUNCH_BOUNDS);
	assert_int_equal(f.largest, 256);
	/* .reqntid 64x2x1: exactly 128 threads */
	memset(k.max_threads, 0, sizeof(k.max_threads));
	k.reqntid[0] = 64, k.reqntid[1] = 2, k.reqntid[2] = 1;
	launch_fit_judge(&k, &l, 128, &f);
	assert_int_equal(f.limit, LAUNCH_FITS);
	launch_fit_judge(&k, &l, 64, &f);
	assert_int_equal(f.limit, LAUNCH_BOUNDS);
	/* Jetson TX2 (6.2): 32K registers per block halve what fits */
	memset(k.reqntid, 0, sizeof(k.reqntid));
	k.registers = 64;
	limits(62, &l);
	launch_fit_judge(&k, &l, 1024, &f);
	assert_int_equal(f.limit, LAUNCH_REGISTERS);
	assert_int_equal(f.largest, 512);
}

static void test_sm_limits_table(void **state)
{
	struct kb_sm_limits l;
	char err[CD_ERRMSG];

	(void)state;
	limits(90, &l);
	assert_int_equal(l.arch, 90);
	assert_false(l.inferred);
	assert_int_equal(l.max_threads_per_block, 1024);
	assert_int_equal(l.regs_per_sm, 65536);
	assert_int_equal(l.max_smem_per_block_kib, 227);
	assert_non_null(strstr(l.source, "https://docs.nvidia.com/cuda/"));
	limits(53, &l);
	assert_int_equal(l.max_regs_per_block, 32768);
	limits(101, &l); /* Thor under its CUDA 12 name: its own row, 11.0's limits */
	assert_int_equal(l.arch, 101);
	assert_false(l.inferred);
	assert_int_equal(l.max_blocks_per_sm, 24);
	limits(102, &l); /* no row: the nearest lower one of its major, said to be inferred */
	assert_int_equal(l.arch, 101);
	assert_true(l.inferred);
	assert_int_equal(kb_sm_limits_find(30, &l, err), CD_ENOTFOUND);
	assert_non_null(strstr(err, "3.0"));
	assert_int_equal(kb_sm_limits_find_in("arch\tmax_threads_per_block\n90\t1024\n", 90, &l, err), CD_EFORMAT);
	assert_int_equal(kb_sm_limits_find_in("arch\tmax_threads_per_block\tmax_warps_per_sm\tmax_blocks_per_sm\t"
					      "regs_per_sm\tmax_regs_per_block\tmax_regs_per_thread\treg_alloc_unit\t"
					      "max_smem_per_block_kib\tsmem_per_sm_kib\tuncertain\tnotes\tsource\n"
					      "90\t1024\t64\t32\t65536\tlots\t255\t256\t227\t228\tno\t\thttps://x\n",
					      90, &l, err),
			 CD_EFORMAT);
	assert_non_null(strstr(err, "sm_limits.tsv:2"));
}

/* A record whose size runs past its section, and an unknown record format. */
static void test_bad_records(void **state)
{
	struct cubin_resources r;
	struct mapped_file mf;
	struct elf_file e;
	struct elf_section s;
	char err[CD_ERRMSG];
	unsigned char *copy;

	(void)state;
	MAP_FIXTURE_OR_SKIP("res_sm_90.cubin", &mf);
	copy = malloc(mf.size);
	assert_non_null(copy);
	memcpy(copy, mf.data, mf.size);
	assert_int_equal(elf_open(&e, copy, mf.size, err), CD_OK);
	assert_int_equal(elf_find_section(&e, ".nv.info", &s, err), CD_OK);
	assert_int_equal(copy[s.offset], 4); /* format 4: {fmt, attr, u16 size}, payload */
	copy[s.offset + 2] = 0xff;
	copy[s.offset + 3] = 0xff;
	assert_int_equal(cubin_resources_read(copy, mf.size, &r, err), CD_EFORMAT);
	assert_non_null(strstr(err, ".nv.info: record at offset 0"));
	assert_int_equal(r.n, 0);
	memcpy(copy, mf.data, mf.size);
	copy[s.offset] = 9;
	assert_int_equal(cubin_resources_read(copy, mf.size, &r, err), CD_EFORMAT);
	assert_non_null(strstr(err, "unknown record format 9"));
	/* a host ELF is no cubin */
	assert_int_equal(cubin_resources_read((const unsigned char *)"\177ELF", 4, &r, err), CD_EFORMAT);
	free(copy);
	file_unmap(&mf);
}

static void test_arch_resources_cmd(void **state)
{
	const char *text_argv[] = { CUDOCTOR_BINARY, "arch", "--resources", ARCH_FIXTURES "/res_sm_90.cubin", NULL };
	const char *json_argv[] = { CUDOCTOR_BINARY, "--json", "arch", "--resources", ARCH_FIXTURES "/res.fatbin", NULL };
	struct run_result rr;
	json_error_t je;
	json_t *j, *res;

	(void)state;
	if (access(ARCH_FIXTURES "/res.fatbin", R_OK) != 0)
		skip();
	assert_int_equal(testlib_run(text_argv, NULL, NULL, &rr), 0);
	assert_int_equal(rr.status, 0);
	assert_non_null(strstr(rr.out, "#1 sm_90: 5 kernels, 256 bytes module constant memory"));
	assert_non_null(strstr(rr.out, "largest block"));
	assert_non_null(strstr(rr.out, "5.1 KiB")); /* tiled's 5248 bytes */
	run_result_free(&rr);
	assert_int_equal(testlib_run(json_argv, NULL, NULL, &rr), 0);
	assert_int_equal(rr.status, 0);
	j = json_loads(rr.out, 0, &je);
	assert_non_null(j);
	res = json_object_get(json_array_get(json_object_get(j, "files"), 0), "resources");
	assert_int_equal(json_array_size(res), 2); /* sm_80 and sm_90 SASS; PTX has none */
	for (size_t i = 0; i < 2; i++) {
		json_t *ks = json_object_get(json_array_get(res, i), "kernels");
		bool seen = false;

		assert_int_equal(json_array_size(ks), 5);
		for (size_t k = 0; k < 5; k++) {
			json_t *o = json_array_get(ks, k);

			if (strcmp(json_string_value(json_object_get(o, "name")), "bounded_one") == 0) {
				seen = true;
				assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "max_threads"), 0)),
						 128);
				assert_int_equal(json_integer_value(json_object_get(o, "largest_block")), 128);
				assert_true(json_is_null(json_object_get(o, "reqntid")));
			}
			assert_true(json_is_integer(json_object_get(o, "registers")));
			assert_true(json_is_integer(json_object_get(o, "local_bytes")));
		}
		assert_true(seen);
	}
	json_decref(j);
	run_result_free(&rr);
}

/* explain names the kernels that cannot launch with the block and the largest each can. */
static void test_explain_block(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "explain", "--offline", "--gpu", "sm_90", "--binary",
			       ARCH_FIXTURES "/res.fatbin", "--block", "512",
			       "RuntimeError: CUDA error: too many resources requested for launch", NULL };
	struct run_result rr;
	json_error_t je;
	json_t *j, *l, *ks;
	size_t heavy = 0, spills = 0, bounded = 0, other = 0;

	(void)state;
	if (access(ARCH_FIXTURES "/res.fatbin", R_OK) != 0)
		skip();
	assert_int_equal(testlib_run(argv, NULL, NULL, &rr), 0);
	assert_int_equal(rr.status, 1);
	j = json_loads(rr.out, 0, &je);
	assert_non_null(j);
	l = json_object_get(json_array_get(json_object_get(j, "matches"), 0), "launch");
	assert_int_equal(json_integer_value(json_object_get(l, "block")), 512);
	assert_string_equal(json_string_value(json_object_get(l, "block_from")), "--block");
	ks = json_object_get(l, "kernels");
	for (size_t i = 0; i < json_array_size(ks); i++) {
		json_t *o = json_array_get(ks, i);
		const char *n = json_string_value(json_object_get(o, "name"));
		json_int_t big = json_integer_value(json_object_get(o, "largest_block"));

		assert_string_equal(json_string_value(json_object_get(o, "image")), "sm_90");
		if (!strcmp(n, "spills")) { /* 200 registers (ptxas, sm_90): 6400 a warp, 10 warps */
			spills++;
			assert_int_equal(big, 320);
			assert_string_equal(json_string_value(json_object_get(o, "limit")), "exceeds-registers");
		} else if (!strcmp(n, "bounded") || !strcmp(n, "bounded_one")) {
			bounded++;
			assert_string_equal(json_string_value(json_object_get(o, "limit")), "exceeds-launch-bounds");
		} else if (!strcmp(n, "heavy")) {
			heavy++;
		} else {
			other++;
		}
	}
	/* heavy (72 registers) fits 512 threads; tiled fits any block */
	assert_int_equal(spills, 1);
	assert_int_equal(bounded, 2);
	assert_int_equal(heavy + other, 0);
	json_decref(j);
	run_result_free(&rr);
}

/* An executable links one fatbin per object file and the static runtime's own, which has no
 * kernels: every container of the chosen arch is judged, so k_exe_static's kernels are named
 * (found on the H200, where only the runtime's empty container was read). */
static void test_explain_block_executable(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "explain", "--offline", "--gpu", "sm_80", "--binary",
			       ARCH_FIXTURES "/k_exe_static", "--block", "2048",
			       "CUDA error 9 (cudaErrorInvalidConfiguration): invalid configuration argument", NULL };
	struct run_result rr;
	json_error_t je;
	json_t *j, *ks;

	(void)state;
	if (access(ARCH_FIXTURES "/k_exe_static", R_OK) != 0)
		skip();
	assert_int_equal(testlib_run(argv, NULL, NULL, &rr), 0);
	j = json_loads(rr.out, 0, &je);
	assert_non_null(j);
	ks = json_object_get(json_object_get(json_array_get(json_object_get(j, "matches"), 0), "launch"), "kernels");
	assert_true(json_array_size(ks) >= 1);
	for (size_t i = 0; i < json_array_size(ks); i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(ks, i), "limit")), "exceeds-block-limit");
	json_decref(j);
	run_result_free(&rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm75),
		cmocka_unit_test(test_sm90),
		cmocka_unit_test(test_sm120),
		cmocka_unit_test(test_maxrregcount),
		cmocka_unit_test(test_launch_fit),
		cmocka_unit_test(test_sm_limits_table),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_arch_resources_cmd),
		cmocka_unit_test(test_explain_block),
		cmocka_unit_test(test_explain_block_executable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
