/* Parsing counts and sizes, printing sizes and counts: one spelling for every command. */
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

static int parse_scaled(const char *s, const char *const *suffixes, const double *scales, size_t n,
			uint64_t *out)
{
	char *end;
	double v, scale = 1;

	if (!s || !*s || *s == '-' || *s == '+')
		return CD_EUSAGE;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return CD_EUSAGE;
	while (*end == ' ')
		end++;
	if (*end) {
		size_t i;

		for (i = 0; i < n; i++)
			if (strcasecmp(end, suffixes[i]) == 0)
				break;
		if (i == n)
			return CD_EUSAGE;
		scale = scales[i];
	}
	v *= scale;
	if (v >= 1.8e19)
		return CD_EUSAGE;
	*out = (uint64_t)(v + 0.5);
	return CD_OK;
}

int units_parse_count(const char *s, uint64_t *out)
{
	static const char *const suf[] = { "k", "m", "b", "g", "t" };
	static const double sc[] = { 1e3, 1e6, 1e9, 1e9, 1e12 };

	return parse_scaled(s, suf, sc, 5, out);
}

/* A context length: "128k" is 131072 tokens, as Llama-3.1's max_position_embeddings and
 * llama.cpp's context sizes mean it (a power of two), never 128000. */
int units_parse_tokens(const char *s, uint64_t *out)
{
	static const char *const suf[] = { "k", "m" };
	static const double sc[] = { 1024.0, 1048576.0 };

	return parse_scaled(s, suf, sc, 2, out);
}

int units_parse_size(const char *s, uint64_t *out)
{
	static const char *const suf[] = { "b", "k", "kib", "kb", "m", "mib", "mb", "g", "gib", "gb",
					   "t", "tib", "tb" };
	static const double sc[] = { 1, 1024.0, 1024.0, 1e3, 1048576.0, 1048576.0, 1e6,
				     1073741824.0, 1073741824.0, 1e9, 1099511627776.0, 1099511627776.0, 1e12 };

	return parse_scaled(s, suf, sc, sizeof sc / sizeof sc[0], out);
}

const char *units_fmt_bytes(uint64_t bytes, char *buf, size_t cap)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t u = 0;
	double v, tenths;

	if (bytes < 1024) {
		snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
		return buf;
	}
	v = (double)bytes / 1024;
	/* move up while the rounded value would read 1024 or more: 1023.97 MiB is "1 GiB" */
	while (v >= 1023.95 && u + 1 < sizeof units / sizeof units[0]) {
		v /= 1024;
		u++;
	}
	tenths = round(v * 10);
	if (fmod(tenths, 10) == 0)
		snprintf(buf, cap, "%.0f %s", tenths / 10, units[u]);
	else
		snprintf(buf, cap, "%.1f %s", tenths / 10, units[u]);
	return buf;
}

const char *units_fmt_count(uint64_t n, char *buf, size_t cap)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < cap; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (cap)
		buf[o < cap ? o : cap - 1] = 0;
	return buf;
}
