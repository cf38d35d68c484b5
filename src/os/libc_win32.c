/* libc_win32.h: the GNU and POSIX calls the Windows C runtime lacks, as glibc defines them. */
#include "os/libc_win32.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	while (n--)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return NULL;
}

void *memmem(const void *hay, size_t hn, const void *needle, size_t nn)
{
	const unsigned char *h = hay, *n = needle;

	if (nn == 0)
		return (void *)hay;
	while (hn >= nn) {
		const unsigned char *p = memchr(h, n[0], hn - nn + 1);

		if (!p)
			return NULL;
		if (memcmp(p, n, nn) == 0)
			return (void *)p;
		hn -= (size_t)(p - h) + 1;
		h = p + 1;
	}
	return NULL;
}

char *strcasestr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (_strnicmp(hay, needle, n) == 0)
			return (char *)hay;
	return n == 0 ? (char *)hay : NULL;
}

/* glibc's order: runs of digits compare as numbers ("lib9" < "lib10"); a run with leading
 * zeros reads as a fraction, so "1.01" < "1.1" as in version strings. */
int strverscmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;

	while (*p && *p == *q && !isdigit(*p)) {
		p++;
		q++;
	}
	while (*p || *q) {
		if (isdigit(*p) && isdigit(*q)) {
			const unsigned char *ps = p, *qs = q;
			bool frac = *p == '0' || *q == '0';

			while (isdigit(*p))
				p++;
			while (isdigit(*q))
				q++;
			if (!frac && p - ps != q - qs)
				return (p - ps) < (q - qs) ? -1 : 1;
			for (; ps < p && qs < q; ps++, qs++)
				if (*ps != *qs)
					return *ps < *qs ? -1 : 1;
			if (ps < p || qs < q)
				return ps < p ? 1 : -1;
			continue;
		}
		if (*p != *q)
			return *p < *q ? -1 : 1;
		p++;
		q++;
	}
	return 0;
}

struct sort_ctx {
	int (*cmp)(const void *, const void *, void *);
	void *arg;
};

static int __cdecl sort_tramp(void *ctx, const void *a, const void *b)
{
	const struct sort_ctx *c = ctx;

	return c->cmp(a, b, c->arg);
}

void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg)
{
	struct sort_ctx c = { cmp, arg };

	qsort_s(base, n, size, sort_tramp, &c);
}
