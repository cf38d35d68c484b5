/* Finding an embedded table by file name. */
#include <string.h>

#include "kb/embedded.h"

const struct kb_blob *kb_blob_find(const char *name)
{
	for (size_t i = 0; i < kb_blob_count; i++)
		if (strcmp(kb_blobs[i].name, name) == 0)
			return &kb_blobs[i];
	return NULL;
}
