/* Decompression of fatbin entry payloads (LZ4 raw block, Zstandard frame) into a fresh,
 * exactly-sized buffer; the expected size comes from the entry header and is capped. */
#ifndef CUDOCTOR_BINFMT_DECOMPRESS_H
#define CUDOCTOR_BINFMT_DECOMPRESS_H

#include <stddef.h>

#include "binfmt/fatbin.h"

#define DECOMPRESS_MAX_BYTES ((size_t)1 << 30) /* no real image is near 1 GiB */

/* For FATBIN_RAW the payload is copied. *out is malloc'ed (caller frees). CD_EFORMAT
 * when the data does not decode to exactly `expected` bytes; CD_EUNSUPPORTED when
 * `expected` is 0 or above `cap`. */
int decompress_payload(enum fatbin_compression how, const unsigned char *src, size_t src_len,
		       size_t expected, size_t cap, unsigned char **out, size_t *out_len, char *err);

/* The whole image of an entry: header sizes decide how. */
int decompress_entry(const struct fatbin_entry *e, size_t cap, unsigned char **out, size_t *out_len,
		     char *err);

#endif
