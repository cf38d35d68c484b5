/* libFuzzer harness: util/utf16 on arbitrary bytes behind a byte order mark, cut into two
 * pieces where the first byte says. The output must fit UTF16_UTF8_MAX, be valid UTF-8
 * (jansson refuses anything else) and not depend on where the text was cut. Then the bytes as a
 * piece of a UTF-8 log: where appended UTF-16 starts lies inside it, at a unit. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t convert(const unsigned char *in, size_t n, size_t cut, char *out, size_t cap)
{
	struct utf16_stream u;
	size_t w;

	utf16_init(&u);
	if (!utf16_detect(&u, in, n < 2 ? n : (cut < 2 ? 2 : cut)))
		return 0;
	if (cut < 2)
		cut = 2;
	w = utf16_to_utf8(&u, in, cut, out);
	if (w > UTF16_UTF8_MAX(cut))
		abort();
	w += utf16_to_utf8(&u, in + cut, n - cut, out + w);
	if (w > cap)
		abort();
	return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *in;
	char *a, *b;
	size_t n, cut, cap, wa, wb;
	json_t *j;

	if (size < 1)
		return 0;
	n = size + 1; /* a mark, then the input after its first byte */
	if (!(in = malloc(n)))
		return 0;
	in[0] = (data[0] & 1) ? 0xFE : 0xFF;
	in[1] = (data[0] & 1) ? 0xFF : 0xFE;
	memcpy(in + 2, data + 1, size - 1);
	cut = 2 + (size > 1 ? data[0] % (n - 1) : 0);
	if (cut > n)
		cut = n;
	cap = UTF16_UTF8_MAX(n) + 8;
	a = malloc(cap);
	b = malloc(cap);
	if (a && b) {
		wa = convert(in, n, n, a, cap);
		wb = convert(in, n, cut, b, cap);
		/* a high surrogate at the end of a piece waits for the next one: the same text */
		if (wa != wb || memcmp(a, b, wa) != 0)
			abort();
		if (!(j = json_stringn(a, wa)))
			abort();
		json_decref(j);
	}
	free(a);
	free(b);
	free(in);
	/* where appended UTF-16 starts: inside the piece, at a zero byte's unit or its mark */
	n = utf16_appended_at(data, size);
	if (n > size || (n < size && !((n + 1 < size && data[n + 1] == 0) || (n == 1 && data[0] == 0) ||
				       (n + 1 < size && data[n] == 0xFF && data[n + 1] == 0xFE))))
		abort();
	return 0;
}
