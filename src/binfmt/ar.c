/* `ar` archive walking: 60-byte member headers, GNU "//" long names, BSD "#1/N" names. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, strnlen */
#endif
#include "binfmt/ar.h"

#include <string.h>

#include "binfmt/bytes.h"
#include "util/err.h"

#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60

bool ar_has_magic(const unsigned char *data, size_t size)
{
	return data && size >= 8 && memcmp(data, AR_MAGIC, 8) == 0;
}

int ar_open(struct ar_iter *it, const unsigned char *data, size_t size, char *err)
{
	memset(it, 0, sizeof(*it));
	if (!ar_has_magic(data, size))
		return cd_fail(err, CD_EFORMAT, "not an ar archive (offset 0)");
	it->data = data;
	it->size = size;
	it->next = 8;
	return CD_OK;
}

/* Decimal field of fixed width, space padded. */
static bool parse_dec(const unsigned char *p, size_t w, size_t *out)
{
	size_t v = 0, i = 0;
	while (i < w && p[i] == ' ')
		i++;
	if (i == w || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < w && p[i] >= '0' && p[i] <= '9'; i++) {
		if (v > (SIZE_MAX - 9) / 10)
			return false;
		v = v * 10 + (size_t)(p[i] - '0');
	}
	for (; i < w; i++)
		if (p[i] != ' ')
			return false;
	*out = v;
	return true;
}

static void copy_name(char *dst, size_t cap, const unsigned char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[n] = 0;
}

int ar_next(struct ar_iter *it, struct ar_member *m, char *err)
{
	for (;;) {
		if (it->next % 2) /* members are 2-aligned; the pad byte is '\n' */
			it->next++;
		if (it->next >= it->size)
			return 0;
		size_t off = it->next;
		if (!in_bounds(off, AR_HDR, it->size))
			return cd_fail(err, CD_EFORMAT, "ar member header truncated at offset %zu", off);
		const unsigned char *h = it->data + off;
		if (h[58] != '`' || h[59] != '\n')
			return cd_fail(err, CD_EFORMAT, "bad ar member header at offset %zu", off);
		size_t size;
		if (!parse_dec(h + 48, 10, &size))
			return cd_fail(err, CD_EFORMAT, "bad ar member size at offset %zu", off + 48);
		size_t doff = off + AR_HDR;
		if (!in_bounds(doff, size, it->size))
			return cd_fail(err, CD_EFORMAT, "ar member at offset %zu runs past the end", off);
		it->next = doff + size;
		memset(m, 0, sizeof(*m));
		m->data = it->data + doff;
		m->size = size;
		m->offset = doff;
		if (h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/ ", 8) == 0))
			continue; /* symbol table */
		if (h[0] == '/' && h[1] == '/') {
			it->names = m->data;
			it->names_len = size;
			continue;
		}
		if (memcmp(h, "__.SYMDEF", 9) == 0)
			continue;
		if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
			size_t idx;
			size_t w = 15;
			while (w > 1 && h[w] == ' ')
				w--;
			if (!parse_dec(h + 1, w, &idx) || !it->names || idx >= it->names_len)
				return cd_fail(err, CD_EFORMAT, "bad ar long name reference at offset %zu", off);
			/* the name ends at a newline, but only what m->name holds is looked at: a
			 * table with no newline would otherwise be read to its end for every member */
			size_t end = idx, stop = it->names_len - idx > sizeof(m->name) ? idx + sizeof(m->name) : it->names_len;
			while (end < stop && it->names[end] != '\n' && it->names[end] != 0)
				end++;
			if (end > idx && it->names[end - 1] == '/')
				end--;
			copy_name(m->name, sizeof(m->name), it->names + idx, end - idx);
		} else if (memcmp(h, "#1/", 3) == 0) {
			size_t nlen;
			size_t w = 13;
			while (w > 1 && h[3 + w - 1] == ' ')
				w--;
			if (!parse_dec(h + 3, w, &nlen) || nlen > size)
				return cd_fail(err, CD_EFORMAT, "bad BSD ar name at offset %zu", off);
			copy_name(m->name, sizeof(m->name), m->data, strnlen((const char *)m->data, nlen));
			m->data += nlen;
			m->size -= nlen;
			m->offset += nlen;
		} else {
			size_t n = 16;
			while (n > 0 && h[n - 1] == ' ')
				n--;
			if (n > 0 && h[n - 1] == '/')
				n--;
			copy_name(m->name, sizeof(m->name), h, n);
		}
		return 1;
	}
}
