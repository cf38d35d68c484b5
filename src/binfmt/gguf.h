/* GGUF (llama.cpp / Ollama model files): header, metadata key/values and tensor infos.
 * Reads headers only; tensor data is never touched. Knows nothing about models. */
#ifndef CUDOCTOR_GGUF_H
#define CUDOCTOR_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strindex.h"

#define GGUF_MAX_DIMS 4
#define GGUF_DEFAULT_ALIGNMENT 32

enum gguf_vtype {
	GGUF_T_UINT8 = 0, GGUF_T_INT8 = 1, GGUF_T_UINT16 = 2, GGUF_T_INT16 = 3,
	GGUF_T_UINT32 = 4, GGUF_T_INT32 = 5, GGUF_T_FLOAT32 = 6, GGUF_T_BOOL = 7,
	GGUF_T_STRING = 8, GGUF_T_ARRAY = 9, GGUF_T_UINT64 = 10, GGUF_T_INT64 = 11,
	GGUF_T_FLOAT64 = 12,
};

/* One metadata entry. Strings point into the caller's buffer (not NUL-terminated). */
struct gguf_kv {
	const char *key;
	size_t key_len;
	uint32_t type;       /* enum gguf_vtype */
	size_t value_off;    /* file offset of the value; for arrays, of the first element */
	uint32_t arr_type;   /* arrays only */
	uint64_t arr_count;  /* arrays only */
};

struct gguf_tensor {
	const char *name;    /* into the caller's buffer, name_len bytes */
	size_t name_len;
	uint32_t n_dims;
	uint64_t dims[GGUF_MAX_DIMS]; /* dims[0] is the contiguous (row) dimension */
	uint32_t type;       /* ggml_type */
	uint64_t offset;     /* relative to data_start */
	uint64_t n_elements;
	uint64_t n_bytes;    /* exact from the type's block size, or from offsets (below) */
	bool size_from_offsets; /* unknown ggml type: n_bytes is the gap to the next tensor */
};

struct gguf_file {
	const unsigned char *data; /* the caller's buffer; must outlive this struct */
	size_t size;
	uint32_t version;
	uint64_t n_kv, n_tensors;
	struct gguf_kv *kv;
	struct strindex keys;      /* key -> index into kv (the first of duplicates), for gguf_find */
	struct gguf_tensor *tensors;
	uint32_t alignment;
	uint64_t data_start;
};

/* A ggml tensor type: elements per block and bytes per block. */
struct ggml_type_info {
	uint32_t id;
	const char *name;
	uint32_t block;
	uint32_t bytes;
};

/* Parses the header of a GGUF v2/v3 little-endian file. Every count, length and
 * offset is checked against `size`; tensors must lie inside the file (a truncated
 * file is CD_EFORMAT with the offset). */
int gguf_parse(const unsigned char *data, size_t size, struct gguf_file *g, char *err);
void gguf_free(struct gguf_file *g);

/* The entry of key (its first, when repeated), by hash: constant time. */
const struct gguf_kv *gguf_find(const struct gguf_file *g, const char *key);
/* Any integer or bool value that is non-negative. */
bool gguf_get_uint(const struct gguf_file *g, const char *key, uint64_t *out);
bool gguf_get_float(const struct gguf_file *g, const char *key, double *out);
/* Copies a string value, NUL-terminated, truncated to cap-1 bytes. */
bool gguf_get_str(const struct gguf_file *g, const char *key, char *buf, size_t cap);
/* Element i of an integer or bool array. */
bool gguf_array_uint(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t i, uint64_t *out);
/* Integer value of a key that may be a scalar or a per-item array: item i of the
 * array, or the scalar for every i. */
bool gguf_get_uint_at(const struct gguf_file *g, const char *key, uint64_t i, uint64_t *out);
/* The same for an entry found once (kv may be NULL: false), for loops over the layers. */
bool gguf_kv_uint_at(const struct gguf_file *g, const struct gguf_kv *kv, uint64_t i, uint64_t *out);

const struct ggml_type_info *ggml_type_get(uint32_t id);      /* NULL if unknown */
const struct ggml_type_info *ggml_type_by_name(const char *name); /* "q8_0", case-insensitive */
/* Bytes for n elements of a type; CD_EFORMAT if n is not a whole number of blocks
 * (or overflows), CD_EUNSUPPORTED for an unknown type. */
int ggml_row_bytes(uint32_t type, uint64_t n, uint64_t *out);

#endif
