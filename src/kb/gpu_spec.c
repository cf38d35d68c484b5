/* GPU names and --gpu SPEC: a compute capability or target (8.9, 89, sm_90a, sm_100f)
 * or a product name as nvidia-smi prints it, or any unambiguous part of it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kb/kb_internal.h"
#include "util/err.h"

#define MAX_TOKENS 16
#define TOKEN_LEN 24

/* Words of a name, lower-cased; punctuation and blanks separate them. */
struct words {
	char w[MAX_TOKENS][TOKEN_LEN];
	size_t n;
	bool overflow;
};

static void split_words(const char *s, struct words *out)
{
	memset(out, 0, sizeof(*out));
	while (s && *s) {
		size_t len = 0;

		while (*s && !isalnum((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (out->n == MAX_TOKENS) {
			out->overflow = true;
			return;
		}
		while (isalnum((unsigned char)*s)) {
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

/* q appears in a as consecutive words */
static bool words_contain(const struct words *a, const struct words *q)
{
	if (q->n == 0 || q->n > a->n)
		return false;
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

static bool is_vendor_word(const char *w)
{
	return !strcmp(w, "nvidia") || !strcmp(w, "geforce") || !strcmp(w, "tesla") ||
	       !strcmp(w, "quadro");
}

/* 1 exact name, 2 exact alias, 3 name without vendor words, 4 consecutive words; 0 none */
static int match_tier(const struct kb_gpu *g, const struct words *q)
{
	struct words name, alias;
	size_t skip = 0;
	int tier = 0;

	split_words(g->name, &name);
	if (words_equal(&name, 0, q))
		return 1;
	for (size_t i = 0; i < g->n_aliases; i++) {
		split_words(g->aliases[i], &alias);
		if (words_equal(&alias, 0, q))
			return 2;
		if (words_contain(&alias, q))
			tier = 4;
	}
	while (skip < name.n && is_vendor_word(name.w[skip]))
		skip++;
	if (skip > 0 && words_equal(&name, skip, q))
		return 3;
	if (words_contain(&name, q))
		tier = 4;
	return tier;
}

size_t kb_gpu_search(const char *query, const struct kb_gpu **out, size_t max)
{
	struct words q;
	int best = 5;
	size_t n = 0;

	split_words(query, &q);
	if (q.n == 0 || q.overflow)
		return 0;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		int t = match_tier(kb_gpu_at(i), &q);

		if (t && t < best)
			best = t;
	}
	if (best == 5)
		return 0;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		if (match_tier(g, &q) != best)
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

/* Several rows with one name (memory variants of one product) are one GPU. */
static bool one_product(const struct kb_gpu **c, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(c[i]->name, c[0]->name) != 0 || c[i]->arch != c[0]->arch)
			return false;
	return true;
}

static int list_candidates(const char *spec, const struct kb_gpu **c, size_t n, char *err)
{
	char list[CD_ERRMSG] = "";
	size_t used = 0, shown = 0;

	for (size_t i = 0; i < n && i < MAX_CANDIDATES; i++) {
		bool dup = false;
		int w;

		for (size_t j = 0; j < i; j++)
			dup |= strcmp(c[j]->name, c[i]->name) == 0;
		if (dup)
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s%s", shown ? "; " : "", c[i]->name);
		if (w < 0 || (size_t)w >= sizeof(list) - used) {
			list[used] = '\0';
			break;
		}
		used += (size_t)w;
		shown++;
	}
	return cd_fail(err, CD_EUSAGE, "GPU '%.40s' is ambiguous (%zu matches): %s", spec, n, list);
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
	if (n == 1 || (n > 1 && n <= MAX_CANDIDATES && one_product(c, n))) {
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
	return cd_fail(err, CD_EUSAGE,
		       "no known GPU matches '%.60s'; give a compute capability (8.9, sm_89) or "
		       "see `cudoctor kb gpu` for the list", spec);
}
