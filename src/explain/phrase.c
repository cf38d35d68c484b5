/* A short phrase typed from memory ("no kernel image", "driver too old", "is_available()
 * returns False") read as the error it names: its words found among the texts cudoctor knows
 * errors by (catalogue strings and their older wordings, framework messages, the findings'
 * titles and reasons), the tightest fit taken. */
#include <ctype.h>
#include <string.h>

#include "explain/scan.h"
#include "util/err.h"

#define PHRASE_MAX_BYTES 96
#define PHRASE_MAX_WORDS 8
#define WORD_MAX 40

/* the words a sentence about an error carries besides the error's own: articles, pronouns,
 * auxiliaries, the verbs people put around a quoted message ("returns", "says", "got"), and
 * CUDA itself, which every text here is about */
static const char *const filler[] = {
	"a", "an", "the", "of", "on", "in", "to", "for", "with", "my", "i", "me", "it", "its", "this", "that",
	"is", "are", "was", "be", "been", "am", "get", "gets", "got", "getting", "return", "returns", "returned",
	"say", "says", "said", "show", "shows", "showing", "give", "gives", "gave", "throw", "throws", "raise",
	"raises", "error", "errors", "message", "cuda", "when", "while", "after", "and", "or", "but", "why",
};

struct words {
	char w[PHRASE_MAX_WORDS][WORD_MAX];
	size_t n;
};

static bool is_filler(const char *w)
{
	for (size_t i = 0; i < sizeof(filler) / sizeof(filler[0]); i++)
		if (strcmp(w, filler[i]) == 0)
			return true;
	return false;
}

/* The next word of s[*at..len), lowercased (letters, digits, '_'); false at the end. A word
 * longer than a WORD_MAX is cut, which only makes it match less. */
static bool next_word(const char *s, size_t len, size_t *at, char *w)
{
	size_t i = *at, n = 0;

	while (i < len && !explain_is_ident((unsigned char)s[i]))
		i++;
	if (i == len)
		return false;
	while (i < len && explain_is_ident((unsigned char)s[i])) {
		if (n + 1 < WORD_MAX)
			w[n++] = (char)tolower((unsigned char)s[i]);
		i++;
	}
	w[n] = '\0';
	*at = i;
	return true;
}

/* How well text holds every word of p: the span of text's words from the first to the last
 * found (in order or not), plus a tenth of its length, so a fitting error string beats a long
 * reason that also holds the words; 0 when some word is missing. */
static size_t fit(const struct words *p, const char *text)
{
	size_t first[PHRASE_MAX_WORDS], at = 0, pos = 0, len = strlen(text), lo = (size_t)-1, hi = 0;
	char w[WORD_MAX];

	for (size_t k = 0; k < p->n; k++)
		first[k] = (size_t)-1;
	while (next_word(text, len, &at, w)) {
		pos++;
		for (size_t k = 0; k < p->n; k++)
			if (first[k] == (size_t)-1 && strcmp(w, p->w[k]) == 0)
				first[k] = pos;
	}
	for (size_t k = 0; k < p->n; k++) {
		if (first[k] == (size_t)-1)
			return 0;
		lo = first[k] < lo ? first[k] : lo;
		hi = first[k] > hi ? first[k] : hi;
	}
	return 10 * (hi - lo + 1) + pos;
}

struct best {
	size_t score; /* lower is tighter; 0: none yet */
	const char *finding;
	const struct kb_error *error;
	const struct kb_message *message;
};

static void consider(struct best *b, const struct words *p, const char *text, const char *finding,
		     const struct kb_error *e, const struct kb_message *msg)
{
	size_t s;

	if (!text || !finding || !(s = fit(p, text)))
		return;
	if (!b->score || s < b->score)
		*b = (struct best){ s, finding, e, msg };
}

/* The content words of text, when it is a phrase: one short line of at most PHRASE_MAX_WORDS
 * words, two of them or one identifier (is_available) not filler. */
static bool phrase_words(const char *text, size_t len, struct words *p)
{
	size_t at = 0, all = 0;
	char w[WORD_MAX];
	bool ident = false;

	p->n = 0;
	if (len > PHRASE_MAX_BYTES || memchr(text, '\n', len))
		return false;
	while (next_word(text, len, &at, w)) {
		if (++all > PHRASE_MAX_WORDS)
			return false;
		if (is_filler(w))
			continue;
		ident |= strchr(w, '_') != NULL;
		memcpy(p->w[p->n++], w, WORD_MAX);
	}
	return p->n >= 2 || (p->n == 1 && ident);
}

int explain_phrase(const char *text, size_t len, struct explain_result *r, char *err)
{
	struct words p;
	struct best b = { 0 };
	struct line l = { 0 };
	struct explain_match *m;
	int rc;

	if (r->n || !text || !phrase_words(text, len, &p))
		return CD_OK;
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	/* the texts errors are printed in first: an error's own words fit tighter than a reason */
	for (size_t i = 0; i < kb_error_count(); i++) {
		const struct kb_error *e = kb_error_at(i);

		if (e->code != 0 && e->api != KB_API_NCCL)
			consider(&b, &p, e->string, explain_error_finding(e), e, NULL);
	}
	for (size_t i = 0; i < kb_wording_count(); i++)
		consider(&b, &p, kb_wording_at(i)->string, explain_error_finding(kb_wording_at(i)->error),
			 kb_wording_at(i)->error, NULL);
	for (size_t i = 0; i < kb_message_count(); i++) {
		const struct kb_message *msg = kb_message_at(i);

		if (strcmp(msg->extract, "fallback") != 0)
			for (size_t k = 0; k < msg->n_parts; k++)
				consider(&b, &p, msg->parts[k], msg->finding, NULL, msg);
	}
	if (!b.score) /* else what the findings say of themselves, whole ids only */
		for (size_t i = 0; i < kb_finding_count(); i++) {
			const struct kb_finding *x = kb_finding_at(i);

			if (!strchr(x->finding, '/')) {
				consider(&b, &p, x->title, x->finding, NULL, NULL);
				consider(&b, &p, x->why, x->finding, NULL, NULL);
			}
		}
	if (!b.score)
		return CD_OK;
	l.s = text;
	l.len = len;
	l.no = 1;
	if (!(m = explain_hit(r, b.finding, VIA_PHRASE, &l)))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	m->error = b.error;
	m->message = b.message;
	return CD_OK;
}
