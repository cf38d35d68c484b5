/* binfmt/elf, binfmt/ar, binfmt/cubin: real files (cudoctor itself, nvcc fixtures, CUDA
 * libraries) and crafted damage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "arch_fixtures.h"
#include "binfmt/ar.h"
#include "binfmt/cubin.h"
#include "binfmt/elf.h"
#include "util/err.h"

#ifndef CUDOCTOR_BINARY
#define CUDOCTOR_BINARY "build/cudoctor"
#endif

static void test_elf_host_binary(void **state)
{
	struct mapped_file mf;
	struct elf_file e;
	struct elf_section s;
	char err[CD_ERRMSG];
	(void)state;
	assert_int_equal(file_map(CUDOCTOR_BINARY, &mf, err), 0);
	assert_int_equal(elf_open(&e, mf.data, mf.size, err), 0);
	assert_true(e.is64);
	assert_int_equal(e.machine, 62); /* EM_X86_64 */
	assert_true(e.shnum > 10);
	assert_int_equal(elf_find_section(&e, ".text", &s, err), 0);
	assert_true(s.flags & ELF_SHF_EXECINSTR);
	assert_int_equal(elf_find_section(&e, ".nv_fatbin", &s, NULL), CD_ENOTFOUND);
	/* the symbol table names functions we know */
	bool found = false;
	if (elf_find_section(&e, ".symtab", &s, NULL) == 0)
		for (size_t i = 0; i < elf_symbol_count(&e, &s) && !found; i++) {
			struct elf_symbol sym;
			assert_int_equal(elf_symbol_at(&e, &s, i, &sym, err), 0);
			found = strcmp(sym.name, "elf_open") == 0 && sym.type == ELF_STT_FUNC;
		}
	assert_true(found);
	file_unmap(&mf);
}

static void test_elf_damage(void **state)
{
	struct mapped_file mf;
	struct elf_file e;
	char err[CD_ERRMSG];
	(void)state;
	assert_int_equal(file_map(CUDOCTOR_BINARY, &mf, err), 0);
	unsigned char *copy = malloc(mf.size);
	memcpy(copy, mf.data, mf.size);
	/* section table cut off: the error names the table's offset */
	assert_int_equal(elf_open(&e, copy, mf.size - 100, err), CD_EFORMAT);
	assert_non_null(strstr(err, "outside the file"));
	assert_int_equal(elf_open(&e, copy, 40, err), CD_EFORMAT);
	copy[5] = 2; /* big-endian */
	assert_int_equal(elf_open(&e, copy, mf.size, err), CD_EUNSUPPORTED);
	copy[5] = 1;
	copy[58] = 8; /* e_shentsize too small */
	copy[59] = 0;
	assert_int_equal(elf_open(&e, copy, mf.size, err), CD_EFORMAT);
	assert_int_equal(elf_open(&e, (const unsigned char *)"\177ELF", 4, err), CD_EFORMAT);
	free(copy);
	file_unmap(&mf);
}

static void test_cubin_sm90a(void **state)
{
	struct mapped_file mf;
	struct cubin_info ci;
	char err[CD_ERRMSG];
	(void)state;
	MAP_FIXTURE_OR_SKIP("k_sm90a.cubin", &mf);
	assert_true(cubin_is_cubin(mf.data, mf.size));
	assert_int_equal(cubin_read(mf.data, mf.size, &ci, err), 0);
	assert_int_equal(ci.sm, 90);
	assert_true(ci.arch_specific); /* only .nv.compat says so in ABI V2 */
	assert_int_equal(ci.abi, 8);
	assert_int_equal(ci.type, ELF_ET_EXEC);
	assert_true(ci.has_code);
	assert_int_equal(ci.toolkit / 10, 13);
	file_unmap(&mf);
	MAP_FIXTURE_OR_SKIP("k_sm90.cubin", &mf);
	assert_int_equal(cubin_read(mf.data, mf.size, &ci, err), 0);
	assert_int_equal(ci.sm, 90);
	assert_false(ci.arch_specific);
	file_unmap(&mf);
}

static int collect(const char *name, void *ctx)
{
	char *buf = ctx;
	strcat(buf, name);
	strcat(buf, " ");
	return 0;
}

static void test_cubin_kernels(void **state)
{
	struct mapped_file mf;
	char err[CD_ERRMSG], names[256] = "";
	(void)state;
	MAP_FIXTURE_OR_SKIP("k_sm90.cubin", &mf);
	assert_int_equal(cubin_kernels(mf.data, mf.size, collect, names, err), 0);
	/* the kernels, not the __noinline__ device function twice() */
	assert_string_equal(names, "add scale ");
	file_unmap(&mf);
}

static void test_compat_records(void **state)
{
	(void)state;
	/* sm_90a's .nv.compat as cuobjdump showed it (fatbin.md §1.4) */
	static const unsigned char a[] = {2, 9, 1, 0, 2, 2, 1, 0, 2, 5, 5, 0, 3, 7, 1, 1, 2, 3, 0, 0,
					  2, 6, 1, 0, 4, 0xb, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8};
	unsigned char plain[sizeof(a)];
	memcpy(plain, a, sizeof(a));
	plain[2] = 0;
	assert_true(cubin_compat_says_arch_specific(a, sizeof(a)));
	assert_false(cubin_compat_says_arch_specific(plain, sizeof(plain)));
	assert_false(cubin_compat_says_arch_specific(a, 3));
	/* attribute 9 after a length record */
	static const unsigned char b[] = {4, 0xb, 2, 0, 7, 7, 0, 0, 2, 9, 1, 0};
	assert_true(cubin_compat_says_arch_specific(b, sizeof(b)));
}

static void test_ar_fixture(void **state)
{
	struct mapped_file mf;
	struct ar_iter it;
	struct ar_member m;
	char err[CD_ERRMSG];
	(void)state;
	MAP_FIXTURE_OR_SKIP("libk.a", &mf);
	assert_int_equal(ar_open(&it, mf.data, mf.size, err), 0);
	assert_int_equal(ar_next(&it, &m, err), 1);
	assert_string_equal(m.name, "k_default.o");
	assert_true(elf_has_magic(m.data, m.size));
	assert_int_equal(ar_next(&it, &m, err), 1);
	assert_string_equal(m.name, "k_rdc.o");
	assert_int_equal(ar_next(&it, &m, err), 0);
	file_unmap(&mf);
}

/* GNU long names through the "//" table, a BSD "#1/N" name, odd sizes padded to 2 */
static void test_ar_names(void **state)
{
	char buf[1024];
	size_t n = 0;
	struct ar_iter it;
	struct ar_member m;
	char err[CD_ERRMSG];
	(void)state;
	n += (size_t)sprintf(buf + n, "!<arch>\n");
	n += (size_t)sprintf(buf + n, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", "//", "", "", "", "", 29);
	n += (size_t)sprintf(buf + n, "a_very_long_member_name_1.o/\n\n"); /* 29 bytes + pad */
	n += (size_t)sprintf(buf + n, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", "/0", "0", "0", "0", "644", 3);
	n += (size_t)sprintf(buf + n, "abc\n");
	n += (size_t)sprintf(buf + n, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", "#1/6", "0", "0", "0", "644", 8);
	memcpy(buf + n, "bsd.o\0xy", 8); /* the name field is NUL-padded; "xy" is the data */
	n += 8;
	assert_int_equal(ar_open(&it, (unsigned char *)buf, n, err), 0);
	assert_int_equal(ar_next(&it, &m, err), 1);
	assert_string_equal(m.name, "a_very_long_member_name_1.o");
	assert_int_equal(m.size, 3);
	assert_memory_equal(m.data, "abc", 3);
	assert_int_equal(ar_next(&it, &m, err), 1);
	assert_string_equal(m.name, "bsd.o");
	assert_int_equal(m.size, 2);
	assert_int_equal(ar_next(&it, &m, err), 0);
	/* a size running past the end */
	assert_int_equal(ar_open(&it, (unsigned char *)buf, n - 5, err), 0);
	assert_int_equal(ar_next(&it, &m, err), 1);
	assert_int_equal(ar_next(&it, &m, err), CD_EFORMAT);
	assert_non_null(strstr(err, "offset"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_host_binary), cmocka_unit_test(test_elf_damage),
		cmocka_unit_test(test_cubin_sm90a),     cmocka_unit_test(test_cubin_kernels),
		cmocka_unit_test(test_compat_records),  cmocka_unit_test(test_ar_fixture),
		cmocka_unit_test(test_ar_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
