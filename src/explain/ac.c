/* Aho-Corasick construction: a trie of the case-folded patterns, failure links by breadth-first
 * order, then every missing transition filled from the failure state so scanning is a
 * single table lookup per byte; the gram prefilter and what each gram is compared with; the
 * first stage (portable and AVX2) and the scan that uses it. */
#include "explain/ac.h"

#include <stdlib.h>
#include <string.h>

#include "util/cpu.h"
#include "util/err.h"
#include "util/sort.h"

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

/* the entry of hash h: its own, or the empty one where it would go */
static struct ac_gram *gram_slot(const struct ac *a, uint32_t h)
{
	size_t i = h & a->gram_mask;

	while (a->grams[i].key && a->grams[i].key != h + 1)
		i = (i + 1) & a->gram_mask;
	return &a->grams[i];
}

/* one gram of one pattern, while the table is built */
struct gram_rec {
	uint32_t hash, pat;
	int32_t off;
};

static int rec_cmp(const void *x, const void *y)
{
	const struct gram_rec *a = x, *b = y;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	if (a->pat != b->pat)
		return a->pat < b->pat ? -1 : 1;
	return (a->off > b->off) - (a->off < b->off);
}

/* the four bytes of pattern pat (p, len bytes) from offset k (which may start before p or
 * run past it: any byte there, each of them recorded) */
static void add_grams(struct ac *a, struct gram_rec *recs, size_t *n, uint32_t pat, const unsigned char *p,
		      size_t len, long k)
{
	long any = -1;
	uint32_t bytes = 0;

	for (long j = 0; j < 4; j++) {
		if (k + j < 0 || k + j >= (long)len)
			any = j; /* at most one here: patterns have three bytes or more */
		else
			bytes |= (uint32_t)p[k + j] << (8 * j);
	}
	for (uint32_t c = 0; c < (any < 0 ? 1u : 256u); c++) {
		uint32_t w = (bytes | (any < 0 ? 0 : c << (8 * any))) | GRAM_FOLD;
		uint32_t h = gram_hash(w), h2 = gram_hash2(w);

		a->gram_bits[h >> 3] |= (uint8_t)(1u << (h & 7));
		a->gram_bits[h2 >> 3] |= (uint8_t)(1u << (h2 & 7));
		recs[(*n)++] = (struct gram_rec){ h, pat, (int32_t)k };
	}
}

/* Chooses each pattern's rarest five bytes: the prefilter reads four bytes at every second
 * offset, so one of the two grams in them is read wherever the pattern is. A pattern of four
 * has itself and the gram one byte before it; one of three, the grams one byte before and
 * after it. Then, by the first hash, which patterns at which offsets to compare a candidate
 * with. False when out of memory. */
static bool build_grams(const char *const *patterns, size_t n, struct ac *a)
{
	size_t cap = 0, n_recs = 0, text = 0, distinct = 0;
	struct gram_rec *recs;

	for (size_t i = 0; i < n; i++) {
		if (a->len[i] < 3)
			return true; /* no prefilter: every byte is stepped through */
		cap += a->len[i] >= 5 ? 2 : a->len[i] == 4 ? 1 + 256 : 2 * 256;
		text += a->len[i];
	}
	a->gram_bits = calloc((size_t)1 << GRAM_BITS >> 3, 1);
	a->folded = malloc(text ? text : 1);
	a->folded_at = calloc(n ? n : 1, sizeof(*a->folded_at));
	a->cmp = calloc(cap ? cap : 1, sizeof(*a->cmp));
	recs = calloc(cap ? cap : 1, sizeof(*recs));
	if (!a->gram_bits || !a->folded || !a->folded_at || !a->cmp || !recs) {
		free(recs);
		return false;
	}
	text = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)patterns[i];
		size_t best = 0, len = a->len[i];
		unsigned long best_w = (unsigned long)-1;

		a->folded_at[i] = (uint32_t)text;
		for (size_t j = 0; j < len; j++)
			a->folded[text++] = a->cls[p[j]];
		/* both grams of the five bytes are read in text (one of them wherever the pattern
		 * is): the pair whose grams are least common together, not one rare byte that only
		 * one of them holds */
		for (size_t k = 0; k + 4 < len; k++) {
			unsigned long w0 = 1, w1 = 1;

			for (size_t j = 0; j < 4; j++) {
				w0 *= byte_weight(fold(p[k + j]));
				w1 *= byte_weight(fold(p[k + 1 + j]));
			}
			if (w0 + w1 < best_w) {
				best_w = w0 + w1;
				best = k;
			}
		}
		if (len == 3)
			add_grams(a, recs, &n_recs, (uint32_t)i, p, len, 0);
		add_grams(a, recs, &n_recs, (uint32_t)i, p, len, len == 3 || len == 4 ? -1 : (long)best + 1);
		if (len >= 4)
			add_grams(a, recs, &n_recs, (uint32_t)i, p, len, (long)best);
	}
	/* by hash, each (pattern, offset) once: the case variants of a byte fold together */
	cd_qsort(recs, n_recs, sizeof(*recs), rec_cmp);
	/* the table at most a quarter full of the distinct hashes (far fewer than the records: a
	 * short pattern's 256 neighbour bytes fold to 128 and share hashes): a lookup is one or
	 * two probes, and the table stays small enough to stay in cache */
	for (size_t r = 0; r < n_recs; r++)
		distinct += r == 0 || recs[r].hash != recs[r - 1].hash;
	for (a->gram_mask = 15; a->gram_mask < 4 * distinct; a->gram_mask = a->gram_mask * 2 + 1)
		;
	a->grams = calloc((size_t)a->gram_mask + 1, sizeof(*a->grams));
	if (!a->grams) {
		free(recs);
		return false;
	}
	for (size_t r = 0, w = 0; r < n_recs; r++) {
		struct ac_gram *g;

		if (r > 0 && rec_cmp(&recs[r], &recs[r - 1]) == 0)
			continue;
		g = gram_slot(a, recs[r].hash);
		if (!g->key) {
			g->key = recs[r].hash + 1;
			g->start = (uint32_t)w;
			a->n_grams++;
		}
		g->count++;
		a->cmp[w++] = (struct ac_cmp){ recs[r].pat, recs[r].off };
	}
	free(recs);
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
	free(a->grams);
	free(a->folded);
	free(a->folded_at);
	free(a->cmp);
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
	a->simd = cpu_has_avx2();
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

/* the four bytes at i, folded; spaces past len */
static uint32_t gram_at(const unsigned char *s, size_t len, size_t i)
{
	uint32_t w;

	if (i + 4 <= len) {
		memcpy(&w, s + i, 4);
	} else {
		unsigned char tail[4] = { ' ', ' ', ' ', ' ' };

		memcpy(tail, s + i, len - i);
		memcpy(&w, tail, 4);
	}
	return le32(w) | GRAM_FOLD;
}

/* The first stage reads 32 bytes a step: the sixteen grams at their even offsets, as a mask
 * (bit k: offset 2k) of those whose first hash is in the table; p has 34 bytes. */
static unsigned block_portable(const struct ac *a, const unsigned char *p)
{
	unsigned m = 0;

	for (unsigned k = 0; k < 16; k++) {
		uint32_t w;

		memcpy(&w, p + 2 * k, 4);
		m |= (unsigned)gram_bit(a, gram_hash(le32(w) | GRAM_FOLD)) << k;
	}
	return m;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AC_HAVE_AVX2 1

/* bit k of x to bit 2k */
static unsigned spread8(unsigned x)
{
	x = (x | x << 4) & 0x0F0Fu;
	x = (x | x << 2) & 0x3333u;
	return (x | x << 1) & 0x5555u;
}

/* The same on AVX2: two loads give the grams at offsets 0, 4, .. and 2, 6, ..; their hashes
 * eight lanes at a time, the table's bits gathered. */
__attribute__((target("avx2"))) static unsigned block_avx2(const struct ac *a, const unsigned char *p)
{
	const __m256i fold = _mm256_set1_epi32((int)GRAM_FOLD), mul = _mm256_set1_epi32((int)0x9E3779B1u);
	const __m256i low5 = _mm256_set1_epi32(31);
	const int *bits = (const int *)(const void *)a->gram_bits;
	__m256i w0 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)p), fold);
	__m256i w2 = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)(p + 2)), fold);
	__m256i h0 = _mm256_srli_epi32(_mm256_mullo_epi32(w0, mul), 32 - GRAM_BITS);
	__m256i h2 = _mm256_srli_epi32(_mm256_mullo_epi32(w2, mul), 32 - GRAM_BITS);
	__m256i b0 = _mm256_i32gather_epi32(bits, _mm256_srli_epi32(h0, 5), 4);
	__m256i b2 = _mm256_i32gather_epi32(bits, _mm256_srli_epi32(h2, 5), 4);

	/* each lane's bit to the lane's sign, for movemask */
	b0 = _mm256_sllv_epi32(b0, _mm256_sub_epi32(low5, _mm256_and_si256(h0, low5)));
	b2 = _mm256_sllv_epi32(b2, _mm256_sub_epi32(low5, _mm256_and_si256(h2, low5)));
	return spread8((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(b0))) |
	       spread8((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(b2))) << 1;
}
#endif

/* The 34 bytes of the block at s + i (i < len): in place, or near the end copied out with
 * spaces after them, as gram_at reads past the end. */
static inline const unsigned char *block_bytes(const unsigned char *s, size_t i, size_t len, unsigned char *tail)
{
	if (len - i >= 34)
		return s + i;
	memset(tail, ' ', 34);
	memcpy(tail, s + i, len - i);
	return tail;
}

/* a block's first-hash mask with the offsets at or past the end (left bytes on) cut off and
 * the second hash applied */
static inline unsigned block_finish(const struct ac *a, const unsigned char *p, unsigned m, size_t left)
{
	unsigned c = 0;

	if (left < 32)
		m &= (1u << ((left + 1) / 2)) - 1;
	for (; m; m &= m - 1) {
		unsigned k = (unsigned)__builtin_ctz(m);
		uint32_t w;

		memcpy(&w, p + 2 * k, 4);
		if (gram_bit(a, gram_hash2(le32(w) | GRAM_FOLD)))
			c |= 1u << k;
	}
	return c;
}

#ifdef AC_HAVE_AVX2
__attribute__((target("avx2"))) static size_t find_block_avx2(const struct ac *a, const unsigned char *s, size_t i,
							      size_t len, unsigned *m)
{
	unsigned char tail[34];

	for (; i < len; i += 32) {
		const unsigned char *p = block_bytes(s, i, len, tail);

		if ((*m = block_finish(a, p, block_avx2(a, p), len - i)))
			return i;
	}
	return len;
}
#endif

/* The first block (32 bytes at an even offset) at or after i with a candidate, its
 * candidates in *m (bit k: offset 2k), or len: the first stage's loop. */
static size_t find_block(const struct ac *a, const unsigned char *s, size_t i, size_t len, unsigned *m)
{
	unsigned char tail[34];

#ifdef AC_HAVE_AVX2
	if (a->simd)
		return find_block_avx2(a, s, i, len, m);
#endif
	for (; i < len; i += 32) {
		const unsigned char *p = block_bytes(s, i, len, tail);

		if ((*m = block_finish(a, p, block_portable(a, p), len - i)))
			return i;
	}
	return len;
}

/* the cursor's next candidate: from its mask, else from the next block that has one */
static void cursor_settle(const struct ac *a, struct ac_cursor *k)
{
	if (!k->mask)
		k->block = find_block(a, k->s, k->block + 32, k->len, &k->mask);
	k->at = k->block < k->len ? k->block + 2 * (size_t)__builtin_ctz(k->mask) : k->len;
}

void ac_cursor_start(const struct ac *a, struct ac_cursor *k, const unsigned char *s, size_t len, size_t from)
{
	k->s = s;
	k->len = len;
	k->mask = 0;
	if (!a->use_grams) {
		k->block = from;
		k->at = from < len ? from : len; /* every offset may start one */
		return;
	}
	k->block = find_block(a, s, (from + 1) & ~(size_t)1, len, &k->mask);
	k->at = k->block < len ? k->block + 2 * (size_t)__builtin_ctz(k->mask) : len;
}

void ac_cursor_next(const struct ac *a, struct ac_cursor *k)
{
	if (!a->use_grams) {
		k->at += k->at < k->len;
		return;
	}
	k->mask &= k->mask - 1;
	cursor_settle(a, k);
}

#define AC_CANDIDATES 64 /* a text with more candidates is stepped through whole */
#define AC_FOUND 512     /* and one with more occurrences found by comparing */

/* pattern p at s[o..), compared as the automaton compares: by character class */
static bool same_folded(const struct ac *a, uint32_t p, const unsigned char *s)
{
	const unsigned char *f = a->folded + a->folded_at[p];

	for (uint32_t j = 0; j < a->len[p]; j++)
		if (a->cls[s[j]] != f[j])
			return false;
	return true;
}

/* the order a plain scan reports in: by end; at one end the longer first (the automaton's
 * state before its suffixes), equal ones by number */
static bool hit_before(const struct ac *a, struct ac_hit x, struct ac_hit y)
{
	if (x.end != y.end)
		return x.end < y.end;
	if (a->len[x.pat] != a->len[y.pat])
		return a->len[x.pat] > a->len[y.pat];
	return x.pat < y.pat;
}

/* Every occurrence has its gram at an even offset (of s) within one byte before it, a
 * candidate: each candidate is compared with the patterns whose gram has its hash, at the
 * offset the gram has in them, and what matches is sorted into the plain scan's order. An
 * occurrence is found once, from the one of its two grams at an even offset. A text with very
 * many candidates or occurrences (a log of nothing but "cuda") is stepped through whole,
 * which gives the same. Offsets in hits are from lo. */
size_t ac_find_line(const struct ac *a, struct ac_cursor *k, size_t lo, size_t hi, struct ac_hit *hits, size_t max)
{
	const unsigned char *s = k->s;
	struct ac_hit found[AC_FOUND];
	size_t n = 0, cands = 0;
	uint32_t st = 0;

	if (!a->use_grams)
		goto whole;
	for (; k->at < hi; ac_cursor_next(a, k)) {
		size_t c = k->at;
		const struct ac_gram *g = gram_slot(a, gram_hash(gram_at(s, k->len, c)));

		if (++cands > AC_CANDIDATES)
			goto whole;
		/* (a hash no gram has as its first is the other's bit: nothing to compare) */
		for (uint32_t e = g->start; g->key && e < g->start + g->count; e++) {
			uint32_t p = a->cmp[e].pat;
			long o = (long)c - a->cmp[e].off;
			size_t j;

			if (o < (long)lo || (size_t)o + a->len[p] > hi || !same_folded(a, p, s + o))
				continue;
			if (n == AC_FOUND)
				goto whole;
			found[n] = (struct ac_hit){ p, (uint32_t)((size_t)o + a->len[p] - lo) };
			for (j = n++; j > 0 && hit_before(a, found[j], found[j - 1]); j--) {
				struct ac_hit t = found[j];

				found[j] = found[j - 1];
				found[j - 1] = t;
			}
		}
	}
	if (n > max)
		n = max;
	memcpy(hits, found, n * sizeof(*hits));
	return n;
whole:
	ac_cursor_start(a, k, s, k->len, hi);
	return step_range(a, s + lo, 0, hi - lo, &st, hits, 0, max);
}

size_t ac_find(const struct ac *a, const unsigned char *s, size_t len, struct ac_hit *hits, size_t max)
{
	struct ac_cursor k;

	ac_cursor_start(a, &k, s, len, 0);
	return ac_find_line(a, &k, 0, len, hits, max);
}
