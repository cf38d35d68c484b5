/* safetensors header reader and shard index reader; the JSON is parsed by jansson,
 * every number in it is checked before use. */
#include "binfmt/safetensors.h"
#include "util/sort.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/str.h"
#include "util/strindex.h"

static const struct {
	const char *name;
	unsigned bits;
} st_dtypes[] = {
	{"BOOL", 8},  {"U8", 8},    {"I8", 8},    {"F8_E5M2", 8}, {"F8_E4M3", 8},
	{"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16}, {"U16", 16},
	{"F16", 16},  {"BF16", 16}, {"I32", 32},  {"U32", 32},    {"F32", 32},
	{"F64", 64},  {"I64", 64},  {"U64", 64},  {"C64", 64},    {"F4", 4},
	{"F6_E2M3", 6}, {"F6_E3M2", 6},
};

unsigned st_dtype_bits(const char *dtype)
{
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (strcmp(st_dtypes[i].name, dtype) == 0)
			return st_dtypes[i].bits;
	return 0;
}

uint64_t st_header_length(const unsigned char *data)
{
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | data[i];
	return n;
}

static bool json_u64(const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static int parse_tensor(const char *name, json_t *info, struct st_tensor *t, char *err)
{
	json_t *dtype = json_object_get(info, "dtype"), *shape = json_object_get(info, "shape");
	json_t *offs = json_object_get(info, "data_offsets");
	if (!json_is_object(info) || !json_is_string(dtype) || !json_is_array(shape) ||
	    !json_is_array(offs) || json_array_size(offs) != 2)
		return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' lacks dtype, shape or data_offsets", name);
	if (json_string_length(dtype) >= sizeof t->dtype)
		return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' has an unknown dtype", name);
	strcpy(t->dtype, json_string_value(dtype));
	t->bits = st_dtype_bits(t->dtype);
	if (json_array_size(shape) > ST_MAX_DIMS)
		return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' has more than %d dimensions", name, ST_MAX_DIMS);
	t->n_dims = (uint32_t)json_array_size(shape);
	t->n_elements = 1;
	for (uint32_t d = 0; d < t->n_dims; d++) {
		if (!json_u64(json_array_get(shape, d), &t->dims[d]))
			return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' has a bad shape", name);
		if (t->dims[d] && t->n_elements > UINT64_MAX / t->dims[d])
			return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' element count overflows", name);
		t->n_elements *= t->dims[d];
	}
	if (!json_u64(json_array_get(offs, 0), &t->begin) || !json_u64(json_array_get(offs, 1), &t->end) ||
	    t->end < t->begin)
		return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' has bad data_offsets", name);
	if (t->bits) {
		if (t->n_elements > UINT64_MAX / t->bits || (t->n_elements * t->bits) % 8)
			return cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' is not a whole number of bytes", name);
		if (t->end - t->begin != t->n_elements * t->bits / 8)
			return cd_fail(err, CD_EFORMAT,
				       "header: tensor '%.64s' spans %llu bytes but its shape in %s needs %llu",
				       name, (unsigned long long)(t->end - t->begin), t->dtype,
				       (unsigned long long)(t->n_elements * t->bits / 8));
	}
	if (!(t->name = cd_strdup(name)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}

static int cmp_begin(const void *a, const void *b)
{
	const struct st_tensor *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int st_parse(const unsigned char *data, size_t size, struct st_file *f, char *err)
{
	json_t *root = NULL;
	json_error_t jerr;
	int rc = CD_OK;
	memset(f, 0, sizeof *f);
	if (!data || size < 8)
		return cd_fail(err, CD_EFORMAT, "truncated: %zu bytes, a safetensors file starts with an 8-byte header length", size);
	uint64_t n = st_header_length(data);
	if (n > ST_MAX_HEADER)
		return cd_fail(err, CD_EFORMAT, "offset 0: header length %llu exceeds %llu (not a safetensors file?)",
			       (unsigned long long)n, ST_MAX_HEADER);
	if (n < 2 || n > size - 8)
		return cd_fail(err, CD_EFORMAT, "truncated: header length %llu but the file has %zu bytes after offset 8",
			       (unsigned long long)n, size - 8);
	if (data[8] != '{')
		return cd_fail(err, CD_EFORMAT, "offset 8: header does not start with '{'");
	f->header_len = n;
	f->data_start = 8 + n;
	f->data_bytes = size - f->data_start;
	root = json_loadb((const char *)data + 8, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	if (!root || !json_is_object(root)) {
		rc = cd_fail(err, CD_EFORMAT, "offset %d: header is not a JSON object: %s",
			     root ? 8 : 8 + jerr.position, root ? "" : jerr.text);
		goto out;
	}
	size_t count = json_object_size(root);
	f->tensors = calloc(count ? count : 1, sizeof *f->tensors);
	if (!f->tensors) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	const char *key;
	json_t *val;
	json_object_foreach(root, key, val) {
		if (strcmp(key, "__metadata__") == 0) {
			if (!json_is_object(val)) {
				rc = cd_fail(err, CD_EFORMAT, "header: __metadata__ is not an object");
				goto out;
			}
			continue;
		}
		if ((rc = parse_tensor(key, val, &f->tensors[f->n_tensors], err)))
			goto out;
		f->n_tensors++;
	}
	cd_qsort(f->tensors, f->n_tensors, sizeof *f->tensors, cmp_begin);
	uint64_t at = 0;
	for (size_t i = 0; i < f->n_tensors; i++) {
		const struct st_tensor *t = &f->tensors[i];
		if (t->begin != at) {
			rc = cd_fail(err, CD_EFORMAT, "header: tensor '%.64s' starts at %llu, expected %llu (gap or overlap)",
				     t->name, (unsigned long long)t->begin, (unsigned long long)at);
			goto out;
		}
		at = t->end;
	}
	if (at != f->data_bytes) {
		rc = at > f->data_bytes
			? cd_fail(err, CD_EFORMAT, "truncated: tensors need %llu data bytes after offset %llu, file has %llu",
				  (unsigned long long)at, (unsigned long long)f->data_start, (unsigned long long)f->data_bytes)
			: cd_fail(err, CD_EFORMAT, "offset %llu: %llu bytes after the last tensor",
				  (unsigned long long)(f->data_start + at), (unsigned long long)(f->data_bytes - at));
		goto out;
	}
out:
	json_decref(root);
	if (rc)
		st_free(f);
	return rc;
}

void st_free(struct st_file *f)
{
	for (size_t i = 0; i < f->n_tensors; i++)
		free(f->tensors[i].name);
	free(f->tensors);
	f->tensors = NULL;
	f->n_tensors = 0;
}

static bool shard_name_ok(const char *s)
{
	return s[0] && !strchr(s, '/') && !strchr(s, '\\') && strcmp(s, ".") && strcmp(s, "..");
}

int st_index_read(const json_t *root, struct st_index *ix, char *err)
{
	struct strindex seen;
	json_t *map = json_object_get(root, "weight_map");
	int rc = CD_OK;

	memset(ix, 0, sizeof *ix);
	strindex_init(&seen);
	if (!json_is_object(map))
		return cd_fail(err, CD_EFORMAT, "index has no \"weight_map\" object");
	json_t *ts = json_object_get(json_object_get(root, "metadata"), "total_size");
	/* transformers writes an integer; some scripts write a float or a string */
	if (json_is_integer(ts) && json_integer_value(ts) >= 0) {
		ix->total_size = (uint64_t)json_integer_value(ts);
		ix->has_total_size = true;
	} else if (json_is_real(ts) && json_real_value(ts) >= 0 && json_real_value(ts) < 1.8e19) {
		ix->total_size = (uint64_t)json_real_value(ts);
		ix->has_total_size = true;
	}
	ix->shards = calloc(ST_MAX_SHARDS, sizeof *ix->shards);
	if (!ix->shards) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	const char *key;
	json_t *val;
	json_object_foreach(map, key, val) {
		ix->n_tensors++;
		if (!json_is_string(val) || !shard_name_ok(json_string_value(val))) {
			rc = cd_fail(err, CD_EFORMAT, "weight_map: tensor '%.64s' names no plain file in this directory", key);
			goto out;
		}
		const char *s = json_string_value(val);
		size_t first;
		/* the names seen so far are hashed: a search per tensor over 200k names took minutes */
		if (strindex_put(&seen, s, strlen(s), ix->n_shards, &first) != CD_OK) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		if (first != ix->n_shards)
			continue;
		if (ix->n_shards == ST_MAX_SHARDS) {
			rc = cd_fail(err, CD_EFORMAT, "weight_map names more than %d shard files", ST_MAX_SHARDS);
			goto out;
		}
		if (!(ix->shards[ix->n_shards] = cd_strdup(s))) {
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
			goto out;
		}
		ix->n_shards++;
	}
out:
	strindex_free(&seen);
	if (rc)
		st_index_free(ix);
	return rc;
}

int st_index_parse(const unsigned char *data, size_t size, struct st_index *ix, char *err)
{
	json_error_t jerr;
	json_t *root = json_loadb((const char *)data, data ? size : 0, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	memset(ix, 0, sizeof *ix);
	if (!root)
		return cd_fail(err, CD_EFORMAT, "offset %d: not JSON: %s", jerr.position, jerr.text);
	rc = st_index_read(root, ix, err);
	json_decref(root);
	return rc;
}

void st_index_free(struct st_index *ix)
{
	for (size_t i = 0; i < ix->n_shards; i++)
		free(ix->shards[i]);
	free(ix->shards);
	memset(ix, 0, sizeof *ix);
}
