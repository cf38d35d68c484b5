/* Loading kb/amd_targets.tsv, kb/amd_gpus.tsv and kb/rocm_builds.tsv into typed rows, once.
 * Every field is checked, and the tables against each other (a GPU's gfx and a build's
 * targets are processors amd_targets.tsv knows); a malformed row is an error naming file,
 * line and column. */
#include "kb/amd.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kb/tsv.h"
#include "util/err.h"

static struct {
	bool tried;
	int status;
	char err[CD_ERRMSG];
	struct tsv_table targets_t, gpus_t, builds_t;
	struct kb_amd_target *targets;
	size_t n_targets;
	struct kb_amd_gpu *gpus;
	size_t n_gpus;
	struct kb_rocm_build *builds;
	size_t n_builds;
	char *alias_buf;
} adb;

static const char *target_cols[] = {"processor", "generic", "features", "sramecc_default", "uncertain", "source",
				    "notes"};
static const char *gpu_cols[] = {"name", "aliases", "gfx", "vram_gb", "segment", "rocm", "uncertain", "source",
				 "notes"};
static const char *build_cols[] = {"framework", "release", "variant", "rocm", "targets", "install", "uncertain",
				   "source", "notes"};

/* "gfx90a", "gfx1100", "gfx11-generic": lowercase letters, digits and dashes after "gfx" */
static bool is_processor(const char *s)
{
	if (strncmp(s, "gfx", 3) != 0 || !s[3])
		return false;
	for (const char *p = s + 3; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '-')
			return false;
	return true;
}

static const struct kb_amd_target *target_in(const char *processor)
{
	for (size_t i = 0; i < adb.n_targets; i++)
		if (strcmp(adb.targets[i].processor, processor) == 0)
			return &adb.targets[i];
	return NULL;
}

static int load_targets(const struct tsv_table *t, char *err)
{
	if (!(adb.targets = calloc(t->nrows ? t->nrows : 1, sizeof(*adb.targets))))
		return cd_fail(err, CD_ENOMEM, "amd_targets.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_amd_target *x = &adb.targets[i];
		const char *gen = tsv_cell(t, i, 1), *feat = tsv_cell(t, i, 2), *ecc = tsv_cell(t, i, 3);
		x->processor = tsv_cell(t, i, 0);
		if (!is_processor(x->processor) || strstr(x->processor, "generic"))
			return tsv_bad(t, i, "processor", "expected a processor like gfx90a", err);
		if (target_in(x->processor))
			return tsv_bad(t, i, "processor", "listed twice", err);
		if (strcmp(gen, "-") != 0) {
			size_t n = strlen(gen);
			if (!is_processor(gen) || n < 8 || strcmp(gen + n - 8, "-generic") != 0)
				return tsv_bad(t, i, "generic", "expected '-' or a generic processor like gfx11-generic", err);
			x->generic = gen;
		}
		if (strcmp(feat, "-") != 0) {
			if (strcmp(feat, "xnack") && strcmp(feat, "sramecc xnack"))
				return tsv_bad(t, i, "features", "expected '-', 'xnack' or 'sramecc xnack'", err);
			x->xnack = true;
			x->sramecc = feat[0] == 's';
		}
		if (strcmp(ecc, "on") == 0 || strcmp(ecc, "off") == 0)
			x->sramecc_default = ecc[1] == 'n';
		else if (strcmp(ecc, "-") == 0)
			x->sramecc_default = -1;
		else
			return tsv_bad(t, i, "sramecc_default", "expected on, off or '-'", err);
		if (x->sramecc_default >= 0 && !x->sramecc)
			return tsv_bad(t, i, "sramecc_default", "a processor without sramecc has no default for it", err);
		if (!tsv_yes_no(tsv_cell(t, i, 4), &x->uncertain))
			return tsv_bad(t, i, "uncertain", "expected yes or no", err);
		x->source = tsv_cell(t, i, 5);
		if (!*x->source)
			return tsv_bad(t, i, "source", "empty", err);
		x->notes = tsv_cell(t, i, 6);
		adb.n_targets++;
	}
	return CD_OK;
}

/* "6.0-", "3.0-6.4" or "-" */
static bool parse_rocm_range(const char *s, struct kb_amd_gpu *g)
{
	const char *dash = strchr(s, '-');
	if (strcmp(s, "-") == 0)
		return true;
	if (!dash || !tsv_version(s, (size_t)(dash - s), &g->rocm_first))
		return false;
	g->rocm = true;
	if (dash[1]) {
		if (!tsv_version(dash + 1, strlen(dash + 1), &g->rocm_last) || version_cmp(&g->rocm_last, &g->rocm_first) < 0)
			return false;
		g->has_last = true;
	}
	return true;
}

static int load_gpus(const struct tsv_table *t, char *err)
{
	size_t alias_bytes = 0;
	for (size_t i = 0; i < t->nrows; i++)
		alias_bytes += strlen(tsv_cell(t, i, 1)) + 1;
	if (!(adb.gpus = calloc(t->nrows ? t->nrows : 1, sizeof(*adb.gpus))) || !(adb.alias_buf = malloc(alias_bytes + 1)))
		return cd_fail(err, CD_ENOMEM, "amd_gpus.tsv: out of memory");
	char *ab = adb.alias_buf;
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_amd_gpu *g = &adb.gpus[i];
		const char *vram = tsv_cell(t, i, 3), *aliases = tsv_cell(t, i, 1);
		g->name = tsv_cell(t, i, 0);
		if (strncmp(g->name, "AMD ", 4) != 0)
			return tsv_bad(t, i, "name", "expected the name AMD gives it, starting with 'AMD '", err);
		strcpy(ab, aliases);
		for (char *a = strtok(ab, ";"); a; a = strtok(NULL, ";")) {
			if (g->n_aliases == KB_AMD_MAX_ALIASES)
				return tsv_bad(t, i, "aliases", "more than 4", err);
			g->aliases[g->n_aliases++] = a;
		}
		ab += strlen(aliases) + 1;
		g->gfx = tsv_cell(t, i, 2);
		if (!target_in(g->gfx))
			return tsv_bad(t, i, "gfx", "not a processor of amd_targets.tsv", err);
		if (strcmp(vram, "-") != 0) {
			char *end;
			g->vram_gb = strtod(vram, &end);
			if (*end || g->vram_gb <= 0 || g->vram_gb > 4096)
				return tsv_bad(t, i, "vram_gb", "expected '-' or a size in GB", err);
		}
		g->segment = tsv_cell(t, i, 4);
		if (strcmp(g->segment, "Instinct") && strcmp(g->segment, "Radeon PRO") && strcmp(g->segment, "Radeon") &&
		    strcmp(g->segment, "APU"))
			return tsv_bad(t, i, "segment", "expected Instinct, Radeon PRO, Radeon or APU", err);
		g->rocm_text = tsv_cell(t, i, 5);
		if (!parse_rocm_range(g->rocm_text, g))
			return tsv_bad(t, i, "rocm", "expected '-', 'X.Y-' or 'X.Y-X.Y'", err);
		if (!tsv_yes_no(tsv_cell(t, i, 6), &g->uncertain))
			return tsv_bad(t, i, "uncertain", "expected yes or no", err);
		g->source = tsv_cell(t, i, 7);
		if (!*g->source)
			return tsv_bad(t, i, "source", "empty", err);
		g->notes = tsv_cell(t, i, 8);
		adb.n_gpus++;
	}
	return CD_OK;
}

static int load_builds(const struct tsv_table *t, char *err)
{
	if (!(adb.builds = calloc(t->nrows ? t->nrows : 1, sizeof(*adb.builds))))
		return cd_fail(err, CD_ENOMEM, "rocm_builds.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_rocm_build *b = &adb.builds[i];
		char *targets = tsv_cell(t, i, 4) ? (char *)tsv_cell(t, i, 4) : NULL;
		b->framework = tsv_cell(t, i, 0);
		if (strcmp(b->framework, "torch") && strcmp(b->framework, "jax"))
			return tsv_bad(t, i, "framework", "expected torch or jax", err);
		b->release = tsv_cell(t, i, 1);
		if (!tsv_version(b->release, strlen(b->release), &b->release_v) || b->release_v.parts != 3)
			return tsv_bad(t, i, "release", "expected a release like 2.8.0", err);
		b->variant = tsv_cell(t, i, 2);
		if (!*b->variant)
			return tsv_bad(t, i, "variant", "empty", err);
		if (!tsv_version(tsv_cell(t, i, 3), strlen(tsv_cell(t, i, 3)), &b->rocm) || b->rocm.parts != 2)
			return tsv_bad(t, i, "rocm", "expected a ROCm release like 6.4", err);
		/* cells are owned by the table: split the targets in place */
		for (char *tok = strtok(targets, " "); tok; tok = strtok(NULL, " ")) {
			if (b->n_targets == KB_ROCM_MAX_TARGETS)
				return tsv_bad(t, i, "targets", "more than 24", err);
			if (!target_in(tok) && !kb_amd_is_generic(tok))
				return tsv_bad(t, i, "targets", "a target amd_targets.tsv does not know", err);
			b->targets[b->n_targets++] = tok;
		}
		if (!b->n_targets)
			return tsv_bad(t, i, "targets", "empty", err);
		b->install = tsv_cell(t, i, 5);
		if (!*b->install)
			return tsv_bad(t, i, "install", "empty", err);
		if (!tsv_yes_no(tsv_cell(t, i, 6), &b->uncertain))
			return tsv_bad(t, i, "uncertain", "expected yes or no", err);
		b->source = tsv_cell(t, i, 7);
		if (!*b->source)
			return tsv_bad(t, i, "source", "empty", err);
		b->notes = tsv_cell(t, i, 8);
		if (i && strcmp(adb.builds[i - 1].framework, b->framework) == 0 &&
		    version_cmp(&b->release_v, &adb.builds[i - 1].release_v) < 0)
			return tsv_bad(t, i, "release", "rows of a framework must be ordered oldest release first", err);
		adb.n_builds++;
	}
	return CD_OK;
}

static void adb_free(void)
{
	free(adb.targets);
	free(adb.gpus);
	free(adb.builds);
	free(adb.alias_buf);
	tsv_free(&adb.targets_t);
	tsv_free(&adb.gpus_t);
	tsv_free(&adb.builds_t);
	memset(&adb, 0, sizeof(adb));
}

#define COLS(a) a, sizeof(a) / sizeof(a[0])

int kb_amd_load_blobs(const struct kb_blob *blobs, size_t n, char *err)
{
	const struct kb_blob *t = kb_blob_in(blobs, n, "amd_targets.tsv"), *g = kb_blob_in(blobs, n, "amd_gpus.tsv"),
			     *b = kb_blob_in(blobs, n, "rocm_builds.tsv");
	int rc;

	adb_free();
	adb.tried = true;
	if (!t || !g || !b) {
		rc = cd_fail(adb.err, CD_EFORMAT, "kb table %s is not embedded",
			     !t ? "amd_targets.tsv" : !g ? "amd_gpus.tsv" : "rocm_builds.tsv");
		goto out;
	}
	rc = tsv_parse("amd_targets.tsv", t->data, t->size, COLS(target_cols), &adb.targets_t, adb.err);
	if (rc == CD_OK)
		rc = load_targets(&adb.targets_t, adb.err);
	if (rc == CD_OK)
		rc = tsv_parse("amd_gpus.tsv", g->data, g->size, COLS(gpu_cols), &adb.gpus_t, adb.err);
	if (rc == CD_OK)
		rc = load_gpus(&adb.gpus_t, adb.err);
	if (rc == CD_OK)
		rc = tsv_parse("rocm_builds.tsv", b->data, b->size, COLS(build_cols), &adb.builds_t, adb.err);
	if (rc == CD_OK)
		rc = load_builds(&adb.builds_t, adb.err);
out:
	if (rc) {
		char keep[CD_ERRMSG];
		memcpy(keep, adb.err, sizeof(keep));
		adb_free();
		memcpy(adb.err, keep, sizeof(keep));
		adb.tried = true;
	}
	adb.status = rc;
	if (rc && err)
		memcpy(err, adb.err, CD_ERRMSG);
	return rc;
}

int kb_amd_load(char *err)
{
	if (!adb.tried)
		return kb_amd_load_blobs(kb_blobs, kb_blob_count, err);
	if (adb.status && err)
		memcpy(err, adb.err, CD_ERRMSG);
	return adb.status;
}

size_t kb_amd_target_count(void)
{
	return kb_amd_load(NULL) == CD_OK ? adb.n_targets : 0;
}

const struct kb_amd_target *kb_amd_target_at(size_t i)
{
	return i < kb_amd_target_count() ? &adb.targets[i] : NULL;
}

const struct kb_amd_target *kb_amd_target_find(const char *processor)
{
	return kb_amd_load(NULL) == CD_OK ? target_in(processor) : NULL;
}

bool kb_amd_is_generic(const char *name)
{
	for (size_t i = 0; i < adb.n_targets; i++)
		if (adb.targets[i].generic && strcmp(adb.targets[i].generic, name) == 0)
			return true;
	return false;
}

bool kb_amd_target_covers(const char *target, const char *gfx)
{
	const struct kb_amd_target *x;
	if (strcmp(target, gfx) == 0)
		return true;
	x = kb_amd_target_find(gfx);
	return x && x->generic && strcmp(x->generic, target) == 0;
}

size_t kb_amd_gpu_count(void)
{
	return kb_amd_load(NULL) == CD_OK ? adb.n_gpus : 0;
}

const struct kb_amd_gpu *kb_amd_gpu_at(size_t i)
{
	return i < kb_amd_gpu_count() ? &adb.gpus[i] : NULL;
}

/* s without blanks, lowercased, its leading "amd" and "radeon" dropped: "rx7900xtx" */
static void name_key(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 1 < cap; s++)
		if (!isspace((unsigned char)*s))
			out[n++] = (char)tolower((unsigned char)*s);
	out[n] = 0;
	static const char *const drop[] = {"amd", "radeon"};
	for (size_t k = 0; k < 2; k++) {
		size_t l = strlen(drop[k]);
		if (strncmp(out, drop[k], l) == 0 && out[l])
			memmove(out, out + l, strlen(out + l) + 1);
	}
}

const struct kb_amd_gpu *kb_amd_gpu_find(const char *spec)
{
	char want[128], have[128];
	name_key(spec, want, sizeof want);
	for (size_t i = 0; want[0] && i < kb_amd_gpu_count(); i++) {
		const struct kb_amd_gpu *g = &adb.gpus[i];
		name_key(g->name, have, sizeof have);
		if (strcmp(want, have) == 0)
			return g;
		for (size_t k = 0; k < g->n_aliases; k++) {
			name_key(g->aliases[k], have, sizeof have);
			if (strcmp(want, have) == 0)
				return g;
		}
	}
	return NULL;
}

const struct kb_amd_gpu *kb_amd_gpu_of_gfx(const char *gfx)
{
	for (size_t i = 0; i < kb_amd_gpu_count(); i++)
		if (strcmp(adb.gpus[i].gfx, gfx) == 0)
			return &adb.gpus[i];
	return NULL;
}

size_t kb_rocm_build_count(void)
{
	return kb_amd_load(NULL) == CD_OK ? adb.n_builds : 0;
}

const struct kb_rocm_build *kb_rocm_build_at(size_t i)
{
	return i < kb_rocm_build_count() ? &adb.builds[i] : NULL;
}

bool kb_rocm_build_covers(const struct kb_rocm_build *b, const char *gfx)
{
	for (size_t i = 0; i < b->n_targets; i++)
		if (kb_amd_target_covers(b->targets[i], gfx))
			return true;
	return false;
}
