/* The kb tables (kb/NAME.tsv), embedded at build time by cmake/embed.cmake. */
#ifndef CUDOCTOR_KB_EMBEDDED_H
#define CUDOCTOR_KB_EMBEDDED_H

#include <stddef.h>

struct kb_blob {
	const char *name;           /* file name, e.g. "gpus.tsv" */
	const unsigned char *data;  /* NUL-terminated */
	size_t size;                /* without the NUL */
};

extern const struct kb_blob kb_blobs[]; /* ends with a { NULL } entry */
extern const size_t kb_blob_count;

const struct kb_blob *kb_blob_find(const char *name);
/* name in a list of n blobs (the loaders' tests hand them their own); NULL when absent */
const struct kb_blob *kb_blob_in(const struct kb_blob *blobs, size_t n, const char *name);

#endif
