/* Crafted inputs of megabytes, built here at test time, that made parsers quadratic or
 * wrong: ELF section names sharing one long run, overlapping sections, back-to-back fatbin
 * headers, an ar long-name table without newlines, per-layer GGUF look-ups, a safetensors
 * index naming 200k shards and 100k zero-size tensors, images declaring 256 MiB each, a
 * 4 GiB file without newlines, a 40 MB fleet report, two reports of 100k findings and GPUs
 * for diff and one of 65 MiB, a fleet node of 300k findings; and the small defects: a safetensors
 * header length whose low byte is '{', a layer index asking for 16 GB, a kernel name that is
 * not UTF-8 or holds escape sequences, a mapped file truncated while read.
 * Each test asserts what the parser answers. A quadratic parser takes minutes on these
 * inputs; each test runs under a 30 s alarm (a hang guard, not a speed check: the linear
 * parsers take well under a second, bench/ measures speed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binfmt/ar.h"
#include "binfmt/cubin.h"
#include "binfmt/cubin_attrs.h"
#include "binfmt/devcode.h"
#include "binfmt/elf.h"
#include "binfmt/fatbin.h"
#include "binfmt/gguf.h"
#include "binfmt/ptx.h"
#include "binfmt/safetensors.h"
#include "fleet/fleet.h"
#include "mem/load.h"
#include "mem/model.h"
#include "report/diff.h"
#include "safe_check.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#define GUARD_SECONDS 30

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/cudoctor-hostile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int guard(void **state)
{
	(void)state;
	alarm(GUARD_SECONDS);
	return 0;
}

static int unguard(void **state)
{
	(void)state;
	alarm(0);
	return 0;
}

/* ---- writing and running ---- */

static const char *save(const char *name, const void *data, size_t len)
{
	static char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static void run(const char *const *args, struct run_result *res)
{
	const char *argv[16] = { CUDOCTOR_BINARY };
	size_t n = 1;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(testlib_run(argv, NULL, NULL, res), 0);
}

static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* An ELF64 header for shnum sections at shoff, names in section shstrndx. */
static void elf_header(unsigned char *b, uint16_t machine, uint64_t shoff, uint16_t shnum, uint16_t shstrndx)
{
	memset(b, 0, 64);
	memcpy(b, "\177ELF", 4);
	b[4] = 2;
	b[5] = 1;
	b[6] = 1;
	put16(b + 16, 3);
	put16(b + 18, machine);
	put32(b + 20, 1);
	put64(b + 40, shoff);
	put16(b + 52, 64);
	put16(b + 58, 64);
	put16(b + 60, shnum);
	put16(b + 62, shstrndx);
}

static void section(unsigned char *p, uint32_t name, uint32_t type, uint64_t flags, uint64_t off, uint64_t size,
		    uint32_t link, uint64_t entsize)
{
	memset(p, 0, 64);
	put32(p, name);
	put32(p + 4, type);
	put64(p + 8, flags);
	put64(p + 24, off);
	put64(p + 32, size);
	put32(p + 40, link);
	put64(p + 56, entsize);
}

/* 8 MB: 60000 PROGBITS sections over one 4 MB region that is also their name table, each
 * named at its own offset into it: one run of 'A's, NUL-terminated at the end when
 * terminated. */
static unsigned char *crafted_elf(size_t *size, bool terminated)
{
	const size_t n = 60000, shoff = 64, tab = shoff + n * 64;
	unsigned char *b;
	*size = 8u << 20;
	assert_non_null(b = malloc(*size));
	elf_header(b, 62, shoff, (uint16_t)n, 1);
	for (size_t i = 0; i < n; i++)
		section(b + shoff + i * 64, (uint32_t)(i * 7 % (*size - tab - 1)), i == 1 ? 3 : 1, 2, tab, *size - tab, 0, 0);
	memset(b + tab, 'A', *size - tab);
	if (terminated)
		b[*size - 1] = 0;
	return b;
}

static void test_elf_names_in_one_run(void **state)
{
	struct elf_file e;
	struct elf_section s;
	struct run_result res;
	char err[CD_ERRMSG];
	size_t size;
	(void)state;
	for (int terminated = 0; terminated < 2; terminated++) {
		unsigned char *b = crafted_elf(&size, terminated);
		assert_int_equal(elf_open(&e, b, size, err), CD_OK);
		assert_int_equal(e.shnum, 60000);
		assert_int_equal(elf_find_section(&e, ".nv_fatbin", &s, err), CD_ENOTFOUND);
		assert_int_equal(elf_section_at(&e, 5, &s, err), CD_OK);
		/* unterminated: no name at all; terminated: the name runs to the table's end */
		if (terminated)
			assert_int_equal(strlen(s.name), size - (64 + 60000 * 64) - 35 - 1);
		else
			assert_string_equal(s.name, "");
		{
			const char *args[] = { "--json", "arch", "--gpu", "9.0", save("names.so", b, size), NULL };
			run(args, &res);
		}
		assert_int_equal(res.status, 0);
		assert_non_null(strstr(res.out, "\"format\": \"no-device-code\""));
		run_result_free(&res);
		free(b);
	}
}

static int count_name(const char *name, void *ctx)
{
	(void)name;
	++*(size_t *)ctx;
	return CD_OK;
}

/* A cubin whose 300k kernel symbols all name one 4 MB string: the names together would be
 * 1.2 TB; they may take no more than the cubin. */
static void test_cubin_kernel_names_bounded(void **state)
{
	const size_t nsym = 300000, shoff = 64, strtab = shoff + 4 * 64, strlen_ = 4u << 20,
		     symtab = strtab + strlen_, size = symtab + nsym * 24;
	static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab";
	unsigned char *b = calloc(1, size + sizeof shstr);
	struct cubin_resources res;
	char err[CD_ERRMSG];
	size_t named = 0;
	(void)state;
	assert_non_null(b);
	elf_header(b, ELF_EM_CUDA, shoff, 4, 1);
	section(b + shoff + 64, 1, 3, 0, size, sizeof shstr, 0, 0);
	section(b + shoff + 128, 11, 3, 0, strtab, strlen_, 0, 0);
	section(b + shoff + 192, 19, ELF_SHT_SYMTAB, 0, symtab, nsym * 24, 2, 24);
	memset(b + strtab + 1, 'k', strlen_ - 2);
	for (size_t i = 0; i < nsym; i++) {
		unsigned char *p = b + symtab + i * 24;
		put32(p, 1);
		p[4] = ELF_STT_FUNC;
		p[5] = CUBIN_STO_ENTRY;
	}
	memcpy(b + size, shstr, sizeof shstr);
	assert_int_equal(cubin_kernels(b, size + sizeof shstr, count_name, &named, err), CD_EFORMAT);
	assert_true(named >= 2 && named < 4); /* 4 MB each, in an 11 MB cubin */
	assert_non_null(strstr(err, "kernel names take more bytes than the cubin"));
	assert_int_equal(cubin_resources_read(b, size + sizeof shstr, &res, err), CD_EFORMAT);
	assert_non_null(strstr(err, "kernel names take more bytes than the cubin"));
	free(b);
}

/* Entries of 64 bytes, each holding a container magic at +48 whose container starts the
 * next entry and claims the rest of the region (8 bytes short, so every walk fails at its
 * end): every magic's validation walked to the end before (6 s at 1.6 MB, ~150 s at 8 MB). */
static unsigned char *back_to_back(size_t n, size_t *size)
{
	size_t region = n * 64 + 64;
	unsigned char *b = calloc(1, region);
	assert_non_null(b);
	for (size_t k = 0; k < n; k++) {
		unsigned char *p = b + k * 64;
		put16(p, FATBIN_KIND_ELF);
		put32(p + 4, 64);
		put32(p + 48, FATBIN_MAGIC);
		put16(p + 52, 1);
		put16(p + 54, FATBIN_HEADER_SIZE);
		put64(p + 56, region - (k * 64 + 64) - 8);
	}
	*size = region;
	return b;
}

static void test_fatbin_back_to_back_headers(void **state)
{
	size_t size;
	struct dc_inventory inv;
	char err[CD_ERRMSG];
	(void)state;
	unsigned char *b = back_to_back(130000, &size); /* 8.3 MB */
	assert_int_equal(fatbin_scan(b, size, 0, size), size);
	/* the same run in an ELF's data section, as arch scans it */
	{
		const size_t data = 4096;
		static const char shstr[] = "\0.rodata\0.shstrtab";
		size_t total = data + size + sizeof shstr + 64 * 3 + 8;
		unsigned char *elf = calloc(1, total);
		size_t names = data + size, sh = (names + sizeof shstr + 7) & ~(size_t)7;
		assert_non_null(elf);
		elf_header(elf, 62, sh, 3, 2);
		memcpy(elf + data, b, size);
		memcpy(elf + names, shstr, sizeof shstr);
		section(elf + sh + 64, 1, ELF_SHT_PROGBITS, 2, data, size, 0, 8);
		section(elf + sh + 128, 9, 3, 0, names, sizeof shstr, 0, 1);
		dc_init(&inv);
		assert_int_equal(dc_scan(&inv, elf, sh + 192, DC_SCAN_ALL_SECTIONS, err), CD_OK);
		assert_int_equal(inv.n_containers, 0);
		assert_int_equal(inv.format, DC_NO_DEVICE_CODE);
		dc_free(&inv);
		free(elf);
	}
	free(b);
}

/* 8 MB: a 4 MB long-name table without a newline, and 70k members naming its start. */
static void test_ar_long_names_without_newline(void **state)
{
	const size_t names = 4u << 20, n = 70000;
	size_t size = 8 + 60 + names + n * 60;
	unsigned char *b = malloc(size + 1), *p; /* + the last snprintf's NUL */
	struct ar_iter it;
	struct ar_member m;
	char err[CD_ERRMSG];
	size_t seen = 0;
	int rc;
	(void)state;
	assert_non_null(b);
	memcpy(b, "!<arch>\n", 8);
	p = b + 8;
	snprintf((char *)p, 61, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", "//", "0", "0", "0", "644", names);
	memset(p + 60, 'A', names);
	p += 60 + names;
	for (size_t i = 0; i < n; i++, p += 60)
		snprintf((char *)p, 61, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", "/0", "0", "0", "0", "644", 0);
	assert_int_equal(ar_open(&it, b, size, err), CD_OK);
	while ((rc = ar_next(&it, &m, err)) == 1) {
		assert_int_equal(strlen(m.name), sizeof m.name - 1);
		assert_int_equal(m.name[0], 'A');
		seen++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen, n);
	free(b);
}

static void gguf_str(unsigned char **p, const char *s)
{
	put64(*p, strlen(s));
	memcpy(*p + 8, s, strlen(s));
	*p += 8 + strlen(s);
}

/* 4 MB of metadata: 150k keys and 100000 blocks, each block's heads looked up per layer. */
static void test_gguf_per_layer_lookups(void **state)
{
	const size_t n_kv = 150000;
	unsigned char *b = malloc(8u << 20), *p = b;
	struct gguf_file g;
	struct mem_model m;
	char err[CD_ERRMSG], key[32];
	uint64_t v;
	(void)state;
	assert_non_null(b);
	memcpy(p, "GGUF", 4);
	put32(p + 4, 3);
	put64(p + 8, 0);
	put64(p + 16, n_kv + 2);
	p += 24;
	gguf_str(&p, "general.architecture");
	put32(p, GGUF_T_STRING), p += 4;
	gguf_str(&p, "llama");
	gguf_str(&p, "llama.block_count");
	put32(p, GGUF_T_UINT32), put32(p + 4, 100000), p += 8;
	for (size_t i = 0; i < n_kv; i++) {
		snprintf(key, sizeof key, "k%07zu", i);
		gguf_str(&p, key);
		put32(p, GGUF_T_UINT32), put32(p + 4, (uint32_t)i), p += 8;
	}
	assert_int_equal(gguf_parse(b, (size_t)(p - b), &g, err), CD_OK);
	assert_true(gguf_get_uint(&g, "k0149999", &v));
	assert_int_equal(v, 149999);
	assert_false(gguf_get_uint(&g, "k9999999", &v));
	assert_int_equal(mem_model_from_gguf(&g, &m, err), CD_OK);
	assert_int_equal(m.n_layers, 100000);
	assert_false(m.attn_known);
	mem_model_free(&m);
	gguf_free(&g);
	free(b);
}

static void test_gguf_duplicate_key_reads_first(void **state)
{
	unsigned char b[256], *p = b;
	struct gguf_file g;
	char err[CD_ERRMSG];
	uint64_t v;
	(void)state;
	memcpy(p, "GGUF", 4);
	put32(p + 4, 3);
	put64(p + 8, 0);
	put64(p + 16, 2);
	p += 24;
	gguf_str(&p, "llama.block_count");
	put32(p, GGUF_T_UINT32), put32(p + 4, 32), p += 8;
	gguf_str(&p, "llama.block_count");
	put32(p, GGUF_T_UINT32), put32(p + 4, 999), p += 8;
	assert_int_equal(gguf_parse(b, (size_t)(p - b), &g, err), CD_OK);
	assert_true(gguf_get_uint(&g, "llama.block_count", &v));
	assert_int_equal(v, 32);
	gguf_free(&g);
}

/* A weight_map of 200k tensors over 200k shards (refused at the 4097th), and 50k tensors
 * over 3000 shards in no order (kept, first-seen order). */
static void test_safetensors_index_many_shards(void **state)
{
	const size_t n = 200000;
	size_t cap = n * 48 + 64, used = 0;
	char *j = malloc(cap), err[CD_ERRMSG];
	struct st_index ix;
	(void)state;
	assert_non_null(j);
	for (int pass = 0; pass < 2; pass++) {
		size_t shards = pass ? 3000 : n, tensors = pass ? n / 4 : n;
		used = (size_t)snprintf(j, cap, "{\"weight_map\": {");
		for (size_t i = 0; i < tensors; i++)
			used += (size_t)snprintf(j + used, cap - used, "%s\"t%zu\": \"s%05zu.safetensors\"", i ? ", " : "", i,
						 (i * 7919) % shards);
		used += (size_t)snprintf(j + used, cap - used, "}}");
		if (!pass) {
			assert_int_equal(st_index_parse((unsigned char *)j, used, &ix, err), CD_EFORMAT);
			assert_non_null(strstr(err, "weight_map names more than 4096 shard files"));
			continue;
		}
		assert_int_equal(st_index_parse((unsigned char *)j, used, &ix, err), CD_OK);
		assert_int_equal(ix.n_shards, 3000);
		assert_int_equal(ix.n_tensors, n / 4);
		assert_string_equal(ix.shards[0], "s00000.safetensors");
		assert_string_equal(ix.shards[1], "s01919.safetensors"); /* 7919 % 3000 */
		st_index_free(&ix);
	}
	free(j);
}

/* A safetensors file of 100k zero-size tensors (F16) and one 2-byte BF16 tensor. */
static void test_safetensors_zero_size_tensors(void **state)
{
	const size_t n = 100000;
	size_t cap = n * 80 + 256, used = 8;
	unsigned char *b = malloc(cap + 2);
	struct st_file f;
	struct mem_model m;
	char err[CD_ERRMSG];
	(void)state;
	assert_non_null(b);
	used += (size_t)snprintf((char *)b + used, cap - used, "{\"one\": {\"dtype\": \"BF16\", \"shape\": [1], \"data_offsets\": [0, 2]}");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf((char *)b + used, cap - used,
					 ", \"z%zu\": {\"dtype\": \"F16\", \"shape\": [0], \"data_offsets\": [0, 0]}", i);
	used += (size_t)snprintf((char *)b + used, cap - used, "}");
	put64(b, used - 8);
	b[used++] = 0;
	b[used++] = 0;
	assert_int_equal(st_parse(b, used, &f, err), CD_OK);
	assert_int_equal(f.n_tensors, n + 1);
	assert_int_equal(mem_model_from_safetensors(&f, 1, NULL, &m, err), CD_OK);
	assert_string_equal(m.dtype, "BF16"); /* the 2 bytes, not the 100k empty tensors */
	assert_int_equal(m.weight_bytes, 2);
	mem_model_free(&m);
	st_free(&f);
	free(b);
}

/* One valid file in 256 has a header length whose low byte is '{' (0x7b): a safetensors
 * file all the same, not JSON. */
static void test_safetensors_length_low_byte_brace(void **state)
{
	unsigned char b[0x17b + 8 + 4];
	struct run_result res;
	int n;
	(void)state;
	memset(b, ' ', sizeof b);
	put64(b, 0x17b);
	n = snprintf((char *)b + 8, 0x17b + 1, "{\"w\": {\"dtype\": \"F16\", \"shape\": [2], \"data_offsets\": [0, 4]}}");
	b[8 + n] = ' '; /* the rest of the header is padding, as writers pad */
	assert_int_equal(b[0], '{');
	memset(b + 8 + 0x17b, 0, 4);
	{
		const char *args[] = { "--json", "mem", "estimate", save("brace.safetensors", b, sizeof b), NULL };
		run(args, &res);
	}
	if (res.status != 0)
		fail_msg("exit %d: %s", res.status, res.err);
	assert_non_null(strstr(res.out, "\"format\": \"safetensors\""));
	run_result_free(&res);
}

/* 100 bytes naming layer 999999999, no config.json: refused, not 16 GB asked for. */
static void test_safetensors_layer_index_capped(void **state)
{
	static const char hdr[] = "{\"model.layers.999999999.w\": {\"dtype\": \"F16\", \"shape\": [1], \"data_offsets\": [0, 2]}}";
	unsigned char b[8 + sizeof hdr - 1 + 2];
	struct run_result res;
	(void)state;
	put64(b, sizeof hdr - 1);
	memcpy(b + 8, hdr, sizeof hdr - 1);
	b[sizeof b - 2] = b[sizeof b - 1] = 0;
	{
		const char *args[] = { "mem", "estimate", save("deep.safetensors", b, sizeof b), NULL };
		run(args, &res);
	}
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.err, "1000000000 layers: more than any model has (at most 100000)"));
	run_result_free(&res);
}

/* 330 KB: 40 images, each a Zstandard frame of RLE blocks declaring 256 MiB (10.6 s and
 * 266 MB to list before the per-input budget). */
static void test_images_declaring_256_mib(void **state)
{
	const uint64_t u = 256u << 20;
	const size_t blocks = (size_t)(u / (128u << 10)), frame = 4 + 1 + 8 + blocks * 4, payload = (frame + 7) & ~(size_t)7,
		     n = 40, size = 16 + n * (64 + payload);
	unsigned char *b = calloc(1, size), *p;
	struct run_result res;
	(void)state;
	assert_non_null(b);
	put32(b, FATBIN_MAGIC);
	put16(b + 4, 1);
	put16(b + 6, 16);
	put64(b + 8, size - 16);
	p = b + 16;
	for (size_t i = 0; i < n; i++) {
		put16(p, FATBIN_KIND_ELF);
		put32(p + 4, 64);
		put64(p + 8, payload);
		put32(p + 16, (uint32_t)frame);
		put16(p + 24, 7);
		put16(p + 26, 1);
		put32(p + 28, 90);
		put64(p + 40, FATBIN_FLAG_64BIT | FATBIN_FLAG_ZSTD);
		put64(p + 56, u);
		p += 64;
		put32(p, 0xFD2FB528);
		p[4] = 0xE0; /* single segment, 8-byte content size */
		put64(p + 5, u);
		for (size_t k = 0; k < blocks; k++) /* RLE blocks of 128 KiB of zeros */
			put32(p + 13 + k * 4, (uint32_t)((k + 1 == blocks) | 1u << 1 | (128u << 10) << 3) & 0xffffff);
		p += payload;
	}
	{
		const char *args[] = { "arch", "--gpu", "9.0", "--kernels", save("bomb.fatbin", b, size), NULL };
		run(args, &res);
	}
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "not decompressed: it declares 256 MiB"));
	run_result_free(&res);
	free(b);
}

/* A cubin for sm_90 with one kernel, its symbol name strtab[1..] (strtab: 16 bytes). */
static void kernel_cubin(unsigned char b[64 + 4 * 64 + 64 + 32 + 48], const char strtab[16])
{
	static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab";
	size_t sh = 64, names = sh + 4 * 64, str = names + 32, sym = str + 32;

	memset(b, 0, 64 + 4 * 64 + 64 + 32 + 48);
	elf_header(b, ELF_EM_CUDA, sh, 4, 1);
	put32(b + 48, 90 << 8 | 90 << 16); /* e_flags: sm_90 */
	b[8] = 8;                          /* ABI version 8: the flags' layout */
	section(b + sh + 64, 1, 3, 0, names, sizeof shstr, 0, 0);
	section(b + sh + 128, 11, 3, 0, str, 16, 0, 0);
	section(b + sh + 192, 19, ELF_SHT_SYMTAB, 0, sym, 48, 2, 24);
	memcpy(b + names, shstr, sizeof shstr);
	memcpy(b + str, strtab, 16);
	put32(b + sym + 24, 1);
	b[sym + 24 + 4] = ELF_STT_FUNC;
	b[sym + 24 + 5] = CUBIN_STO_ENTRY;
}

/* A kernel name that is not UTF-8 is listed, escaped; it never makes "cannot read" print
 * what an uninitialised buffer held. */
static void test_kernel_name_not_utf8(void **state)
{
	unsigned char b[64 + 4 * 64 + 64 + 32 + 48];
	struct run_result res;
	(void)state;
	kernel_cubin(b, "\0\xff\xfe_Z6kernelv\0\0\0");
	{
		const char *args[] = { "--json", "arch", "--gpu", "9.0", "--kernels", save("k.cubin", b, sizeof b), NULL };
		run(args, &res);
	}
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "\"\\\\xff\\\\xfe_Z6kernelv\""));
	assert_null(strstr(res.out, "kernels_error"));
	run_result_free(&res);
}

/* Escape sequences in a kernel name and in the file's own name reach neither the terminal
 * nor the JSON raw: arch --kernels (text and JSON) and --cuobjdump, which prints itself. */
static void test_kernel_name_escapes(void **state)
{
	unsigned char b[64 + 4 * 64 + 64 + 32 + 48];
	const char *file;
	struct run_result t, j, c;
	json_t *root;
	(void)state;
	kernel_cubin(b, "\0\x1b[2J_Z1kv\x9b\0\0\0\0");
	file = save("k\x1b]0;x\x07.cubin", b, sizeof b);
	{
		const char *text[] = { "arch", "--gpu", "9.0", "--kernels", file, NULL };
		const char *js[] = { "--json", "arch", "--gpu", "9.0", "--kernels", file, NULL };
		const char *dump[] = { "arch", "--cuobjdump", file, NULL };
		run(text, &t);
		run(js, &j);
		run(dump, &c);
	}
	assert_int_equal(t.status, 0);
	assert_int_equal(j.status, 0);
	assert_int_equal(c.status, 0);
	assert_true(safe_printed(t.out) && safe_printed(j.out) && safe_printed(c.out));
	assert_non_null(strstr(t.out, "\\x1b[2J_Z1kv\\x9b"));
	assert_non_null(strstr(c.out, "ELF file    1: k\\x1b]0;x\\x07.sm_90.cubin"));
	assert_non_null(root = json_loads(j.out, 0, NULL));
	assert_true(json_strings_safe(root));
	assert_non_null(strstr(j.out, "\"\\\\x1b[2J_Z1kv\\\\x9b\""));
	json_decref(root);
	run_result_free(&t);
	run_result_free(&j);
	run_result_free(&c);
}

/* 4 GiB without a newline (sparse): the PTX sniff reads 64 KiB, not the whole file (15 s). */
static void test_large_file_without_newlines(void **state)
{
	char path[128];
	struct mapped_file mf;
	struct run_result res;
	char err[CD_ERRMSG];
	int fd;
	(void)state;
	snprintf(path, sizeof path, "%s/big.bin", dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	assert_int_equal(write(fd, "not a binary; ", 14), 14);
	assert_int_equal(pwrite(fd, ".version 8.0", 12, 1 << 20), 12); /* past the sniff */
	assert_int_equal(ftruncate(fd, (off_t)4 << 30), 0);
	close(fd);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_false(ptx_looks_like_ptx(mf.data, mf.size));
	assert_false(dc_has_magic(mf.data, mf.size));
	file_unmap(&mf);
	{
		const char *args[] = { "arch", "--gpu", "9.0", path, NULL };
		run(args, &res);
	}
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.err, "not an ELF or PE file, archive, fatbin, cubin, offload bundle or PTX text"));
	run_result_free(&res);
	unlink(path);
}

/* A mapped file truncated by someone else while it is read: zeros, no SIGBUS, and the
 * mapping says so. */
static void test_mapped_file_truncated_while_read(void **state)
{
	char path[128], err[CD_ERRMSG];
	struct mapped_file mf;
	unsigned char *b = malloc(1 << 20);
	unsigned long sum = 0;
	(void)state;
	assert_non_null(b);
	memset(b, 1, 1 << 20);
	snprintf(path, sizeof path, "%s", save("shrinks.bin", b, 1 << 20));
	free(b);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_true(file_map_intact(&mf));
	assert_int_equal(truncate(path, 1000), 0);
	for (size_t i = 0; i < mf.size; i++)
		sum += mf.data[i];
	assert_int_equal(sum, 1000);
	assert_false(file_map_intact(&mf));
	file_unmap(&mf);
	/* a fresh mapping of the file as it is now is whole again */
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(mf.size, 1000);
	assert_true(file_map_intact(&mf));
	file_unmap(&mf);
}

/* A 40 MB "report" is refused before it is parsed (it took 860 MB). */
static void test_fleet_report_too_large(void **state)
{
	size_t size = 40u << 20;
	char *b = malloc(size);
	struct run_result res;
	(void)state;
	assert_non_null(b);
	memset(b, ' ', size);
	memcpy(b, "{\"pad\": [", 9);
	for (size_t i = 9; i + 4 < size; i += 2)
		memcpy(b + i, "0,", 2);
	memcpy(b + size - 4, "0]}\n", 4);
	{
		const char *args[] = { "--json", "fleet", save("node9.json", b, size), NULL };
		run(args, &res);
	}
	assert_non_null(strstr(res.out, "larger than any report cudoctor writes (at most 8 MiB read)"));
	run_result_free(&res);
	free(b);
}

/* A node whose reports hold 300k distinct finding ids: each was looked for by walking the
 * node's findings (4.5 x 10^10 comparisons: a fleet of four 6 MB reports of 70k findings took
 * 100 s); found through the node's index now. A repeated id still keeps its worst severity. */
static void test_fleet_many_findings(void **state)
{
	struct fleet f;
	struct fleet_node *n;
	char id[32];
	(void)state;
	fleet_init(&f);
	assert_non_null(n = fleet_node_get(&f, "node01"));
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < 300000; i++) {
			snprintf(id, sizeof id, "id-%zu", i);
			assert_int_equal(fleet_node_finding(n, id, pass && i == 123456 ? SEV_ERROR : SEV_WARN, "t", NULL),
					 CD_OK);
		}
	assert_int_equal(n->n_findings, 300000);
	assert_string_equal(n->findings[123456].id, "id-123456");
	assert_int_equal(n->findings[123456].severity, SEV_ERROR);
	assert_int_equal(n->findings[123457].severity, SEV_WARN);
	fleet_free(&f);
}

/* A 65 MiB "report" for diff: named as too large, not as JSON cut short at 64 MiB (the file
 * was whole; diff had read no more of it) */
static void test_diff_report_too_large(void **state)
{
	static const char head[] = "{\"tool\": \"cudoctor\", \"command\": \"doctor\", \"pad\": \"";
	size_t size = 65u << 20;
	char *b = malloc(size);
	struct run_result res;
	const char *path;
	(void)state;
	assert_non_null(b);
	memset(b, ' ', size);
	memcpy(b, head, strlen(head));
	memcpy(b + size - 3, "\"}\n", 3);
	path = save("huge.json", b, size);
	{
		const char *args[] = { "diff", path, path, NULL };
		run(args, &res);
	}
	assert_int_equal(res.status, 3);
	assert_non_null(strstr(res.err, "huge.json: larger than any report cudoctor writes (at most 64 MiB read)"));
	run_result_free(&res);
	free(b);
}

/* Two reports of 100k findings and 100k GPUs each, half of them shared: diff matched every
 * item of one side by walking the other (10^10 name comparisons, hours); each item is found
 * once now. */
static json_t *many_items(size_t from, size_t n, const char *severity)
{
	json_t *root = json_pack("{s:s, s:s, s:[], s:[]}", "tool", "cudoctor", "command", "doctor", "findings", "gpus");
	json_t *findings = json_object_get(root, "findings"), *gpus = json_object_get(root, "gpus");
	char id[32], uuid[48];

	for (size_t i = from; i < from + n; i++) {
		snprintf(id, sizeof id, "id-%zu", i);
		snprintf(uuid, sizeof uuid, "GPU-%zu", i);
		assert_int_equal(json_array_append_new(findings, json_pack("{s:s, s:s, s:s, s:s}", "id", id, "severity",
									      i == 75000 ? severity : "warn", "title", "t",
									      "subject", "GPU 0")), 0);
		assert_int_equal(json_array_append_new(gpus, json_pack("{s:s, s:s}", "uuid", uuid, "name", "H200")), 0);
	}
	return root;
}

static void test_diff_many_items(void **state)
{
	json_t *a = many_items(0, 100000, "warn"), *b = many_items(50000, 100000, "error");
	struct diff_result d;
	size_t n[3] = { 0 };
	(void)state;

	assert_int_equal(report_diff(a, b, &d), CD_OK);
	for (size_t i = 0; i < d.n; i++)
		n[d.e[i].change]++;
	assert_int_equal(n[DIFF_REMOVED], 2 * 50000); /* findings and GPUs */
	assert_int_equal(n[DIFF_ADDED], 2 * 50000);
	assert_int_equal(n[DIFF_CHANGED], 1);
	for (size_t i = 0; i < d.n; i++)
		if (d.e[i].change == DIFF_CHANGED)
			assert_string_equal(d.e[i].item, "id-75000 [GPU 0]");
	report_diff_free(&d);
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_elf_names_in_one_run, guard, unguard),
		cmocka_unit_test_setup_teardown(test_cubin_kernel_names_bounded, guard, unguard),
		cmocka_unit_test_setup_teardown(test_fatbin_back_to_back_headers, guard, unguard),
		cmocka_unit_test_setup_teardown(test_ar_long_names_without_newline, guard, unguard),
		cmocka_unit_test_setup_teardown(test_gguf_per_layer_lookups, guard, unguard),
		cmocka_unit_test_setup_teardown(test_gguf_duplicate_key_reads_first, guard, unguard),
		cmocka_unit_test_setup_teardown(test_safetensors_index_many_shards, guard, unguard),
		cmocka_unit_test_setup_teardown(test_safetensors_zero_size_tensors, guard, unguard),
		cmocka_unit_test_setup_teardown(test_safetensors_length_low_byte_brace, guard, unguard),
		cmocka_unit_test_setup_teardown(test_safetensors_layer_index_capped, guard, unguard),
		cmocka_unit_test_setup_teardown(test_images_declaring_256_mib, guard, unguard),
		cmocka_unit_test_setup_teardown(test_kernel_name_not_utf8, guard, unguard),
		cmocka_unit_test_setup_teardown(test_kernel_name_escapes, guard, unguard),
		cmocka_unit_test_setup_teardown(test_large_file_without_newlines, guard, unguard),
		cmocka_unit_test_setup_teardown(test_mapped_file_truncated_while_read, guard, unguard),
		cmocka_unit_test_setup_teardown(test_fleet_report_too_large, guard, unguard),
		cmocka_unit_test_setup_teardown(test_diff_many_items, guard, unguard),
		cmocka_unit_test_setup_teardown(test_diff_report_too_large, guard, unguard),
		cmocka_unit_test_setup_teardown(test_fleet_many_findings, guard, unguard),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
