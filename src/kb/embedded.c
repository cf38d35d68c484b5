/* Finding an embedded table by file name. */
#include <string.h>

#include "kb/embedded.h"

const struct kb_blob *kb_blob_in(const struct kb_blob *blobs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (blobs[i].name && strcmp(blobs[i].name, name) == 0)
			return &blobs[i];
	return NULL;
}

const struct kb_blob *kb_blob_find(const char *name)
{
	return kb_blob_in(kb_blobs, kb_blob_count, name);
}
