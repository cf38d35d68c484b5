/* Tar headers (POSIX.1-2001 ustar and pax, GNU 'L' long names, base-256 sizes) over a byte
 * source: an entry's data is passed by reading it, never seeked, so a source can be a
 * decompressor. */
#include "binfmt/tar.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"

#define SKIP_CHUNK 65536

void tar_init(struct tar_reader *t, tar_read_fn read, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->read = read;
	t->ctx = ctx;
}

bool tar_checksum_ok(const unsigned char blk[TAR_BLOCK])
{
	uint64_t want = 0, sum = 0;
	int64_t ssum = 0;
	size_t i = 148, digits = 0;
	while (i < 156 && blk[i] == ' ')
		i++;
	for (; i < 156 && blk[i] >= '0' && blk[i] <= '7'; i++, digits++)
		want = want * 8 + (uint64_t)(blk[i] - '0');
	if (digits == 0)
		return false;
	for (i = 0; i < TAR_BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : blk[i];
		sum += c;
		ssum += (signed char)c;
	}
	return sum == want || (int64_t)want == ssum;
}

/* An octal field (spaces and NULs around it), or GNU's base-256 form (high bit set). */
static bool number(const unsigned char *f, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (f[0] & 0x80) {
		if (f[0] != 0x80) /* negative, or above 2^56 */
			return false;
		for (i = 1; i < len; i++) {
			if (v >> 55)
				return false;
			v = v << 8 | f[i];
		}
		*out = v;
		return true;
	}
	while (i < len && f[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != 0)
			return false;
	*out = v;
	return digits > 0 || len == 0 || f[0] == 0;
}

/* Exactly want bytes from the source, or the stream's end named. */
static int read_exact(struct tar_reader *t, unsigned char *buf, size_t want, size_t *got, char *err)
{
	*got = 0;
	while (*got < want) {
		size_t n = 0;
		int rc = t->read(t->ctx, buf + *got, want - *got, &n, err);
		if (rc)
			return rc;
		if (n == 0)
			break;
		*got += n;
	}
	return CD_OK;
}

static int skip(struct tar_reader *t, uint64_t n, char *err)
{
	unsigned char buf[SKIP_CHUNK];
	while (n) {
		size_t want = n > sizeof buf ? sizeof buf : (size_t)n, got;
		int rc = read_exact(t, buf, want, &got, err);
		if (rc)
			return rc;
		if (got < want)
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: the stream ends inside its data",
				       (unsigned long long)t->n);
		n -= got;
	}
	return CD_OK;
}

static uint64_t padding(uint64_t size)
{
	return (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
}

static void set_name(struct tar_entry *e, const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);
	if (nul)
		len = (size_t)(nul - s);
	if (len > TAR_NAME_MAX)
		len = TAR_NAME_MAX;
	memcpy(e->name, s, len);
	e->name[len] = 0;
	e->name_len = len;
}

/* A pax or long-name record's data, whole (at most TAR_META_MAX), malloc'ed. */
static int read_meta(struct tar_reader *t, uint64_t size, unsigned char **out, char *err)
{
	size_t got;
	*out = NULL;
	if (size > TAR_META_MAX)
		return cd_fail(err, CD_EFORMAT, "tar entry %llu: an extended header of %llu bytes (the limit is %zu)",
			       (unsigned long long)t->n, (unsigned long long)size, TAR_META_MAX);
	unsigned char *d = malloc((size_t)size + 1);
	if (!d)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	int rc = read_exact(t, d, (size_t)size, &got, err);
	if (rc == CD_OK && got < size)
		rc = cd_fail(err, CD_EFORMAT, "tar entry %llu: the stream ends inside an extended header",
			     (unsigned long long)t->n);
	if (rc == CD_OK)
		rc = skip(t, padding(size), err);
	if (rc) {
		free(d);
		return rc;
	}
	d[size] = 0;
	*out = d;
	return CD_OK;
}

/* pax records "LEN KEY=VALUE\n": path and size kept for the entry that follows. */
static int pax_records(struct tar_reader *t, const unsigned char *d, size_t n, struct tar_entry *e, bool *has_path,
		       bool *has_size, char *err)
{
	for (size_t at = 0; at < n;) {
		size_t len = 0, i = at;
		for (; i < n && d[i] >= '0' && d[i] <= '9' && len < n; i++)
			len = len * 10 + (size_t)(d[i] - '0');
		if (i == at || i >= n || d[i] != ' ' || len > n - at || len < i - at + 3 || d[at + len - 1] != '\n')
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: a damaged pax record at byte %zu",
				       (unsigned long long)t->n, at);
		const char *key = (const char *)d + i + 1, *end = (const char *)d + at + len - 1;
		const char *eq = memchr(key, '=', (size_t)(end - key));
		if (!eq)
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: a pax record without '='", (unsigned long long)t->n);
		size_t klen = (size_t)(eq - key), vlen = (size_t)(end - eq - 1);
		if (klen == 4 && memcmp(key, "path", 4) == 0) {
			if (vlen > TAR_NAME_MAX)
				return cd_fail(err, CD_EFORMAT, "tar entry %llu: a path of %zu bytes", (unsigned long long)t->n,
					       vlen);
			set_name(e, eq + 1, vlen);
			*has_path = true;
		} else if (klen == 4 && memcmp(key, "size", 4) == 0) {
			uint64_t v = 0;
			if (vlen == 0 || vlen > 19)
				return cd_fail(err, CD_EFORMAT, "tar entry %llu: a damaged pax size", (unsigned long long)t->n);
			for (size_t j = 1; j <= vlen; j++) {
				char c = eq[j];
				if (c < '0' || c > '9')
					return cd_fail(err, CD_EFORMAT, "tar entry %llu: a damaged pax size",
						       (unsigned long long)t->n);
				v = v * 10 + (uint64_t)(c - '0');
			}
			e->size = v;
			*has_size = true;
		}
		at += len;
	}
	return CD_OK;
}

int tar_next(struct tar_reader *t, struct tar_entry *e, char *err)
{
	unsigned char blk[TAR_BLOCK], *meta = NULL;
	bool has_path = false, has_size = false;
	uint64_t pax_size = 0;
	int rc;
	size_t got;

	memset(e, 0, sizeof(*e));
	if (t->ended)
		return 0;
	if ((rc = skip(t, t->left + t->pad, err)))
		return rc;
	t->left = t->pad = 0;
	/* extended headers come before their entry; at most a few of them */
	for (unsigned ext = 0;; ext++) {
		if ((rc = read_exact(t, blk, TAR_BLOCK, &got, err)))
			return rc;
		if (got == 0 && ext == 0) {
			t->ended = true;
			return 0;
		}
		if (got < TAR_BLOCK)
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: the stream ends inside its header",
				       (unsigned long long)t->n);
		bool zero = true;
		for (size_t i = 0; i < TAR_BLOCK && zero; i++)
			zero = blk[i] == 0;
		if (zero && ext == 0) {
			t->ended = true; /* the end marker; what follows is padding */
			return 0;
		}
		if (!tar_checksum_ok(blk))
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: header checksum mismatch", (unsigned long long)t->n);
		uint64_t size;
		if (!number(blk + 124, 12, &size))
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: a damaged size field", (unsigned long long)t->n);
		char type = (char)blk[156];
		if (ext >= 8 && (type == 'x' || type == 'g' || type == 'L' || type == 'K'))
			return cd_fail(err, CD_EFORMAT, "tar entry %llu: more than 8 extended headers in a row",
				       (unsigned long long)t->n);
		if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
			if ((rc = read_meta(t, size, &meta, err)))
				return rc;
			if (type == 'x') {
				struct tar_entry px = {0};
				bool hp = false, hs = false;
				rc = pax_records(t, meta, (size_t)size, &px, &hp, &hs, err);
				if (rc == CD_OK && hp) {
					memcpy(e->name, px.name, px.name_len + 1);
					e->name_len = px.name_len;
					has_path = true;
				}
				if (rc == CD_OK && hs) {
					pax_size = px.size;
					has_size = true;
				}
			} else if (type == 'L') {
				if (size > TAR_NAME_MAX + 1)
					rc = cd_fail(err, CD_EFORMAT, "tar entry %llu: a long name of %llu bytes",
						     (unsigned long long)t->n, (unsigned long long)size);
				else {
					set_name(e, (const char *)meta, (size_t)size);
					has_path = true;
				}
			}
			free(meta);
			meta = NULL;
			if (rc)
				return rc;
			continue;
		}
		if (!has_path) {
			char full[256 + 1 + 100];
			size_t nlen = strnlen((const char *)blk, 100), plen = 0;
			if (memcmp(blk + 257, "ustar", 5) == 0)
				plen = strnlen((const char *)blk + 345, 155);
			if (plen) {
				memcpy(full, blk + 345, plen);
				full[plen] = '/';
				memcpy(full + plen + 1, blk, nlen);
				set_name(e, full, plen + 1 + nlen);
			} else
				set_name(e, (const char *)blk, nlen);
		}
		e->size = has_size ? pax_size : size;
		e->type = type;
		break;
	}
	/* only regular files carry data for a reader; the rest carry what their size says
	 * (a hard link or folder 0), passed like any data */
	e->ordinal = t->n++;
	t->left = e->size;
	t->pad = padding(e->size);
	return 1;
}

int tar_read(struct tar_reader *t, unsigned char *buf, size_t want, size_t *got, char *err)
{
	*got = 0;
	if (want > t->left)
		want = (size_t)t->left;
	if (want == 0)
		return CD_OK;
	int rc = read_exact(t, buf, want, got, err);
	if (rc)
		return rc;
	t->left -= *got;
	if (*got < want)
		return cd_fail(err, CD_EFORMAT, "tar entry %llu: the stream ends %llu bytes before its declared size",
			       (unsigned long long)t->n - 1, (unsigned long long)(t->left));
	return CD_OK;
}
