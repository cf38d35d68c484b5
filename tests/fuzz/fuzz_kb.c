/* The kb loader on arbitrary table text: the input replaces one embedded table (the first
 * byte picks which), the whole base is loaded, and the lookups run on what loaded. A bad
 * table must be refused with a message, never crash or half-load. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/gencode.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_blob blobs[32];
	size_t n = 0, pick;
	char err[CD_ERRMSG];
	const struct kb_gpu *c[8];
	struct gpu_spec s;
	struct version v = { 13, 0, 0, 2 };

	if (size < 1 || kb_blob_count == 0)
		return 0;
	pick = data[0] % kb_blob_count;
	for (size_t i = 0; i < kb_blob_count && n < 32; i++, n++) {
		blobs[n] = kb_blobs[i];
		if (i == pick) {
			blobs[n].data = data + 1;
			blobs[n].size = size - 1;
		}
	}
	if (kb_load_blobs(blobs, n, err) == CD_OK) {
		kb_gpu_search("RTX", c, 8);
		kb_parse_gpu_spec("sm_90a", &s, err);
		kb_toolkit_find(&v);
		kb_error_by_code(KB_API_RUNTIME, 209);
		kb_finding_find("no-kernel-image");
		if (kb_toolkit_newest_known())
			gencode_all_archs(kb_toolkit_newest_known(), true, &s, 1);
	}
	return 0;
}
