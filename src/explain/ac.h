/* A multi-pattern matcher (Aho-Corasick, as a full DFA over ASCII-case-folded bytes): every
 * occurrence of every pattern in one pass, one table step per byte. explain's scanner runs
 * it over whole logs; pure, no I/O. */
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

#endif
