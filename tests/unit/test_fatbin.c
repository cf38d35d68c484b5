/* binfmt/fatbin, binfmt/devcode, binfmt/ptx, binfmt/decompress: crafted containers, the
 * nvcc fixtures (every --compress-mode, -G, -rdc, archives) and NVIDIA's own libraries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "arch_fixtures.h"
#include "binfmt/decompress.h"
#include "binfmt/devcode.h"
#include "binfmt/fatbin.h"
#include "binfmt/ptx.h"
#include "util/err.h"

static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* One container: a PTX entry (ISA 8.4, compute_80, ident "k.cu") and an sm_90a ELF entry. */
static size_t craft(unsigned char *b)
{
	memset(b, 0, 512);
	put32(b, FATBIN_MAGIC);
	put16(b + 4, 1);
	put16(b + 6, 16);
	unsigned char *e = b + 16;
	put16(e, FATBIN_KIND_PTX);
	put16(e + 2, 0x101);
	put32(e + 4, 80);          /* header 64 + ident */
	put64(e + 8, 16);          /* payload */
	put16(e + 24, 4);          /* ISA 8.4 */
	put16(e + 26, 8);
	put32(e + 28, 80);
	put32(e + 32, 64);         /* ident at +64, 5 bytes */
	put32(e + 36, 5);
	put64(e + 40, 0x11);
	memcpy(e + 64, "k.cu", 5);
	memcpy(e + 80, ".version 8.4\n\0\0\0", 16);
	unsigned char *f = e + 96;
	put16(f, FATBIN_KIND_ELF);
	put32(f + 4, 64);
	put64(f + 8, 8);
	put16(f + 24, 8);
	put16(f + 26, 1);
	put32(f + 28, 90);
	put64(f + 40, 0x11 | FATBIN_FLAG_ARCH_SPECIFIC);
	size_t fat = 96 + 64 + 8;
	put64(b + 8, fat);
	return 16 + fat;
}

static void test_crafted_container(void **state)
{
	unsigned char b[512];
	struct fatbin_container c;
	struct fatbin_entry e;
	char err[CD_ERRMSG];
	(void)state;
	size_t n = craft(b);
	assert_true(fatbin_is_container_at(b, n, 0));
	assert_int_equal(fatbin_container_open(&c, b, n, 0, err), 0);
	assert_int_equal(fatbin_next_entry(&c, &e, err), 1);
	assert_int_equal(e.kind, FATBIN_KIND_PTX);
	assert_int_equal(e.version_major, 8);
	assert_int_equal(e.version_minor, 4);
	assert_int_equal(e.ident_len, 4);
	assert_memory_equal(e.ident, "k.cu", 4);
	assert_int_equal(e.payload_len, 16);
	assert_int_equal(fatbin_next_entry(&c, &e, err), 1);
	assert_int_equal(e.arch, 90);
	assert_string_equal(fatbin_arch_suffix(e.flags), "a");
	assert_int_equal(fatbin_next_entry(&c, &e, err), 0);
	assert_true(fatbin_container_valid_at(b, n, 0));

	/* each damage is an error naming an offset, never a read outside the buffer */
	assert_int_equal(fatbin_container_open(&c, b, n - 1, 0, err), CD_EFORMAT);
	assert_non_null(strstr(err, "offset 0x0"));
	put32(b + 16 + 4, 68); /* header size not a multiple of 8 */
	assert_int_equal(fatbin_container_open(&c, b, n, 0, err), 0);
	assert_int_equal(fatbin_next_entry(&c, &e, err), CD_EFORMAT);
	assert_non_null(strstr(err, "0x10"));
	craft(b);
	put64(b + 16 + 8, 1u << 30); /* payload past the container */
	assert_int_equal(fatbin_container_open(&c, b, n, 0, err), 0);
	assert_int_equal(fatbin_next_entry(&c, &e, err), CD_EFORMAT);
	assert_false(fatbin_container_valid_at(b, n, 0));
	craft(b);
	put32(b + 16 + 32, 0xfffffff0); /* ident offset outside the header: ignored */
	assert_int_equal(fatbin_container_open(&c, b, n, 0, err), 0);
	assert_int_equal(fatbin_next_entry(&c, &e, err), 1);
	assert_null(e.ident);
	craft(b);
	put16(b + 4, 2);
	assert_int_equal(fatbin_container_open(&c, b, n, 0, err), CD_EUNSUPPORTED);
}

static void test_scan_finds_aligned_containers(void **state)
{
	unsigned char buf[2048];
	(void)state;
	memset(buf, 0xAB, sizeof(buf));
	unsigned char b[512];
	size_t n = craft(b);
	memcpy(buf + 256, b, n);
	memcpy(buf + 1024 + 4, b, n); /* misaligned: not a container position */
	memcpy(buf + 1536, b, 16);    /* magic without a valid walk */
	assert_int_equal(fatbin_scan(buf, sizeof(buf), 0, sizeof(buf)), 256);
	assert_int_equal(fatbin_scan(buf, sizeof(buf), 257, sizeof(buf)), sizeof(buf));
	assert_int_equal(fatbin_scan(buf, sizeof(buf), 0, 200), sizeof(buf));
}

struct expect {
	const char *file;
	const char *format;
	const char *archs;  /* "sm_90 compute_90" in file order */
	const char *compression;
};

static void archs_of(const struct dc_inventory *inv, char *buf, size_t cap, char *comp, size_t ccap)
{
	buf[0] = comp[0] = 0;
	for (size_t i = 0; i < inv->n_images; i++) {
		char a[32];
		dc_image_arch_name(&inv->images[i], a, sizeof(a));
		snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "", a);
		static const char *const cn[] = {"none", "lz4", "zstd"};
		snprintf(comp + strlen(comp), ccap - strlen(comp), "%s%s", i ? " " : "", cn[inv->images[i].compression]);
	}
}

/* What nvcc 13 put in each fixture (fatbin.md §1.3, §3.2): kinds, archs with suffixes, compression */
static const struct expect expects[] = {
	{"k_sm90.fatbin", "fatbin", "sm_90", "none"},
	{"k_ptx80.fatbin", "fatbin", "compute_80", "zstd"},
	{"k_mixed.fatbin", "fatbin", "sm_75 sm_80 sm_90a compute_90a sm_100f compute_100f sm_120 compute_120",
	 "none none none zstd none zstd none zstd"},
	{"k_cm_none.fatbin", "fatbin", "sm_90 compute_90", "none none"},
	{"k_cm_speed.fatbin", "fatbin", "sm_90 compute_90", "none lz4"},
	{"k_cm_default.fatbin", "fatbin", "sm_90 compute_90", "none zstd"},
	{"k_cm_balance.fatbin", "fatbin", "sm_90 compute_90", "none zstd"},
	{"k_lz4all.fatbin", "fatbin", "sm_90 compute_90", "lz4 lz4"},
	{"k_zstdall.fatbin", "fatbin", "sm_90 compute_90", "zstd zstd"},
	{"k_sm90a.cubin", "cubin", "sm_90a", "none"},
	{"k.ptx", "ptx", "compute_90", "none"},
	{"k_default.o", "object", "sm_90 compute_90", "none zstd"},
	{"k_rdc.o", "object", "sm_90 compute_90", "zstd zstd"},
	{"k_lto.o", "object", "lto_90", "zstd"},
	{"libk.a", "archive", "sm_90 compute_90 sm_90 compute_90", "none zstd zstd zstd"},
	{"libk_shared.so", "shared-library", NULL, NULL},
	{"k_exe", "executable", NULL, NULL},
	{"k_label90f.fatbin", "fatbin", "sm_90f", "none"},
};

static void test_fixture_inventories(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(expects) / sizeof(expects[0]); k++) {
		struct mapped_file mf;
		struct dc_inventory inv;
		char err[CD_ERRMSG], archs[512], comp[512];
		MAP_FIXTURE_OR_SKIP("k_sm90.fatbin", &mf); /* skips the whole test without nvcc */
		file_unmap(&mf);
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, expects[k].file);
		if (access(path, R_OK) != 0) {
			fprintf(stderr, "note: %s not built by this nvcc\n", path);
			continue;
		}
		assert_int_equal(file_map(path, &mf, err), 0);
		dc_init(&inv);
		assert_int_equal(dc_scan(&inv, mf.data, mf.size, DC_SCAN_ALL_SECTIONS, err), 0);
		assert_string_equal(dc_format_name(inv.format), expects[k].format);
		archs_of(&inv, archs, sizeof(archs), comp, sizeof(comp));
		if (expects[k].archs) {
			assert_string_equal(archs, expects[k].archs);
			assert_string_equal(comp, expects[k].compression);
		}
		dc_free(&inv);
		file_unmap(&mf);
	}
}

static void test_debug_and_members(void **state)
{
	struct mapped_file mf;
	struct dc_inventory inv;
	char err[CD_ERRMSG];
	(void)state;
	MAP_FIXTURE_OR_SKIP("k_debug.fatbin", &mf);
	dc_init(&inv);
	assert_int_equal(dc_scan(&inv, mf.data, mf.size, 0, err), 0);
	assert_int_equal(inv.n_images, 2);
	assert_true(inv.images[0].debug);
	assert_non_null(inv.images[0].identifier);
	assert_true(strstr(inv.images[0].identifier, "k.cu") != NULL);
	dc_free(&inv);
	file_unmap(&mf);

	MAP_FIXTURE_OR_SKIP("libk.a", &mf);
	assert_int_equal(dc_scan(&inv, mf.data, mf.size, 0, err), 0);
	assert_int_equal(inv.n_members, 2);
	assert_int_equal(inv.n_containers, 2);
	assert_string_equal(inv.members[inv.containers[1].member], "k_rdc.o");
	assert_string_equal(inv.sections[inv.containers[0].section], ".nv_fatbin");
	assert_string_equal(inv.sections[inv.containers[1].section], "__nv_relfatbin");
	assert_true(inv.containers[0].primary && inv.containers[1].primary); /* per member */
	dc_free(&inv);
	file_unmap(&mf);

	/* an RDC executable: cuobjdump and the runtime see only .nv_fatbin */
	MAP_FIXTURE_OR_SKIP("k_rdc_exe", &mf);
	assert_int_equal(dc_scan(&inv, mf.data, mf.size, 0, err), 0);
	size_t primary = 0;
	for (size_t i = 0; i < inv.n_containers; i++)
		if (inv.containers[i].primary) {
			primary++;
			assert_string_equal(inv.sections[inv.containers[i].section], ".nv_fatbin");
		}
	assert_int_equal(primary, 1);
	assert_true(inv.n_containers > primary);
	dc_free(&inv);
	file_unmap(&mf);
}

/* Every compressed entry of every fixture decodes to exactly its header size, and the
 * cubin read from it agrees with the header's arch. */
static void test_decompress_fixtures(void **state)
{
	static const char *const files[] = {"k_lz4all.fatbin", "k_zstdall.fatbin", "k_cm_size.fatbin", "k_debug.fatbin",
					    "k_mixed.fatbin"};
	(void)state;
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		struct mapped_file mf;
		struct fatbin_container c;
		struct fatbin_entry e;
		char err[CD_ERRMSG], path[512];
		snprintf(path, sizeof(path), "%s/%s", ARCH_FIXTURES, files[k]);
		if (access(path, R_OK) != 0) {
			fprintf(stderr, "skipping: fixture %s missing (nvcc not found at configure time)\n", path);
			skip();
		}
		assert_int_equal(file_map(path, &mf, err), 0);
		assert_int_equal(fatbin_container_open(&c, mf.data, mf.size, 0, err), 0);
		while (fatbin_next_entry(&c, &e, err) == 1) {
			unsigned char *out;
			size_t len;
			assert_int_equal(decompress_entry(&e, 1 << 26, &out, &len, err), 0);
			assert_int_equal(len, fatbin_entry_compression(&e) == FATBIN_RAW ? e.payload_len : e.uncompressed_size);
			if (e.kind == FATBIN_KIND_ELF)
				assert_memory_equal(out, "\177ELF", 4);
			if (e.kind == FATBIN_KIND_PTX) {
				struct ptx_info pi;
				assert_int_equal(ptx_read(out, len, &pi, err), 0);
				assert_int_equal(pi.isa_major, e.version_major); /* fatbinary copies .version */
				assert_int_equal(pi.isa_minor, e.version_minor);
				assert_int_equal(pi.n_entries, 2);
			}
			free(out);
		}
		file_unmap(&mf);
	}
}

static void test_decompress_errors(void **state)
{
	unsigned char src[4096], packed[8192], *out;
	size_t len;
	char err[CD_ERRMSG];
	(void)state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i % 7);
	int l = LZ4_compress_default((const char *)src, (char *)packed, sizeof(src), sizeof(packed));
	assert_true(l > 0);
	assert_int_equal(decompress_payload(FATBIN_LZ4, packed, (size_t)l, sizeof(src), 1 << 20, &out, &len, err), 0);
	assert_memory_equal(out, src, sizeof(src));
	free(out);
	/* wrong expected size, truncated block, size above the cap: errors, no overrun */
	assert_int_equal(decompress_payload(FATBIN_LZ4, packed, (size_t)l, sizeof(src) + 1, 1 << 20, &out, &len, err), CD_EFORMAT);
	assert_int_equal(decompress_payload(FATBIN_LZ4, packed, (size_t)l / 2, sizeof(src), 1 << 20, &out, &len, err), CD_EFORMAT);
	assert_int_equal(decompress_payload(FATBIN_LZ4, packed, (size_t)l, sizeof(src), 100, &out, &len, err), CD_EUNSUPPORTED);
	size_t z = ZSTD_compress(packed, sizeof(packed), src, sizeof(src), 3);
	assert_false(ZSTD_isError(z));
	assert_int_equal(decompress_payload(FATBIN_ZSTD, packed, z, sizeof(src), 1 << 20, &out, &len, err), 0);
	assert_memory_equal(out, src, sizeof(src));
	free(out);
	assert_int_equal(decompress_payload(FATBIN_ZSTD, packed, z, 100, 1 << 20, &out, &len, err), CD_EFORMAT);
	assert_non_null(strstr(err, "holds 4096"));
	assert_int_equal(decompress_payload(FATBIN_ZSTD, packed, z - 3, sizeof(src), 1 << 20, &out, &len, err), CD_EFORMAT);
	assert_int_equal(decompress_payload(FATBIN_ZSTD, src, 100, sizeof(src), 1 << 20, &out, &len, err), CD_EFORMAT);
	assert_null(out);
}

static int count_entry(const char *name, void *ctx)
{
	(void)name;
	(*(int *)ctx)++;
	return 0;
}

static void test_ptx_text(void **state)
{
	static const char text[] = "// .version 1.0 in a comment\n"
				   "//\n.version 8.7\n.target sm_100a, texmode_independent\n.address_size 64\n"
				   "\t// .entry fake(\n.visible .entry kern_a(\n\t.param .u64 p\n)\n{\n}\n"
				   ".entry kern_b()\n{\n}\n.func helper()\n{\n}\n";
	struct ptx_info pi;
	char err[CD_ERRMSG];
	int n = 0;
	(void)state;
	/* not NUL-terminated: the buffer ends at the last newline */
	assert_true(ptx_looks_like_ptx((const unsigned char *)text, sizeof(text) - 1));
	assert_int_equal(ptx_read((const unsigned char *)text, sizeof(text) - 1, &pi, err), 0);
	assert_int_equal(pi.isa_major, 8);
	assert_int_equal(pi.isa_minor, 7);
	assert_int_equal(pi.target, 100);
	assert_int_equal(pi.target_suffix, 'a');
	assert_string_equal(pi.target_text, "sm_100a");
	assert_int_equal(pi.n_entries, 2);
	assert_int_equal(ptx_entries((const unsigned char *)text, sizeof(text) - 1, count_entry, &n, err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ptx_read((const unsigned char *)"hello\n", 6, &pi, err), CD_EFORMAT);
	assert_false(ptx_looks_like_ptx((const unsigned char *)".versio", 7));
}

/* NVIDIA's libraries: counts that cuobjdump 13.0 printed on the H200 (fatbin.md §1.1, §5.4),
 * and the containers other sections hold. */
static void test_cuda_libraries(void **state)
{
	static const struct {
		const char *path;
		size_t nv_elf, nv_ptx;
		const char *other;
		size_t other_elf, other_ptx, other_nvvm;
	} libs[] = {
		{"/usr/local/cuda/lib64/libcublasLt.so.13", 5449, 288, ".cask_resource", 383, 0, 0},
		{"/usr/local/cuda/lib64/libcufft.so.12", 1, 0, ".ldata", 3124, 8131, 12728},
		{"/usr/local/cuda/lib64/libcusparse.so.12", 900, 137, ".rodata", 136, 136, 204},
		{"/usr/local/cuda/lib64/libcurand.so.10", 99, 10, NULL, 0, 0, 0},
	};
	(void)state;
	for (size_t k = 0; k < sizeof(libs) / sizeof(libs[0]); k++) {
		struct mapped_file mf;
		struct dc_inventory inv;
		char err[CD_ERRMSG];
		MAP_LIBRARY_OR_SKIP(libs[k].path, &mf);
		dc_init(&inv);
		assert_int_equal(dc_scan(&inv, mf.data, mf.size, DC_SCAN_ALL_SECTIONS, err), 0);
		assert_int_equal(inv.format, DC_SHARED_LIBRARY);
		size_t n[2][3] = {{0}};
		for (size_t i = 0; i < inv.n_images; i++) {
			const struct dc_image *im = &inv.images[i];
			const struct dc_container *c = &inv.containers[im->container];
			int which = c->primary ? 0 : 1;
			if (!c->primary)
				assert_string_equal(inv.sections[c->section], libs[k].other);
			n[which][im->kind == FATBIN_KIND_ELF ? 0 : im->kind == FATBIN_KIND_PTX ? 1 : 2]++;
		}
		assert_int_equal(n[0][0], libs[k].nv_elf);
		assert_int_equal(n[0][1], libs[k].nv_ptx);
		assert_int_equal(n[1][0], libs[k].other_elf);
		assert_int_equal(n[1][1], libs[k].other_ptx);
		assert_int_equal(n[1][2], libs[k].other_nvvm);
		dc_free(&inv);
		file_unmap(&mf);
	}
}

/* Where containers outside .nv_fatbin are searched: .cask_resource, .ldata, .rodata, .data in
 * that order, stopping after the first that holds any; every data section with
 * DC_SCAN_EVERY_SECTION. Found containers are listed in file order either way. */
static void elf_section(unsigned char *p, uint32_t name, uint32_t type, uint64_t off, uint64_t size)
{
	memset(p, 0, 64);
	put32(p, name);
	put32(p + 4, type);
	put64(p + 8, type == 1 ? 2 : 0); /* SHF_ALLOC */
	put64(p + 24, off);
	put64(p + 32, size);
	put64(p + 48, 8);
}

static void check_file_order(const struct dc_inventory *inv)
{
	for (size_t j = 0; j < inv->n_containers; j++) {
		const struct dc_container *c = &inv->containers[j];
		assert_true(j == 0 || inv->containers[j - 1].file_offset < c->file_offset);
		for (size_t i = c->first_image; i < c->first_image + c->n_images; i++) {
			assert_int_equal(inv->images[i].container, j);
			assert_true(inv->images[i].file_offset > c->file_offset);
		}
	}
}

static void test_search_order(void **state)
{
	static const char shstr[] = "\0.rodata\0.nv_fatbin\0.cask_resource\0.lrodata\0.shstrtab";
	enum { RODATA = 1, NV_FATBIN = 9, CASK = 20, LRODATA = 35, SHSTRTAB = 44 };
	unsigned char elf[0x780] = {0};
	struct dc_inventory inv;
	char err[CD_ERRMSG];
	(void)state;
	memcpy(elf, "\177ELF\2\1\1", 7);
	put16(elf + 16, 3);       /* ET_DYN */
	put16(elf + 18, 62);      /* x86-64 */
	put32(elf + 20, 1);
	put64(elf + 40, 0x600);   /* section headers */
	put16(elf + 52, 64);
	put16(elf + 58, 64);
	put16(elf + 60, 6);
	put16(elf + 62, 5);
	static const uint32_t names[] = {RODATA, NV_FATBIN, CASK, LRODATA};
	for (size_t k = 0; k < 4; k++) {
		craft(elf + 0x100 * (k + 1));
		elf_section(elf + 0x600 + 64 * (k + 1), names[k], 1, 0x100 * (k + 1), 0x100);
	}
	memcpy(elf + 0x500, shstr, sizeof shstr);
	elf_section(elf + 0x600 + 64 * 5, SHSTRTAB, 3, 0x500, sizeof shstr);

	/* .cask_resource first: .rodata and .lrodata are not searched */
	dc_init(&inv);
	assert_int_equal(dc_scan(&inv, elf, sizeof elf, DC_SCAN_ALL_SECTIONS, err), CD_OK);
	assert_int_equal(inv.n_containers, 2);
	assert_string_equal(inv.sections[inv.containers[0].section], ".nv_fatbin");
	assert_true(inv.containers[0].primary);
	assert_string_equal(inv.sections[inv.containers[1].section], ".cask_resource");
	check_file_order(&inv);
	dc_free(&inv);

	/* every section: all four, in file order */
	assert_int_equal(dc_scan(&inv, elf, sizeof elf, DC_SCAN_ALL_SECTIONS | DC_SCAN_EVERY_SECTION, err), CD_OK);
	assert_int_equal(inv.n_containers, 4);
	assert_int_equal(inv.n_images, 8);
	assert_string_equal(inv.sections[inv.containers[0].section], ".rodata");
	assert_string_equal(inv.sections[inv.containers[3].section], ".lrodata");
	check_file_order(&inv);
	dc_free(&inv);

	/* no .cask_resource or .ldata: .rodata, which lies before .nv_fatbin, and nothing after */
	put32(elf + 0x600 + 64 * 3, LRODATA);
	assert_int_equal(dc_scan(&inv, elf, sizeof elf, DC_SCAN_IF_CUDA, err), CD_OK);
	assert_int_equal(inv.n_containers, 2);
	assert_string_equal(inv.sections[inv.containers[0].section], ".rodata");
	assert_false(inv.containers[0].primary);
	assert_string_equal(inv.sections[inv.containers[1].section], ".nv_fatbin");
	assert_int_equal(inv.images[0].arch, 80);
	check_file_order(&inv);
	dc_free(&inv);

	/* without .nv_fatbin a directory scan searches nothing */
	put32(elf + 0x600 + 64 * 2, LRODATA);
	assert_int_equal(dc_scan(&inv, elf, sizeof elf, DC_SCAN_IF_CUDA, err), CD_OK);
	assert_int_equal(inv.n_containers, 0);
	dc_free(&inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crafted_container),    cmocka_unit_test(test_scan_finds_aligned_containers),
		cmocka_unit_test(test_fixture_inventories),  cmocka_unit_test(test_debug_and_members),
		cmocka_unit_test(test_decompress_fixtures),  cmocka_unit_test(test_decompress_errors),
		cmocka_unit_test(test_ptx_text),             cmocka_unit_test(test_cuda_libraries),
		cmocka_unit_test(test_search_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
