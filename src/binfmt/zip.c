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

struct range {
	uint64_t start, end, index;
};

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : x->index < y->index ? -1 : x->index > y->index;
}

/* [local header, end of data) of m as its local header gives it; a header that is not there
 * spans its first byte, where it should be. */
static void member_range(const struct zip_archive *z, const struct zip_member *m, struct range *r)
{
	const unsigned char *d = z->data;
	uint64_t end;

	r->start = m->local_off;
	r->end = m->local_off + 1;
	if (!in_bounds(m->local_off, LOCAL_LEN, z->cd_off) || rd32(d + m->local_off) != SIG_LOCAL)
		return;
	end = m->local_off + LOCAL_LEN + rd16(d + m->local_off + 26) + rd16(d + m->local_off + 28);
	end = m->comp_size > UINT64_MAX - end ? UINT64_MAX : end + m->comp_size;
	r->end = end;
}

#define BIT_SET(bits, i) ((bits)[(i) / 8] |= (unsigned char)(1u << ((i) % 8)))
#define BIT_GET(bits, i) (((bits)[(i) / 8] >> ((i) % 8)) & 1u)

int zip_find_overlaps(struct zip_archive *z, char *err)
{
	struct zip_archive walk = *z;
	struct zip_member m;
	struct range *r;
	uint64_t n = 0, max_end = 0;
	int more;

	free(z->overlap);
	z->overlap = NULL;
	walk.next = z->cd_off;
	walk.seen = 0;
	walk.overlap = NULL;
	if (z->n_entries == 0)
		return CD_OK;
	r = malloc((size_t)z->n_entries * sizeof *r);
	z->overlap = calloc((size_t)(z->n_entries / 8 + 1), 1);
	if (!r || !z->overlap) {
		free(r);
		zip_close(z);
		return cd_fail(err, CD_ENOMEM, "out of memory for %llu members", (unsigned long long)z->n_entries);
	}
	while ((more = zip_next(&walk, &m, err)) > 0) {
		member_range(z, &m, &r[n]);
		r[n].index = n;
		n++;
	}
	if (more < 0) {
		free(r);
		free(z->overlap);
		z->overlap = NULL;
		return more;
	}
	qsort(r, (size_t)n, sizeof *r, by_start);
	for (uint64_t i = 0; i < n; i++) {
		/* one that starts before an earlier one ends; one that ends after the next one starts */
		if (i > 0 && r[i].start < max_end)
			BIT_SET(z->overlap, r[i].index);
		if (i + 1 < n && r[i + 1].start < r[i].end)
			BIT_SET(z->overlap, r[i].index);
		if (r[i].end > max_end)
			max_end = r[i].end;
	}
	free(r);
	return CD_OK;
}

void zip_close(struct zip_archive *z)
{
	free(z->overlap);
	z->overlap = NULL;
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
	m->overlaps = z->overlap && BIT_GET(z->overlap, z->seen);
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

#define STEP_MAX ((size_t)1 << 30) /* zlib counts in 32 bits: fed and drained in steps of at most 1 GiB */

/* Starts reading m's bytes, its declared sizes not yet judged. */
static int stream_start(struct zip_stream *s, const struct zip_archive *z, const struct zip_member *m, char *err)
{
	int rc;
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->budget = z->budget;
	if ((rc = zip_member_stored(z, m, &s->src, &s->src_len, err)))
		return rc;
	s->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	if (m->method == ZIP_STORED)
		return CD_OK;
	z_stream *zs = calloc(1, sizeof(*zs));
	if (!zs || inflateInit2(zs, -MAX_WBITS) != Z_OK) {
		free(zs);
		return cd_fail(err, CD_ENOMEM, "out of memory for inflating %.*s", NAME_ARGS(m));
	}
	s->z = zs;
	return CD_OK;
}

/* The next bytes of the member as they come, at most want: fewer only where it ends. */
static int pull(struct zip_stream *s, unsigned char *buf, size_t want, size_t *got, char *err)
{
	z_stream *zs = s->z;
	*got = 0;
	if (s->ended)
		return CD_OK;
	if (!zs) {
		size_t n = s->src_len - s->fed < want ? s->src_len - s->fed : want;
		memcpy(buf, s->src + s->fed, n);
		s->fed += n;
		*got = n;
		s->ended = s->fed == s->src_len;
	}
	while (zs && *got < want) {
		if (zs->avail_in == 0 && s->fed < s->src_len) {
			size_t step = s->src_len - s->fed > STEP_MAX ? STEP_MAX : s->src_len - s->fed;
			zs->next_in = (unsigned char *)(uintptr_t)(s->src + s->fed);
			zs->avail_in = (uInt)step;
			s->fed += step;
		}
		size_t room = want - *got > STEP_MAX ? STEP_MAX : want - *got;
		zs->next_out = buf + *got;
		zs->avail_out = (uInt)room;
		int zr = inflate(zs, Z_NO_FLUSH);
		*got += room - zs->avail_out;
		if (zr == Z_STREAM_END) {
			s->ended = true;
			break;
		}
		if (zr == Z_BUF_ERROR && zs->avail_in == 0 && s->fed == s->src_len)
			return cd_fail(err, CD_EFORMAT, "member %.*s: its deflate stream is cut short after %llu bytes",
				       NAME_ARGS(s->m), (unsigned long long)(s->out + *got));
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return cd_fail(err, CD_EFORMAT, "member %.*s: damaged deflate stream after %llu bytes", NAME_ARGS(s->m),
				       (unsigned long long)(s->out + *got));
	}
	if (s->budget && *got) {
		int rc = archive_budget_inflate(s->budget, *got, err);
		if (rc)
			return rc;
	}
	for (size_t at = 0; at < *got;) {
		size_t step = *got - at > STEP_MAX ? STEP_MAX : *got - at;
		s->crc = (uint32_t)crc32(s->crc, buf + at, (uInt)step);
		at += step;
	}
	s->out += *got;
	return CD_OK;
}

int zip_stream_open(struct zip_stream *s, const struct zip_archive *z, const struct zip_member *m, uint64_t cap,
		    char *err)
{
	int rc = stream_start(s, z, m, err);
	if (rc)
		return rc;
	if (m->size > cap || m->size > SIZE_MAX - 1)
		rc = cd_fail(err, CD_EUNSUPPORTED, "member %.*s declares %llu bytes, above the %llu-byte limit", NAME_ARGS(m),
			     (unsigned long long)m->size, (unsigned long long)cap);
	else if (m->method == ZIP_DEFLATE && m->size / ZIP_DEFLATE_RATIO > m->comp_size + 1)
		rc = cd_fail(err, CD_EFORMAT, "member %.*s declares %llu bytes, more than its %llu deflated bytes can hold",
			     NAME_ARGS(m), (unsigned long long)m->size, (unsigned long long)m->comp_size);
	else if (s->budget && archive_budget_spent(s->budget))
		rc = archive_budget_inflate(s->budget, 1, err);
	else if (s->budget && !archive_budget_fits(s->budget, m->size))
		rc = cd_fail(err, CD_EUNSUPPORTED, "member %.*s declares %llu bytes, more than the %llu the archive may "
			     "still inflate to", NAME_ARGS(m), (unsigned long long)m->size,
			     (unsigned long long)(s->budget->inflate_max - s->budget->inflated));
	if (rc)
		zip_stream_close(s);
	return rc;
}

int zip_stream_read(struct zip_stream *s, unsigned char *buf, size_t want, size_t *got, char *err)
{
	const struct zip_member *m = s->m;
	int rc = pull(s, buf, want, got, err);
	if (rc)
		return rc;
	/* a stream that goes on past its declared size is stopped within one read of it */
	if (s->out > m->size)
		return cd_fail(err, CD_EFORMAT, "member %.*s inflates to over %llu bytes, not the %llu it declares",
			       NAME_ARGS(m), (unsigned long long)s->out, (unsigned long long)m->size);
	if (s->ended && s->out != m->size)
		return cd_fail(err, CD_EFORMAT, "member %.*s inflates to %llu bytes, not the %llu it declares", NAME_ARGS(m),
			       (unsigned long long)s->out, (unsigned long long)m->size);
	if (s->ended && s->crc != m->crc)
		return cd_fail(err, CD_EFORMAT, "member %.*s: CRC-32 %08x, the archive says %08x", NAME_ARGS(m),
			       (unsigned)s->crc, (unsigned)m->crc);
	return CD_OK;
}

const unsigned char *zip_stream_upto(const struct zip_stream *s)
{
	const z_stream *zs = s->z;
	return s->src ? s->src + s->fed - (zs ? zs->avail_in : 0) : NULL;
}

void zip_stream_close(struct zip_stream *s)
{
	if (s->z) {
		inflateEnd(s->z);
		free(s->z);
	}
	s->z = NULL;
}

int zip_member_head(const struct zip_archive *z, const struct zip_member *m, unsigned char *buf, size_t want,
		    size_t *got, char *err)
{
	struct zip_stream s;
	int rc = stream_start(&s, z, m, err);
	*got = 0;
	if (rc == CD_OK)
		rc = pull(&s, buf, want, got, err);
	zip_stream_close(&s);
	return rc;
}

int zip_member_read(const struct zip_archive *z, const struct zip_member *m, uint64_t cap, unsigned char **out,
		    size_t *len, char *err)
{
	struct zip_stream s;
	unsigned char *buf = NULL;
	size_t got = 0, more = 0;
	int rc;
	*out = NULL;
	*len = 0;
	if ((rc = zip_stream_open(&s, z, m, cap, err)))
		return rc;
	/* one byte more than declared: a stream that goes on past its size is caught */
	if (!(buf = malloc((size_t)m->size + 1))) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory for member %.*s (%llu bytes)", NAME_ARGS(m),
			     (unsigned long long)m->size);
		goto out;
	}
	do {
		if ((rc = zip_stream_read(&s, buf + got, (size_t)m->size + 1 - got, &more, err)))
			goto out;
		got += more;
	} while (more && !s.ended);
	if (!s.ended)
		rc = cd_fail(err, CD_EFORMAT, "member %.*s: its deflate stream does not end", NAME_ARGS(m));
	if (rc)
		goto out;
	*out = buf;
	*len = got;
	buf = NULL;
out:
	zip_stream_close(&s);
	free(buf);
	return rc;
}
