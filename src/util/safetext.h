/* Untrusted bytes (a kernel name, a log line, a GPU name, a node's report) made into text
 * that is safe to print or put in JSON: the one function every printer of input calls. */
#ifndef CUDOCTOR_SAFETEXT_H
#define CUDOCTOR_SAFETEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Keep '\n' and '\t' as they are (multi-line text); without it they are escaped too. */
#define SAFE_TEXT_KEEP_NEWLINES 0x1u

/* Writes in[0..len) into out (cap bytes, NUL-terminated) as valid UTF-8:
 * - well-formed UTF-8 is copied as is (CJK, accents, emoji, tqdm's block characters);
 * - a byte that is not part of a well-formed character (a stray continuation byte, an
 *   overlong form, a surrogate, beyond U+10FFFF, a sequence cut short) becomes "\xNN";
 * - control characters become visible: C0 and DEL as "\xNN" ("\x1b" for ESC), the C1
 *   controls U+0080..U+009F and the bidirectional overrides and isolates (U+202A..U+202E,
 *   U+2066..U+2069, which reorder what a terminal shows) as "\uNNNN";
 * - the result is cut only between characters or escapes, never inside one; when the input
 *   does not fit, it ends with "..." (so a cut is seen). cap 0 writes nothing.
 * Returns the bytes written, without the NUL. Linear in len; reads at most what fits. */
size_t safe_text(char *out, size_t cap, const void *in, size_t len, unsigned flags);

/* The same into a new string of at most max_bytes bytes (plus the NUL); NULL when out of
 * memory. */
char *safe_text_dup(const void *in, size_t len, size_t max_bytes, unsigned flags);

/* True when safe_text would copy in[0..len) unchanged (no escape, no cut at this length). */
bool safe_text_is_clean(const void *in, size_t len, unsigned flags);

#endif
