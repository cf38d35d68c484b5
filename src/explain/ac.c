/* Aho-Corasick construction: a trie of the case-folded patterns, failure links by breadth-first
 * order, then every missing transition filled from the failure state so scanning is a
 * single table lookup per byte. */
#include "explain/ac.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static unsigned char fold(unsigned char c)
{
	return (unsigned char)tolower(c);
}

void ac_free(struct ac *a)
{
	free(a->next);
	free(a->out_start);
	free(a->out);
	free(a->len);
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
