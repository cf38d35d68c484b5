/* `cudoctor kb torch` and `kb framework`: rows of kb/torch.tsv and kb/frameworks.tsv, each
 * with its sources spelled out; uncertain rows say so. */
#include "cmd/kb/torch.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kb/frameworks.h"
#include "util/err.h"

static void sources(struct report *r, const char *list, json_t *arr)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ";");
		char key[240];
		const struct kb_source *s;

		snprintf(key, sizeof(key), "%.*s", (int)(k < sizeof(key) - 1 ? k : sizeof(key) - 1), p);
		p += k + (p[k] == ';');
		s = kb_source_find(key);
		report_kv(r, "source", "%s%s%s", key, s ? ": " : "", s ? s->what : "");
		if (arr)
			json_array_append_new(arr, json_pack("{s:s, s:s}", "key", key, "what", s ? s->what : key));
	}
}

static void archs_text(const struct kb_torch_build *b, char *buf, size_t n)
{
	size_t u = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < b->n_archs && u < n; i++) {
		char one[24];

		kb_arch_format(b->archs[i], "sm_", one, sizeof(one));
		u += (size_t)snprintf(buf + u, n - u, "%s%s", i ? " " : "", one);
	}
	if (b->has_ptx && u < n)
		snprintf(buf + u, n - u, " + PTX compute_%d", b->ptx.num);
}

int kb_torch_cmd(struct report *r, const char *query, char *err)
{
	json_t *arr = json_array();
	struct version q = { 0 };
	bool by_variant = query && strncmp(query, "cu", 2) == 0;
	size_t n = 0;
	int rc;

	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = kb_fw_load(err)) != CD_OK)
		goto fail;
	if (query && !by_variant && version_parse(query, &q) != CD_OK) {
		rc = cd_fail(err, CD_EUSAGE, "kb torch wants a release (2.7) or a variant (cu128)");
		goto fail;
	}
	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);
		char archs[256];
		json_t *src = json_array();

		if (query && (by_variant ? strcmp(b->variant, query) != 0 : !kb_torch_release_matches(b, &q))) {
			json_decref(src);
			continue;
		}
		archs_text(b, archs, sizeof(archs));
		report_section(r, "torch %s %s%s", b->release, b->variant, b->uncertain ? " (uncertain)" : "");
		cmd_note(r, report_answer(r, "torch %s %s: CUDA %s (%s), %s%s", b->release, b->variant, b->cuda_text,
					  b->experimental ? "experimental" : "stable", archs,
					  b->uncertain ? " (uncertain)" : "")); /* -q */
		report_kv(r, "CUDA", "%s (%s)", b->cuda_text, b->experimental ? "experimental" : "stable");
		report_kv(r, "platform", "%s", b->platform);
		report_kv(r, "archs", "%s", archs);
		report_kv_command(r, "pip", "pip install torch==%s --index-url %s", b->release, b->index_url);
		if (*b->notes)
			report_kv(r, "notes", "%s", b->notes);
		sources(r, b->source, src);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:o}", "release", b->release,
			"variant", b->variant, "cuda", b->cuda_text, "status", b->experimental ? "experimental" : "stable",
			"platform", b->platform, "archs", archs, "index_url", b->index_url, "uncertain", b->uncertain,
			"notes", b->notes, "sources", src ? src : json_array()));
		n++;
	}
	if (n == 0) {
		rc = cd_fail(err, CD_EUSAGE, "no PyTorch build in the tables matches '%.40s'", query);
		goto fail;
	}
	return report_json_set(r, "torch", arr);
fail:
	json_decref(arr);
	return rc;
}

int kb_framework_cmd(struct report *r, const char *query, char *err)
{
	json_t *arr = json_array();
	size_t n = 0;
	int rc;

	if (!arr)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = kb_fw_load(err)) != CD_OK) {
		json_decref(arr);
		return rc;
	}
	for (size_t i = 0; i < kb_fw_count(); i++) {
		const struct kb_fw_build *b = kb_fw_at(i);
		json_t *src = json_array();
		char cc[32], cuda[48], drv[64];

		if (query && strcmp(b->framework, query) != 0) {
			json_decref(src);
			continue;
		}
		if (b->max_cc)
			snprintf(cc, sizeof(cc), "%d.%d .. %d.%d", b->min_cc / 10, b->min_cc % 10, b->max_cc / 10, b->max_cc % 10);
		else
			snprintf(cc, sizeof(cc), "%d.%d and newer", b->min_cc / 10, b->min_cc % 10);
		report_section(r, "%s %s %s%s", b->framework, b->release, b->variant, b->uncertain ? " (uncertain)" : "");
		/* -q; "-": the build's CUDA is not published (Ollama bundles its own) */
		cuda[0] = '\0';
		if (strcmp(b->cuda_text, "-") != 0)
			snprintf(cuda, sizeof(cuda), "CUDA %s, ", b->cuda_text);
		if (b->has_min_driver)
			snprintf(drv, sizeof(drv), "min driver %s", b->min_driver_text);
		else
			snprintf(drv, sizeof(drv), "min driver: CUDA %s's minimum", b->cuda_text);
		cmd_note(r, report_answer(r, "%s %s %s: %scompute capability %s, %s%s", b->framework, b->release, b->variant,
					  cuda, cc, drv, b->uncertain ? " (uncertain)" : ""));
		report_kv(r, "CUDA", "%s", b->cuda_text);
		report_kv(r, "compute capability", "%s", cc);
		report_kv(r, "min driver", "%s", b->has_min_driver ? b->min_driver_text : "the CUDA family's floor (kb toolkit)");
		report_kv(r, "install", "%s", b->install);
		if (*b->notes)
			report_kv(r, "notes", "%s", b->notes);
		sources(r, b->source, src);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:b, s:o}", "framework", b->framework,
			"release", b->release, "variant", b->variant, "cuda", b->cuda_text, "min_cc", b->min_cc,
			"max_cc", b->max_cc, "min_driver", b->min_driver_text, "install", b->install, "uncertain", b->uncertain,
			"sources", src ? src : json_array()));
		n++;
	}
	if (n == 0) {
		json_decref(arr);
		return cd_fail(err, CD_EUSAGE, "no framework build in the tables matches '%.40s' (jax, vllm, ollama, cupy, tensorflow)", query);
	}
	return report_json_set(r, "frameworks", arr);
}
