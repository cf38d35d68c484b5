/* `cudoctor kb torch` and `kb framework`: rows of kb/torch.tsv and kb/frameworks.tsv, each
 * with its sources spelled out; uncertain rows say so. */
#include "cmd/kb/torch.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kb/frameworks.h"
#include "util/err.h"

/* "key;key;..." of kb/sources.tsv: a "source" line each, and "sources": [{key, what}]. */
static void sources(struct report_rec *w, const char *list)
{
	struct report_rec arr, it;
	const char *p = list;

	report_rec_array(w, "sources", &arr);
	while (*p) {
		size_t k = strcspn(p, ";");
		char key[240];
		const struct kb_source *s;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		s = kb_source_find(key);
		report_rec_item(&arr, &it);
		report_fieldf(&it, "source", "key", rv_str(key), "%s%s%s", key, s ? ": " : "", s ? s->what : "");
		report_field(&it, NULL, "what", rv_str(s ? s->what : key));
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return; /* the failure is w's now */
}

/* The text of a field the -q line repeats, found by its label. */
static const struct field *by_label(const struct field_table *t, const char *label)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fields[i].label && strcmp(t->fields[i].label, label) == 0)
			return &t->fields[i];
	return &t->fields[0];
}

int kb_torch_cmd(struct report *r, const char *query, char *err)
{
	struct report_rec top, arr, it;
	struct version q = { 0 };
	bool by_variant = query && strncmp(query, "cu", 2) == 0;
	size_t n = 0;
	int rc;

	if ((rc = kb_fw_load(err)) != CD_OK)
		return rc;
	if (query && !by_variant && version_parse(query, &q) != CD_OK)
		return cd_fail(err, CD_EUSAGE, "kb torch wants a release (2.7) or a variant (cu128)");
	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		n += !query || (by_variant ? strcmp(b->variant, query) == 0 : kb_torch_release_matches(b, &q));
	}
	if (n == 0)
		return cd_fail(err, CD_EUSAGE, "no PyTorch build in the tables matches '%.40s'", query);
	report_rec_top(&top, r);
	report_rec_array(&top, "torch", &arr);
	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);
		struct field_value archs;

		if (query && (by_variant ? strcmp(b->variant, query) != 0 : !kb_torch_release_matches(b, &q)))
			continue;
		field_value_of(&kb_torch_build_field_table, by_label(&kb_torch_build_field_table, "archs"), b, &archs);
		report_rec_item(&arr, &it);
		report_rec_section(&it, "torch %s %s%s", b->release, b->variant, b->uncertain ? " (uncertain)" : "");
		cmd_note(r, report_answer(r, "torch %s %s: CUDA %s (%s), %s%s", b->release, b->variant, b->cuda_text,
					  b->experimental ? "experimental" : "stable", archs.s,
					  b->uncertain ? " (uncertain)" : "")); /* -q */
		report_fields(&it, &kb_torch_build_field_table, b, FIELD_FULL);
		sources(&it, b->source);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	rc = report_rec_end(&arr); /* its error is top's too */
	return report_rec_end(&top) != CD_OK ? top.rc : rc;
}

int kb_framework_cmd(struct report *r, const char *query, char *err)
{
	struct report_rec top, arr, it;
	size_t n = 0;
	int rc;

	if ((rc = kb_fw_load(err)) != CD_OK)
		return rc;
	for (size_t i = 0; i < kb_fw_count(); i++)
		n += !query || strcmp(kb_fw_at(i)->framework, query) == 0;
	if (n == 0)
		return cd_fail(err, CD_EUSAGE, "no framework build in the tables matches '%.40s' (jax, vllm, ollama, cupy, tensorflow)", query);
	report_rec_top(&top, r);
	report_rec_array(&top, "frameworks", &arr);
	for (size_t i = 0; i < kb_fw_count(); i++) {
		const struct kb_fw_build *b = kb_fw_at(i);
		struct field_value cc;
		char cuda[48], drv[64];

		if (query && strcmp(b->framework, query) != 0)
			continue;
		field_value_of(&kb_fw_build_field_table, by_label(&kb_fw_build_field_table, "compute capability"), b, &cc);
		report_rec_item(&arr, &it);
		report_rec_section(&it, "%s %s %s%s", b->framework, b->release, b->variant, b->uncertain ? " (uncertain)" : "");
		/* -q; "-": the build's CUDA is not published (Ollama bundles its own) */
		cuda[0] = '\0';
		if (strcmp(b->cuda_text, "-") != 0)
			snprintf(cuda, sizeof(cuda), "CUDA %s, ", b->cuda_text);
		if (b->has_min_driver)
			snprintf(drv, sizeof(drv), "min driver %s", b->min_driver_text);
		else
			snprintf(drv, sizeof(drv), "min driver: CUDA %s's minimum", b->cuda_text);
		cmd_note(r, report_answer(r, "%s %s %s: %scompute capability %s, %s%s", b->framework, b->release, b->variant,
					  cuda, cc.s, drv, b->uncertain ? " (uncertain)" : ""));
		report_fields(&it, &kb_fw_build_field_table, b, FIELD_FULL);
		sources(&it, b->source);
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	rc = report_rec_end(&arr); /* its error is top's too */
	return report_rec_end(&top) != CD_OK ? top.rc : rc;
}
