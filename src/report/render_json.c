/* The JSON contract: tool, version, command, header, findings, then the command's own keys. */
#include "report/render.h"
#include "report/render_internal.h"
#include "util/err.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

static json_t *strv_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *finding_json(const struct finding *f)
{
	json_t *evidence = strv_json(f->evidence, f->n_evidence);
	json_t *fix = strv_json(f->fix, f->n_fix);

	if (!evidence || !fix) {
		json_decref(evidence);
		json_decref(fix);
		return NULL;
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:o}", "id", f->id, "severity",
			 severity_name(f->severity), "subject", f->subject, "title", f->title,
			 "evidence", evidence, "why", f->why ? f->why : "", "fix", fix);
}

json_t *report_to_json(const struct report *r)
{
	json_t *root, *findings;
	const char *key;
	json_t *value;

	root = json_pack("{s:s, s:s, s:s}", "tool", "cudoctor", "version", CUDOCTOR_VERSION,
			 "command", r->command);
	findings = json_array();
	if (!root || !findings)
		goto oom;
	if (r->header && json_object_set(root, "header", r->header) != 0)
		goto oom;
	for (size_t i = 0; i < r->n_findings; i++)
		if (json_array_append_new(findings, finding_json(&r->findings[i])) != 0)
			goto oom;
	if (json_object_set_new(root, "findings", findings) != 0) {
		findings = NULL;
		goto oom;
	}
	findings = NULL;
	json_object_foreach(r->data, key, value) {
		if (json_object_get(root, key))
			continue; /* the contract's keys win */
		if (json_object_set(root, key, value) != 0)
			goto oom;
	}
	return root;
oom:
	json_decref(findings);
	json_decref(root);
	return NULL;
}

int render_report(const struct report *r, const struct render_opts *o, FILE *out)
{
	json_t *root;
	int rc;

	switch (o->format) {
	case FMT_TEXT:
		return render_text(r, o, out);
	case FMT_MARKDOWN:
		return render_markdown(r, o, out);
	case FMT_PROMETHEUS:
		return render_prometheus(r, o, out);
	case FMT_JSON:
		break;
	}
	root = report_to_json(r);
	if (!root) /* every string is safe text: a refusal is a bug, not a lack of memory */
		return CD_EINTERNAL;
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
	return rc == 0 && !ferror(out) ? CD_OK : CD_EIO;
}
