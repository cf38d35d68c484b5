/* kb/error_codes_pre101.tsv's parser and explain's release markers on arbitrary bytes: a bad
 * table is refused with a message, a line yields a release or none, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explain/eras.h"
#include "kb/old_codes.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_old_codes o;
	struct era_state s = { 0 };
	char err[CD_ERRMSG];
	size_t used;

	if (kb_old_codes_parse(data, size, &o, err) == CD_OK) {
		for (size_t i = 0; i < o.n; i++)
			if (!o.rows[i].error || o.rows[i].code <= 0)
				abort();
		kb_old_codes_free(&o);
	}
	if (eras_marker_release((const char *)data, size, &used) && used > size)
		abort();
	eras_line(&s, (const char *)data, size, 1, NULL);
	if (s.old && strlen(s.marker) >= sizeof(s.marker))
		abort();
	{
		/* the scanner's hints (every "cuda" offset, "runtime version" present) find the same */
		struct era_state t = { 0 };
		uint32_t at[64];
		struct era_hints h = { true, memmem(data, size, "runtime version", 15) != NULL, at, 0 };

		for (size_t i = 0; i + 4 <= size && h.n_cuda < 64; i++)
			if (memcmp(data + i, "cuda", 4) == 0)
				at[h.n_cuda++] = (uint32_t)i;
		if (h.n_cuda < 64) {
			eras_line(&t, (const char *)data, size, 1, &h);
			if (t.old != s.old || strcmp(t.marker, s.marker) != 0)
				abort();
		}
	}
	return 0;
}
