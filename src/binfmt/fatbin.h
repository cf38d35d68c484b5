/* Fatbin containers (magic 0xBA55ED50) and their entries, read from headers only
 * (fatbin.md §2). Nothing here knows about GPUs or output. */
#ifndef CUDOCTOR_BINFMT_FATBIN_H
#define CUDOCTOR_BINFMT_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_HEADER_SIZE 16
#define FATBIN_ENTRY_MIN_HEADER 64

#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_KIND_NVVM 8

#define FATBIN_FLAG_64BIT 0x1ull
#define FATBIN_FLAG_DEBUG 0x2ull
#define FATBIN_FLAG_LZ4 0x2000ull
#define FATBIN_FLAG_ZSTD 0x8000ull
#define FATBIN_FLAG_OBFUSCATED 0x10000ull
#define FATBIN_FLAG_ARCH_SPECIFIC 0x100000ull /* sm_XXa / compute_XXa */
#define FATBIN_FLAG_FAMILY 0x200000ull        /* sm_XXf / compute_XXf */
#define FATBIN_FLAG_COMPAT_BLOB 0x1000000ull

enum fatbin_compression { FATBIN_RAW, FATBIN_LZ4, FATBIN_ZSTD };

struct fatbin_entry {
	size_t offset;              /* from the start of the buffer given to the walker */
	uint16_t kind;
	uint32_t header_size;
	uint64_t payload_size;      /* stored bytes including padding */
	uint32_t compressed_size;   /* 0 when stored raw */
	uint16_t version_major;     /* PTX: ISA major; ELF: 1 */
	uint16_t version_minor;     /* PTX: ISA minor; ELF: cubin ABI (7, 8) */
	uint32_t arch;              /* 10*major + minor */
	uint64_t flags;
	uint64_t uncompressed_size; /* header value (0 when raw) */
	const char *ident;          /* not NUL-terminated; ident_len bytes, or NULL */
	size_t ident_len;
	const char *options;        /* ptxas options / compat blob; options_len bytes, or NULL */
	size_t options_len;
	const unsigned char *payload; /* payload_len bytes: exactly the stored image (no padding when compressed) */
	size_t payload_len;
};

struct fatbin_container {
	const unsigned char *data;  /* the buffer walked */
	size_t size;
	size_t offset;              /* container start within data */
	size_t end;                 /* offset just past the container */
	size_t next;                /* next entry to read */
	size_t n_entries;           /* entries read so far */
};

/* True when data[off..] starts a container header (magic, version 1, header size 16). */
bool fatbin_is_container_at(const unsigned char *data, size_t size, size_t off);

/* Opens the container at data[off]; checks the header and that it fits. */
int fatbin_container_open(struct fatbin_container *c, const unsigned char *data, size_t size,
			  size_t off, char *err);

/* Reads the next entry: 1 = got one, 0 = the walk ended exactly at the container end,
 * negative = malformed (err names the offset). */
int fatbin_next_entry(struct fatbin_container *c, struct fatbin_entry *e, char *err);

/* True when a full walk of the container at off ends exactly at its end: how a magic
 * found by scanning is told from random bytes (fatbin.md §1.1). */
bool fatbin_container_valid_at(const unsigned char *data, size_t size, size_t off);

/* Offset of the first valid container starting in [from, until) at an 8-byte aligned
 * offset of data, or size if none. Linear: the validating walks together read at most
 * (until - from) / 4 + 4096 entries, and none is found once they have. */
size_t fatbin_scan(const unsigned char *data, size_t size, size_t from, size_t until);

enum fatbin_compression fatbin_entry_compression(const struct fatbin_entry *e);
/* Bytes the image has once decompressed (payload_size when stored raw). */
uint64_t fatbin_entry_image_size(const struct fatbin_entry *e);

/* "sass", "ptx", "nvvm" or NULL for other kinds. */
const char *fatbin_kind_name(uint16_t kind);
/* "", "a" or "f" from the flags. */
const char *fatbin_arch_suffix(uint64_t flags);

#endif
