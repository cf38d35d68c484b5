/* One lab's result in the report (render.h): its section, measurements, chart, verdict and
 * lesson, its JSON object, and the finding a result that is not confirmed gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lab/render.h"
#include "lab/svg.h"
#include "rules/catalogue.h"
#include "util/err.h"

static json_t *meas_json(const struct lab_result *res)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < res->n_meas; i++)
		json_array_append_new(a, json_pack("{s:s, s:f, s:s}", "label", res->meas[i].label, "value",
						   res->meas[i].value, "unit", res->meas[i].unit));
	return a;
}

static void fmt_value(char *buf, size_t n, double v)
{
	double av = v < 0 ? -v : v;
	if (v == (long long)v && av < 1e12)
		snprintf(buf, n, "%lld", (long long)v);
	else if (av >= 100)
		snprintf(buf, n, "%.0f", v);
	else if (av >= 10)
		snprintf(buf, n, "%.1f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

void lab_render_result(struct report *r, json_t *jlabs, const struct lab *l, const struct lab_result *res,
		       const char *err)
{
	report_section(r, "lab %s: %s", l->name, l->concept);
	report_kv(r, "claim", "%s", l->claim);
	if (res->setup[0])
		report_kv(r, "set-up", "%s", res->setup);
	if (res->n_meas) {
		static const char *const hdr[] = { "measurement", "value", "unit" };
		report_table(r, 3, hdr);
		for (size_t i = 0; i < res->n_meas; i++) {
			char v[32];
			fmt_value(v, sizeof v, res->meas[i].value);
			const char *row[] = { res->meas[i].label, v, res->meas[i].unit };
			report_table_row(r, row);
		}
	}
	char *svg = res->plot.used ? lab_svg_render(&res->plot) : NULL;
	if (svg)
		report_figure(r, res->plot.title, svg);
	free(svg);
	report_kv(r, "verdict", "%s: %s", lab_verdict_name(res->verdict), res->decided[0] ? res->decided : err);
	cmd_note(r, report_answer(r, "%s: %s: %s", l->name, lab_verdict_name(res->verdict),
				  res->decided[0] ? res->decided : err)); /* -q */
	if (res->note[0])
		report_kv(r, "note", "%s", res->note);
	report_kv(r, "lesson", "%s", l->lesson);

	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s}", "name", l->name, "concept", l->concept,
			      "claim", l->claim, "setup", res->setup, "measurements", meas_json(res), "verdict",
			      lab_verdict_name(res->verdict), "decided", res->decided[0] ? res->decided : err, "lesson",
			      l->lesson);
	if (o && res->note[0])
		json_object_set_new(o, "note", json_string(res->note));
	if (o)
		json_array_append_new(jlabs, o);

	struct finding_vars v;
	struct finding *f = NULL;
	finding_vars_init(&v);
	finding_var(&v, "lab", "%s", l->name);
	if (res->wrong_result) {
		if ((f = finding_make(r, SEV_CATALOGUE, "lab-wrong-result", l->name, &v)))
			cmd_note(r, finding_evidence(f, "%s", res->note[0] ? res->note : res->decided));
	} else if (res->verdict == LAB_FAILED) {
		if ((f = finding_make(r, SEV_CATALOGUE, "lab-failed/run", l->name, &v)))
			cmd_note(r, finding_evidence(f, "%s", err));
	} else if (res->verdict == LAB_REFUTED) {
		if ((f = finding_make(r, SEV_CATALOGUE, "lab-refuted", l->name, &v)))
			cmd_note(r, finding_evidence(f, "%s", res->decided));
	} else if (res->verdict == LAB_INCONCLUSIVE) {
		if ((f = finding_make(r, SEV_CATALOGUE, "lab-inconclusive", l->name, &v)))
			cmd_note(r, finding_evidence(f, "%s", res->decided));
	}
}
