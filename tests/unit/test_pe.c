/* PE images: the reader (binfmt/pe.c) and arch on them, against MinGW-built DLLs/EXEs that
 * carry real nvcc fatbins (tests/fixtures/build.sh) and against real Windows files of the
 * package index (tests/wheels/pe_files.py: NVIDIA's nvjpeg64_12.dll and cudart64_12.dll,
 * ctranslate2's ctranslate2.dll and _ext .pyd, CuPy's _generator_api .pyd, bitsandbytes'
 * libbitsandbytes_cuda130.dll, NVIDIA Warp's warp.dll), whose `arch --cuobjdump` listing
 * must equal NVIDIA cuobjdump's listing of the .nv_fatb section cut out to a .fatbin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_fixtures.h"
#include "binfmt/devcode.h"
#include "binfmt/pe.h"
#include "kb/kb.h"
#include "rules/driver_need.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static void scan(const struct mapped_file *mf, struct dc_inventory *inv)
{
	char err[CD_ERRMSG] = "";
	dc_init(inv);
	assert_int_equal(dc_scan(inv, mf->data, mf->size, DC_READ_ELF, err), CD_OK);
}

/* The images of a PE's .nv_fatb are those of the fatbin that was put there, in order. */
static void same_images(const char *pe_name, const char *fatbin_name, enum dc_format format)
{
	struct mapped_file a, b;
	struct dc_inventory x, y;
	char err[CD_ERRMSG];
	MAP_FIXTURE_OR_SKIP("k_mixed.fatbin", &b); /* nvcc's fixtures exist */
	file_unmap(&b);
	char pa[512], pb[512];
	snprintf(pa, sizeof pa, "%s/%s", ARCH_FIXTURES, pe_name);
	snprintf(pb, sizeof pb, "%s/%s", ARCH_FIXTURES, fatbin_name);
	if (access(pa, R_OK) != 0) {
		fprintf(stderr, "skipping: %s missing (x86_64-w64-mingw32-gcc was not found at build time)\n", pa);
		skip();
	}
	assert_int_equal(file_map(pa, &a, err), CD_OK);
	assert_int_equal(file_map(pb, &b, err), CD_OK);
	scan(&a, &x);
	scan(&b, &y);
	assert_int_equal(x.format, format);
	assert_int_not_equal(y.n_images, 0);
	assert_int_equal(x.n_images, y.n_images);
	assert_int_equal(x.n_containers, y.n_containers);
	for (size_t i = 0; i < x.n_images; i++) {
		assert_int_equal(x.images[i].kind, y.images[i].kind);
		assert_int_equal(x.images[i].arch, y.images[i].arch);
		assert_int_equal(x.images[i].suffix, y.images[i].suffix);
		assert_int_equal(x.images[i].stored_bytes, y.images[i].stored_bytes);
		assert_string_equal(x.sections[x.containers[x.images[i].container].section], ".nv_fatb");
		assert_true(x.containers[x.images[i].container].primary);
	}
	dc_free(&x);
	dc_free(&y);
	file_unmap(&a);
	file_unmap(&b);
}

static void dll_holds_its_fatbin(void **state)
{
	(void)state;
	same_images("k_win.dll", "k_mixed.fatbin", DC_SHARED_LIBRARY);
}

static void pyd_holds_its_fatbin(void **state)
{
	(void)state;
	same_images("k_win_all.pyd", "k_all.fatbin", DC_SHARED_LIBRARY);
}

static void reader_reads_sections_and_imports(void **state)
{
	struct mapped_file mf;
	struct pe_file pe;
	struct pe_section s;
	const char *imports[16];
	char err[CD_ERRMSG];
	bool fatb = false, long_name = false;
	(void)state;
	if (access(ARCH_FIXTURES "/k_win.dll", R_OK) != 0) {
		fprintf(stderr, "skipping: k_win.dll missing (no nvcc or no MinGW at build time)\n");
		skip();
	}
	assert_int_equal(file_map(ARCH_FIXTURES "/k_win.dll", &mf, err), CD_OK);
	assert_true(pe_has_magic(mf.data, mf.size));
	assert_int_equal(pe_open(&pe, mf.data, mf.size, err), CD_OK);
	assert_int_equal(pe.machine, 0x8664);
	assert_true(pe.characteristics & PE_FILE_DLL);
	for (size_t i = 0; i < pe.n_sections; i++) {
		assert_int_equal(pe_section_at(&pe, i, &s, err), CD_OK);
		fatb |= pe_section_is(&s, ".nv_fatb");
		/* MinGW keeps DWARF sections under long names in the string table */
		long_name |= pe_section_is(&s, ".debug_info");
	}
	assert_true(fatb);
	assert_true(long_name);
	size_t n = pe_imports(&pe, imports, 16);
	bool cudart = false;
	for (size_t i = 0; i < n; i++)
		cudart |= strcmp(imports[i], "cudart64_12.dll") == 0;
	assert_true(cudart);
	/* every cut of the headers is an error, never a read past the end */
	for (size_t cut = 0; cut < 1024 && cut < mf.size; cut++) {
		unsigned char *t = malloc(cut ? cut : 1);
		memcpy(t, mf.data, cut);
		if (pe_open(&pe, t, cut, err) == CD_OK) {
			for (size_t i = 0; i < pe.n_sections; i++)
				assert_int_equal(pe_section_at(&pe, i, &s, err), CD_OK);
			pe_imports(&pe, imports, 16);
		} else {
			assert_non_null(strstr(err, "PE"));
		}
		free(t);
	}
	assert_false(pe_has_magic((const unsigned char *)"MZ", 2));
	file_unmap(&mf);
}

static void need_of(const char *name, struct runtime_need *n)
{
	struct mapped_file mf;
	char path[512], err[CD_ERRMSG];
	snprintf(path, sizeof path, "%s/%s", ARCH_FIXTURES, name);
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "skipping: %s missing (no nvcc or no MinGW at build time)\n", path);
		skip();
	}
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	runtime_need_of(mf.data, mf.size, n);
	file_unmap(&mf);
}

static void runtime_from_imports_and_static_release(void **state)
{
	struct runtime_need n;
	(void)state;
	assert_int_equal(kb_load(NULL), CD_OK);
	need_of("k_win.dll", &n);
	assert_true(n.known && n.windows && !n.is_static);
	assert_int_equal(n.cuda.major, 12);
	assert_string_equal(n.how, "imports cudart64_12.dll");
	assert_string_equal(n.min_driver_text, "527.41"); /* CUDA 12.0's Windows minimum */
	need_of("k_win_nodev.dll", &n);
	assert_true(n.known && n.windows);
	assert_int_equal(n.cuda.major, 11);
	assert_int_equal(n.cuda.minor, 0);
	need_of("k_win_static.exe", &n);
	assert_true(n.known && n.is_static && n.windows);
	assert_int_equal(n.cuda.major, 13);
	assert_non_null(strstr(n.how, "static CUDA runtime"));
}

static void arch_judges_a_dll_and_its_runtime(void **state)
{
	struct run_result res;
	(void)state;
	if (access(ARCH_FIXTURES "/k_win.dll", R_OK) != 0) {
		fprintf(stderr, "skipping: k_win.dll missing (no nvcc or no MinGW at build time)\n");
		skip();
	}
	/* k_mixed: sm_75 sm_80 sm_90a sm_100f sm_120 (+PTX): an 8.6 GPU runs sm_80 natively; the
	 * CUDA 12 runtime it imports fails on a CUDA 11.8 driver (error 35) */
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "--gpu", "sm_86", "--driver", "520.61.05",
			       ARCH_FIXTURES "/k_win.dll", NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "(shared-library)"));
	assert_non_null(strstr(res.out, "native"));
	assert_non_null(strstr(res.out, "runtime-newer-than-driver"));
	assert_non_null(strstr(res.out, "imports cudart64_12.dll"));
	assert_non_null(strstr(res.out, "527.41"));
	run_result_free(&res);
	const char *ok[] = { CUDOCTOR_BINARY, "arch", "--gpu", "sm_86", "--driver", "572.61",
			     ARCH_FIXTURES "/k_win.dll", NULL };
	assert_int_equal(testlib_run(ok, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

/* Fetches the real files (reused from the cache); lines "PATH\tLISTING" or "PATH\t-". */
static char *real_files(void)
{
	static char out[1024];
	const char *home = getenv("HOME");
	struct run_result res;
	snprintf(out, sizeof out, "%s/.cache/cudoctor-test/pe-files", home && *home ? home : "/tmp");
	const char *argv[] = { "/usr/bin/env", "python3", CUDOCTOR_SOURCE_DIR "/tests/wheels/pe_files.py", out, NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	if (res.status == 77) {
		fprintf(stderr, "skipping: %s", res.err);
		run_result_free(&res);
		return NULL;
	}
	if (res.status != 0)
		fail_msg("pe_files.py exited %d: %s", res.status, res.err);
	free(res.err);
	return res.out;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	return b;
}

static void real_windows_files_list_as_cuobjdump(void **state)
{
	(void)state;
	char *lines = real_files();
	if (!lines)
		skip();
	size_t with_code = 0, without = 0;
	for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		assert_non_null(tab);
		*tab = 0;
		struct run_result res;
		const char *argv[] = { CUDOCTOR_BINARY, "arch", "--cuobjdump", line, NULL };
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
		assert_int_equal(res.status, 0);
		if (strcmp(tab + 1, "-") == 0) {
			assert_string_equal(res.out, ""); /* cudart64_12.dll, the _ext .pyd: no device code */
			without++;
		} else {
			char *want = slurp(tab + 1);
			assert_true(strlen(want) > 100);
			assert_string_equal(res.out, want);
			free(want);
			with_code++;
		}
		run_result_free(&res);
	}
	assert_int_equal(with_code, 5); /* five producers */
	assert_int_equal(without, 2);
	free(lines);
}

static void real_windows_files_judged(void **state)
{
	(void)state;
	char *lines = real_files();
	if (!lines)
		skip();
	char *dll = strstr(lines, "ctranslate2.dll");
	assert_non_null(dll);
	char path[1024];
	size_t len = (size_t)(dll - lines) + strlen("ctranslate2.dll");
	char *start = dll;
	while (start > lines && start[-1] != '\n')
		start--;
	snprintf(path, sizeof path, "%.*s", (int)(len - (size_t)(start - lines)), start);
	/* ctranslate2 4.8.5: SASS sm_53 .. sm_86 and compute_86 PTX in 34 containers: native on
	 * 8.6, through the JIT on a Hopper GPU; its PTX is ISA 8.7 (CUDA 12.8), which a CUDA 12.4
	 * driver's JIT cannot take, so an H200 there gets nothing (error 222) */
	struct run_result res;
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "arch", "--gpu", "sm_86", "--gpu", "H200", "--driver",
			       "572.61", path, NULL };
	assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "\"native\""));
	assert_non_null(strstr(res.out, "\"jit\""));
	assert_non_null(strstr(res.out, "\"sm_86\""));
	assert_null(strstr(res.out, "\"sm_90\""));
	run_result_free(&res);
	const char *old[] = { CUDOCTOR_BINARY, "arch", "--gpu", "H200", "--driver", "551.61", path, NULL };
	assert_int_equal(testlib_run(old, NULL, NULL, &res), 0);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "ptx-too-new"));
	run_result_free(&res);
	free(lines);
}

/* Truncated and bit-flipped copies of NVIDIA's nvjpeg64_12.dll: each reads whole or is a
 * one-line error; the binary exits 3 naming it unreadable, never crashes (ASan in make check). */
static void real_dll_damaged(void **state)
{
	(void)state;
	char *lines = real_files();
	if (!lines)
		skip();
	char *end = strstr(lines, "nvjpeg64_12.dll");
	assert_non_null(end);
	char *start = end;
	while (start > lines && start[-1] != '\n')
		start--;
	char path[1024], err[CD_ERRMSG];
	snprintf(path, sizeof path, "%.*s", (int)(end - start) + (int)strlen("nvjpeg64_12.dll"), start);
	struct mapped_file mf;
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	size_t size = mf.size, errors = 0;
	unsigned char *c = malloc(size);
	uint32_t seed = 2701;
	for (int v = 0; v < 192; v++) {
		size_t len = size;
		memcpy(c, mf.data, size);
		if (v < 64) {
			len = v < 32 ? (size_t)v * 16 : size / 32 * (size_t)(v - 32); /* headers, then across */
		} else {
			seed = seed * 1103515245u + 12345u;
			size_t pos = v < 128 ? (seed >> 8) % 1024 : (seed >> 8) % size;
			c[pos] ^= (unsigned char)(1u << ((seed >> 4) & 7));
		}
		unsigned char *t = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		memcpy(t, c, len);
		struct dc_inventory inv;
		dc_init(&inv);
		err[0] = 0;
		if (dc_scan(&inv, t, len, DC_SCAN_ALL_SECTIONS | DC_READ_ELF, err) != CD_OK) {
			assert_true(err[0] && !strchr(err, '\n'));
			errors++;
		}
		struct runtime_need n;
		runtime_need_of(t, len, &n);
		dc_free(&inv);
		free(t);
	}
	assert_true(errors > 0);
	/* the binary on a copy cut inside the section table and one cut inside .nv_fatb */
	char tmpl[] = "/tmp/cudoctor-pe-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	size_t cuts[] = { 600, size / 2 };
	for (size_t k = 0; k < 2; k++) {
		char cut[1100];
		snprintf(cut, sizeof cut, "%s/nvjpeg64_12.dll", tmpl);
		FILE *f = fopen(cut, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(mf.data, 1, cuts[k], f), cuts[k]);
		fclose(f);
		struct run_result res;
		const char *argv[] = { CUDOCTOR_BINARY, "arch", "--gpu", "9.0", "--driver", "13.0", cut, NULL };
		assert_int_equal(testlib_run(argv, NULL, NULL, &res), 0);
		assert_int_equal(res.status, 3);
		assert_non_null(strstr(res.err, "is outside the file"));
		run_result_free(&res);
		remove(cut);
	}
	rmdir(tmpl);
	free(c);
	file_unmap(&mf);
	free(lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_reads_sections_and_imports),
		cmocka_unit_test(dll_holds_its_fatbin),
		cmocka_unit_test(pyd_holds_its_fatbin),
		cmocka_unit_test(runtime_from_imports_and_static_release),
		cmocka_unit_test(arch_judges_a_dll_and_its_runtime),
		cmocka_unit_test(real_windows_files_list_as_cuobjdump),
		cmocka_unit_test(real_windows_files_judged),
		cmocka_unit_test(real_dll_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
