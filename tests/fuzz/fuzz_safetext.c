/* libFuzzer harness: util/safetext on arbitrary bytes and caps. The result must be valid
 * UTF-8 (jansson refuses anything else), hold no control byte, fit its buffer, and be its
 * own safe text (nothing left to escape). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/safetext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = size ? (size_t)data[0] * 7 + 1 : 1;
	unsigned flags = size > 1 && (data[1] & 1) ? SAFE_TEXT_KEEP_NEWLINES : 0;
	char *out = malloc(cap), *again;
	size_t n;
	json_t *j;

	if (!out)
		return 0;
	n = safe_text(out, cap, data, size, flags);
	if (n >= cap || strlen(out) != n)
		abort();
	if (!(j = json_stringn(out, n)))
		abort();
	json_decref(j);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		if ((c < 0x20 && !((flags & SAFE_TEXT_KEEP_NEWLINES) && (c == '\n' || c == '\t'))) || c == 0x7f)
			abort();
	}
	if (!safe_text_is_clean(out, n, flags))
		abort();
	again = safe_text_dup(out, n, n, flags);
	if (!again || strcmp(again, out) != 0)
		abort();
	free(again);
	free(out);
	return 0;
}
