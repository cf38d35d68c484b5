/* A multi-pattern matcher: every occurrence of every pattern (ASCII case ignored), in the
 * order an Aho-Corasick scan reports them. A first stage hashes four bytes at every second
 * offset (each pattern's rarest four are in a table), 32 bytes at a time with AVX2 where the
 * CPU has it, one gram at a time elsewhere; a candidate is compared with the patterns whose
 * gram it may be, and a text with very many candidates is stepped through the automaton (a
 * full DFA over folded bytes). explain's scanner walks whole buffers with the first stage and
 * hands on only the lines its candidates fall in (docs/explain.md, "How the scan is fast").
 * Pure, no I/O. */
#ifndef CUDOCTOR_EXPLAIN_AC_H
#define CUDOCTOR_EXPLAIN_AC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ac {
	uint8_t cls[256];     /* byte -> character class (0: a byte no pattern has) */
	uint32_t n_classes;
	uint32_t n_states;
	uint32_t *next;       /* n_states * n_classes transitions, each the target's row offset
			       * (state * n_classes), AC_ENDS set where the target ends a pattern */
	uint32_t *out_start;  /* n_states + 1: state s ends the patterns out[out_start[s] .. out_start[s+1]) */
	uint32_t *out;
	uint32_t *len;        /* each pattern's length */
	size_t n_patterns;
	/* the prefilter: each pattern's rarest four bytes (a pattern of three: those and any
	 * fourth), folded, hashed twice into gram_bits; by the first hash, in grams (open
	 * addressing, gram_mask + 1 entries), the patterns to compare a candidate with:
	 * cmp[start .. start + count), each a pattern and the gram's offset in it (-1: the
	 * gram starts a byte before the pattern) */
	uint8_t *gram_bits;
	struct ac_gram {
		uint32_t key;    /* the hash + 1; 0: empty */
		uint32_t start, count;
	} *grams;
	uint32_t gram_mask;
	size_t n_grams;
	struct ac_cmp {
		uint32_t pat;
		int32_t off;
	} *cmp;
	unsigned char *folded;   /* the patterns' bytes as classes, pattern i from folded_at[i] */
	uint32_t *folded_at;
	bool use_grams;          /* false when a pattern is shorter than three bytes */
	bool simd;               /* the first stage runs vectorised (set by ac_build where the CPU
				  * can; clear it for the portable path, which finds the same) */
};

/* One occurrence: pattern pat ends just before offset end of the text. */
struct ac_hit {
	uint32_t pat;
	uint32_t end;
};

/* Builds the automaton of n patterns (compared ignoring ASCII case; empty ones never match).
 * Pattern i is reported as i. CD_OK or CD_ENOMEM (err filled). */
int ac_build(const char *const *patterns, size_t n, struct ac *out, char *err);
void ac_free(struct ac *a);

#define AC_ENDS 0x80000000u

/* The next state (start: 0), with AC_ENDS set when it ends a pattern: scanning touches one
 * table entry per byte. Pass the result back as it is; ac_state() gives the state's number
 * for out_start. */
static inline uint32_t ac_step(const struct ac *a, uint32_t state, unsigned char c)
{
	return a->next[(state & ~AC_ENDS) + a->cls[c]];
}

static inline uint32_t ac_state(const struct ac *a, uint32_t stepped)
{
	return (stepped & ~AC_ENDS) / a->n_classes;
}

/* Every occurrence in s[0..len) (len < 4 GiB), in the order a plain scan from state 0 would
 * report them (by end, then the automaton's output order), the first max of them in hits.
 * Returns how many were stored. Only the prefilter's candidates are compared with patterns;
 * the result is the same as stepping through every byte. */
size_t ac_find(const struct ac *a, const unsigned char *s, size_t len, struct ac_hit *hits, size_t max);

/* The first stage over a whole buffer s[0..len), as a walk through its candidates in order:
 * at is the current one (len: none left). A candidate is an even offset (counted from s) where
 * the four bytes (spaces past len) pass the prefilter; every occurrence of a pattern has one
 * from one byte before its start to its end (its gram, or the one beside it), so a stretch
 * with no candidate holds no occurrence. explain's scanner walks each buffer once this way and
 * hands on only the lines the candidates fall in; without a prefilter every offset is one. */
struct ac_cursor {
	const unsigned char *s;
	size_t len;
	size_t block;  /* the 32 bytes whose candidates mask holds, bit k for offset block + 2k */
	unsigned mask; /* those not yet passed */
	size_t at;
};

/* The cursor at the first candidate at or after from. */
void ac_cursor_start(const struct ac *a, struct ac_cursor *k, const unsigned char *s, size_t len, size_t from);
void ac_cursor_next(const struct ac *a, struct ac_cursor *k);

/* ac_find over the line s[lo..hi) of the cursor's buffer (hi <= its len; hits[].end counted
 * from lo), from the cursor's candidate on: it must be the first at or after lo - 1. Leaves the
 * cursor at the first candidate at or after hi. */
size_t ac_find_line(const struct ac *a, struct ac_cursor *k, size_t lo, size_t hi, struct ac_hit *hits, size_t max);

#endif
