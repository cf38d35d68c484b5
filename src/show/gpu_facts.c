/* The driver and GPU facts written from their field tables, for doctor and devices. */
#include "show/gpu_facts.h"

#define MAX_COLS 16

int gpu_facts_driver(struct report_rec *top, const struct gpu_probe *p, unsigned view)
{
	struct report_rec d, nv;
	int rc;

	report_rec_object(top, "driver", &d);
	report_fields(&d, &driver_field_table, p, view);
	report_rec_object(&d, "nvml", &nv);
	report_fields(&nv, &driver_nvml_field_table, p, view);
	rc = report_rec_end(&nv); /* its error is d's too, and top's after d's end */
	return report_rec_end(&d) != CD_OK ? d.rc : rc;
}

/* A JSON array under key whose items are records of t, a text table of them in view (when
 * the parent shows text and there is a row); null when known is false. */
static void list(struct report_rec *g, const char *key, const struct field_table *t, bool known, const void *items,
		 size_t size, size_t n)
{
	const char *hdr[MAX_COLS];
	size_t ncols = report_fields_headers(t, FIELD_FULL, hdr, MAX_COLS);
	struct report_rec tab, row;

	if (!known) {
		report_field(g, NULL, key, rv_null());
		return;
	}
	if (n == 0) /* an empty array, no table */
		report_rec_array(g, key, &tab);
	else
		report_rec_table(g, key, ncols, hdr, &tab);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, t, (const char *)items + i * size, FIELD_FULL);
		if (report_rec_end(&row) != CD_OK)
			break; /* handed to the table, and to g at its end */
	}
	if (report_rec_end(&tab) != CD_OK)
		return;
}

void gpu_facts_processes(struct report_rec *g, const struct gpu_info *gi)
{
	list(g, "processes", &gpu_process_field_table, gpu_has(gi, GF_PROCESSES), gi->processes, sizeof(*gi->processes),
	     gi->n_processes);
}

void gpu_facts_mig(struct report_rec *g, const struct gpu_info *gi)
{
	bool on = gpu_has(gi, GF_MIG_MODE) && gi->mig_mode_current;

	if (on && !gpu_has(gi, GF_MIG_DEVICES))
		report_rec_line(g, "MIG devices: not listed (this NVML lacks the MIG device calls, or they failed)");
	else if (on && gi->n_mig_devices == 0)
		report_rec_line(g, "MIG devices: none (MIG mode is on but no GPU/compute instance exists: CUDA sees no device here)");
	list(g, "mig_devices", &gpu_mig_field_table, gpu_has(gi, GF_MIG_DEVICES), gi->mig_devices,
	     sizeof(*gi->mig_devices), gi->n_mig_devices);
}

void gpu_facts_gpu(struct report_rec *g, const struct gpu_info *gi, unsigned view)
{
	report_fields(g, &gpu_field_table, gi, view);
	gpu_facts_processes(g, gi);
	gpu_facts_mig(g, gi);
}
