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
	uint32_t *next;       /* n_states * n_classes transitions */
	uint32_t *out_start;  /* n_states + 1: state s ends the patterns out[out_start[s] .. out_start[s+1]) */
	uint32_t *out;
	uint32_t *len;        /* each pattern's length */
	size_t n_patterns;
};

/* Builds the automaton of n patterns (compared ignoring ASCII case; empty ones never match).
 * Pattern i is reported as i. CD_OK or CD_ENOMEM (err filled). */
int ac_build(const char *const *patterns, size_t n, struct ac *out, char *err);
void ac_free(struct ac *a);

static inline uint32_t ac_step(const struct ac *a, uint32_t state, unsigned char c)
{
	return a->next[(size_t)state * a->n_classes + a->cls[c]];
}

static inline bool ac_ends(const struct ac *a, uint32_t state)
{
	return a->out_start[state] != a->out_start[state + 1];
}

#endif
