/* libFuzzer harness for the /etc/ld.so.cache parser (probe/ldcache.c). */
#include <stddef.h>
#include <stdint.h>

#include "probe/ldcache.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ldcache c;
	char err[CD_ERRMSG];

	if (ldcache_parse(data, size, &c, err) == CD_OK) {
		for (size_t i = 0; i < c.n; i++)
			(void)ldcache_entry_native(&c.e[i]);
		ldcache_free(&c);
	}
	return 0;
}
