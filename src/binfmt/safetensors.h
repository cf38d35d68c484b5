/* safetensors (Hugging Face): the JSON header of one file, and the sharded
 * model.safetensors.index.json. Reads headers only; knows nothing about models. */
#ifndef CUDOCTOR_SAFETENSORS_H
#define CUDOCTOR_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define ST_MAX_DIMS 16
#define ST_MAX_HEADER 100000000ull /* the reference reader's MAX_HEADER_SIZE */
#define ST_MAX_SHARDS 4096         /* shard files an index may name (the largest models use ~200) */

struct st_tensor {
	char *name;
	char dtype[16];
	unsigned bits;       /* per element; 0 for a dtype we do not know (size from offsets) */
	uint32_t n_dims;
	uint64_t dims[ST_MAX_DIMS];
	uint64_t n_elements;
	uint64_t begin, end; /* data_offsets, relative to data_start */
};

struct st_file {
	uint64_t header_len;  /* N, the JSON's length */
	uint64_t data_start;  /* 8 + N */
	uint64_t data_bytes;  /* size of the byte buffer the tensors tile */
	struct st_tensor *tensors;
	size_t n_tensors;
};

/* The header length N of a safetensors file: its first 8 bytes, little-endian (data holds 8). */
uint64_t st_header_length(const unsigned char *data);

/* Bits per element of a safetensors dtype ("BF16" -> 16), 0 if unknown. */
unsigned st_dtype_bits(const char *dtype);

/* Parses and validates the header: offsets tile the buffer with no gaps or
 * overlaps, each tensor's size equals its shape times its dtype, and the buffer
 * ends at the end of the file (a shorter file is "truncated"). `size` is the whole
 * file's size; only the first 8 + N bytes are read. */
int st_parse(const unsigned char *data, size_t size, struct st_file *f, char *err);
void st_free(struct st_file *f);

/* model.safetensors.index.json: the distinct shard file names of weight_map, in
 * first-seen order, and metadata.total_size when present. Names with a path
 * separator or ".." are rejected (they would escape the model's directory), and so is an
 * index naming more than ST_MAX_SHARDS files (refused as soon as the next one is seen). */
struct st_index {
	char **shards;
	size_t n_shards;
	size_t n_tensors;          /* entries in weight_map */
	uint64_t total_size;
	bool has_total_size;
};
int st_index_parse(const unsigned char *data, size_t size, struct st_index *ix, char *err);
/* The same from an index already parsed (a root object). */
int st_index_read(const json_t *root, struct st_index *ix, char *err);
void st_index_free(struct st_index *ix);

#endif
