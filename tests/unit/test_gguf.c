/* GGUF header reader against files written by gguf-py (the reference writer) and
 * read back by gguf.GGUFReader; hostile inputs give CD_EFORMAT with an offset. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "binfmt/gguf.h"
#include "mem_fixtures.h"
#include "util/err.h"
#include "util/file.h"

static int setup(void **state)
{
	(void)state;
	return mem_fixtures() ? 0 : -1;
}

static void load(const char *name, struct mapped_file *mf, struct gguf_file *g)
{
	char path[4300], err[CD_ERRMSG] = "";
	snprintf(path, sizeof path, "%s/%s", mem_fx_dir, name);
	assert_int_equal(file_map(path, mf, err), CD_OK);
	int rc = gguf_parse(mf->data, mf->size, g, err);
	if (rc)
		fail_msg("%s: %s", name, err);
}

static void totals_match_reference_reader(void **state)
{
	static const char *const files[] = {"llama_gqa.gguf", "gemma3_swa.gguf", "deepseek2_mla.gguf",
					    "hybrid_kv_array.gguf"};
	(void)state;
	for (size_t f = 0; f < 4; f++) {
		struct mapped_file mf;
		struct gguf_file g;
		load(files[f], &mf, &g);
		uint64_t params = 0, bytes = 0;
		for (uint64_t i = 0; i < g.n_tensors; i++) {
			params += g.tensors[i].n_elements;
			bytes += g.tensors[i].n_bytes;
			assert_false(g.tensors[i].size_from_offsets);
		}
		assert_int_equal(g.n_tensors, mem_exp_u(files[f], "n_tensors"));
		assert_int_equal(params, mem_exp_u(files[f], "params"));
		assert_int_equal(bytes, mem_exp_u(files[f], "weight_bytes"));
		assert_int_equal(g.version, 3);
		assert_int_equal(g.alignment, 32);
		assert_int_equal(g.data_start % 32, 0);
		gguf_free(&g);
		file_unmap(&mf);
	}
}

/* gguf-py's big-endian output is named as such, not misread as garbage sizes */
static void big_endian_file_is_named(void **state)
{
	char path[4300], err[CD_ERRMSG] = "";
	struct mapped_file mf;
	struct gguf_file g;
	(void)state;
	snprintf(path, sizeof path, "%s/big_endian.gguf", mem_fx_dir);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(gguf_parse(mf.data, mf.size, &g, err), CD_EUNSUPPORTED);
	assert_non_null(strstr(err, "big-endian"));
	file_unmap(&mf);
}

static void metadata_scalars_and_arrays(void **state)
{
	struct mapped_file mf;
	struct gguf_file g;
	uint64_t v;
	char arch[32];
	(void)state;
	load("hybrid_kv_array.gguf", &mf, &g);
	assert_true(gguf_get_str(&g, "general.architecture", arch, sizeof arch));
	assert_string_equal(arch, "hybridtest");
	assert_true(gguf_get_uint(&g, "hybridtest.block_count", &v));
	assert_int_equal(v, 6);
	/* head_count_kv is an array [2, 0, 2, 0, 0, 4]; head_count a scalar used for every layer */
	static const uint64_t kv[] = {2, 0, 2, 0, 0, 4};
	for (uint64_t l = 0; l < 6; l++) {
		assert_true(gguf_get_uint_at(&g, "hybridtest.attention.head_count_kv", l, &v));
		assert_int_equal(v, kv[l]);
		assert_true(gguf_get_uint_at(&g, "hybridtest.attention.head_count", l, &v));
		assert_int_equal(v, 4);
	}
	assert_false(gguf_get_uint_at(&g, "hybridtest.attention.head_count_kv", 6, &v));
	assert_false(gguf_get_uint(&g, "no.such.key", &v));
	assert_false(gguf_get_uint(&g, "general.architecture", &v)); /* a string is not a number */
	gguf_free(&g);
	file_unmap(&mf);
}

/* Every ggml type gguf-py knows has the same block size and bytes per block here,
 * except Q8_1, which gguf-py still lists with the old float scales (40 bytes) while
 * ggml's block_q8_1 is two halves + 32 quants (36); it never appears in files. */
static void type_table_matches_gguf_py(void **state)
{
	(void)state;
	json_t *sizes = mem_expected("ggml_quant_sizes");
	const char *key;
	json_t *v;
	size_t n = 0;
	assert_non_null(sizes);
	json_object_foreach(sizes, key, v) {
		uint32_t id = (uint32_t)atoi(key);
		const struct ggml_type_info *t = ggml_type_get(id);
		assert_non_null(t);
		assert_string_equal(t->name, json_string_value(json_array_get(v, 2)));
		assert_int_equal(t->block, json_integer_value(json_array_get(v, 0)));
		if (id != 9)
			assert_int_equal(t->bytes, json_integer_value(json_array_get(v, 1)));
		n++;
	}
	assert_true(n >= 34);
	assert_int_equal(ggml_type_get(9)->bytes, 36);
	uint64_t b;
	assert_int_equal(ggml_row_bytes(8, 64, &b), CD_OK); /* Q8_0: 2 blocks of 34 */
	assert_int_equal(b, 68);
	assert_int_equal(ggml_row_bytes(8, 33, &b), CD_EFORMAT);
	assert_int_equal(ggml_row_bytes(4, 32, &b), CD_EUNSUPPORTED); /* removed Q4_2 */
}

/* Every proper prefix of a real file is rejected with an error naming an offset or
 * "truncated", never a crash (ASan build). */
static void every_truncation_is_an_error(void **state)
{
	struct mapped_file mf;
	char path[4300], err[CD_ERRMSG];
	struct gguf_file g;
	(void)state;
	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/gguf/tiny_llama.gguf", CUDOCTOR_SOURCE_DIR);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(gguf_parse(mf.data, mf.size, &g, err), CD_OK);
	gguf_free(&g);
	for (size_t n = 0; n < mf.size; n++) {
		unsigned char *copy = malloc(n ? n : 1); /* exact-size copy so ASan sees overreads */
		memcpy(copy, mf.data, n);
		err[0] = 0;
		int rc = gguf_parse(copy, n, &g, err);
		free(copy);
		if (rc != CD_EFORMAT)
			fail_msg("prefix of %zu bytes: rc %d (%s)", n, rc, err);
		assert_true(strstr(err, "offset") || strstr(err, "truncated"));
		assert_null(strchr(err, '\n'));
	}
	file_unmap(&mf);
}

/* A header with the given counts followed by `tail`. */
static size_t craft(unsigned char *buf, uint32_t version, uint64_t n_tensors, uint64_t n_kv,
		    const void *tail, size_t tail_len)
{
	memcpy(buf, "GGUF", 4);
	memcpy(buf + 4, &version, 4);
	memcpy(buf + 8, &n_tensors, 8);
	memcpy(buf + 16, &n_kv, 8);
	memcpy(buf + 24, tail, tail_len);
	return 24 + tail_len;
}

static void hostile_headers(void **state)
{
	unsigned char buf[512];
	char err[CD_ERRMSG];
	struct gguf_file g;
	size_t n;
	(void)state;
	/* counts far beyond what the file can hold: rejected before allocating */
	n = craft(buf, 3, UINT64_MAX / 2, 0, "", 0);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	n = craft(buf, 3, 0, 1ull << 40, "", 0);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	/* one key "a" = array of u8 with count 2^62 */
	unsigned char arr[] = {1, 0, 0, 0, 0, 0, 0, 0, 'a', 9, 0, 0, 0, 0, 0, 0, 0,
			       0, 0, 0, 0, 0, 0, 0, 0x40};
	n = craft(buf, 3, 0, 1, arr, sizeof arr);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	assert_non_null(strstr(err, "array"));
	/* string key length 2^63 */
	unsigned char key[] = {0, 0, 0, 0, 0, 0, 0, 0x80};
	n = craft(buf, 3, 0, 1, key, sizeof key);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	/* bool value 2 */
	unsigned char b[] = {1, 0, 0, 0, 0, 0, 0, 0, 'b', 7, 0, 0, 0, 2};
	n = craft(buf, 3, 0, 1, b, sizeof b);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	/* a tensor with 5 dimensions */
	unsigned char t5[64] = {1, 0, 0, 0, 0, 0, 0, 0, 't', 5, 0, 0, 0};
	n = craft(buf, 3, 1, 0, t5, sizeof t5);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	assert_non_null(strstr(err, "dimensions"));
	/* alignment 3 */
	unsigned char al[] = {17, 0, 0, 0, 0, 0, 0, 0, 'g', 'e', 'n', 'e', 'r', 'a', 'l', '.', 'a', 'l', 'i',
			      'g', 'n', 'm', 'e', 'n', 't', 4, 0, 0, 0, 3, 0, 0, 0};
	n = craft(buf, 3, 0, 1, al, sizeof al);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EFORMAT);
	assert_non_null(strstr(err, "alignment"));
	/* version 1 and big-endian files are named, not misread */
	n = craft(buf, 1, 0, 0, "", 0);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EUNSUPPORTED);
	n = craft(buf, 0x03000000, 0, 0, "", 0);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_EUNSUPPORTED);
	assert_non_null(strstr(err, "big-endian"));
	assert_int_equal(gguf_parse((const unsigned char *)"GGML", 4, &g, err), CD_EFORMAT);
	/* an empty but valid file: no tensors, no metadata */
	n = craft(buf, 3, 0, 0, "", 0);
	assert_int_equal(gguf_parse(buf, n, &g, err), CD_OK);
	gguf_free(&g);
}

/* A tensor of an unknown type gets its size from the next offset (padding included). */
static void unknown_type_sized_by_offsets(void **state)
{
	unsigned char buf[256] = {0};
	char err[CD_ERRMSG];
	struct gguf_file g;
	(void)state;
	/* two tensors, 1-d, type 99, offsets 0 and 64; data section to 128 bytes */
	unsigned char ti[] = {1, 0, 0, 0, 0, 0, 0, 0, 'x', 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0,
			      99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			      1, 0, 0, 0, 0, 0, 0, 0, 'y', 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0,
			      99, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0};
	size_t n = craft(buf, 3, 2, 0, ti, sizeof ti);
	size_t data_start = (n + 31) / 32 * 32;
	assert_int_equal(gguf_parse(buf, data_start + 128, &g, err), CD_OK);
	assert_true(g.tensors[0].size_from_offsets);
	assert_int_equal(g.tensors[0].n_bytes, 64);
	assert_int_equal(g.tensors[1].n_bytes, 64);
	gguf_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(totals_match_reference_reader),
		cmocka_unit_test(big_endian_file_is_named),
		cmocka_unit_test(metadata_scalars_and_arrays),
		cmocka_unit_test(type_table_matches_gguf_py),
		cmocka_unit_test(every_truncation_is_an_error),
		cmocka_unit_test(hostile_headers),
		cmocka_unit_test(unknown_type_sized_by_offsets),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
