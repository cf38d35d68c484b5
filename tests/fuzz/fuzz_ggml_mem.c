/* libFuzzer harness for llama.cpp's memory lines (explain/ggml_mem.c): each input line read into
 * the per-device numbers, every line also tried as the failing cudaMalloc, and the numbers
 * classified and put into words (rules/oom.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "explain/ggml_mem.h"
#include "rules/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	struct ggml_mem g;
	struct oom_message m;
	char ev[8][OOM_EVIDENCE_LINE];

	ggml_mem_init(&g);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		ggml_mem_line(&g, s, len);
		if (ggml_mem_oom(&g, s, len, &m)) {
			(void)oom_classify(&m.n);
			(void)oom_evidence(&m.n, m.gpu, false, ev, 8);
		}
		s += len + (nl != NULL);
	}
	return 0;
}
