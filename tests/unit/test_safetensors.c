/* safetensors header and index readers against files written by the safetensors
 * package (the reference writer); malformed headers give one-line errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include "binfmt/safetensors.h"
#include "mem_fixtures.h"
#include "util/err.h"
#include "util/file.h"

static int setup(void **state)
{
	(void)state;
	return mem_fixtures() ? 0 : -1;
}

static uint64_t sum_file(const char *path, uint64_t *params)
{
	struct mapped_file mf;
	struct st_file f;
	char err[CD_ERRMSG] = "";
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	int rc = st_parse(mf.data, mf.size, &f, err);
	if (rc)
		fail_msg("%s: %s", path, err);
	uint64_t bytes = 0;
	for (size_t i = 0; i < f.n_tensors; i++) {
		bytes += f.tensors[i].end - f.tensors[i].begin;
		*params += f.tensors[i].n_elements;
		assert_int_equal(f.tensors[i].bits, 16);
		assert_string_equal(f.tensors[i].dtype, "F16");
	}
	assert_int_equal(f.data_start + f.data_bytes, mf.size);
	assert_int_equal(f.data_start % 8, 0); /* the writer pads the header to 8 bytes */
	st_free(&f);
	file_unmap(&mf);
	return bytes;
}

static void single_file_matches_reference(void **state)
{
	char path[4300];
	uint64_t params = 0;
	(void)state;
	snprintf(path, sizeof path, "%s/st_single/model.safetensors", mem_fx_dir);
	assert_int_equal(sum_file(path, &params), mem_exp_u("st_single", "weight_bytes"));
	assert_int_equal(params, mem_exp_u("st_single", "params"));
}

static void sharded_index_lists_both_shards(void **state)
{
	char path[4300], err[CD_ERRMSG] = "";
	struct mapped_file mf;
	struct st_index ix;
	(void)state;
	snprintf(path, sizeof path, "%s/st_sharded/model.safetensors.index.json", mem_fx_dir);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(st_index_parse(mf.data, mf.size, &ix, err), CD_OK);
	assert_int_equal(ix.n_shards, 2);
	assert_string_equal(ix.shards[0], "model-00001-of-00002.safetensors");
	assert_string_equal(ix.shards[1], "model-00002-of-00002.safetensors");
	assert_true(ix.has_total_size);
	assert_int_equal(ix.total_size, mem_exp_u("st_sharded", "weight_bytes"));
	uint64_t bytes = 0, params = 0;
	for (size_t i = 0; i < ix.n_shards; i++) {
		char p[4400];
		snprintf(p, sizeof p, "%s/st_sharded/%s", mem_fx_dir, ix.shards[i]);
		bytes += sum_file(p, &params);
	}
	assert_int_equal(bytes, mem_exp_u("st_sharded", "weight_bytes"));
	assert_int_equal(params, mem_exp_u("st_sharded", "params"));
	st_index_free(&ix);
	file_unmap(&mf);
}

/* 8-byte length + JSON header + `data_len` zero bytes */
static int parse_text(const char *json, size_t data_len, char *err)
{
	size_t n = strlen(json), size = 8 + n + data_len;
	unsigned char *buf = calloc(1, size);
	struct st_file f;
	uint64_t len = n;
	memcpy(buf, &len, 8);
	memcpy(buf + 8, json, n);
	err[0] = 0;
	int rc = st_parse(buf, size, &f, err);
	if (rc == CD_OK)
		st_free(&f);
	free(buf);
	return rc;
}

static void malformed_headers(void **state)
{
	char err[CD_ERRMSG];
	(void)state;
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}", 8, err), CD_OK);
	/* size does not match shape x dtype */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,6]}}", 6, err), CD_EFORMAT);
	assert_non_null(strstr(err, "needs 8"));
	/* gap between tensors */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
				    "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[4,6]}}", 6, err), CD_EFORMAT);
	assert_non_null(strstr(err, "gap or overlap"));
	/* overlap */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
				    "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}", 4, err), CD_EFORMAT);
	/* data shorter than the offsets say: truncated */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 10, err), CD_EFORMAT);
	assert_non_null(strstr(err, "truncated"));
	/* duplicate keys, not an object, not JSON, negative shape */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
				    "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, err), CD_EFORMAT);
	assert_int_equal(parse_text("[1,2,3]", 0, err), CD_EFORMAT);
	assert_int_equal(parse_text("{\"a\":", 0, err), CD_EFORMAT);
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", 1, err), CD_EFORMAT);
	/* shape overflow */
	assert_int_equal(parse_text("{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8, err),
			 CD_EFORMAT);
	/* __metadata__ is skipped; unknown dtype accepted with size from offsets; padding spaces */
	assert_int_equal(parse_text("{\"__metadata__\":{\"format\":\"pt\"},"
				    "\"q\":{\"dtype\":\"NEWTYPE\",\"shape\":[3],\"data_offsets\":[0,5]}}    ", 5, err), CD_OK);
	/* header length larger than the file, and absurdly large */
	unsigned char small[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
	struct st_file f;
	assert_int_equal(st_parse(small, sizeof small, &f, err), CD_EFORMAT);
	assert_non_null(strstr(err, "truncated"));
	unsigned char huge[16] = {0, 0, 0, 0, 0, 0, 0, 0x7f};
	assert_int_equal(st_parse(huge, sizeof huge, &f, err), CD_EFORMAT);
	assert_int_equal(st_parse(huge, 3, &f, err), CD_EFORMAT);
	assert_null(strchr(err, '\n'));
}

static void every_truncation_is_an_error(void **state)
{
	char path[4300], err[CD_ERRMSG];
	struct mapped_file mf;
	struct st_file f;
	(void)state;
	snprintf(path, sizeof path, "%s/tests/fuzz/corpus/safetensors/tiny.safetensors", CUDOCTOR_SOURCE_DIR);
	assert_int_equal(file_map(path, &mf, err), CD_OK);
	assert_int_equal(st_parse(mf.data, mf.size, &f, err), CD_OK);
	st_free(&f);
	for (size_t n = 0; n < mf.size; n++) {
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, mf.data, n);
		int rc = st_parse(copy, n, &f, err);
		free(copy);
		if (rc != CD_EFORMAT)
			fail_msg("prefix of %zu bytes: rc %d", n, rc);
	}
	file_unmap(&mf);
}

static void index_rejects_escaping_names(void **state)
{
	char err[CD_ERRMSG];
	struct st_index ix;
	(void)state;
	const char *bad = "{\"weight_map\":{\"a\":\"../../etc/passwd\"}}";
	assert_int_equal(st_index_parse((const unsigned char *)bad, strlen(bad), &ix, err), CD_EFORMAT);
	const char *nomap = "{\"metadata\":{}}";
	assert_int_equal(st_index_parse((const unsigned char *)nomap, strlen(nomap), &ix, err), CD_EFORMAT);
	const char *ok = "{\"weight_map\":{\"a\":\"x.safetensors\",\"b\":\"x.safetensors\",\"c\":\"y.safetensors\"}}";
	assert_int_equal(st_index_parse((const unsigned char *)ok, strlen(ok), &ix, err), CD_OK);
	assert_int_equal(ix.n_shards, 2);
	assert_int_equal(ix.n_tensors, 3);
	assert_false(ix.has_total_size);
	st_index_free(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_file_matches_reference),
		cmocka_unit_test(sharded_index_lists_both_shards),
		cmocka_unit_test(malformed_headers),
		cmocka_unit_test(every_truncation_is_an_error),
		cmocka_unit_test(index_rejects_escaping_names),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
