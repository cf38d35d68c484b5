/* Offload bundles and compressed bundles read from their headers, with every count, size
 * and offset checked against the bytes there; a compressed bundle inflated only as far as
 * its reader needs (its entry table sits at its start). */
#include "binfmt/hipfb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "binfmt/bytes.h"
#include "util/err.h"

bool hipfb_is_bundle(const unsigned char *p, size_t n)
{
	return n >= HIPFB_MAGIC_LEN && memcmp(p, HIPFB_MAGIC, HIPFB_MAGIC_LEN) == 0;
}

bool hipfb_is_ccob(const unsigned char *p, size_t n)
{
	return n >= HIPFB_CCOB_MAGIC_LEN && memcmp(p, HIPFB_CCOB_MAGIC, HIPFB_CCOB_MAGIC_LEN) == 0;
}

int hipfb_open(struct hipfb_bundle *b, const unsigned char *data, size_t size, char *err)
{
	memset(b, 0, sizeof(*b));
	b->data = data;
	b->size = size;
	if (!hipfb_is_bundle(data, size))
		return cd_fail(err, CD_EFORMAT, "no offload bundle magic");
	if (size < HIPFB_HEADER_MIN) {
		b->short_of = HIPFB_HEADER_MIN;
		return cd_fail(err, CD_EFORMAT, "offload bundle cut after %zu bytes", size);
	}
	b->count = rd64(data + HIPFB_MAGIC_LEN);
	b->pos = b->extent = HIPFB_HEADER_MIN;
	/* each entry's header takes 24 bytes at least; a count no buffer could hold is not a bundle */
	if (b->count > (SIZE_MAX - HIPFB_HEADER_MIN) / HIPFB_ENTRY_MIN || b->count > ((uint64_t)1 << 32))
		return cd_fail(err, CD_EFORMAT, "offload bundle declares %llu entries", (unsigned long long)b->count);
	return CD_OK;
}

int hipfb_next(struct hipfb_bundle *b, struct hipfb_entry *e, char *err)
{
	b->short_of = 0;
	if (b->read >= b->count)
		return 0;
	if (!in_bounds(b->pos, HIPFB_ENTRY_MIN, b->size)) {
		b->short_of = b->pos + HIPFB_ENTRY_MIN;
		return cd_fail(err, CD_EFORMAT, "offload bundle entry %llu cut at byte %zu", (unsigned long long)b->read,
			       b->size);
	}
	const unsigned char *p = b->data + b->pos;
	e->offset = rd64(p);
	e->size = rd64(p + 8);
	uint64_t id_len = rd64(p + 16);
	if (id_len > HIPFB_ID_MAX)
		return cd_fail(err, CD_EFORMAT, "offload bundle entry %llu has an id of %llu bytes",
			       (unsigned long long)b->read, (unsigned long long)id_len);
	if (!in_bounds(b->pos + HIPFB_ENTRY_MIN, id_len, b->size)) {
		b->short_of = b->pos + HIPFB_ENTRY_MIN + (size_t)id_len;
		return cd_fail(err, CD_EFORMAT, "offload bundle entry %llu cut at byte %zu", (unsigned long long)b->read,
			       b->size);
	}
	e->id = (const char *)p + HIPFB_ENTRY_MIN;
	e->id_len = (size_t)id_len;
	b->pos += HIPFB_ENTRY_MIN + (size_t)id_len;
	b->read++;
	if (b->pos > b->extent)
		b->extent = b->pos;
	/* an entry may claim any range: the extent is only where the next bundle may start */
	if (e->size && e->offset <= UINT64_MAX - e->size && e->offset + e->size > b->extent)
		b->extent = e->offset + e->size;
	return 1;
}

int hipfb_ccob_header(const unsigned char *data, size_t size, struct hipfb_ccob *h, char *err)
{
	static const size_t header_of[] = {0, 20, 24, 32};

	memset(h, 0, sizeof(*h));
	if (!hipfb_is_ccob(data, size) || size < 8)
		return cd_fail(err, CD_EFORMAT, "no compressed bundle header");
	h->version = rd16(data + 4);
	unsigned method = rd16(data + 6);
	if (h->version < 1 || h->version > 3)
		return cd_fail(err, CD_EFORMAT, "compressed bundle version %u (1 to 3 are known)", h->version);
	if (method != HIPFB_ZLIB && method != HIPFB_ZSTD)
		return cd_fail(err, CD_EFORMAT, "compressed bundle method %u (0 zlib, 1 zstd)", method);
	h->method = (enum hipfb_method)method;
	h->header_size = header_of[h->version];
	if (size < h->header_size)
		return cd_fail(err, CD_EFORMAT, "compressed bundle header cut after %zu bytes", size);
	const unsigned char *p = data + 8;
	switch (h->version) {
	case 1:
		h->uncompressed_size = rd32(p);
		h->hash = rd64(p + 4);
		break;
	case 2:
		h->total_size = rd32(p);
		h->uncompressed_size = rd32(p + 4);
		h->hash = rd64(p + 8);
		break;
	default:
		h->total_size = rd64(p);
		h->uncompressed_size = rd64(p + 8);
		h->hash = rd64(p + 16);
		break;
	}
	if (h->version >= 2 && (h->total_size < h->header_size || h->total_size > size))
		return cd_fail(err, CD_EFORMAT, "compressed bundle of %llu bytes where %zu are left",
			       (unsigned long long)h->total_size, size);
	return CD_OK;
}

static ZSTD_DStream *shared_dstream(void)
{
	static ZSTD_DStream *ds; /* one for the process, as binfmt/decompress.c keeps its context */
	if (!ds)
		ds = ZSTD_createDStream();
	return ds;
}

/* Inflates into out[0..cap): *got bytes, *ended when the stream's end was reached. */
static int inflate_zlib(const unsigned char *src, size_t src_len, unsigned char *out, size_t cap, size_t *got,
			bool *ended, char *err)
{
	z_stream zs;
	int rc = CD_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	*got = 0;
	*ended = false;
	/* avail_in and avail_out are 32-bit: fed in slices */
	size_t in_done = 0;
	for (;;) {
		size_t in_step = src_len - in_done > UINT32_MAX ? UINT32_MAX : src_len - in_done;
		size_t out_step = cap - *got > UINT32_MAX ? UINT32_MAX : cap - *got;
		zs.next_in = (unsigned char *)src + in_done;
		zs.avail_in = (uInt)in_step;
		zs.next_out = out + *got;
		zs.avail_out = (uInt)out_step;
		int zr = inflate(&zs, Z_NO_FLUSH);
		in_done += in_step - zs.avail_in;
		*got += out_step - zs.avail_out;
		if (zr == Z_STREAM_END) {
			*ended = true;
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = cd_fail(err, CD_EFORMAT, "compressed bundle: zlib stream is corrupt (%s)", zs.msg ? zs.msg : "?");
			break;
		}
		if (*got == cap)
			break;
		if (in_done == src_len || (zr == Z_BUF_ERROR && zs.avail_in)) {
			rc = cd_fail(err, CD_EFORMAT, "compressed bundle: zlib stream ends early");
			break;
		}
	}
	inflateEnd(&zs);
	return rc;
}

static int inflate_zstd(const unsigned char *src, size_t src_len, unsigned char *out, size_t cap, size_t *got,
			bool *ended, char *err)
{
	ZSTD_DStream *ds = shared_dstream();
	*got = 0;
	*ended = false;
	if (!ds)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	ZSTD_initDStream(ds);
	ZSTD_inBuffer in = {src, src_len, 0};
	ZSTD_outBuffer ob = {out, cap, 0};
	for (;;) {
		size_t r = ZSTD_decompressStream(ds, &ob, &in);
		if (ZSTD_isError(r))
			return cd_fail(err, CD_EFORMAT, "compressed bundle: zstd stream is corrupt (%s)", ZSTD_getErrorName(r));
		*got = ob.pos;
		if (r == 0) { /* a frame ended: the bundle is one frame */
			*ended = true;
			return CD_OK;
		}
		if (ob.pos == ob.size)
			return CD_OK;
		if (in.pos == in.size)
			return cd_fail(err, CD_EFORMAT, "compressed bundle: zstd stream ends early");
	}
}

int hipfb_ccob_inflate(const struct hipfb_ccob *h, const unsigned char *src, size_t src_len, size_t want,
		       unsigned char **out, size_t *out_len, bool *complete, char *err)
{
	unsigned char *buf;
	size_t got = 0;
	bool ended = false;
	int rc;

	*out = NULL;
	*out_len = 0;
	*complete = false;
	if (want == 0)
		return cd_fail(err, CD_EUNSUPPORTED, "nothing to inflate");
	if (h->uncompressed_size < want)
		want = h->uncompressed_size ? (size_t)h->uncompressed_size : 1;
	if (!(buf = malloc(want)))
		return cd_fail(err, CD_ENOMEM, "out of memory for %zu bytes of a compressed bundle", want);
	rc = h->method == HIPFB_ZLIB ? inflate_zlib(src, src_len, buf, want, &got, &ended, err)
				     : inflate_zstd(src, src_len, buf, want, &got, &ended, err);
	if (rc == CD_OK && ended && got != h->uncompressed_size)
		rc = cd_fail(err, CD_EFORMAT, "compressed bundle inflates to %zu bytes, its header says %llu", got,
			     (unsigned long long)h->uncompressed_size);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = got;
	*complete = got == h->uncompressed_size;
	return CD_OK;
}

/* The next '-'-separated part of [p, end): its length; *next past the '-' (or end). */
static size_t part(const char *p, const char *end, const char **next)
{
	const char *dash = memchr(p, '-', (size_t)(end - p));
	*next = dash ? dash + 1 : end;
	return (size_t)((dash ? dash : end) - p);
}

void hipfb_parse_id(const char *id, size_t len, struct hipfb_id *out)
{
	const char *end = id + len, *p = id, *next;

	memset(out, 0, sizeof(*out));
	out->kind = id;
	out->kind_len = part(p, end, &next);
	p = next;
	out->triple = out->arch = p;
	out->arch_len = part(p, end, &next);
	/* arch-vendor-os, then the environment unless what follows is already the target */
	const char *q = next;
	for (int k = 0; k < 2 && q < end; k++)
		part(q, end, &q);
	if (q < end && !(end - q >= 3 && memcmp(q, "gfx", 3) == 0) &&
	    !(end - q >= 11 && memcmp(q, "amdgcnspirv", 11) == 0))
		part(q, end, &q); /* the environment, often empty ("amdhsa--gfx90a") */
	out->triple_len = (size_t)(q - p);
	out->target = q;
	out->target_len = (size_t)(end - q);
}

bool hipfb_parse_target(const char *target, size_t len, struct hipfb_target *out)
{
	const char *end = target + len, *colon = memchr(target, ':', len);
	size_t plen = (size_t)((colon ? colon : end) - target);

	memset(out, 0, sizeof(*out));
	if (plen == 0 || plen >= sizeof(out->processor))
		return false;
	for (size_t i = 0; i < plen; i++) {
		char c = target[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
			return false;
	}
	memcpy(out->processor, target, plen);
	for (const char *p = colon; p && p < end;) {
		const char *f = p + 1, *stop = memchr(f, ':', (size_t)(end - f));
		size_t flen = (size_t)((stop ? stop : end) - f);
		if (flen < 2 || (f[flen - 1] != '+' && f[flen - 1] != '-'))
			return false;
		enum hipfb_feature v = f[flen - 1] == '+' ? HIPFB_FEAT_ON : HIPFB_FEAT_OFF;
		if (flen - 1 == 5 && memcmp(f, "xnack", 5) == 0)
			out->xnack = v;
		else if (flen - 1 == 7 && memcmp(f, "sramecc", 7) == 0)
			out->sramecc = v;
		else
			return false;
		p = stop;
	}
	return true;
}

void hipfb_target_name(const struct hipfb_target *t, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", t->processor,
		 t->sramecc == HIPFB_FEAT_ON ? ":sramecc+" : t->sramecc == HIPFB_FEAT_OFF ? ":sramecc-" : "",
		 t->xnack == HIPFB_FEAT_ON ? ":xnack+" : t->xnack == HIPFB_FEAT_OFF ? ":xnack-" : "");
}

size_t hipfb_wrapper_count(const unsigned char *data, size_t size)
{
	size_t n = 0;
	for (size_t off = 0; off + HIPFB_WRAPPER_SIZE <= size; off += HIPFB_WRAPPER_SIZE, n++)
		if (rd32(data + off) != HIPFB_WRAPPER_MAGIC || rd32(data + off + 4) != 1)
			break;
	return n;
}
