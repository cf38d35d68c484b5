/* kb/sm_flops.tsv's lookup on arbitrary table text: the first byte picks the arch and type
 * looked up, the rest is the table. A bad table is refused with a message, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kb/sm_flops.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "fp32", "fp16", "bf16", "" };
	struct kb_sm_flops f;
	char err[CD_ERRMSG];
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	int rc = kb_sm_flops_find_in(text, 70 + data[0] % 32, types[data[0] >> 6], &f, err);
	if (rc == CD_OK && !(f.flops_per_clk > 0))
		abort();
	free(text);
	return 0;
}
