/* Shared by the tests of hostile text: what cudoctor printed is valid UTF-8 with no byte a
 * terminal acts on, and so is every string of its JSON. Written apart from
 * src/util/safetext.c (its own reading of the standard), so no test grades the code by itself. */
#ifndef CUDOCTOR_TEST_SAFE_CHECK_H
#define CUDOCTOR_TEST_SAFE_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The code point a terminal would act on: C0 and DEL (not newline or tab), C1, and the
 * bidirectional overrides and isolates that reorder what is shown. */
static inline bool acted_on(uint32_t cp)
{
	return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* s[0..n) is well-formed UTF-8 (RFC 3629: no overlong form, no surrogate, nothing past
 * U+10FFFF) without a code point acted on; *bad is where it fails. */
static inline bool safe_bytes(const char *s, size_t n, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t len = p[i] < 0x80 ? 1 : (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 : (p[i] & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = len == 1 ? p[i] : len ? p[i] & (0xffu >> (len + 1)) : 0;
		static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };

		if (len == 0 || i + len > n)
			goto fail;
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto fail;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if (cp < least[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || acted_on(cp))
			goto fail;
		i += len;
		continue;
fail:
		if (bad)
			*bad = i;
		return false;
	}
	return true;
}

static inline bool safe_printed(const char *s)
{
	return safe_bytes(s, strlen(s), NULL);
}

/* Every string value of j, however deep, is safe as above. */
static inline bool json_strings_safe(const json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return safe_bytes(json_string_value(j), json_string_length(j), NULL);
	if (json_is_array(j))
		json_array_foreach((json_t *)j, i, v)
			if (!json_strings_safe(v))
				return false;
	if (json_is_object(j))
		json_object_foreach((json_t *)j, key, v)
			if (!json_strings_safe(v))
				return false;
	return true;
}

#endif
