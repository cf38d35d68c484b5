/* Loading the embedded kb tables into typed rows, once. Every field is checked: a
 * malformed row is an error naming file, line and column, never a guess. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_internal.h"
#include "util/sort.h"
#include "util/err.h"

static struct kb_db db;

/* ---- field conversion; each returns CD_OK or CD_EFORMAT naming file:line:column ---- */

static int bad(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
	       const char *why, char *err)
{
	return cd_fail(err, CD_EFORMAT, "%s:%zu: column %s: %s ('%.40s')", t->name, t->lines[row],
		       cols[col], why, tsv_cell(t, row, col));
}

static bool is_version_text(const char *s)
{
	int parts = 0;

	for (;;) {
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		parts++;
		if (*s == '\0')
			return parts <= 3;
		if (*s != '.')
			return false;
		s++;
	}
}

/* "?" means unknown when allow_unknown; anything else must be a dotted version. */
static int field_version(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
			 bool allow_unknown, struct version *v, bool *has, char *err)
{
	const char *s = tsv_cell(t, row, col);

	memset(v, 0, sizeof(*v));
	if (has)
		*has = false;
	if (allow_unknown && strcmp(s, "?") == 0)
		return CD_OK;
	if (!is_version_text(s) || version_parse(s, v) != CD_OK)
		return bad(t, row, col, cols, "not a version", err);
	if (has)
		*has = true;
	return CD_OK;
}

static int field_int(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
		     bool allow_empty, int *out, char *err)
{
	const char *s = tsv_cell(t, row, col);
	char *end;
	long v;

	*out = 0;
	if (allow_empty && *s == '\0')
		return CD_OK;
	if (!isdigit((unsigned char)*s))
		return bad(t, row, col, cols, "not a number", err);
	v = strtol(s, &end, 10);
	if (*end != '\0' || v > INT_MAX)
		return bad(t, row, col, cols, "not a number", err);
	*out = (int)v;
	return CD_OK;
}

static int field_bool(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
		      bool *out, char *err)
{
	const char *s = tsv_cell(t, row, col);

	if (strcmp(s, "yes") == 0)
		*out = true;
	else if (strcmp(s, "no") == 0)
		*out = false;
	else
		return bad(t, row, col, cols, "expected yes or no", err);
	return CD_OK;
}

static int field_nonempty(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
			  const char **out, char *err)
{
	*out = tsv_cell(t, row, col);
	if (**out == '\0')
		return bad(t, row, col, cols, "empty", err);
	return CD_OK;
}

/* "-" = none, "?" = unknown (*known false), else space-separated targets. */
static int field_archs(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
		       struct kb_arch **out, size_t *n, bool *known, char *err)
{
	const char *s = tsv_cell(t, row, col);
	size_t cap = 0;
	char tok[32];

	*out = NULL;
	*n = 0;
	if (known)
		*known = true;
	if (strcmp(s, "?") == 0 && known) {
		*known = false;
		return CD_OK;
	}
	if (strcmp(s, "-") == 0)
		return CD_OK;
	while (*s) {
		size_t len = strcspn(s, " ");
		struct kb_arch a;

		if (len == 0 || len >= sizeof(tok))
			goto fail;
		memcpy(tok, s, len);
		tok[len] = '\0';
		if (kb_arch_parse(tok, &a) != CD_OK || strchr(tok, '.'))
			goto fail;
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct kb_arch *na = realloc(*out, ncap * sizeof(*na));

			if (!na) {
				free(*out);
				*out = NULL;
				return cd_fail(err, CD_ENOMEM, "%s: out of memory", t->name);
			}
			*out = na;
			cap = ncap;
		}
		(*out)[(*n)++] = a;
		s += len;
		if (*s == ' ')
			s++;
	}
	if (*n > 1) /* listed in one order whatever the table's */
		cd_qsort(*out, *n, sizeof **out, kb_arch_qsort_cmp);
	return CD_OK;
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return bad(t, row, col, cols, "not a list of targets like '75 90a 100f'", err);
}

/* "12.0" -> 12, 0 */
static int field_cc(const struct tsv_table *t, size_t row, size_t col, const char *cols[],
		    int *major, int *minor, char *err)
{
	const char *s = tsv_cell(t, row, col);
	struct version v;

	if (!is_version_text(s) || version_parse(s, &v) != CD_OK || v.parts != 2 || v.minor > 9 ||
	    v.major < 1 || v.major > 99)
		return bad(t, row, col, cols, "not a compute capability X.Y", err);
	*major = v.major;
	*minor = v.minor;
	return CD_OK;
}

/* ---- one loader per table ---- */

static const char *gpu_cols[] = { "name", "aliases", "cc", "architecture", "year", "memory",
				  "memory_gb", "segment", "driver_support", "uncertain", "source",
				  "notes" };

static int split_aliases(const struct tsv_table *t, size_t row, struct kb_gpu *g, char *err)
{
	char *s = t->cells[row * t->ncols + 1];

	g->n_aliases = 0;
	while (*s) {
		char *semi = strchr(s, ';');

		if (semi)
			*semi = '\0';
		if (*s == '\0' || g->n_aliases == KB_MAX_ALIASES)
			return bad(t, row, 1, gpu_cols, "empty alias or too many aliases", err);
		g->aliases[g->n_aliases++] = s;
		if (!semi)
			break;
		s = semi + 1;
	}
	return CD_OK;
}

static int split_memory(const struct tsv_table *t, size_t row, struct kb_gpu *g, char *err)
{
	const char *s = tsv_cell(t, row, 6);
	char *end;

	g->n_memory_gb = 0;
	if (strcmp(s, "?") == 0)
		return CD_OK;
	for (;;) {
		double v;

		if (!isdigit((unsigned char)*s) || g->n_memory_gb == KB_MAX_MEMORY)
			return bad(t, row, 6, gpu_cols, "expected sizes like 8/16 or ?", err);
		v = strtod(s, &end);
		if (end == s || v <= 0 || v > 100000)
			return bad(t, row, 6, gpu_cols, "expected sizes like 8/16 or ?", err);
		g->memory_gb[g->n_memory_gb++] = v;
		if (*end == '\0')
			return CD_OK;
		if (*end != '/')
			return bad(t, row, 6, gpu_cols, "expected sizes like 8/16 or ?", err);
		s = end + 1;
	}
}

static int load_gpus(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.gpus = calloc(t->nrows ? t->nrows : 1, sizeof(*db.gpus));
	if (!db.gpus)
		return cd_fail(err, CD_ENOMEM, "gpus.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_gpu *g = &db.gpus[i];

		TRY(field_nonempty(t, i, 0, gpu_cols, &g->name, err));
		TRY(split_aliases(t, i, g, err));
		TRY(field_cc(t, i, 2, gpu_cols, &g->cc_major, &g->cc_minor, err));
		g->arch = g->cc_major * 10 + g->cc_minor;
		TRY(field_nonempty(t, i, 3, gpu_cols, &g->architecture, err));
		TRY(field_int(t, i, 4, gpu_cols, true, &g->year, err));
		g->memory = tsv_cell(t, i, 5);
		TRY(split_memory(t, i, g, err));
		g->segment = tsv_cell(t, i, 7);
		g->driver_support = tsv_cell(t, i, 8);
		TRY(field_bool(t, i, 9, gpu_cols, &g->uncertain, err));
		TRY(field_nonempty(t, i, 10, gpu_cols, &g->source, err));
		g->notes = tsv_cell(t, i, 11);
		db.n_gpus++;
	}
out:
	return rc;
}

static const char *tk_cols[] = { "release", "ga_date", "min_linux_driver",
				 "min_linux_driver_update", "min_windows_driver", "archs",
				 "archs_deprecated", "archs_removed", "ptx_isa", "default_arch",
				 "zstd", "minor_compat_floor", "uncertain", "notes", "source" };

static int load_toolkits(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.toolkits = calloc(t->nrows ? t->nrows : 1, sizeof(*db.toolkits));
	if (!db.toolkits)
		return cd_fail(err, CD_ENOMEM, "toolkits.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_toolkit *k = &db.toolkits[i];
		struct version ptx;
		const char *s;

		/* counted first so that a failure below still frees this row's lists */
		db.n_toolkits++;
		TRY(field_version(t, i, 0, tk_cols, false, &k->release, NULL, err));
		if (k->release.parts != 2)
			return bad(t, i, 0, tk_cols, "release must be MAJOR.MINOR", err);
		if (i > 0 && version_cmp(&db.toolkits[i - 1].release, &k->release) >= 0)
			return bad(t, i, 0, tk_cols, "releases must be in ascending order", err);
		k->release_text = tsv_cell(t, i, 0);
		TRY(field_nonempty(t, i, 1, tk_cols, &k->ga_date, err));
		TRY(field_version(t, i, 2, tk_cols, true, &k->min_driver, &k->has_min_driver, err));
		k->min_driver_text = tsv_cell(t, i, 2);
		k->min_driver_update_text = tsv_cell(t, i, 3);
		k->minor_compat_floor_text = tsv_cell(t, i, 11);
		TRY(field_version(t, i, 3, tk_cols, true, &k->min_driver_update,
				    &k->has_min_driver_update, err));
		TRY(field_nonempty(t, i, 4, tk_cols, &k->min_windows_driver, err));
		TRY(field_archs(t, i, 5, tk_cols, &k->archs, &k->n_archs, &k->archs_known, err));
		TRY(field_archs(t, i, 6, tk_cols, &k->deprecated, &k->n_deprecated, NULL, err));
		TRY(field_archs(t, i, 7, tk_cols, &k->removed, &k->n_removed, NULL, err));
		TRY(field_version(t, i, 8, tk_cols, false, &ptx, NULL, err));
		if (ptx.parts != 2)
			return bad(t, i, 8, tk_cols, "PTX ISA must be MAJOR.MINOR", err);
		k->ptx_major = ptx.major;
		k->ptx_minor = ptx.minor;
		s = tsv_cell(t, i, 9);
		if (strncmp(s, "sm_", 3) != 0 || kb_arch_parse(s, &k->default_arch) != CD_OK)
			return bad(t, i, 9, tk_cols, "expected sm_XX", err);
		s = tsv_cell(t, i, 10);
		if (strcmp(s, "no") == 0)
			k->zstd = KB_ZSTD_NO;
		else if (strcmp(s, "optional") == 0)
			k->zstd = KB_ZSTD_OPTIONAL;
		else if (strcmp(s, "default") == 0)
			k->zstd = KB_ZSTD_DEFAULT;
		else
			return bad(t, i, 10, tk_cols, "expected no, optional or default", err);
		if (strcmp(tsv_cell(t, i, 11), "-") != 0) {
			TRY(field_version(t, i, 11, tk_cols, false, &k->minor_compat_floor, NULL, err));
			k->has_minor_compat = true;
		}
		TRY(field_bool(t, i, 12, tk_cols, &k->uncertain, err));
		k->notes = tsv_cell(t, i, 13);
		TRY(field_nonempty(t, i, 14, tk_cols, &k->source, err));
	}
out:
	return rc;
}

static const char *drv_cols[] = { "branch", "first_version", "cuda", "versions_seen", "can_run",
				  "notes", "uncertain", "source" };

static int load_drivers(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.drivers = calloc(t->nrows ? t->nrows : 1, sizeof(*db.drivers));
	if (!db.drivers)
		return cd_fail(err, CD_ENOMEM, "drivers.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_driver_branch *d = &db.drivers[i];

		TRY(field_int(t, i, 0, drv_cols, false, &d->branch, err));
		if (i > 0 && db.drivers[i - 1].branch >= d->branch)
			return bad(t, i, 0, drv_cols, "branches must be in ascending order", err);
		TRY(field_version(t, i, 1, drv_cols, false, &d->first_version, NULL, err));
		d->first_version_text = tsv_cell(t, i, 1);
		if (d->first_version.major != d->branch)
			return bad(t, i, 1, drv_cols, "first version is not of this branch", err);
		TRY(field_version(t, i, 2, drv_cols, false, &d->cuda, NULL, err));
		d->versions_seen = tsv_cell(t, i, 3);
		TRY(field_nonempty(t, i, 4, drv_cols, &d->can_run, err));
		d->notes = tsv_cell(t, i, 5);
		TRY(field_bool(t, i, 6, drv_cols, &d->uncertain, err));
		TRY(field_nonempty(t, i, 7, drv_cols, &d->source, err));
		db.n_drivers++;
	}
out:
	return rc;
}

static const char *ptx_cols[] = { "ptx_isa", "cuda", "min_linux_driver", "uncertain", "notes",
				  "source" };

static int load_ptx(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.ptx = calloc(t->nrows ? t->nrows : 1, sizeof(*db.ptx));
	if (!db.ptx)
		return cd_fail(err, CD_ENOMEM, "ptx_isa.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_ptx_isa *p = &db.ptx[i];
		struct version v;

		TRY(field_version(t, i, 0, ptx_cols, false, &v, NULL, err));
		if (v.parts != 2)
			return bad(t, i, 0, ptx_cols, "PTX ISA must be MAJOR.MINOR", err);
		p->major = v.major;
		p->minor = v.minor;
		if (i > 0 && (db.ptx[i - 1].major * 100 + db.ptx[i - 1].minor >=
			      p->major * 100 + p->minor))
			return bad(t, i, 0, ptx_cols, "ISA versions must be in ascending order", err);
		TRY(field_version(t, i, 1, ptx_cols, false, &p->cuda, NULL, err));
		TRY(field_version(t, i, 2, ptx_cols, true, &p->min_driver, &p->has_min_driver, err));
		p->min_driver_text = tsv_cell(t, i, 2);
		TRY(field_bool(t, i, 3, ptx_cols, &p->uncertain, err));
		p->notes = tsv_cell(t, i, 4);
		TRY(field_nonempty(t, i, 5, ptx_cols, &p->source, err));
		db.n_ptx++;
	}
out:
	return rc;
}

static const char *fam_cols[] = { "family", "members", "first_toolkit", "uncertain", "notes",
				  "source" };

static int load_families(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.families = calloc(t->nrows ? t->nrows : 1, sizeof(*db.families));
	if (!db.families)
		return cd_fail(err, CD_ENOMEM, "arch_families.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_family *f = &db.families[i];
		struct kb_arch a, *members = NULL;
		size_t n = 0;

		if (kb_arch_parse(tsv_cell(t, i, 0), &a) != CD_OK || a.suffix != 'f' ||
		    strchr(tsv_cell(t, i, 0), '.'))
			return bad(t, i, 0, fam_cols, "expected a family target like 100f", err);
		f->arch = a.num;
		TRY(field_archs(t, i, 1, fam_cols, &members, &n, NULL, err));
		if (n == 0 || n > KB_MAX_FAMILY) {
			free(members);
			return bad(t, i, 1, fam_cols, "expected 1 to 8 member archs", err);
		}
		for (size_t j = 0; j < n; j++) {
			if (members[j].suffix) {
				free(members);
				return bad(t, i, 1, fam_cols, "members are plain archs", err);
			}
			f->members[j] = members[j].num;
		}
		f->n_members = n;
		free(members);
		TRY(field_version(t, i, 2, fam_cols, false, &f->first_toolkit, NULL, err));
		TRY(field_bool(t, i, 3, fam_cols, &f->uncertain, err));
		f->notes = tsv_cell(t, i, 4);
		TRY(field_nonempty(t, i, 5, fam_cols, &f->source, err));
		db.n_families++;
	}
out:
	return rc;
}

static const char *arch_cols[] = { "arch", "architecture", "first_toolkit", "last_toolkit",
				   "uncertain", "notes", "source" };

static int load_archs(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.archs = calloc(t->nrows ? t->nrows : 1, sizeof(*db.archs));
	if (!db.archs)
		return cd_fail(err, CD_ENOMEM, "archs.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_arch_info *a = &db.archs[i];

		if (kb_arch_parse(tsv_cell(t, i, 0), &a->arch) != CD_OK ||
		    strchr(tsv_cell(t, i, 0), '.') || strchr(tsv_cell(t, i, 0), '_'))
			return bad(t, i, 0, arch_cols, "expected a target like 90a", err);
		TRY(field_nonempty(t, i, 1, arch_cols, &a->architecture, err));
		TRY(field_version(t, i, 2, arch_cols, false, &a->first_toolkit, NULL, err));
		if (strcmp(tsv_cell(t, i, 3), "-") != 0) {
			TRY(field_version(t, i, 3, arch_cols, false, &a->last_toolkit, NULL, err));
			a->has_last = true;
		}
		TRY(field_bool(t, i, 4, arch_cols, &a->uncertain, err));
		a->notes = tsv_cell(t, i, 5);
		TRY(field_nonempty(t, i, 6, arch_cols, &a->source, err));
		db.n_archs++;
	}
out:
	return rc;
}

static const char *err_cols[] = { "api", "code", "name", "string", "string_source", "finding",
				  "source" };

static int load_errors(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.errors = calloc(t->nrows ? t->nrows : 1, sizeof(*db.errors));
	if (!db.errors)
		return cd_fail(err, CD_ENOMEM, "errors.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_error *e = &db.errors[i];
		const char *s = tsv_cell(t, i, 0);

		if (strcmp(s, "runtime") == 0)
			e->api = KB_API_RUNTIME;
		else if (strcmp(s, "driver") == 0)
			e->api = KB_API_DRIVER;
		else
			return bad(t, i, 0, err_cols, "expected runtime or driver", err);
		TRY(field_int(t, i, 1, err_cols, false, &e->code, err));
		TRY(field_nonempty(t, i, 2, err_cols, &e->name, err));
		if (!(e->api == KB_API_RUNTIME ? strncmp(e->name, "cuda", 4) == 0
					       : strncmp(e->name, "CUDA_", 5) == 0))
			return bad(t, i, 2, err_cols, "name does not belong to this API", err);
		TRY(field_nonempty(t, i, 3, err_cols, &e->string, err));
		s = tsv_cell(t, i, 4);
		if (strcmp(s, "cudart") && strcmp(s, "cudart-same-number") && strcmp(s, "header-doc"))
			return bad(t, i, 4, err_cols, "expected cudart, cudart-same-number or header-doc",
				   err);
		e->string_source = s;
		s = tsv_cell(t, i, 5);
		if (*s == '\0')
			return bad(t, i, 5, err_cols, "empty (use - for none)", err);
		e->finding = strcmp(s, "-") == 0 ? NULL : s;
		TRY(field_nonempty(t, i, 6, err_cols, &e->source, err));
		db.n_errors++;
	}
out:
	return rc;
}

/* Each library's status names start with its own prefix. */
static bool lib_name_ok(enum kb_api api, const char *name)
{
	static const char *const prefix[KB_API_COUNT] = {
		[KB_API_CUBLAS] = "CUBLAS_STATUS_", [KB_API_CUDNN] = "CUDNN_STATUS_",
		[KB_API_CUFFT] = "CUFFT_",	    [KB_API_CURAND] = "CURAND_STATUS_",
		[KB_API_CUSOLVER] = "CUSOLVER_STATUS_", [KB_API_CUSPARSE] = "CUSPARSE_STATUS_",
		[KB_API_NVRTC] = "NVRTC_",	    [KB_API_NVJITLINK] = "NVJITLINK_",
		[KB_API_NCCL] = "nccl",
	};

	return prefix[api] && strncmp(name, prefix[api], strlen(prefix[api])) == 0;
}

static const char *lib_cols[] = { "api", "code", "name", "meaning", "finding", "source" };

/* lib_errors.tsv: appended to errors.tsv's rows, so every lookup by name sees both. */
static int load_lib_errors(const struct tsv_table *t, char *err)
{
	struct kb_error *grown = realloc(db.errors, (db.n_errors + t->nrows + 1) * sizeof(*db.errors));
	int rc = CD_OK;

	if (!grown)
		return cd_fail(err, CD_ENOMEM, "lib_errors.tsv: out of memory");
	db.errors = grown;
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_error *e = &db.errors[db.n_errors];
		const char *s = tsv_cell(t, i, 0);

		memset(e, 0, sizeof(*e));
		if (kb_api_parse(s, &e->api) != CD_OK || e->api == KB_API_RUNTIME || e->api == KB_API_DRIVER)
			return bad(t, i, 0, lib_cols, "expected a library (cublas, cudnn, ..., nccl)", err);
		TRY(field_int(t, i, 1, lib_cols, false, &e->code, err));
		TRY(field_nonempty(t, i, 2, lib_cols, &e->name, err));
		if (!lib_name_ok(e->api, e->name))
			return bad(t, i, 2, lib_cols, "name does not belong to this library", err);
		TRY(field_nonempty(t, i, 3, lib_cols, &e->string, err));
		e->string_source = "library-doc";
		s = tsv_cell(t, i, 4);
		if (*s == '\0')
			return bad(t, i, 4, lib_cols, "empty (use - for none)", err);
		e->finding = strcmp(s, "-") == 0 ? NULL : s;
		TRY(field_nonempty(t, i, 5, lib_cols, &e->source, err));
		db.n_errors++;
	}
out:
	return rc;
}

static const char *word_cols[] = { "api", "code", "string", "releases", "source" };

/* error_wordings.tsv: older texts of a code errors.tsv has */
static int load_wordings(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.wordings = calloc(t->nrows ? t->nrows : 1, sizeof(*db.wordings));
	if (!db.wordings)
		return cd_fail(err, CD_ENOMEM, "error_wordings.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_wording *w = &db.wordings[i];
		enum kb_api api;
		int code;

		if (kb_api_parse(tsv_cell(t, i, 0), &api) != CD_OK)
			return bad(t, i, 0, word_cols, "unknown api", err);
		TRY(field_int(t, i, 1, word_cols, false, &code, err));
		for (size_t k = 0; k < db.n_errors && !w->error; k++)
			if (db.errors[k].api == api && db.errors[k].code == code)
				w->error = &db.errors[k];
		if (!w->error)
			return bad(t, i, 1, word_cols, "no such code in errors.tsv", err);
		TRY(field_nonempty(t, i, 2, word_cols, &w->string, err));
		TRY(field_nonempty(t, i, 3, word_cols, &w->releases, err));
		TRY(field_nonempty(t, i, 4, word_cols, &w->source, err));
		db.n_wordings++;
	}
out:
	return rc;
}

static const char *msg_cols[] = { "key", "pattern", "finding", "extract", "source" };

static int load_messages(const struct tsv_table *t, char *err)
{
	static const char *const extracts[] = { "none", "torch_cc", "torch_cc_old", "nvcc_arch", "xid",
						"oom", "oom_stats", "loader", "driver_found", "lib_versions", "gpu_cc",
						"fallback", "vllm_budget", "host_mem", "ggml_oom", "retried", "tgi",
						"ollama_vram" };
	int rc = CD_OK;

	db.messages = calloc(t->nrows ? t->nrows : 1, sizeof(*db.messages));
	if (!db.messages)
		return cd_fail(err, CD_ENOMEM, "messages.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_message *m = &db.messages[i];
		char *p = t->cells[i * t->ncols + 1];
		bool known = false;

		TRY(field_nonempty(t, i, 0, msg_cols, &m->key, err));
		TRY(field_nonempty(t, i, 1, msg_cols, &m->parts[0], err));
		/* "a&&b": every part on one line */
		m->n_parts = 1;
		while ((p = strstr(p, "&&")) != NULL) {
			*p = '\0';
			p += 2;
			if (m->n_parts == KB_MAX_PARTS || *p == '\0')
				return bad(t, i, 1, msg_cols, "too many or empty && parts", err);
			m->parts[m->n_parts++] = p;
		}
		for (size_t k = 0; k < m->n_parts; k++)
			if (strlen(m->parts[k]) < 4)
				return bad(t, i, 1, msg_cols, "a part shorter than 4 characters", err);
		TRY(field_nonempty(t, i, 2, msg_cols, &m->finding, err));
		m->extract = tsv_cell(t, i, 3);
		for (size_t k = 0; k < sizeof(extracts) / sizeof(extracts[0]); k++)
			known |= strcmp(m->extract, extracts[k]) == 0;
		if (!known)
			return bad(t, i, 3, msg_cols, "unknown extractor", err);
		TRY(field_nonempty(t, i, 4, msg_cols, &m->source, err));
		db.n_messages++;
	}
out:
	return rc;
}

static const char *finding_cols[] = { "finding", "severity", "layer", "title", "why", "fix", "checks",
				   "source" };

static int load_findings(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.findings = calloc(t->nrows ? t->nrows : 1, sizeof(*db.findings));
	if (!db.findings)
		return cd_fail(err, CD_ENOMEM, "findings.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_finding *e = &db.findings[i];
		char *p;

		TRY(field_nonempty(t, i, 0, finding_cols, &e->finding, err));
		TRY(field_nonempty(t, i, 1, finding_cols, &e->severity, err));
		if (strcmp(e->severity, "ok") && strcmp(e->severity, "info") &&
		    strcmp(e->severity, "warn") && strcmp(e->severity, "error"))
			return bad(t, i, 1, finding_cols, "expected ok, info, warn or error", err);
		TRY(field_nonempty(t, i, 2, finding_cols, &e->layer, err));
		TRY(field_nonempty(t, i, 3, finding_cols, &e->title, err));
		TRY(field_nonempty(t, i, 4, finding_cols, &e->why, err));
		/* fix steps are separated by " ;; " */
		p = t->cells[i * t->ncols + 5];
		if (*p == '\0')
			return bad(t, i, 5, finding_cols, "empty", err);
		e->fix[e->n_fix++] = p;
		while ((p = strstr(p, " ;; ")) != NULL) {
			*p = '\0';
			p += 4;
			if (e->n_fix == KB_MAX_FIX || *p == '\0')
				return bad(t, i, 5, finding_cols, "too many or empty fix steps", err);
			e->fix[e->n_fix++] = p;
		}
		TRY(field_nonempty(t, i, 6, finding_cols, &e->checks, err));
		TRY(field_nonempty(t, i, 7, finding_cols, &e->source, err));
		for (size_t k = 0; k < i; k++)
			if (strcmp(db.findings[k].finding, e->finding) == 0)
				return bad(t, i, 0, finding_cols, "finding listed twice", err);
		db.n_findings++;
	}
out:
	return rc;
}

static const char *xid_cols[] = { "xid", "name", "meaning", "kind", "uncertain", "bucket", "action", "source" };

static const char *bucket_cols[] = { "bucket", "severity", "means", "source" };

/* the catalogue's immediate-action buckets (its "Resolution Bucket (Immediate Action)" column) */
static int load_xid_buckets(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.xid_buckets = calloc(t->nrows ? t->nrows : 1, sizeof(*db.xid_buckets));
	if (!db.xid_buckets)
		return cd_fail(err, CD_ENOMEM, "xid_buckets.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_xid_bucket *b = &db.xid_buckets[i];

		TRY(field_nonempty(t, i, 0, bucket_cols, &b->bucket, err));
		TRY(field_nonempty(t, i, 1, bucket_cols, &b->severity, err));
		if (strcmp(b->severity, "info") != 0 && strcmp(b->severity, "warn") != 0 && strcmp(b->severity, "error") != 0)
			return bad(t, i, 1, bucket_cols, "expected info, warn or error", err);
		TRY(field_nonempty(t, i, 2, bucket_cols, &b->means, err));
		TRY(field_nonempty(t, i, 3, bucket_cols, &b->source, err));
		db.n_xid_buckets++;
	}
out:
	return rc;
}

/* during the load, before kb_db() answers: xid_buckets.tsv is loaded first */
static bool bucket_loaded(const char *bucket)
{
	for (size_t i = 0; i < db.n_xid_buckets; i++)
		if (strcmp(db.xid_buckets[i].bucket, bucket) == 0)
			return true;
	return false;
}

static int load_xid(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.xids = calloc(t->nrows ? t->nrows : 1, sizeof(*db.xids));
	if (!db.xids)
		return cd_fail(err, CD_ENOMEM, "xid.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_xid *x = &db.xids[i];

		TRY(field_int(t, i, 0, xid_cols, false, &x->xid, err));
		TRY(field_nonempty(t, i, 1, xid_cols, &x->name, err));
		TRY(field_nonempty(t, i, 2, xid_cols, &x->meaning, err));
		TRY(field_nonempty(t, i, 3, xid_cols, &x->kind, err));
		if (strcmp(x->kind, "application") && strcmp(x->kind, "driver") &&
		    strcmp(x->kind, "hardware"))
			return bad(t, i, 3, xid_cols, "expected application, driver or hardware", err);
		TRY(field_bool(t, i, 4, xid_cols, &x->uncertain, err));
		TRY(field_nonempty(t, i, 5, xid_cols, &x->bucket, err));
		if (!bucket_loaded(x->bucket))
			return bad(t, i, 5, xid_cols, "not one of xid_buckets.tsv's immediate-action buckets", err);
		TRY(field_nonempty(t, i, 6, xid_cols, &x->action, err));
		TRY(field_nonempty(t, i, 7, xid_cols, &x->source, err));
		db.n_xids++;
	}
out:
	return rc;
}

static const char *src_cols[] = { "key", "what" };

static int load_sources(const struct tsv_table *t, char *err)
{
	int rc = CD_OK;

	db.sources = calloc(t->nrows ? t->nrows : 1, sizeof(*db.sources));
	if (!db.sources)
		return cd_fail(err, CD_ENOMEM, "sources.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		TRY(field_nonempty(t, i, 0, src_cols, &db.sources[i].key, err));
		TRY(field_nonempty(t, i, 1, src_cols, &db.sources[i].what, err));
		db.n_sources++;
	}
out:
	return rc;
}

/* ---- the whole base ---- */

struct table_def {
	const char *file;
	const char **cols;
	size_t ncols;
	int (*load)(const struct tsv_table *t, char *err);
};

#define DEF(f, c, l) { f, c, sizeof(c) / sizeof(c[0]), l }
static const struct table_def defs[KB_T_COUNT] = {
	[KB_T_GPUS] = DEF("gpus.tsv", gpu_cols, load_gpus),
	[KB_T_TOOLKITS] = DEF("toolkits.tsv", tk_cols, load_toolkits),
	[KB_T_DRIVERS] = DEF("drivers.tsv", drv_cols, load_drivers),
	[KB_T_PTX] = DEF("ptx_isa.tsv", ptx_cols, load_ptx),
	[KB_T_FAMILIES] = DEF("arch_families.tsv", fam_cols, load_families),
	[KB_T_ARCHS] = DEF("archs.tsv", arch_cols, load_archs),
	[KB_T_ERRORS] = DEF("errors.tsv", err_cols, load_errors),
	[KB_T_LIB_ERRORS] = DEF("lib_errors.tsv", lib_cols, load_lib_errors),
	[KB_T_WORDINGS] = DEF("error_wordings.tsv", word_cols, load_wordings),
	[KB_T_MESSAGES] = DEF("messages.tsv", msg_cols, load_messages),
	[KB_T_FINDINGS] = DEF("findings.tsv", finding_cols, load_findings),
	[KB_T_XID_BUCKETS] = DEF("xid_buckets.tsv", bucket_cols, load_xid_buckets),
	[KB_T_XID] = DEF("xid.tsv", xid_cols, load_xid),
	[KB_T_SOURCES] = DEF("sources.tsv", src_cols, load_sources),
};

static void db_free(void)
{
	for (size_t i = 0; i < db.n_toolkits; i++) {
		free(db.toolkits[i].archs);
		free(db.toolkits[i].deprecated);
		free(db.toolkits[i].removed);
	}
	free(db.gpus);
	free(db.toolkits);
	free(db.drivers);
	free(db.ptx);
	free(db.families);
	free(db.archs);
	free(db.errors);
	free(db.wordings);
	free(db.messages);
	free(db.findings);
	free(db.xid_buckets);
	free(db.xids);
	free(db.sources);
	for (int i = 0; i < KB_T_COUNT; i++)
		tsv_free(&db.tables[i]);
	memset(&db, 0, sizeof(db));
}

int kb_load_blobs(const struct kb_blob *blobs, size_t n, char *err)
{
	int rc = CD_OK;

	db_free();
	db.tried = true;
	for (int i = 0; i < KB_T_COUNT; i++) {
		const struct kb_blob *b = NULL;

		for (size_t j = 0; j < n; j++)
			if (blobs[j].name && strcmp(blobs[j].name, defs[i].file) == 0)
				b = &blobs[j];
		if (!b) {
			rc = cd_fail(db.err, CD_EFORMAT, "kb table %s is not embedded", defs[i].file);
			goto out;
		}
		rc = tsv_parse(defs[i].file, b->data, b->size, (const char *const *)defs[i].cols,
			       defs[i].ncols, &db.tables[i], db.err);
		if (rc)
			goto out;
		rc = defs[i].load(&db.tables[i], db.err);
		if (rc)
			goto out;
	}
out:
	if (rc) {
		char keep[sizeof(db.err)];

		memcpy(keep, db.err, sizeof(keep));
		db_free();
		memcpy(db.err, keep, sizeof(keep));
		db.tried = true;
	}
	db.status = rc;
	if (rc && err)
		memcpy(err, db.err, CD_ERRMSG < sizeof(db.err) ? CD_ERRMSG : sizeof(db.err));
	return rc;
}

int kb_load(char *err)
{
	if (!db.tried)
		return kb_load_blobs(kb_blobs, kb_blob_count, err);
	if (db.status && err)
		memcpy(err, db.err, CD_ERRMSG < sizeof(db.err) ? CD_ERRMSG : sizeof(db.err));
	return db.status;
}

const struct kb_db *kb_db(void)
{
	if (kb_load(NULL) != CD_OK)
		return NULL;
	return &db;
}
