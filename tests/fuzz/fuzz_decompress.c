/* libFuzzer harness: LZ4/Zstandard payload decoding as arch uses it (binfmt/decompress.c).
 * Byte 0 picks the method, bytes 1-3 the expected size (so sizes stay small), the rest is
 * the stored payload. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "binfmt/decompress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	enum fatbin_compression how = (enum fatbin_compression)(data[0] % 3);
	size_t expected = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)(data[3] & 0x0f) << 16;
	unsigned char *out = NULL;
	size_t len = 0;
	char err[256];
	if (decompress_payload(how, data + 4, size - 4, expected, (size_t)1 << 20, &out, &len, err) == 0) {
		if (len != expected)
			abort();
		free(out);
	}
	return 0;
}
