/* One lab's result in the report (render.h): its section, measurements, chart, verdict and
 * lesson, its JSON object, and the finding a result that is not confirmed gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/lab/render.h"
#include "lab/fields.h"
#include "lab/svg.h"
#include "rules/catalogue.h"
#include "util/err.h"

void lab_render_result(struct report_rec *labs, const struct lab *l, const struct lab_result *res, const char *err)
{
	struct report *r = labs->r;
	const char *decided = res->decided[0] ? res->decided : err, *hdr[3];
	size_t ncols = report_fields_headers(&lab_meas_field_table, FIELD_ALL, hdr, 3);
	struct report_rec o, t, row;

	report_rec_item(labs, &o);
	report_rec_section(&o, "lab %s: %s", l->name, l->concept);
	report_one_json(&o, &lab_field_table, LAB_F_NAME, l);
	report_one_json(&o, &lab_field_table, LAB_F_CONCEPT, l);
	report_one_field(&o, &lab_field_table, LAB_F_CLAIM, l);
	report_one_field(&o, &lab_result_field_table, LAB_R_SETUP, res);
	if (res->n_meas)
		report_rec_table(&o, "measurements", ncols, hdr, &t);
	else
		report_rec_array(&o, "measurements", &t);
	for (size_t i = 0; i < res->n_meas; i++) {
		report_rec_item(&t, &row);
		report_fields(&row, &lab_meas_field_table, &res->meas[i], FIELD_ALL);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&t) == CD_OK) {
		char *svg = res->plot.used ? lab_svg_render(&res->plot) : NULL;

		if (svg)
			report_rec_fail(&o, report_figure(r, res->plot.title, svg));
		free(svg);
	}
	report_one_fieldf(&o, &lab_result_field_table, LAB_R_VERDICT, res, "%s: %s", lab_verdict_name(res->verdict),
			  decided);
	report_field(&o, NULL, "decided", rv_str(decided));
	cmd_note(r, report_answer(r, "%s: %s: %s", l->name, lab_verdict_name(res->verdict), decided)); /* -q */
	report_one_field(&o, &lab_result_field_table, LAB_R_NOTE, res);
	report_one_field(&o, &lab_field_table, LAB_F_LESSON, l);
	cmd_note(r, report_rec_end(&o));

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
