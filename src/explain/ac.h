/* A multi-pattern matcher (Aho-Corasick, as a full DFA over ASCII-case-folded bytes): every
 * occurrence of every pattern in one pass, one table step per byte, behind a prefilter of one
 * rare four bytes per pattern so text with no candidate is only looked at, never stepped
 * through. explain's scanner runs it over whole logs; pure, no I/O. */
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
	 * fourth), as classes, hashed into gram_bits; the hashes in gram_hash, ascending, each
	 * with how far an occurrence holding it reaches before the four bytes' start
	 * (gram_before) and after it (gram_after) */
	uint8_t *gram_bits;
	uint32_t *gram_hash, *gram_before, *gram_after;
	size_t n_grams;
	bool use_grams;          /* false when a pattern is shorter than three bytes */
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
 * Returns how many were stored. Only the windows around prefilter candidates are stepped
 * through; the result is the same as stepping through every byte. */
size_t ac_find(const struct ac *a, const unsigned char *s, size_t len, struct ac_hit *hits, size_t max);

#endif
