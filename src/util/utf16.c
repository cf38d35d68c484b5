/* UTF-16 to UTF-8 as a text is read (util/utf16.h). */
#include <stdlib.h>

#include "util/err.h"
#include "util/utf16.h"

void utf16_init(struct utf16_stream *s)
{
	s->order = 0;
	s->has_pending = false;
	s->pending = 0;
	s->high = 0;
}

bool utf16_detect(struct utf16_stream *s, const unsigned char *in, size_t n)
{
	if (s->order == 0) {
		if (n >= 2 && in[0] == 0xFF && in[1] == 0xFE)
			s->order = 1;
		else if (n >= 2 && in[0] == 0xFE && in[1] == 0xFF)
			s->order = 2;
		else
			s->order = -1;
	}
	return s->order > 0;
}

/* Whether in[at..) starts with UTF-16LE units of ASCII text (a character, then 0), as many as
 * the piece holds up to four. */
static bool ascii_units_at(const unsigned char *in, size_t n, size_t at)
{
	size_t units = 0;

	for (; at + 1 < n && units < 4; at += 2, units++)
		if (in[at + 1] != 0 || in[at] == 0 || in[at] >= 0x80)
			return false;
	return units == 4 || (units >= 1 && at + 1 >= n);
}

size_t utf16_appended_at(const unsigned char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t at;

		if (in[i] != 0)
			continue;
		if (i == 0) {
			if (ascii_units_at(in, n, 1))
				return 1;
			continue;
		}
		at = i - 1;
		if (!ascii_units_at(in, n, at))
			continue;
		/* its mark, where one was written */
		return at >= 2 && in[at - 2] == 0xFF && in[at - 1] == 0xFE ? at - 2 : at;
	}
	return n;
}

static size_t put(char *out, unsigned c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xC0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xE0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		out[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
	out[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* One code unit: a character, half of a pair, or the mark */
static size_t unit(struct utf16_stream *s, unsigned u, char *out)
{
	size_t w = 0;

	if (u >= 0xDC00 && u <= 0xDFFF && s->high) {
		unsigned c = 0x10000 + ((s->high - 0xD800) << 10) + (u - 0xDC00);

		s->high = 0;
		return put(out, c);
	}
	if (s->high) { /* a high surrogate whose low one never came */
		w = put(out, 0xFFFD);
		s->high = 0;
	}
	if (u >= 0xD800 && u <= 0xDBFF)
		s->high = u;
	else if (u >= 0xDC00 && u <= 0xDFFF)
		w += put(out + w, 0xFFFD);
	else if (u != 0xFEFF) /* the mark, at the start (and a zero-width no-break space elsewhere) */
		w += put(out + w, u);
	return w;
}

size_t utf16_to_utf8(struct utf16_stream *s, const unsigned char *in, size_t n, char *out)
{
	size_t w = 0, i = 0;

	if (s->has_pending && n > 0) {
		unsigned a = s->pending, b = in[0];

		w += unit(s, s->order == 1 ? (a | b << 8) : (a << 8 | b), out);
		s->has_pending = false;
		i = 1;
	}
	for (; i + 1 < n; i += 2)
		w += unit(s, s->order == 1 ? (unsigned)(in[i] | in[i + 1] << 8) : (unsigned)(in[i] << 8 | in[i + 1]),
			  out + w);
	if (i < n) {
		s->pending = in[i];
		s->has_pending = true;
	}
	return w;
}

int utf16_text_as_utf8(const unsigned char *data, size_t size, char **owned, const unsigned char **text,
		       size_t *len)
{
	struct utf16_stream u;

	*owned = NULL;
	*text = data;
	*len = size;
	if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
		*text = data + 3;
		*len = size - 3;
		return CD_OK;
	}
	utf16_init(&u);
	if (!utf16_detect(&u, data, size))
		return CD_OK;
	if (!(*owned = malloc(UTF16_UTF8_MAX(size))))
		return CD_ENOMEM;
	*len = utf16_to_utf8(&u, data, size, *owned);
	*text = (const unsigned char *)*owned;
	return CD_OK;
}
