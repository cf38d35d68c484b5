/* The MIG device list of a GPU for a command that builds its JSON by hand (mem status),
 * from the same field table doctor and devices write it with (show/gpu_facts.c). */
#include "show/gpu_mig.h"

#include "show/gpu_facts.h"
#include "util/err.h"

json_t *gpu_mig_devices_json(const struct gpu_info *g)
{
	json_t *a;

	if (!gpu_has(g, GF_MIG_DEVICES))
		return json_null();
	a = json_array();
	for (size_t i = 0; a && i < g->n_mig_devices; i++) {
		json_t *o = report_fields_json(&gpu_mig_field_table, &g->mig_devices[i]);

		if (!o || json_array_append_new(a, o) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int gpu_mig_devices_text(struct report *r, const struct gpu_info *g)
{
	struct report_rec top, text;
	int rc;

	if (!gpu_has(g, GF_MIG_MODE) || !g->mig_mode_current)
		return CD_OK;
	report_rec_top(&top, r);
	report_rec_text_only(&top, &text);
	gpu_facts_mig(&text, g);
	rc = report_rec_end(&text); /* its error is top's too */
	return report_rec_end(&top) != CD_OK ? top.rc : rc;
}
