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
	eras_line(&s, (const char *)data, size, 1);
	if (s.old && strlen(s.marker) >= sizeof(s.marker))
		abort();
	return 0;
}
