/* libFuzzer harness for TGI's budget and warmup lines (explain/tgi_mem.c): each input line read
 * into the budgets, every line also tried as the warmup's failure, and its arithmetic put into
 * words. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "explain/tgi_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	struct tgi_mem t;
	struct tgi_oom o;
	char ev[4][400];

	tgi_mem_init(&t);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		tgi_mem_line(&t, s, len);
		if (tgi_mem_oom(&t, s, len, &o))
			(void)tgi_mem_evidence(&o, ev[0], sizeof(ev[0]), 4);
		s += len + (nl != NULL);
	}
	return 0;
}
