/* Aho-Corasick construction: a trie of the case-folded patterns, failure links by breadth-first
 * order, then every missing transition filled from the failure state so scanning is a
 * single table lookup per byte; the pair prefilter; and the scan that uses both. */
#include "explain/ac.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"

/* ASCII only, whatever the locale: the prefilter's fold (c | 0x20) must agree with it */
static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* How often a (folded) byte turns up in a log, per mille, roughly: the prefilter takes each
 * pattern's four bytes with the smallest product. A wrong guess costs speed, never a match. */
static unsigned byte_weight(unsigned char c)
{
	static const char common[] = " etaoinsrlhdcumpfgwy";
	const char *p;

	if (c >= '0' && c <= '9')
		return 30;
	if (c && (p = strchr(common, c)))
		return 150 - (unsigned)(p - common) * 6;
	if (c && strchr(".,/:|[]-_()bv", c))
		return 12;
	return 3;
}

/* four bytes read from memory, the first in the low byte */
static uint32_t le32(uint32_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap32(w);
#else
	return w;
#endif
}

#define GRAM_BITS 20 /* 1 Mi bits: 128 KiB, a few hundred set twice */
#define GRAM_FOLD 0x20202020u /* bytes ORed with 0x20: A-Z as a-z (and some punctuation paired) */

/* two hashes of four folded bytes (the first in the low byte), both set for a pattern's: a
 * text's four bytes are a candidate only when both are set */
static uint32_t gram_hash(uint32_t bytes)
{
	return (bytes * 0x9E3779B1u) >> (32 - GRAM_BITS);
}

static uint32_t gram_hash2(uint32_t bytes)
{
	return (bytes * 0x85EBCA6Bu) >> (32 - GRAM_BITS);
}

/* records the gram of a pattern reaching before and after bytes around it */
static void add_gram(struct ac *a, uint32_t bytes, uint32_t before, uint32_t after)
{
	uint32_t h = gram_hash(bytes), h2 = gram_hash2(bytes);
	size_t j = 0;

	a->gram_bits[h >> 3] |= (uint8_t)(1u << (h & 7));
	a->gram_bits[h2 >> 3] |= (uint8_t)(1u << (h2 & 7));
	while (j < a->n_grams && a->gram_hash[j] < h)
		j++;
	if (j == a->n_grams || a->gram_hash[j] != h) {
		memmove(a->gram_hash + j + 1, a->gram_hash + j, (a->n_grams - j) * sizeof(*a->gram_hash));
		memmove(a->gram_before + j + 1, a->gram_before + j, (a->n_grams - j) * sizeof(*a->gram_before));
		memmove(a->gram_after + j + 1, a->gram_after + j, (a->n_grams - j) * sizeof(*a->gram_after));
		a->gram_hash[j] = h;
		a->gram_before[j] = a->gram_after[j] = 0;
		a->n_grams++;
	}
	if (before > a->gram_before[j])
		a->gram_before[j] = before;
	if (after > a->gram_after[j])
		a->gram_after[j] = after;
}

/* the four bytes of p from offset k (which may start before p or run past it: any byte there,
 * each of them recorded) as a gram of an occurrence reaching before / after around them */
static void add_grams(struct ac *a, const unsigned char *p, size_t len, long k)
{
	long any = -1;
	uint32_t bytes = 0;

	for (long j = 0; j < 4; j++) {
		if (k + j < 0 || k + j >= (long)len)
			any = j; /* at most one here: patterns have three bytes or more */
		else
			bytes |= (uint32_t)p[k + j] << (8 * j);
	}
	for (uint32_t c = 0; c < (any < 0 ? 1u : 256u); c++)
		add_gram(a, (bytes | (any < 0 ? 0 : c << (8 * any))) | GRAM_FOLD, k > 0 ? (uint32_t)k : 0,
			 (uint32_t)((long)len - k));
}

/* Chooses each pattern's rarest five bytes: the prefilter reads four bytes at every second
 * offset, so one of the two grams in them is read wherever the pattern is. A pattern of four
 * has itself and the gram one byte before it; one of three, the grams one byte before and
 * after it. False when out of memory. */
static bool build_grams(const char *const *patterns, size_t n, struct ac *a)
{
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		if (a->len[i] < 3)
			return true; /* no prefilter: every byte is stepped through */
		cap += a->len[i] >= 5 ? 2 : a->len[i] == 4 ? 1 + 128 : 2 * 128;
	}
	a->gram_bits = calloc((size_t)1 << GRAM_BITS >> 3, 1);
	a->gram_hash = calloc(cap ? cap : 1, sizeof(*a->gram_hash));
	a->gram_before = calloc(cap ? cap : 1, sizeof(*a->gram_before));
	a->gram_after = calloc(cap ? cap : 1, sizeof(*a->gram_after));
	if (!a->gram_bits || !a->gram_hash || !a->gram_before || !a->gram_after)
		return false;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)patterns[i];
		size_t best = 0, len = a->len[i];
		unsigned long best_w = (unsigned long)-1;

		for (size_t k = 0; k + 4 < len; k++) {
			unsigned long w = 1;

			for (size_t j = 0; j < 5; j++)
				w *= byte_weight(fold(p[k + j]));
			if (w < best_w) {
				best_w = w;
				best = k;
			}
		}
		if (len == 3)
			add_grams(a, p, len, 0);
		add_grams(a, p, len, len == 3 || len == 4 ? -1 : (long)best + 1);
		if (len >= 4)
			add_grams(a, p, len, (long)best);
	}
	a->use_grams = true;
	return true;
}

void ac_free(struct ac *a)
{
	free(a->next);
	free(a->out_start);
	free(a->out);
	free(a->len);
	free(a->gram_bits);
	free(a->gram_hash);
	free(a->gram_before);
	free(a->gram_after);
	memset(a, 0, sizeof(*a));
}

int ac_build(const char *const *patterns, size_t n, struct ac *a, char *err)
{
	size_t max_states = 1, n_out = 0;
	uint32_t *fail = NULL, *queue = NULL, *own_start = NULL, *own = NULL, *own_n = NULL;
	uint32_t *ends = NULL, *out_n = NULL;
	size_t head = 0, tail = 0;
	int rc = CD_ENOMEM;

	memset(a, 0, sizeof(*a));
	/* classes: one per distinct folded byte the patterns use */
	a->n_classes = 1;
	for (size_t i = 0; i < n; i++)
		for (const unsigned char *p = (const unsigned char *)patterns[i]; *p; p++) {
			unsigned char c = fold(*p);

			if (!a->cls[c]) {
				a->cls[c] = (uint8_t)a->n_classes;
				if (a->n_classes < 255)
					a->n_classes++;
			}
			max_states++;
		}
	for (int c = 0; c < 256; c++)
		a->cls[c] = a->cls[fold((unsigned char)c)];
	a->next = calloc(max_states * a->n_classes, sizeof(*a->next));
	a->len = calloc(n ? n : 1, sizeof(*a->len));
	fail = calloc(max_states, sizeof(*fail));
	queue = calloc(max_states, sizeof(*queue));
	own_n = calloc(max_states, sizeof(*own_n));
	if (!a->next || !a->len || !fail || !queue || !own_n)
		goto out;
	a->n_patterns = n;
	a->n_states = 1;
	/* the trie; transitions of value 0 are "none" until filled (state 0 is the root) */
	ends = calloc(n ? n : 1, sizeof(*ends));
	if (!ends)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = 0;

		a->len[i] = (uint32_t)strlen(patterns[i]);
		for (const unsigned char *p = (const unsigned char *)patterns[i]; *p; p++) {
			uint32_t *t = &a->next[(size_t)s * a->n_classes + a->cls[*p]];

			if (!*t)
				*t = a->n_states++;
			s = *t;
		}
		ends[i] = s;
		if (s)
			own_n[s]++;
	}
	/* each state's own patterns, grouped */
	own_start = calloc(a->n_states + 1, sizeof(*own_start));
	own = calloc(n ? n : 1, sizeof(*own));
	if (!own_start || !own)
		goto out;
	for (uint32_t s = 0; s < a->n_states; s++)
		own_start[s + 1] = own_start[s] + own_n[s];
	memset(own_n, 0, a->n_states * sizeof(*own_n));
	for (size_t i = 0; i < n; i++)
		if (ends[i])
			own[own_start[ends[i]] + own_n[ends[i]]++] = (uint32_t)i;
	/* breadth-first: failure links, missing transitions, and the output count of each state
	 * (its own patterns plus its failure state's) */
	out_n = calloc(a->n_states, sizeof(*out_n));

	if (!out_n)
		goto out;
	for (uint32_t c = 0; c < a->n_classes; c++) {
		uint32_t t = a->next[c];

		if (t) {
			fail[t] = 0;
			queue[tail++] = t;
		}
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		out_n[s] = own_n[s] + out_n[fail[s]];
		for (uint32_t c = 0; c < a->n_classes; c++) {
			uint32_t *t = &a->next[(size_t)s * a->n_classes + c];
			uint32_t f = a->next[(size_t)fail[s] * a->n_classes + c];

			if (*t) {
				fail[*t] = f;
				queue[tail++] = *t;
			} else {
				*t = f;
			}
		}
	}
	a->out_start = calloc(a->n_states + 1, sizeof(*a->out_start));
	if (!a->out_start)
		goto out;
	for (uint32_t s = 0; s < a->n_states; s++)
		a->out_start[s + 1] = a->out_start[s] + out_n[s];
	n_out = a->out_start[a->n_states];
	a->out = calloc(n_out ? n_out : 1, sizeof(*a->out));
	if (!a->out)
		goto out;
	/* in BFS order a state's failure state is complete before it */
	for (size_t q = 0; q < tail; q++) {
		uint32_t s = queue[q], w = a->out_start[s];

		for (uint32_t k = own_start[s]; k < own_start[s + 1]; k++)
			a->out[w++] = own[k];
		for (uint32_t k = a->out_start[fail[s]]; k < a->out_start[fail[s] + 1]; k++)
			a->out[w++] = a->out[k];
	}
	if ((size_t)a->n_states * a->n_classes >= AC_ENDS)
		goto out;
	for (size_t i = 0; i < (size_t)a->n_states * a->n_classes; i++) {
		uint32_t t = a->next[i];

		a->next[i] = t * a->n_classes | (a->out_start[t] != a->out_start[t + 1] ? AC_ENDS : 0);
	}
	if (!build_grams(patterns, n, a))
		goto out;
	rc = CD_OK;
out:
	free(ends);
	free(out_n);
	free(fail);
	free(queue);
	free(own_start);
	free(own);
	free(own_n);
	if (rc != CD_OK) {
		ac_free(a);
		return cd_fail(err, CD_ENOMEM, "pattern matcher: out of memory");
	}
	return CD_OK;
}

/* steps through s[i..to) from *st, storing what ends there */
static size_t step_range(const struct ac *a, const unsigned char *s, size_t i, size_t to, uint32_t *st,
			 struct ac_hit *hits, size_t n, size_t max)
{
	uint32_t t = *st;

	for (; i < to; i++) {
		t = ac_step(a, t, s[i]);
		if (t & AC_ENDS) {
			uint32_t q = ac_state(a, t);

			for (uint32_t k = a->out_start[q]; k < a->out_start[q + 1] && n < max; k++)
				hits[n++] = (struct ac_hit){ a->out[k], (uint32_t)(i + 1) };
		}
	}
	*st = t;
	return n;
}

static bool gram_bit(const struct ac *a, uint32_t h)
{
	return a->gram_bits[h >> 3] >> (h & 7) & 1;
}

/* the first even i >= from where the four bytes at i (spaces past the end) may be a
 * pattern's gram (its index in *g), or len */
static size_t next_gram(const struct ac *a, const unsigned char *s, size_t len, size_t from, size_t *g)
{
	uint32_t w = 0, h = 0;
	size_t i = (from + 1) & ~(size_t)1, lo = 0, hi = a->n_grams;

	for (;; i += 2) {
		if (i + 4 <= len) {
			memcpy(&w, s + i, 4);
		} else if (i < len) {
			unsigned char tail[4] = { ' ', ' ', ' ', ' ' };

			memcpy(tail, s + i, len - i);
			memcpy(&w, tail, 4);
		} else {
			return len;
		}
		w = le32(w) | GRAM_FOLD;
		h = gram_hash(w);
		if (gram_bit(a, h) && gram_bit(a, gram_hash2(w)))
			break;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->gram_hash[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	*g = lo;
	return i;
}

#define AC_WINDOWS 64 /* a text with more candidates is stepped through whole */

/* Every occurrence lies whole inside the window [c - gram_before, c + gram_after) of the
 * candidate c its four bytes are at (the bounds of their hash). The windows, sorted by start
 * and overlapping ones joined, are stepped through from state 0 each: every occurrence is
 * met once, in order, and in the state a full scan would be in there (a longer state would
 * mean a pattern reaching out of its window). */
size_t ac_find(const struct ac *a, const unsigned char *s, size_t len, struct ac_hit *hits, size_t max)
{
	size_t from[AC_WINDOWS], to[AC_WINDOWS], nw = 0, n = 0, c = 0, g = 0;
	uint32_t st = 0;

	if (!a->use_grams)
		return step_range(a, s, 0, len, &st, hits, 0, max);
	while ((c = next_gram(a, s, len, c, &g)) < len) {
		size_t f = c > a->gram_before[g] ? c - a->gram_before[g] : 0;
		size_t t = len - c > a->gram_after[g] ? c + a->gram_after[g] : len;
		size_t k = nw;

		if (nw == AC_WINDOWS)
			return step_range(a, s, 0, len, &st, hits, 0, max);
		for (; k > 0 && from[k - 1] > f; k--) {
			from[k] = from[k - 1];
			to[k] = to[k - 1];
		}
		from[k] = f;
		to[k] = t;
		nw++;
		c++;
	}
	for (size_t w = 0; w < nw && n < max;) {
		size_t f = from[w], t = to[w];

		for (w++; w < nw && from[w] <= t; w++)
			if (to[w] > t)
				t = to[w];
		st = 0;
		n = step_range(a, s, f, t, &st, hits, n, max);
	}
	return n;
}
