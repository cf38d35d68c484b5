/* UTF-16 text (a log Windows PowerShell 5.1 wrote with `>` or Out-File: UTF-16LE behind a
 * byte order mark) made UTF-8 as it is read, a piece at a time, for readers of UTF-8 text. */
#ifndef CUDOCTOR_UTIL_UTF16_H
#define CUDOCTOR_UTIL_UTF16_H

#include <stdbool.h>
#include <stddef.h>

struct utf16_stream {
	int order;               /* 0: not decided yet, 1: UTF-16LE, 2: UTF-16BE, -1: not UTF-16 */
	unsigned char pending;   /* a code unit's first byte, cut off at the end of a piece */
	bool has_pending;
	unsigned high;           /* a high surrogate waiting for its low one, or 0 */
};

/* The most bytes utf16_to_utf8 writes for n bytes in. */
#define UTF16_UTF8_MAX(n) ((n) / 2 * 3 + 8)

void utf16_init(struct utf16_stream *s);
/* Whether the text is UTF-16: decided by the first piece (a byte order mark, FF FE or FE FF,
 * at its start), false for any other text. */
bool utf16_detect(struct utf16_stream *s, const unsigned char *in, size_t n);
/* Where UTF-16LE text starts in a piece of a text read as UTF-8 so far: what Windows
 * PowerShell 5.1's >> appends to a UTF-8 log (no mark, or FF FE). Found by its first units,
 * ASCII characters each followed by a zero byte; n when the piece has none. A piece that starts
 * with such a zero byte gives 1: its character went with the piece before (and reads the same in
 * UTF-8). Linear in n. */
size_t utf16_appended_at(const unsigned char *in, size_t n);
/* Converts the next n bytes of a UTF-16 text into out (UTF16_UTF8_MAX(n) bytes); returns
 * the bytes written. The mark is dropped; a surrogate without its pair becomes U+FFFD. */
size_t utf16_to_utf8(struct utf16_stream *s, const unsigned char *in, size_t n, char *out);

/* A whole text as UTF-8: past a UTF-8 byte order mark (Out-File -Encoding utf8 writes one);
 * behind a UTF-16 mark, converted into a new buffer *owned that the caller frees; else data
 * as it is. *text and *len are what to read. CD_OK or CD_ENOMEM. */
int utf16_text_as_utf8(const unsigned char *data, size_t size, char **owned, const unsigned char **text,
		       size_t *len);

#endif
