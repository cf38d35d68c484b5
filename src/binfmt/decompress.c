/* LZ4/Zstandard decoding with the sizes checked before anything is allocated. */
#include "binfmt/decompress.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "util/err.h"

/* One decompression context for the process: creating one per image cost more than the
 * decompression itself on libraries with thousands of small images. cudoctor is
 * single-threaded; the context is reachable until exit. */
static ZSTD_DCtx *shared_dctx(void)
{
	static ZSTD_DCtx *dctx;
	if (!dctx)
		dctx = ZSTD_createDCtx();
	return dctx;
}

int decompress_payload(enum fatbin_compression how, const unsigned char *src, size_t src_len,
		       size_t expected, size_t cap, unsigned char **out, size_t *out_len, char *err)
{
	*out = NULL;
	*out_len = 0;
	if (expected == 0 || expected > cap)
		return cd_fail(err, CD_EUNSUPPORTED, "image size %zu is outside 1..%zu bytes", expected, cap);
	if (how == FATBIN_RAW && src_len < expected)
		return cd_fail(err, CD_EFORMAT, "image of %zu bytes has only %zu stored", expected, src_len);
	if (how == FATBIN_LZ4 && (src_len > (size_t)LZ4_MAX_INPUT_SIZE || expected > (size_t)INT32_MAX))
		return cd_fail(err, CD_EUNSUPPORTED, "LZ4 block of %zu bytes is too large", src_len);
	/* an LZ4 sequence expands at most 255 times: a larger claim is refused before allocating */
	if (how == FATBIN_LZ4 && expected / 255 > src_len + 16)
		return cd_fail(err, CD_EFORMAT, "an LZ4 block of %zu bytes cannot hold %zu", src_len, expected);
	unsigned char *buf = malloc(expected);
	if (!buf)
		return cd_fail(err, CD_ENOMEM, "out of memory for a %zu-byte image", expected);
	int rc = CD_OK;
	switch (how) {
	case FATBIN_RAW:
		memcpy(buf, src, expected);
		break;
	case FATBIN_LZ4: {
		int got = LZ4_decompress_safe((const char *)src, (char *)buf, (int)src_len, (int)expected);
		if (got < 0 || (size_t)got != expected)
			rc = cd_fail(err, CD_EFORMAT, "LZ4 block does not decode to %zu bytes", expected);
		break;
	}
	case FATBIN_ZSTD: {
		unsigned long long fs = ZSTD_getFrameContentSize(src, src_len);
		if (fs == ZSTD_CONTENTSIZE_ERROR) {
			rc = cd_fail(err, CD_EFORMAT, "not a Zstandard frame");
			break;
		}
		if (fs != ZSTD_CONTENTSIZE_UNKNOWN && fs != expected) {
			rc = cd_fail(err, CD_EFORMAT, "Zstandard frame holds %llu bytes, header says %zu", fs, expected);
			break;
		}
		ZSTD_DCtx *dctx = shared_dctx();
		size_t got = dctx ? ZSTD_decompressDCtx(dctx, buf, expected, src, src_len)
				  : ZSTD_decompress(buf, expected, src, src_len);
		if (ZSTD_isError(got) || got != expected)
			rc = cd_fail(err, CD_EFORMAT, "Zstandard frame does not decode to %zu bytes%s%s", expected,
				     ZSTD_isError(got) ? ": " : "", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "");
		break;
	}
	default:
		rc = cd_fail(err, CD_EUNSUPPORTED, "unknown compression %d", (int)how);
	}
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = expected;
	return CD_OK;
}

int decompress_entry(const struct fatbin_entry *e, size_t cap, unsigned char **out, size_t *out_len,
		     char *err)
{
	enum fatbin_compression how = fatbin_entry_compression(e);
	uint64_t expected = fatbin_entry_image_size(e);
	if (how == FATBIN_RAW)
		expected = e->payload_len;
	if (expected > cap)
		return cd_fail(err, CD_EUNSUPPORTED, "image of %llu bytes at offset 0x%zx is above the %zu-byte cap",
			       (unsigned long long)expected, e->offset, cap);
	return decompress_payload(how, e->payload, e->payload_len, (size_t)expected, cap, out, out_len, err);
}
