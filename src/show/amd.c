/* The AMD section: the host's facts, a table of the GPUs KFD shows, a table of the device
 * nodes and who may open them; each through its field table. */
#include "show/amd.h"

#include "rules/amd.h"
#include "util/err.h"

/* The ROCm user space against the DKMS driver's support window (rules_amd_window): a line, and
 * the "driver_window" object ({driver, supports, inside}; null where it cannot be judged). */
static void window(struct report_rec *o, const struct amd_host *h)
{
	struct amd_window w;
	struct report_rec x;

	if (!rules_amd_window(h, &w)) {
		if (h->amdgpu_module && !h->amdgpu_version[0])
			report_fieldf(o, "driver window", NULL, rv_null(), "not judged: the kernel's own amdgpu (AMD's "
				      "window is for its DKMS driver)");
		else if (w.judged)
			report_fieldf(o, "driver window", NULL, rv_null(), "not judged: amdgpu %s is not in cudoctor's "
				      "table (kb/amdgpu_drivers.tsv)", h->amdgpu_version);
		report_field(o, NULL, "driver_window", rv_null());
		return;
	}
	report_fieldf(o, "driver window", NULL, rv_null(), "ROCm %s %s amdgpu %s's window (ROCm %s)", h->rocm_version,
		      w.inside ? "is inside" : "is OUTSIDE", w.driver->driver, w.driver->rocm_text);
	report_rec_object(o, "driver_window", &x);
	report_rec_text(&x, REPORT_TEXT_NONE);
	report_field(&x, NULL, "driver", rv_str(w.driver->driver));
	report_field(&x, NULL, "supports", rv_str(w.driver->rocm_text));
	report_field(&x, NULL, "inside", rv_bool(w.inside));
	if (report_rec_end(&x) != CD_OK)
		return; /* and o has the error */
}

/* A table of n records of t under key (its text header from the table). */
static int table(struct report_rec *o, const char *key, const struct field_table *t, const void *items, size_t size,
		 size_t n, unsigned view)
{
	const char *hdr[16];
	size_t ncols = report_fields_headers(t, view, hdr, 16);
	struct report_rec tab, row;

	report_rec_table(o, key, ncols, hdr, &tab);
	for (size_t i = 0; i < n; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, t, (const char *)items + i * size, view);
		if (report_rec_end(&row) != CD_OK)
			break; /* the table's end hands the error up */
	}
	return report_rec_end(&tab);
}

int show_amd(struct report_rec *top, const struct amd_host *h, bool amd_only, unsigned view)
{
	struct report_rec o;

	report_rec_section(top, "AMD GPUs");
	report_rec_object(top, "amd", &o);
	if (!h->n_gpus)
		report_rec_line(&o, "%s", h->kfd ? "KFD shows no GPU" : "no KFD topology (/sys/class/kfd)");
	if (table(&o, "gpus", &amd_gpu_field_table, h->gpus, sizeof h->gpus[0], h->n_gpus, view) == CD_OK) {
		report_fields(&o, &amd_host_field_table, h, view);
		window(&o, h);
		report_field(&o, NULL, "amd_only", rv_bool(amd_only));
	}
	if (h->n_nodes)
		(void)table(&o, "nodes", &amd_node_field_table, h->nodes, sizeof h->nodes[0], h->n_nodes, view);
	if (report_rec_end(&o) != CD_OK)
		return top->rc;
	return top->rc;
}
