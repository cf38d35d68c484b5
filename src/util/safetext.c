/* Untrusted bytes -> valid, visible UTF-8, cut at character boundaries (Unicode's table of
 * well-formed byte sequences, Table 3-7, decides what a character is). */
#include "util/safetext.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One unit of output: n input bytes become either themselves (esc == 0) or an escape. */
struct unit {
	size_t n;        /* input bytes taken */
	char esc[8];     /* the escape text, or "" to copy the input bytes */
};

/* Length of the well-formed UTF-8 character at p (1..4), or 0 when p[0] does not start one
 * (Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t left, uint32_t *cp)
{
	unsigned char b = p[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (b >= 0xC2 && b <= 0xDF)
		n = 2;
	else if (b >= 0xE0 && b <= 0xEF)
		n = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
	else if (b >= 0xF0 && b <= 0xF4)
		n = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	*cp = n == 2 ? (uint32_t)(b & 0x1F) : n == 3 ? (uint32_t)(b & 0x0F) : (uint32_t)(b & 0x07);
	for (size_t i = 1; i < n; i++)
		*cp = *cp << 6 | (p[i] & 0x3F);
	return n;
}

static bool shown_escaped(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static void next_unit(const unsigned char *p, size_t left, unsigned flags, struct unit *u)
{
	uint32_t cp;
	size_t n;

	u->esc[0] = 0;
	u->n = 1;
	if (p[0] >= 0x20 && p[0] < 0x7F)
		return;
	if (p[0] < 0x80) {
		if ((flags & SAFE_TEXT_KEEP_NEWLINES) && (p[0] == '\n' || p[0] == '\t'))
			return;
		snprintf(u->esc, sizeof u->esc, "\\x%02x", p[0]);
		return;
	}
	n = utf8_len(p, left, &cp);
	if (n == 0) {
		snprintf(u->esc, sizeof u->esc, "\\x%02x", p[0]);
		return;
	}
	u->n = n;
	if (shown_escaped(cp))
		snprintf(u->esc, sizeof u->esc, "\\u%04x", (unsigned)cp);
}

size_t safe_text(char *out, size_t cap, const void *in, size_t len, unsigned flags)
{
	const unsigned char *p = in;
	size_t used = 0, i = 0, room, cut = 0;
	struct unit u;

	if (cap == 0)
		return 0;
	room = cap - 1;
	while (i < len) {
		size_t w, run = 0;

		/* printable ASCII, most of any text, is copied a run at a time: every byte of it is
		 * a character, so a boundary */
		while (i + run < len && p[i + run] >= 0x20 && p[i + run] < 0x7F)
			run++;
		if (run) {
			size_t take = run < room - used ? run : room - used;

			memcpy(out + used, p + i, take);
			if (room >= 3 && used <= room - 3)
				cut = used + take <= room - 3 ? used + take : room - 3;
			used += take;
			i += take;
			if (take < run)
				goto full;
			continue;
		}
		next_unit(p + i, len - i, flags, &u);
		w = u.esc[0] ? strlen(u.esc) : u.n;
		if (w > room - used)
			goto full;
		memcpy(out + used, u.esc[0] ? u.esc : (const char *)p + i, w);
		used += w;
		i += u.n;
		if (room >= 3 && used <= room - 3)
			cut = used;
	}
	out[used] = 0;
	return used;
full:
	/* does not fit: end at the last boundary that leaves room for "..." */
	used = cut;
	if (room >= 3) {
		memcpy(out + used, "...", 3);
		used += 3;
	}
	out[used] = 0;
	return used;
}

char *safe_text_dup(const void *in, size_t len, size_t max_bytes, unsigned flags)
{
	/* an escape is at most 6 bytes for one input byte ("\xNN" is 4, "\uNNNN" 6 for 2-3) */
	size_t need = len > (SIZE_MAX - 1) / 6 ? SIZE_MAX - 1 : len * 6;
	size_t cap = (need < max_bytes ? need : max_bytes) + 1;
	char *out = malloc(cap);

	if (out)
		safe_text(out, cap, in, len, flags);
	return out;
}

bool safe_text_is_clean(const void *in, size_t len, unsigned flags)
{
	const unsigned char *p = in;
	struct unit u;

	for (size_t i = 0; i < len; i += u.n) {
		next_unit(p + i, len - i, flags, &u);
		if (u.esc[0])
			return false;
	}
	return true;
}
