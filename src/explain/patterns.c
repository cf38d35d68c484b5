/* The strings explain's automaton looks for, built once from the kb: catalogue strings and
 * their older wordings, message parts, status-name prefixes, number keys and the anchors of
 * the context and the readers beside the matcher. */
#include <stdlib.h>
#include <string.h>

#include "explain/scan.h"
#include "explain/text_platform.h"
#include "explain/textfacts.h"
#include "util/err.h"

struct pattern_set pat_set;

struct pat_list {
	const char **text;
	struct pat *pats;
	size_t n, cap;
};

static bool add_pat(struct pat_list *pl, const char *text, struct pat p)
{
	if (pl->n == pl->cap) {
		size_t ncap = pl->cap ? pl->cap * 2 : 256;
		const char **nt = realloc(pl->text, ncap * sizeof(*nt));

		if (!nt)
			return false;
		pl->text = nt;
		struct pat *np = realloc(pl->pats, ncap * sizeof(*np));

		if (!np)
			return false;
		pl->pats = np;
		pl->cap = ncap;
	}
	pl->text[pl->n] = text;
	pl->pats[pl->n++] = p;
	return true;
}

/* A catalogue string is matched as text only where a runtime or driver prints it. */
static bool matchable(const struct kb_error *e)
{
	return e->code != 0 && (e->api == KB_API_RUNTIME || e->api == KB_API_DRIVER) &&
	       strcmp(e->string_source, "header-doc") != 0 && strlen(e->string) >= 8;
}


/* the kb's strings: error names and texts, their other wordings, the messages' parts */
static bool add_kb_pats(struct pat_list *pl)
{
	bool ok = true;

	for (size_t i = 0; i < kb_error_count() && ok; i++) {
		const struct kb_error *e = kb_error_at(i);
		bool dup = false;

		if (!matchable(e))
			continue;
		/* a runtime and a driver code often share a string: the first (runtime) row speaks */
		for (size_t k = 0; k < pl->n && !dup; k++)
			dup = pl->pats[k].kind == PK_ERROR && strcmp(pl->text[k], e->string) == 0;
		if (!dup)
			ok = add_pat(pl, e->string, (struct pat){ PK_ERROR, e, 0, 0 });
	}
	for (size_t i = 0; i < kb_wording_count() && ok; i++)
		ok = add_pat(pl, kb_wording_at(i)->string, (struct pat){ PK_ERROR, kb_wording_at(i)->error, 0, 0 });
	for (size_t i = 0; i < kb_message_count() && ok; i++)
		for (size_t k = 0; k < kb_message_at(i)->n_parts && ok; k++)
			ok = add_pat(pl, kb_message_at(i)->parts[k], (struct pat){ PK_PART, NULL, i, k });
	return ok;
}

int explain_patterns_build(char *err)
{
	static const char *const gpu_words[] = { "nvidia", "gpu" };
	static const char *const wsl_words[] = { "/usr/lib/wsl", "wsl2", "microsoft-standard" };
	/* a kernel launch in the text: an invalid argument beside it is the launch's */
	static const char *const launch_words[] = { "<<<", "launch", "cudaGetLastError", "cudaPeekAtLastError",
						    "blockDim", "threads per block" };
	struct pat_list pl = { 0 };
	size_t n_names, n_keys;
	const char *const *name_prefixes = explain_name_prefixes(&n_names), *const *number_keys = explain_number_keys(&n_keys);
	const struct region_marker *region;
	const char *const *windows, *const *linux_words, *const *rocm, *const *facts;
	const struct tp_marker *platform;
	const struct premise_marker *hint;
	const struct prose_marker *prose;
	size_t n_region, n_windows, n_linux, n_rocm, n_facts, n_platform, n_hint, n_prose;
	bool ok = true;
	int rc;

	if (pat_set.built)
		return CD_OK;
	ok = add_kb_pats(&pl);
	for (size_t i = 0; i < n_names && ok; i++)
		ok = add_pat(&pl, name_prefixes[i], (struct pat){ PK_NAME, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "error_", (struct pat){ PK_NAME, NULL, 0, 0 }); /* Julia's ERROR_INVALID_DEVICE */
	for (size_t i = 0; i < n_keys && ok; i++)
		ok = add_pat(&pl, number_keys[i], (struct pat){ PK_NUMKEY, NULL, 0, 0 });
	ok = ok && add_pat(&pl, " vs. 0)", (struct pat){ PK_NUMKEY, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "cuda", (struct pat){ PK_CUDA, NULL, 0, 0 });
	/* deviceQuery's "Runtime Version": a release marker (explain/eras.c) */
	ok = ok && add_pat(&pl, "runtime version", (struct pat){ PK_RUNTIME_VERSION, NULL, 0, 0 });
	for (size_t i = 0; i < 2 && ok; i++)
		ok = add_pat(&pl, gpu_words[i], (struct pat){ PK_GPU, NULL, 0, 0 });
	for (size_t i = 0; i < 3 && ok; i++)
		ok = add_pat(&pl, wsl_words[i], (struct pat){ PK_WSL, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "torch", (struct pat){ PK_TORCH, NULL, 0, 0 });
	for (size_t i = 0; i < sizeof(launch_words) / sizeof(launch_words[0]) && ok; i++)
		ok = add_pat(&pl, launch_words[i], (struct pat){ PK_LAUNCH, NULL, 0, 0 });
	ok = ok && add_pat(&pl, "supports cuda capabilities ", (struct pat){ PK_SUPPORTS, NULL, 0, 0 });
	ok = ok && add_pat(&pl, " which is of cuda capability ", (struct pat){ PK_CC_OLD, NULL, 0, 0 });
	for (size_t i = 0; i < nccl_log_anchor_count() && ok; i++)
		ok = add_pat(&pl, nccl_log_anchor(i), (struct pat){ PK_NCCL, NULL, i, 0 });
	for (size_t i = 0; i < ggml_mem_anchor_count() && ok; i++)
		ok = add_pat(&pl, ggml_mem_anchor(i), (struct pat){ PK_GGML, NULL, i, 0 });
	for (size_t i = 0; i < tgi_mem_anchor_count() && ok; i++)
		ok = add_pat(&pl, tgi_mem_anchor(i), (struct pat){ PK_TGI, NULL, i, 0 });
	region = explain_region_markers(&n_region);
	for (size_t i = 0; i < n_region && ok; i++)
		ok = add_pat(&pl, region[i].text, (struct pat){ PK_REGION, NULL, (size_t)region[i].region, 0 });
	windows = explain_windows_markers(&n_windows);
	for (size_t i = 0; i < n_windows && ok; i++)
		ok = add_pat(&pl, windows[i], (struct pat){ PK_WINDOWS, NULL, 0, 0 });
	ok = ok && add_pat(&pl, EXPLAIN_EMBEDDED_PYTHON, (struct pat){ PK_EMBEDDED, NULL, 0, 0 });
	linux_words = explain_linux_markers(&n_linux);
	for (size_t i = 0; i < n_linux && ok; i++)
		ok = add_pat(&pl, linux_words[i], (struct pat){ PK_LINUX, NULL, 0, 0 });
	facts = explain_fact_anchors(&n_facts);
	for (size_t i = 0; i < n_facts && ok; i++)
		ok = add_pat(&pl, facts[i], (struct pat){ PK_FACT, NULL, 0, 0 });
	rocm = explain_rocm_markers(&n_rocm);
	for (size_t i = 0; i < n_rocm && ok; i++)
		ok = add_pat(&pl, rocm[i], (struct pat){ PK_ROCM, NULL, 0, 0 });
	platform = text_platform_markers(&n_platform);
	for (size_t i = 0; i < n_platform && ok; i++)
		ok = add_pat(&pl, platform[i].text, (struct pat){ PK_PLATFORM, NULL, i, 0 });
	hint = premise_markers(&n_hint);
	for (size_t i = 0; i < n_hint && ok; i++)
		ok = add_pat(&pl, hint[i].text, (struct pat){ PK_HINT, NULL, hint[i].hint, 0 });
	prose = prose_arch_markers(&n_prose);
	for (size_t i = 0; i < n_prose && ok; i++)
		ok = add_pat(&pl, prose[i].text, (struct pat){ PK_HINT, NULL, (size_t)HINT_PROSE << prose[i].kind, 0 });
	if (!ok) {
		free(pl.text);
		free(pl.pats);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	rc = ac_build(pl.text, pl.n, &pat_set.ac, err);
	if (rc != CD_OK) {
		free(pl.text);
		free(pl.pats);
		return rc;
	}
	pat_set.text = pl.text;
	pat_set.pats = pl.pats;
	pat_set.n = pl.n;
	pat_set.built = true;
	return CD_OK;
}

int explain_patterns(const char *const **texts, size_t *n, char *err)
{
	int rc;

	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if ((rc = explain_patterns_build(err)) != CD_OK)
		return rc;
	*texts = pat_set.text;
	*n = pat_set.n;
	return CD_OK;
}
