/* GGUF header reader: bounds-checked cursor over the caller's bytes, metadata
 * entries recorded by offset, tensor infos with exact byte sizes per ggml type. */
#include "binfmt/gguf.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

/* Ids, block sizes and bytes per block from ggml.h / ggml-common.h (see
 * docs/reference/mem_anchors.md §3.4). Q8_1 is 36 bytes in current ggml (two
 * halves + 32 quants); old ggml and gguf-py say 40 (two floats); it never appears
 * in model files. */
static const struct ggml_type_info ggml_types[] = {
	{0, "F32", 1, 4},        {1, "F16", 1, 2},        {2, "Q4_0", 32, 18},
	{3, "Q4_1", 32, 20},     {6, "Q5_0", 32, 22},     {7, "Q5_1", 32, 24},
	{8, "Q8_0", 32, 34},     {9, "Q8_1", 32, 36},     {10, "Q2_K", 256, 84},
	{11, "Q3_K", 256, 110},  {12, "Q4_K", 256, 144},  {13, "Q5_K", 256, 176},
	{14, "Q6_K", 256, 210},  {15, "Q8_K", 256, 292},  {16, "IQ2_XXS", 256, 66},
	{17, "IQ2_XS", 256, 74}, {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
	{20, "IQ4_NL", 32, 18},  {21, "IQ3_S", 256, 110}, {22, "IQ2_S", 256, 82},
	{23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},       {25, "I16", 1, 2},
	{26, "I32", 1, 4},       {27, "I64", 1, 8},       {28, "F64", 1, 8},
	{29, "IQ1_M", 256, 56},  {30, "BF16", 1, 2},      {34, "TQ1_0", 256, 54},
	{35, "TQ2_0", 256, 66},  {39, "MXFP4", 32, 17},   {40, "NVFP4", 64, 36},
	{41, "Q1_0", 128, 18},
};

#define MAX_KEY_LEN 65535u
#define MAX_NAME_LEN 1024u   /* ggml allows 63; be lenient, still bounded */
#define MAX_ARRAY_DEPTH 3

const struct ggml_type_info *ggml_type_get(uint32_t id)
{
	for (size_t i = 0; i < sizeof ggml_types / sizeof ggml_types[0]; i++)
		if (ggml_types[i].id == id)
			return &ggml_types[i];
	return NULL;
}

const struct ggml_type_info *ggml_type_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof ggml_types / sizeof ggml_types[0]; i++)
		if (strcasecmp(ggml_types[i].name, name) == 0)
			return &ggml_types[i];
	return NULL;
}

int ggml_row_bytes(uint32_t type, uint64_t n, uint64_t *out)
{
	const struct ggml_type_info *t = ggml_type_get(type);
	if (!t)
		return CD_EUNSUPPORTED;
	if (n % t->block)
		return CD_EFORMAT;
	uint64_t blocks = n / t->block;
	if (blocks > UINT64_MAX / t->bytes)
		return CD_EFORMAT;
	*out = blocks * t->bytes;
	return CD_OK;
}

struct cursor {
	const unsigned char *p;
	size_t size, pos;
	char *err;
};

static int need(struct cursor *c, size_t n, const char *what)
{
	if (c->size - c->pos < n)
		return cd_fail(c->err, CD_EFORMAT, "truncated at offset %zu: %s needs %zu bytes, %zu left",
			       c->pos, what, n, c->size - c->pos);
	return CD_OK;
}

static int rd_u32(struct cursor *c, uint32_t *v, const char *what)
{
	int rc = need(c, 4, what);
	if (rc)
		return rc;
	const unsigned char *b = c->p + c->pos;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	c->pos += 4;
	return CD_OK;
}

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static int rd_u64(struct cursor *c, uint64_t *v, const char *what)
{
	int rc = need(c, 8, what);
	if (rc)
		return rc;
	*v = le64(c->p + c->pos);
	c->pos += 8;
	return CD_OK;
}

/* A string: u64 length then bytes; returns a pointer into the buffer. */
static int rd_str(struct cursor *c, const char **s, size_t *len, uint64_t max, const char *what)
{
	size_t at = c->pos;
	uint64_t n;
	int rc = rd_u64(c, &n, what);
	if (rc)
		return rc;
	if (n > max)
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: %s length %llu exceeds %llu", at, what,
			       (unsigned long long)n, (unsigned long long)max);
	if ((rc = need(c, (size_t)n, what)))
		return rc;
	*s = (const char *)c->p + c->pos;
	*len = (size_t)n;
	c->pos += (size_t)n;
	return CD_OK;
}

static size_t scalar_size(uint32_t t)
{
	switch (t) {
	case GGUF_T_UINT8: case GGUF_T_INT8: case GGUF_T_BOOL: return 1;
	case GGUF_T_UINT16: case GGUF_T_INT16: return 2;
	case GGUF_T_UINT32: case GGUF_T_INT32: case GGUF_T_FLOAT32: return 4;
	case GGUF_T_UINT64: case GGUF_T_INT64: case GGUF_T_FLOAT64: return 8;
	default: return 0;
	}
}

static int skip_value(struct cursor *c, uint32_t type, int depth, uint32_t *arr_type, uint64_t *arr_count);

static int skip_array(struct cursor *c, int depth, uint32_t *arr_type, uint64_t *arr_count)
{
	size_t at = c->pos;
	uint32_t et;
	uint64_t n;
	int rc;
	if (depth >= MAX_ARRAY_DEPTH)
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: arrays nested deeper than %d", at, MAX_ARRAY_DEPTH);
	if ((rc = rd_u32(c, &et, "array type")) || (rc = rd_u64(c, &n, "array count")))
		return rc;
	if (arr_type)
		*arr_type = et;
	if (arr_count)
		*arr_count = n;
	size_t es = scalar_size(et);
	if (es) {
		if (n > (c->size - c->pos) / es)
			return cd_fail(c->err, CD_EFORMAT, "offset %zu: array of %llu elements runs past the end",
				       at, (unsigned long long)n);
		c->pos += (size_t)(n * es);
		return CD_OK;
	}
	if (et != GGUF_T_STRING && et != GGUF_T_ARRAY)
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: invalid array element type %u", at, et);
	/* each string or array element takes at least 8 bytes, so the loop is bounded by the file */
	if (n > (c->size - c->pos) / 8)
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: array of %llu elements runs past the end",
			       at, (unsigned long long)n);
	for (uint64_t i = 0; i < n; i++)
		if ((rc = skip_value(c, et, depth + 1, NULL, NULL)))
			return rc;
	return CD_OK;
}

static int skip_value(struct cursor *c, uint32_t type, int depth, uint32_t *arr_type, uint64_t *arr_count)
{
	size_t es = scalar_size(type);
	if (es) {
		int rc = need(c, es, "value");
		if (rc)
			return rc;
		if (type == GGUF_T_BOOL && c->p[c->pos] > 1)
			return cd_fail(c->err, CD_EFORMAT, "offset %zu: bool value %u", c->pos, c->p[c->pos]);
		c->pos += es;
		return CD_OK;
	}
	if (type == GGUF_T_STRING) {
		const char *s;
		size_t len;
		return rd_str(c, &s, &len, UINT64_MAX, "string value");
	}
	if (type == GGUF_T_ARRAY)
		return skip_array(c, depth, arr_type, arr_count);
	return cd_fail(c->err, CD_EFORMAT, "offset %zu: invalid value type %u", c->pos, type);
}

const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key)
{
	size_t i;

	if (!strindex_get(&g->keys, key, strlen(key), &i) || i >= g->n_kv)
		return NULL;
	return &g->kv[i];
}

/* Reads one integer/bool element of scalar type t at offset off (already bounds-checked). */
static bool read_uint(const unsigned char *b, uint32_t t, uint64_t *out)
{
	switch (t) {
	case GGUF_T_UINT8: case GGUF_T_BOOL: *out = b[0]; return true;
	case GGUF_T_INT8: if ((int8_t)b[0] < 0) return false; *out = b[0]; return true;
	case GGUF_T_UINT16: *out = (uint64_t)b[0] | (uint64_t)b[1] << 8; return true;
	case GGUF_T_INT16: if (b[1] & 0x80) return false; *out = (uint64_t)b[0] | (uint64_t)b[1] << 8; return true;
	case GGUF_T_UINT32: case GGUF_T_INT32: {
		uint64_t v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
		if (t == GGUF_T_INT32 && (v & 0x80000000u))
			return false;
		*out = v;
		return true;
	}
	case GGUF_T_UINT64: *out = le64(b); return true;
	case GGUF_T_INT64: { uint64_t v = le64(b); if (v >> 63) return false; *out = v; return true; }
	default: return false;
	}
}

bool gguf_get_uint(const struct gguf_file *g, const char *key, uint64_t *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	return kv && kv->type != GGUF_T_ARRAY && read_uint(g->data + kv->value_off, kv->type, out);
}

bool gguf_get_float(const struct gguf_file *g, const char *key, double *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	if (!kv)
		return false;
	const unsigned char *b = g->data + kv->value_off;
	if (kv->type == GGUF_T_FLOAT32) {
		uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		float f;
		memcpy(&f, &u, sizeof f);
		*out = f;
		return true;
	}
	if (kv->type == GGUF_T_FLOAT64) {
		uint64_t u = le64(b);
		memcpy(out, &u, sizeof *out);
		return true;
	}
	uint64_t v;
	if (kv->type != GGUF_T_ARRAY && read_uint(b, kv->type, &v)) {
		*out = (double)v;
		return true;
	}
	return false;
}

bool gguf_get_str(const struct gguf_file *g, const char *key, char *buf, size_t cap)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	if (!kv || kv->type != GGUF_T_STRING || cap == 0)
		return false;
	uint64_t len = le64(g->data + kv->value_off);
	size_t n = len < cap - 1 ? (size_t)len : cap - 1;
	memcpy(buf, g->data + kv->value_off + 8, n);
	buf[n] = 0;
	return true;
}

bool gguf_array_uint(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t i, uint64_t *out)
{
	if (!kv || kv->type != GGUF_T_ARRAY || i >= kv->arr_count)
		return false;
	size_t es = scalar_size(kv->arr_type);
	if (!es || kv->arr_type == GGUF_T_FLOAT32 || kv->arr_type == GGUF_T_FLOAT64)
		return false;
	/* the parser checked arr_count * es fits in the file */
	return read_uint(g->data + kv->value_off + (size_t)i * es, kv->arr_type, out);
}

bool gguf_kv_uint_at(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t i, uint64_t *out)
{
	if (!kv)
		return false;
	if (kv->type == GGUF_T_ARRAY)
		return gguf_array_uint(g, kv, i, out);
	return read_uint(g->data + kv->value_off, kv->type, out);
}

bool gguf_get_uint_at(const struct gguf_file *g, const char *key, uint64_t i, uint64_t *out)
{
	return gguf_kv_uint_at(g, gguf_find(g, key), i, out);
}

static int parse_kvs(struct cursor *c, struct gguf_file *g)
{
	for (uint64_t i = 0; i < g->n_kv; i++) {
		struct gguf_kv *kv = &g->kv[i];
		int rc = rd_str(c, &kv->key, &kv->key_len, MAX_KEY_LEN, "metadata key");
		if (rc || (rc = rd_u32(c, &kv->type, "metadata value type")))
			return rc;
		if (strindex_put(&g->keys, kv->key, kv->key_len, (size_t)i, NULL) != CD_OK)
			return cd_fail(c->err, CD_ENOMEM, "out of memory");
		if (kv->type == GGUF_T_ARRAY) {
			/* value_off is the first element: after the u32 type and u64 count */
			size_t at = c->pos;
			rc = skip_value(c, kv->type, 0, &kv->arr_type, &kv->arr_count);
			kv->value_off = at + 12;
		} else {
			kv->value_off = c->pos;
			rc = skip_value(c, kv->type, 0, NULL, NULL);
		}
		if (rc)
			return rc;
	}
	return CD_OK;
}

static int tensor_size(struct cursor *c, struct gguf_tensor *t, size_t at)
{
	uint64_t ne = 1;
	for (uint32_t d = 0; d < t->n_dims; d++) {
		if (t->dims[d] && ne > UINT64_MAX / t->dims[d])
			return cd_fail(c->err, CD_EFORMAT, "offset %zu: tensor '%.*s' element count overflows",
				       at, (int)t->name_len, t->name);
		ne *= t->dims[d];
	}
	t->n_elements = ne;
	const struct ggml_type_info *ti = ggml_type_get(t->type);
	if (!ti) {
		t->size_from_offsets = true;
		return CD_OK;
	}
	if (t->n_dims && t->dims[0] % ti->block)
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: tensor '%.*s' row of %llu elements is not a whole number of %s blocks (%u)",
			       at, (int)t->name_len, t->name, (unsigned long long)t->dims[0], ti->name, ti->block);
	if (ggml_row_bytes(t->type, ne, &t->n_bytes))
		return cd_fail(c->err, CD_EFORMAT, "offset %zu: tensor '%.*s' size overflows", at,
			       (int)t->name_len, t->name);
	return CD_OK;
}

static int parse_tensors(struct cursor *c, struct gguf_file *g)
{
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		struct gguf_tensor *t = &g->tensors[i];
		size_t at = c->pos;
		int rc = rd_str(c, &t->name, &t->name_len, MAX_NAME_LEN, "tensor name");
		if (rc || (rc = rd_u32(c, &t->n_dims, "tensor n_dims")))
			return rc;
		if (t->n_dims > GGUF_MAX_DIMS)
			return cd_fail(c->err, CD_EFORMAT, "offset %zu: tensor '%.*s' has %u dimensions (at most %d)",
				       at, (int)t->name_len, t->name, t->n_dims, GGUF_MAX_DIMS);
		for (uint32_t d = 0; d < t->n_dims; d++)
			if ((rc = rd_u64(c, &t->dims[d], "tensor dimension")))
				return rc;
		if ((rc = rd_u32(c, &t->type, "tensor type")) || (rc = rd_u64(c, &t->offset, "tensor offset")))
			return rc;
		if (t->offset % g->alignment)
			return cd_fail(c->err, CD_EFORMAT, "offset %zu: tensor '%.*s' data offset %llu is not a multiple of the alignment %u",
				       at, (int)t->name_len, t->name, (unsigned long long)t->offset, g->alignment);
		if ((rc = tensor_size(c, t, at)))
			return rc;
	}
	return CD_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Unknown types: the size is the gap to the next tensor's offset (or the file end). */
static int sizes_from_offsets(struct gguf_file *g, char *err)
{
	uint64_t data_len = g->size - g->data_start;
	uint64_t *offs = malloc((size_t)g->n_tensors * sizeof *offs);
	if (!offs)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (uint64_t i = 0; i < g->n_tensors; i++)
		offs[i] = g->tensors[i].offset;
	cd_qsort(offs, (size_t)g->n_tensors, sizeof *offs, cmp_u64);
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		struct gguf_tensor *t = &g->tensors[i];
		if (!t->size_from_offsets)
			continue;
		size_t lo = 0, hi = (size_t)g->n_tensors; /* first offset above t->offset */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (offs[mid] > t->offset)
				hi = mid;
			else
				lo = mid + 1;
		}
		uint64_t next = lo < g->n_tensors ? offs[lo] : data_len;
		t->n_bytes = next > t->offset ? next - t->offset : 0;
	}
	free(offs);
	return CD_OK;
}

static int check_extents(struct gguf_file *g, char *err)
{
	uint64_t data_len = g->size - g->data_start;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		if (t->offset > data_len || t->n_bytes > data_len - t->offset)
			return cd_fail(err, CD_EFORMAT,
				       "truncated: tensor '%.*s' needs bytes up to offset %llu, file has %zu",
				       (int)t->name_len, t->name,
				       (unsigned long long)(g->data_start + t->offset) + t->n_bytes, g->size);
	}
	return CD_OK;
}

int gguf_parse(const unsigned char *data, size_t size, struct gguf_file *g, char *err)
{
	struct cursor c = {data, size, 0, err};
	uint32_t magic;
	int rc;
	memset(g, 0, sizeof *g);
	g->data = data;
	g->size = size;
	if (!data || size < 4 || memcmp(data, "GGUF", 4) != 0)
		return cd_fail(err, CD_EFORMAT, "not a GGUF file (offset 0: magic is not \"GGUF\")");
	if ((rc = rd_u32(&c, &magic, "magic")) || (rc = rd_u32(&c, &g->version, "version")))
		goto out;
	if (g->version == 1) {
		rc = cd_fail(err, CD_EUNSUPPORTED, "GGUF version 1 (obsolete, 32-bit counts) is not supported");
		goto out;
	}
	if (g->version != 2 && g->version != 3) {
		uint32_t be = __builtin_bswap32(g->version);
		rc = (be == 2 || be == 3)
			? cd_fail(err, CD_EUNSUPPORTED, "big-endian GGUF (version %u) is not supported", be)
			: cd_fail(err, CD_EFORMAT, "offset 4: unknown GGUF version %u", g->version);
		goto out;
	}
	if ((rc = rd_u64(&c, &g->n_tensors, "tensor count")) || (rc = rd_u64(&c, &g->n_kv, "metadata count")))
		goto out;
	/* a key/value takes at least 13 bytes and a tensor info at least 24: counts that
	 * cannot fit in the file are rejected before anything is allocated */
	if (g->n_kv > (size - c.pos) / 13 || g->n_tensors > (size - c.pos) / 24) {
		rc = cd_fail(err, CD_EFORMAT, "offset 8: %llu tensors / %llu metadata entries cannot fit in %zu bytes",
			     (unsigned long long)g->n_tensors, (unsigned long long)g->n_kv, size);
		goto out;
	}
	g->kv = calloc(g->n_kv ? (size_t)g->n_kv : 1, sizeof *g->kv);
	g->tensors = calloc(g->n_tensors ? (size_t)g->n_tensors : 1, sizeof *g->tensors);
	if (!g->kv || !g->tensors) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = parse_kvs(&c, g)))
		goto out;
	g->alignment = GGUF_DEFAULT_ALIGNMENT;
	const struct gguf_kv *al = gguf_find(g, "general.alignment");
	if (al) {
		uint64_t a;
		if (al->type != GGUF_T_UINT32 || !read_uint(data + al->value_off, al->type, &a) ||
		    a == 0 || (a & (a - 1)) || a > (1u << 24)) {
			rc = cd_fail(err, CD_EFORMAT, "offset %zu: general.alignment must be a power-of-two u32 up to 16 MiB",
				     al->value_off);
			goto out;
		}
		g->alignment = (uint32_t)a;
	}
	if ((rc = parse_tensors(&c, g)))
		goto out;
	uint64_t pad = (g->alignment - c.pos % g->alignment) % g->alignment;
	g->data_start = c.pos + pad;
	if (g->data_start > size) {
		if (g->n_tensors) {
			rc = cd_fail(err, CD_EFORMAT, "truncated: tensor data would start at offset %llu, file has %zu bytes",
				     (unsigned long long)g->data_start, size);
			goto out;
		}
		g->data_start = size; /* metadata-only file */
	}
	if ((rc = sizes_from_offsets(g, err)) || (rc = check_extents(g, err)))
		goto out;
	return CD_OK;
out:
	gguf_free(g);
	return rc;
}

void gguf_free(struct gguf_file *g)
{
	strindex_free(&g->keys);
	free(g->kv);
	free(g->tensors);
	g->kv = NULL;
	g->tensors = NULL;
	g->n_kv = g->n_tensors = 0;
}
