/* GPU names and --gpu SPEC: a compute capability or target (8.9, 89, sm_90a, sm_100f)
 * or a product name as nvidia-smi prints it, or any unambiguous part of it, matched on
 * words and digits with case and spacing ignored; a near miss gets "did you mean". */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kb/kb_internal.h"
#include "util/err.h"
#include "util/str.h"

#define MAX_TOKENS 24
#define TOKEN_LEN 24

/* Words of a name, lower-cased; punctuation and blanks separate them, and so does a change
 * between letters and digits, so "rtx4090", "RTX 4090" and "RTX-4090" are the same words. */
struct words {
	char w[MAX_TOKENS][TOKEN_LEN];
	size_t n;
	bool overflow;
};

static bool same_class(char a, char b)
{
	return !!isdigit((unsigned char)a) == !!isdigit((unsigned char)b);
}

static void split_words(const char *s, struct words *out)
{
	memset(out, 0, sizeof(*out));
	while (s && *s) {
		size_t len = 0;
		char first;

		while (*s && !isalnum((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (out->n == MAX_TOKENS) {
			out->overflow = true;
			return;
		}
		first = *s;
		while (isalnum((unsigned char)*s) && same_class(*s, first)) {
			if (len + 1 < TOKEN_LEN)
				out->w[out->n][len++] = (char)tolower((unsigned char)*s);
			else
				out->overflow = true;
			s++;
		}
		out->n++;
	}
}

static bool words_equal(const struct words *a, size_t a_from, const struct words *b)
{
	if (a->n - a_from != b->n)
		return false;
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(a->w[a_from + i], b->w[i]) != 0)
			return false;
	return true;
}

/* How the query's words sit among a name's words. */
enum fit { FIT_TAIL, FIT_RUN, FIT_ORDER, FIT_PREFIX };

static bool word_fits(const char *have, const char *want, bool prefix)
{
	return prefix ? strncmp(have, want, strlen(want)) == 0 : strcmp(have, want) == 0;
}

/* FIT_TAIL: q ends a ("970" in "GTX 970", not in "GTX 970M"); FIT_RUN: q appears in a as
 * consecutive words; FIT_ORDER: q's words appear in a in order
 * ("A100 40GB" in "A100-SXM4-40GB"); FIT_PREFIX: in order, the last one may be the start of
 * a word ("RTX 40" in "RTX 4090"). */
static bool words_fit(const struct words *a, const struct words *q, enum fit how)
{
	if (q->n == 0 || q->n > a->n)
		return false;
	if (how == FIT_TAIL)
		return words_equal(a, a->n - q->n, q);
	if (how == FIT_RUN) {
		for (size_t start = 0; start + q->n <= a->n; start++) {
			size_t i;

			for (i = 0; i < q->n; i++)
				if (strcmp(a->w[start + i], q->w[i]) != 0)
					break;
			if (i == q->n)
				return true;
		}
		return false;
	}
	for (size_t i = 0, j = 0; j < a->n; j++) {
		if (word_fits(a->w[j], q->w[i], how == FIT_PREFIX && i + 1 == q->n) && ++i == q->n)
			return true;
	}
	return false;
}

static bool is_vendor_word(const char *w)
{
	return !strcmp(w, "nvidia") || !strcmp(w, "geforce") || !strcmp(w, "tesla") ||
	       !strcmp(w, "quadro");
}

#define COMPACT_LEN 64

/* A name's letters and digits, lower-cased, vendor words left out: "rtx4090". */
static void compact(const char *s, char *out)
{
	struct words w;
	size_t len = 0;

	split_words(s, &w);
	out[0] = '\0';
	for (size_t i = 0; i < w.n; i++) {
		size_t k = strlen(w.w[i]);

		if (is_vendor_word(w.w[i]) || len + k >= COMPACT_LEN)
			continue;
		memcpy(out + len, w.w[i], k + 1);
		len += k;
	}
}

#define TIER_NONE 8

/* 1 exact name, 2 exact alias (or the alias with its blanks squeezed out: "rtx5090dv2"),
 * 3 name without vendor words (or squeezed), 4 the last words, 5 consecutive words,
 * 6 words in order, 7 words in order ending in the start of a word; TIER_NONE none. qc: the query compacted. */
static int match_tier(const struct kb_gpu *g, const struct words *q, const char *qc)
{
	struct words name, alias[KB_MAX_ALIASES];
	char c[COMPACT_LEN];
	size_t skip = 0;

	split_words(g->name, &name);
	if (words_equal(&name, 0, q))
		return 1;
	for (size_t i = 0; i < g->n_aliases; i++) {
		split_words(g->aliases[i], &alias[i]);
		compact(g->aliases[i], c);
		if (words_equal(&alias[i], 0, q) || !strcmp(c, qc))
			return 2;
	}
	while (skip < name.n && is_vendor_word(name.w[skip]))
		skip++;
	compact(g->name, c);
	if ((skip > 0 && words_equal(&name, skip, q)) || !strcmp(c, qc))
		return 3;
	for (int how = FIT_TAIL; how <= FIT_PREFIX; how++) {
		if (words_fit(&name, q, (enum fit)how))
			return 4 + how;
		for (size_t i = 0; i < g->n_aliases; i++)
			if (words_fit(&alias[i], q, (enum fit)how))
				return 4 + how;
	}
	return TIER_NONE;
}

size_t kb_gpu_search(const char *query, const struct kb_gpu **out, size_t max)
{
	struct words q;
	char qc[COMPACT_LEN];
	int best = TIER_NONE;
	size_t n = 0;

	split_words(query, &q);
	if (q.n == 0 || q.overflow)
		return 0;
	compact(query, qc);
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		int t = match_tier(kb_gpu_at(i), &q, qc);

		if (t < best)
			best = t;
	}
	if (best == TIER_NONE)
		return 0;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		if (match_tier(g, &q, qc) != best)
			continue;
		if (n < max)
			out[n] = g;
		n++;
	}
	return n;
}

/* Characters one has and the other lacks, order ignored: of two names at one edit
 * distance, the one with the same digits is the likelier slip ("4909" is nearer "4090"
 * than "4000"). */
static size_t bag_distance(const char *a, const char *b)
{
	int count[UCHAR_MAX + 1] = { 0 };
	size_t d = 0;

	for (; *a; a++)
		count[(unsigned char)*a]++;
	for (; *b; b++)
		count[(unsigned char)*b]--;
	for (size_t i = 0; i <= UCHAR_MAX; i++)
		d += (size_t)(count[i] < 0 ? -count[i] : count[i]);
	return d;
}

#define NO_DISTANCE SIZE_MAX

/* Edit distance first, the bag distance breaking ties; NO_DISTANCE beyond limit edits. */
static size_t row_distance(const struct kb_gpu *g, const char *q, size_t limit)
{
	char c[COMPACT_LEN];
	size_t best = NO_DISTANCE;

	for (size_t i = 0; i <= g->n_aliases; i++) {
		size_t e, d;

		compact(i == 0 ? g->name : g->aliases[i - 1], c);
		if ((e = str_edit_distance(q, c)) > limit)
			continue;
		d = e * 2 * COMPACT_LEN + bag_distance(q, c);
		if (d < best)
			best = d;
	}
	return best;
}

size_t kb_gpu_suggest(const char *query, const struct kb_gpu **out, size_t max)
{
	char q[COMPACT_LEN];
	size_t limit, best = NO_DISTANCE, n = 0;

	compact(query, q);
	if (strlen(q) < 3)
		return 0;
	limit = str_typo_reach(strlen(q));
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		size_t d = row_distance(kb_gpu_at(i), q, limit);

		if (d < best)
			best = d;
	}
	for (size_t i = 0; best != NO_DISTANCE && i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		if (row_distance(g, q, limit) != best)
			continue;
		if (n < max)
			out[n] = g;
		n++;
	}
	return n;
}

const struct kb_gpu *kb_gpu_by_name(const char *driver_name)
{
	struct words q, name;

	split_words(driver_name, &q);
	if (q.n == 0 || q.overflow)
		return NULL;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		split_words(kb_gpu_at(i)->name, &name);
		if (words_equal(&name, 0, &q))
			return kb_gpu_at(i);
	}
	return NULL;
}

/* A target any toolkit or GPU row knows about. */
static bool arch_known(struct kb_arch a)
{
	if (kb_arch_find(a))
		return true;
	for (size_t i = 0; !a.suffix && i < kb_gpu_count(); i++)
		if (kb_gpu_at(i)->arch == a.num)
			return true;
	return false;
}

static void fill_from_gpu(struct gpu_spec *out, const struct kb_gpu *g)
{
	out->gpu = g;
	out->arch.num = g->arch;
	out->arch.suffix = 0;
	out->cc_major = g->cc_major;
	out->cc_minor = g->cc_minor;
	snprintf(out->label, sizeof(out->label), "%.70s (sm_%d)", g->name, g->arch);
}

#define MAX_CANDIDATES 64

static bool same_memory(const struct kb_gpu *a, const struct kb_gpu *b)
{
	if (a->n_memory_gb == 0 || a->n_memory_gb != b->n_memory_gb)
		return false;
	for (size_t i = 0; i < a->n_memory_gb; i++)
		if (a->memory_gb[i] != b->memory_gb[i])
			return false;
	return true;
}

/* Rows of one target that share a name (memory variants of one product) or their memory
 * (the SXM and PCIe boards of "A100 40GB") are one GPU for every question --gpu answers. */
static bool one_gpu(const struct kb_gpu **c, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (c[i]->arch != c[0]->arch ||
		    (strcmp(c[i]->name, c[0]->name) != 0 && !same_memory(c[i], c[0])))
			return false;
	return true;
}

#define SHOWN_CANDIDATES 8

/* The shortest way the table writes a row: its first alias ("RTX 4090"), else its name. */
static const char *short_name(const struct kb_gpu *g)
{
	return g->n_aliases && strlen(g->aliases[0]) < strlen(g->name) ? g->aliases[0] : g->name;
}

static int list_candidates(const char *spec, const struct kb_gpu **c, size_t n, char *err)
{
	char list[CD_ERRMSG - 96] = "";
	size_t used = 0, shown = 0, names = 0;

	for (size_t i = 0; i < n && i < MAX_CANDIDATES; i++) {
		bool dup = false;
		int w;

		for (size_t j = 0; j < i; j++)
			dup |= strcmp(c[j]->name, c[i]->name) == 0;
		if (dup)
			continue;
		names++;
		if (shown == SHOWN_CANDIDATES)
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s%s", shown ? ", " : "",
			     short_name(c[i]));
		if (w < 0 || (size_t)w >= sizeof(list) - used) {
			list[used] = '\0';
			shown = SHOWN_CANDIDATES;
			continue;
		}
		used += (size_t)w;
		shown++;
	}
	if (names > shown || n > MAX_CANDIDATES)
		return cd_fail(err, CD_EUSAGE,
			       "GPU '%.40s' is ambiguous (%zu matches): %s; and more: "
			       "`cudoctor kb gpu '%.40s'` lists them all", spec, n, list, spec);
	return cd_fail(err, CD_EUSAGE, "GPU '%.40s' is ambiguous (%zu matches): %s", spec, n, list);
}

#define MAX_SUGGESTIONS 4

int kb_gpu_no_match(const char *spec, char *err)
{
	const struct kb_gpu *s[MAX_SUGGESTIONS];
	size_t n = kb_gpu_suggest(spec, s, MAX_SUGGESTIONS);

	if (n == 0)
		return cd_fail(err, CD_EUSAGE,
			       "no known GPU matches '%.60s'; give a compute capability (8.9, sm_89) or "
			       "see `cudoctor kb gpu` for the list", spec);
	if (n > MAX_SUGGESTIONS)
		n = MAX_SUGGESTIONS;
	return cd_fail(err, CD_EUSAGE, "no known GPU matches '%.40s'; did you mean %s%s%s%s%s%s%s?",
		       spec, s[0]->name, n > 1 ? (n > 2 ? ", " : " or ") : "", n > 1 ? s[1]->name : "",
		       n > 2 ? (n > 3 ? ", " : " or ") : "", n > 2 ? s[2]->name : "",
		       n > 3 ? " or " : "", n > 3 ? s[3]->name : "");
}

int kb_parse_gpu_spec(const char *spec, struct gpu_spec *out, char *err)
{
	const struct kb_gpu *c[MAX_CANDIDATES];
	struct kb_arch a;
	bool parsed;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if (!spec || !*spec)
		return cd_fail(err, CD_EUSAGE, "empty GPU spec; give sm_89, 8.9, 89 or a GPU name");
	parsed = kb_arch_parse(spec, &a) == CD_OK;
	if (parsed && arch_known(a)) {
		out->arch = a;
		out->cc_major = kb_arch_major(a);
		out->cc_minor = kb_arch_minor(a);
		kb_arch_format(a, "sm_", out->label, sizeof(out->label));
		return CD_OK;
	}
	n = kb_gpu_search(spec, c, MAX_CANDIDATES);
	if (n == 1 || (n > 1 && n <= MAX_CANDIDATES && one_gpu(c, n))) {
		fill_from_gpu(out, c[0]);
		return CD_OK;
	}
	if (n > 1)
		return list_candidates(spec, c, n, err);
	if (parsed) {
		char cc[16];

		kb_arch_format(a, NULL, cc, sizeof(cc));
		return cd_fail(err, CD_EUSAGE,
			       "'%.40s' is not a known compute capability or target (read as %s%s); "
			       "`cudoctor kb gpu` lists the known GPUs", spec, cc,
			       a.suffix == 'f' ? ", and family targets start at sm_100f" : "");
	}
	return kb_gpu_no_match(spec, err);
}

int kb_gpu_spec_add(const char *spec, struct gpu_spec *specs, size_t max, size_t *n, char *err)
{
	int rc;

	if (*n == max)
		return cd_fail(err, CD_EUSAGE, "at most %zu --gpu", max);
	if ((rc = kb_parse_gpu_spec(spec, &specs[*n], err)) != CD_OK)
		return rc;
	++*n;
	return CD_OK;
}
