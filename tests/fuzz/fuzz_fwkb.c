/* The framework tables' loader on arbitrary text: the input replaces torch.tsv or
 * frameworks.tsv (the first byte picks which), then a plan runs on what loaded. A bad
 * table must be refused with a message, never crash or half-load. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kb/frameworks.h"
#include "rules/plan.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan p;
	struct kb_blob blobs[2];
	const char *names[2] = { "torch.tsv", "frameworks.tsv" };
	char err[CD_ERRMSG];
	struct plan_input in = { 0 };
	struct gpu_spec s[2];

	if (size < 1)
		return 0;
	for (int i = 0; i < 2; i++) {
		const struct kb_blob *b = kb_blob_find(names[i]);

		if (!b)
			return 0;
		blobs[i] = *b;
	}
	blobs[data[0] & 1].data = data + 1;
	blobs[data[0] & 1].size = size - 1;
	if (kb_load(err) != CD_OK || kb_fw_load_blobs(blobs, 2, err) != CD_OK)
		return 0;
	if (kb_parse_gpu_spec("sm_61", &s[0], err) != CD_OK || kb_parse_gpu_spec("sm_120", &s[1], err) != CD_OK)
		return 0;
	in.gpus = s;
	in.n_gpus = 2;
	in.framework = (data[0] >> 1) % 5;
	plan_driver_parse("580", &in.driver, err);
	plan_make(&in, &p, err);
	return 0;
}
