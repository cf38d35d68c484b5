/* Loading kb/torch.tsv and kb/frameworks.tsv into typed rows, once. Every field is checked
 * and the tables are checked against themselves (cu128 must say CUDA 12.8 and name its
 * index); a malformed row is an error naming file, line and column. */
#include "kb/frameworks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/tsv.h"
#include "util/err.h"

static struct {
	bool tried;
	int status;
	char err[CD_ERRMSG];
	struct tsv_table torch_t, fw_t;
	struct kb_torch_build *torch;
	size_t n_torch;
	struct kb_fw_build *fw;
	size_t n_fw;
} fdb;

static const char *torch_cols[] = { "release", "variant", "cuda", "status", "platform", "archs",
				    "ptx", "index_url", "uncertain", "source", "notes" };
static const char *fw_cols[] = { "framework", "release", "variant", "cuda", "min_cc", "max_cc",
				 "min_driver", "install", "uncertain", "source", "notes" };

/* "8.6" -> 86; 0 when malformed */
static int parse_cc(const char *s)
{
	struct version v;

	if (!tsv_version(s, strlen(s), &v) || v.parts != 2 || v.minor > 9 || v.major > 99)
		return 0;
	return v.major * 10 + v.minor;
}

static int parse_archs(const char *s, struct kb_torch_build *b)
{
	char tok[16];

	while (*s) {
		size_t k = strcspn(s, " ");

		if (k == 0 || k >= sizeof(tok) || b->n_archs == KB_TORCH_MAX_ARCHS)
			return CD_EFORMAT;
		memcpy(tok, s, k);
		tok[k] = '\0';
		if (kb_arch_parse(tok, &b->archs[b->n_archs]) != CD_OK)
			return CD_EFORMAT;
		if (b->n_archs && b->archs[b->n_archs].num <= b->archs[b->n_archs - 1].num)
			return CD_EFORMAT; /* ascending, no repeats */
		b->n_archs++;
		s += k;
		if (*s == ' ')
			s++;
	}
	return b->n_archs ? CD_OK : CD_EFORMAT;
}

static int load_torch(const struct tsv_table *t, char *err)
{
	fdb.torch = calloc(t->nrows ? t->nrows : 1, sizeof(*fdb.torch));
	if (!fdb.torch)
		return cd_fail(err, CD_ENOMEM, "torch.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_torch_build *b = &fdb.torch[i];
		char want[64];
		const char *ptx = tsv_cell(t, i, 6), *status = tsv_cell(t, i, 3);

		b->release = tsv_cell(t, i, 0);
		if (!tsv_version(b->release, strlen(b->release), &b->release_v) || b->release_v.parts != 3)
			return tsv_bad(t, i, "release", "expected a release like 2.7.1", err);
		b->variant = tsv_cell(t, i, 1);
		b->cuda_text = tsv_cell(t, i, 2);
		if (!tsv_version(b->cuda_text, strlen(b->cuda_text), &b->cuda) || b->cuda.parts != 2)
			return tsv_bad(t, i, "cuda", "expected a CUDA version like 12.8", err);
		snprintf(want, sizeof(want), "cu%d%d", b->cuda.major, b->cuda.minor);
		if (strcmp(b->variant, want) != 0)
			return tsv_bad(t, i, "variant", "does not match the cuda column", err);
		if (strcmp(status, "stable") && strcmp(status, "experimental"))
			return tsv_bad(t, i, "status", "expected stable or experimental", err);
		b->experimental = status[0] == 'e';
		b->platform = tsv_cell(t, i, 4);
		if (strcmp(b->platform, "x86_64") && strcmp(b->platform, "aarch64"))
			return tsv_bad(t, i, "platform", "expected x86_64 or aarch64", err);
		if (parse_archs(tsv_cell(t, i, 5), b) != CD_OK)
			return tsv_bad(t, i, "archs", "expected ascending archs like '75 80 86'", err);
		if (strcmp(ptx, "-") != 0) {
			if (kb_arch_parse(ptx, &b->ptx) != CD_OK || b->ptx.suffix)
				return tsv_bad(t, i, "ptx", "expected '-' or a plain arch", err);
			b->has_ptx = true;
		}
		b->index_url = tsv_cell(t, i, 7);
		snprintf(want, sizeof(want), "https://download.pytorch.org/whl/%s", b->variant);
		if (strcmp(b->index_url, want) != 0)
			return tsv_bad(t, i, "index_url", "expected https://download.pytorch.org/whl/<variant>", err);
		if (!tsv_yes_no(tsv_cell(t, i, 8), &b->uncertain))
			return tsv_bad(t, i, "uncertain", "expected yes or no", err);
		b->source = tsv_cell(t, i, 9);
		if (!*b->source)
			return tsv_bad(t, i, "source", "empty", err);
		b->notes = tsv_cell(t, i, 10);
		if (i && version_cmp(&b->release_v, &fdb.torch[i - 1].release_v) < 0)
			return tsv_bad(t, i, "release", "rows must be ordered oldest release first", err);
		fdb.n_torch++;
	}
	return CD_OK;
}

static bool known_framework(const char *name)
{
	static const char *const names[] = { "jax", "vllm", "ollama", "cupy", "tensorflow" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static int load_fw(const struct tsv_table *t, char *err)
{
	fdb.fw = calloc(t->nrows ? t->nrows : 1, sizeof(*fdb.fw));
	if (!fdb.fw)
		return cd_fail(err, CD_ENOMEM, "frameworks.tsv: out of memory");
	for (size_t i = 0; i < t->nrows; i++) {
		struct kb_fw_build *b = &fdb.fw[i];
		const char *max = tsv_cell(t, i, 5);

		b->framework = tsv_cell(t, i, 0);
		if (!known_framework(b->framework))
			return tsv_bad(t, i, "framework", "expected jax, vllm, ollama, cupy or tensorflow", err);
		b->release = tsv_cell(t, i, 1);
		b->variant = tsv_cell(t, i, 2);
		if (!*b->release || !*b->variant)
			return tsv_bad(t, i, "variant", "empty release or variant", err);
		b->cuda_text = tsv_cell(t, i, 3);
		if (strcmp(b->cuda_text, "-") != 0 && !tsv_version(b->cuda_text, strlen(b->cuda_text), &b->cuda))
			return tsv_bad(t, i, "cuda", "expected '-' or a CUDA version", err);
		if (!(b->min_cc = parse_cc(tsv_cell(t, i, 4))))
			return tsv_bad(t, i, "min_cc", "expected a compute capability like 7.5", err);
		if (strcmp(max, "-") != 0 && (!(b->max_cc = parse_cc(max)) || b->max_cc < b->min_cc))
			return tsv_bad(t, i, "max_cc", "expected '-' or a compute capability >= min_cc", err);
		b->min_driver_text = tsv_cell(t, i, 6);
		if (strcmp(b->min_driver_text, "toolkit") == 0) {
			if (!b->cuda.parts)
				return tsv_bad(t, i, "min_driver", "'toolkit' needs a cuda version", err);
		} else if (tsv_version(b->min_driver_text, strlen(b->min_driver_text), &b->min_driver)) {
			b->has_min_driver = true;
		} else {
			return tsv_bad(t, i, "min_driver", "expected a driver version or 'toolkit'", err);
		}
		b->install = tsv_cell(t, i, 7);
		if (!*b->install)
			return tsv_bad(t, i, "install", "empty", err);
		if (!tsv_yes_no(tsv_cell(t, i, 8), &b->uncertain))
			return tsv_bad(t, i, "uncertain", "expected yes or no", err);
		b->source = tsv_cell(t, i, 9);
		if (!*b->source)
			return tsv_bad(t, i, "source", "empty", err);
		b->notes = tsv_cell(t, i, 10);
		fdb.n_fw++;
	}
	return CD_OK;
}

static void fdb_free(void)
{
	free(fdb.torch);
	free(fdb.fw);
	tsv_free(&fdb.torch_t);
	tsv_free(&fdb.fw_t);
	memset(&fdb, 0, sizeof(fdb));
}

int kb_fw_load_blobs(const struct kb_blob *blobs, size_t n, char *err)
{
	const struct kb_blob *t = kb_blob_in(blobs, n, "torch.tsv"), *f = kb_blob_in(blobs, n, "frameworks.tsv");
	int rc;

	fdb_free();
	fdb.tried = true;
	if (!t || !f) {
		rc = cd_fail(fdb.err, CD_EFORMAT, "kb table %s is not embedded",
			     t ? "frameworks.tsv" : "torch.tsv");
		goto out;
	}
	rc = tsv_parse("torch.tsv", t->data, t->size, torch_cols,
		       sizeof(torch_cols) / sizeof(torch_cols[0]), &fdb.torch_t, fdb.err);
	if (rc == CD_OK)
		rc = load_torch(&fdb.torch_t, fdb.err);
	if (rc == CD_OK)
		rc = tsv_parse("frameworks.tsv", f->data, f->size, fw_cols,
			       sizeof(fw_cols) / sizeof(fw_cols[0]), &fdb.fw_t, fdb.err);
	if (rc == CD_OK)
		rc = load_fw(&fdb.fw_t, fdb.err);
out:
	if (rc) {
		char keep[CD_ERRMSG];

		memcpy(keep, fdb.err, sizeof(keep));
		fdb_free();
		memcpy(fdb.err, keep, sizeof(keep));
		fdb.tried = true;
	}
	fdb.status = rc;
	if (rc && err)
		memcpy(err, fdb.err, CD_ERRMSG);
	return rc;
}

int kb_fw_load(char *err)
{
	if (!fdb.tried)
		return kb_fw_load_blobs(kb_blobs, kb_blob_count, err);
	if (fdb.status && err)
		memcpy(err, fdb.err, CD_ERRMSG);
	return fdb.status;
}

size_t kb_torch_count(void)
{
	return kb_fw_load(NULL) == CD_OK ? fdb.n_torch : 0;
}

const struct kb_torch_build *kb_torch_at(size_t i)
{
	return i < kb_torch_count() ? &fdb.torch[i] : NULL;
}

bool kb_torch_release_matches(const struct kb_torch_build *b, const struct version *q)
{
	if (b->release_v.major != q->major || (q->parts >= 2 && b->release_v.minor != q->minor))
		return false;
	return q->parts < 3 || b->release_v.patch == q->patch;
}

size_t kb_fw_count(void)
{
	return kb_fw_load(NULL) == CD_OK ? fdb.n_fw : 0;
}

const struct kb_fw_build *kb_fw_at(size_t i)
{
	return i < kb_fw_count() ? &fdb.fw[i] : NULL;
}
