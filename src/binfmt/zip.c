/* Zip walking over the mapped archive (APPNOTE 6.3.x §4.3): the end record found from the
 * back, zip64 end record through its locator, central entries with their zip64 extra, local
 * headers only to find where a member's bytes start. Deflate through zlib. */
#include "binfmt/zip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "binfmt/bytes.h"
#include "util/err.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define END_LEN 22
#define END64_LEN 56
#define LOCATOR64_LEN 20
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define FLAG_ENCRYPTED 0x0001u
#define ZIP64_EXTRA 0x0001u

bool zip_has_magic(const unsigned char *data, size_t size)
{
	return data && size >= 4 && (rd32(data) == SIG_LOCAL || (size >= END_LEN && rd32(data) == SIG_END));
}

/* The zip64 end record the locator before off points at, if any: its counts replace the
 * 32-bit ones. */
static int read_end64(struct zip_archive *z, size_t end, uint64_t *n, uint64_t *cd_size, uint64_t *cd_off,
		      char *err)
{
	const unsigned char *d = z->data;
	if (end < LOCATOR64_LEN || rd32(d + end - LOCATOR64_LEN) != SIG_LOCATOR64)
		return cd_fail(err, CD_EFORMAT, "zip64 end locator missing before offset 0x%zx", end);
	uint64_t at = rd64(d + end - LOCATOR64_LEN + 8);
	if (!in_bounds(at, END64_LEN, end) || rd32(d + at) != SIG_END64)
		return cd_fail(err, CD_EFORMAT, "zip64 end record at 0x%llx is outside the file or damaged",
			       (unsigned long long)at);
	*n = rd64(d + at + 32);
	*cd_size = rd64(d + at + 40);
	*cd_off = rd64(d + at + 48);
	return CD_OK;
}

int zip_open(struct zip_archive *z, const unsigned char *data, size_t size, char *err)
{
	memset(z, 0, sizeof(*z));
	z->data = data;
	z->size = size;
	if (size < END_LEN)
		return cd_fail(err, CD_EFORMAT, "a zip archive of %zu bytes cannot hold its end record", size);
	/* the end record is the last 22 bytes plus a comment of at most 65535 */
	size_t lowest = size - END_LEN > 0xffff ? size - END_LEN - 0xffff : 0, end = SIZE_MAX;
	for (size_t at = size - END_LEN + 1; at-- > lowest;)
		if (rd32(data + at) == SIG_END && (size_t)rd16(data + at + 20) == size - at - END_LEN) {
			end = at;
			break;
		}
	if (end == SIZE_MAX)
		return cd_fail(err, CD_EFORMAT, "no zip end of central directory record in the last %zu bytes",
			       size - lowest);
	const unsigned char *e = data + end;
	uint64_t n = rd16(e + 10), cd_size = rd32(e + 12), cd_off = rd32(e + 16);
	if (rd16(e + 4) != 0 || rd16(e + 6) != 0)
		return cd_fail(err, CD_EUNSUPPORTED, "a zip archive split over several disks is not read");
	if (n == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
		int rc = read_end64(z, end, &n, &cd_size, &cd_off, err);
		if (rc)
			return rc;
	}
	if (!in_bounds(cd_off, cd_size, end))
		return cd_fail(err, CD_EFORMAT, "central directory at 0x%llx (%llu bytes) is outside the file",
			       (unsigned long long)cd_off, (unsigned long long)cd_size);
	if (n > cd_size / CENTRAL_LEN)
		return cd_fail(err, CD_EFORMAT, "%llu members declared in a central directory of %llu bytes",
			       (unsigned long long)n, (unsigned long long)cd_size);
	z->cd_off = (size_t)cd_off;
	z->cd_size = (size_t)cd_size;
	z->n_entries = n;
	z->next = z->cd_off;
	return CD_OK;
}

/* The zip64 extra field of a central entry: the 64-bit values of those 32-bit fields that are
 * 0xffffffff, in the order size, compressed size, local header offset. */
static int zip64_extra(const unsigned char *x, size_t len, struct zip_member *m, bool want_size, bool want_comp,
		       bool want_off, char *err)
{
	for (size_t at = 0; at + 4 <= len;) {
		uint16_t id = rd16(x + at), sz = rd16(x + at + 2);
		if (sz > len - at - 4)
			break;
		if (id == ZIP64_EXTRA) {
			const unsigned char *p = x + at + 4, *lim = p + sz;
			if (want_size) {
				if (lim - p < 8)
					goto short_extra;
				m->size = rd64(p);
				p += 8;
			}
			if (want_comp) {
				if (lim - p < 8)
					goto short_extra;
				m->comp_size = rd64(p);
				p += 8;
			}
			if (want_off) {
				if (lim - p < 8)
					goto short_extra;
				m->local_off = rd64(p);
			}
			return CD_OK;
		}
		at += 4 + (size_t)sz;
	}
short_extra:
	return cd_fail(err, CD_EFORMAT, "member %.*s: its zip64 sizes are missing", (int)(m->name_len > 200 ? 200 : m->name_len),
		       m->name);
}

int zip_next(struct zip_archive *z, struct zip_member *m, char *err)
{
	const unsigned char *d = z->data;
	size_t lim = z->cd_off + z->cd_size;
	memset(m, 0, sizeof(*m));
	if (z->seen >= z->n_entries)
		return 0;
	if (!in_bounds(z->next, CENTRAL_LEN, lim) || rd32(d + z->next) != SIG_CENTRAL)
		return cd_fail(err, CD_EFORMAT, "central directory entry %llu at 0x%zx is damaged",
			       (unsigned long long)z->seen + 1, z->next);
	const unsigned char *c = d + z->next;
	size_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
	if (!in_bounds(z->next + CENTRAL_LEN, nlen + xlen + clen, lim))
		return cd_fail(err, CD_EFORMAT, "central directory entry at 0x%zx runs past the directory", z->next);
	m->flags = rd16(c + 8);
	m->method = rd16(c + 10);
	m->crc = rd32(c + 16);
	m->comp_size = rd32(c + 20);
	m->size = rd32(c + 24);
	m->local_off = rd32(c + 42);
	m->name = (const char *)c + CENTRAL_LEN;
	m->name_len = nlen;
	bool ws = m->size == 0xffffffffu, wc = m->comp_size == 0xffffffffu, wo = m->local_off == 0xffffffffu;
	if (ws || wc || wo) {
		int rc = zip64_extra(c + CENTRAL_LEN + nlen, xlen, m, ws, wc, wo, err);
		if (rc)
			return rc;
	}
	z->next += CENTRAL_LEN + nlen + xlen + clen;
	z->seen++;
	return 1;
}

bool zip_member_is_dir(const struct zip_member *m)
{
	return m->name_len && m->name[m->name_len - 1] == '/';
}

#define NAME_ARGS(m) (int)((m)->name_len > 200 ? 200 : (m)->name_len), (m)->name

int zip_member_stored(const struct zip_archive *z, const struct zip_member *m, const unsigned char **out,
		      size_t *len, char *err)
{
	const unsigned char *d = z->data;
	*out = NULL;
	*len = 0;
	if (m->flags & FLAG_ENCRYPTED)
		return cd_fail(err, CD_EUNSUPPORTED, "member %.*s is encrypted", NAME_ARGS(m));
	if (m->method != ZIP_STORED && m->method != ZIP_DEFLATE)
		return cd_fail(err, CD_EUNSUPPORTED, "member %.*s: compression method %u is not read (only stored and deflate)",
			       NAME_ARGS(m), (unsigned)m->method);
	/* members lie before the central directory */
	if (!in_bounds(m->local_off, LOCAL_LEN, z->cd_off) || rd32(d + m->local_off) != SIG_LOCAL)
		return cd_fail(err, CD_EFORMAT, "member %.*s: no local header at 0x%llx", NAME_ARGS(m),
			       (unsigned long long)m->local_off);
	const unsigned char *l = d + m->local_off;
	uint64_t at = m->local_off + LOCAL_LEN + (uint64_t)rd16(l + 26) + rd16(l + 28);
	if (!in_bounds(at, m->comp_size, z->cd_off))
		return cd_fail(err, CD_EFORMAT, "member %.*s: its %llu bytes at 0x%llx run past the members", NAME_ARGS(m),
			       (unsigned long long)m->comp_size, (unsigned long long)at);
	if (m->method == ZIP_STORED && m->comp_size != m->size)
		return cd_fail(err, CD_EFORMAT, "member %.*s is stored but declares %llu bytes in %llu", NAME_ARGS(m),
			       (unsigned long long)m->size, (unsigned long long)m->comp_size);
	*out = d + at;
	*len = (size_t)m->comp_size;
	return CD_OK;
}

/* Inflates src into buf[0 .. cap); *got bytes came out. Stops when buf is full (*full) or the
 * stream ends (*ended). */
static int inflate_into(const struct zip_member *m, const unsigned char *src, size_t src_len, unsigned char *buf,
			size_t cap, size_t *got, bool *ended, char *err)
{
	z_stream s;
	int zr = Z_OK, rc = CD_OK;
	size_t fed = 0;
	memset(&s, 0, sizeof(s));
	*got = 0;
	*ended = false;
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory for inflating %.*s", NAME_ARGS(m));
	s.next_out = buf;
	while (*got < cap) {
		/* zlib counts in 32 bits: feed and drain in steps of at most 1 GiB */
		if (s.avail_in == 0 && fed < src_len) {
			size_t step = src_len - fed > ((size_t)1 << 30) ? (size_t)1 << 30 : src_len - fed;
			s.next_in = (unsigned char *)(uintptr_t)(src + fed);
			s.avail_in = (uInt)step;
			fed += step;
		}
		size_t room = cap - *got > ((size_t)1 << 30) ? (size_t)1 << 30 : cap - *got;
		s.next_out = buf + *got;
		s.avail_out = (uInt)room;
		zr = inflate(&s, Z_NO_FLUSH);
		*got += room - s.avail_out;
		if (zr == Z_STREAM_END) {
			*ended = true;
			break;
		}
		if (zr == Z_BUF_ERROR && s.avail_in == 0 && fed == src_len) {
			rc = cd_fail(err, CD_EFORMAT, "member %.*s: its deflate stream is cut short after %zu bytes",
				     NAME_ARGS(m), *got);
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = cd_fail(err, CD_EFORMAT, "member %.*s: damaged deflate stream after %zu bytes", NAME_ARGS(m),
				     *got);
			break;
		}
	}
	inflateEnd(&s);
	return rc;
}

int zip_member_head(const struct zip_archive *z, const struct zip_member *m, unsigned char *buf, size_t want,
		    size_t *got, char *err)
{
	const unsigned char *src;
	size_t len;
	bool ended;
	int rc = zip_member_stored(z, m, &src, &len, err);
	*got = 0;
	if (rc)
		return rc;
	if (m->method == ZIP_STORED) {
		*got = len < want ? len : want;
		memcpy(buf, src, *got);
		return CD_OK;
	}
	return inflate_into(m, src, len, buf, want, got, &ended, err);
}

int zip_member_read(const struct zip_archive *z, const struct zip_member *m, uint64_t cap, unsigned char **out,
		    size_t *len, char *err)
{
	const unsigned char *src;
	size_t slen, got = 0;
	bool ended = false;
	unsigned char *buf;
	int rc = zip_member_stored(z, m, &src, &slen, err);
	*out = NULL;
	*len = 0;
	if (rc)
		return rc;
	if (m->size > cap || m->size > SIZE_MAX - 1)
		return cd_fail(err, CD_EUNSUPPORTED, "member %.*s declares %llu bytes, above the %llu-byte limit",
			       NAME_ARGS(m), (unsigned long long)m->size, (unsigned long long)cap);
	if (m->method == ZIP_DEFLATE && m->size / ZIP_DEFLATE_RATIO > m->comp_size + 1)
		return cd_fail(err, CD_EFORMAT, "member %.*s declares %llu bytes, more than its %llu deflated bytes can hold",
			       NAME_ARGS(m), (unsigned long long)m->size, (unsigned long long)m->comp_size);
	/* one byte more than declared: a stream that goes on past its size is caught */
	if (!(buf = malloc((size_t)m->size + 1)))
		return cd_fail(err, CD_ENOMEM, "out of memory for member %.*s (%llu bytes)", NAME_ARGS(m),
			       (unsigned long long)m->size);
	if (m->method == ZIP_STORED) {
		memcpy(buf, src, slen);
		got = slen;
		ended = true;
	} else if ((rc = inflate_into(m, src, slen, buf, (size_t)m->size + 1, &got, &ended, err))) {
		goto out;
	}
	if (!ended || got != m->size) {
		rc = cd_fail(err, CD_EFORMAT, "member %.*s inflates to %s%zu bytes, not the %llu it declares", NAME_ARGS(m),
			     ended ? "" : "over ", got, (unsigned long long)m->size);
		goto out;
	}
	uLong crc = crc32(0L, Z_NULL, 0);
	for (size_t at = 0; at < got;) {
		size_t step = got - at > ((size_t)1 << 30) ? (size_t)1 << 30 : got - at;
		crc = crc32(crc, buf + at, (uInt)step);
		at += step;
	}
	if ((uint32_t)crc != m->crc) {
		rc = cd_fail(err, CD_EFORMAT, "member %.*s: CRC-32 %08x, the archive says %08x", NAME_ARGS(m), (unsigned)crc,
			     (unsigned)m->crc);
		goto out;
	}
	*out = buf;
	*len = got;
	buf = NULL;
out:
	free(buf);
	return rc;
}
