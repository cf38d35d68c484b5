/* The AMD tables' loader on arbitrary text (kb/amd.c): the input replaces amd_targets.tsv,
 * amd_gpus.tsv or rocm_builds.tsv (the first byte picks which), then plan's AMD half and the
 * lookups run on what loaded. A bad table must be refused with a message, never crash or
 * half-load. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kb/amd.h"
#include "rules/plan_rocm.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[3] = {"amd_targets.tsv", "amd_gpus.tsv", "rocm_builds.tsv"};
	static const char *const gfx[] = {"gfx1100", "gfx1103", "gfx90a", "gfx942", "gfx9999"};
	struct kb_blob blobs[3];
	char err[CD_ERRMSG];
	struct plan_rocm p;

	if (size < 1)
		return 0;
	for (int i = 0; i < 3; i++) {
		const struct kb_blob *b = kb_blob_find(names[i]);
		if (!b)
			return 0;
		blobs[i] = *b;
	}
	blobs[data[0] % 3].data = data + 1;
	blobs[data[0] % 3].size = size - 1;
	if (kb_amd_load_blobs(blobs, 3, err) != CD_OK)
		return 0;
	for (size_t i = 0; i < sizeof gfx / sizeof gfx[0]; i++)
		plan_rocm_make(gfx[i], kb_amd_gpu_find("RX 7900 XTX"), &p);
	(void)kb_amd_gpu_find("780M");
	(void)kb_amd_is_generic("gfx11-generic");
	return 0;
}
