/* One file's report in `arch`: its section, listing, verdicts and resources, its object of
 * "files" and its -q lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/arch/arch.h"
#include "cmd/cmd.h"
#include "show/arch_verdicts.h"
#include "util/err.h"

void arch_file_fields(struct report_rec *files, struct arch_file *f, const struct arch_opts *o,
		      struct arch_verdict *v)
{
	const struct dc_inventory *inv = &f->inv;
	struct report *r = files->r;
	char err[CD_ERRMSG] = "";
	struct report_rec w;
	size_t primary = 0;
	bool judged = false;

	for (size_t i = 0; i < inv->n_containers; i++)
		primary += inv->containers[i].primary;
	report_rec_item(files, &w);
	size_t hip = arch_hip_device_entries(inv);
	if (inv->format == DC_AMDGPU_CODE_OBJECT)
		report_rec_section(&w, "%s (%s): 1 code object", f->path, dc_format_name(inv->format));
	else if (inv->n_hip_bundles && !inv->n_containers)
		report_rec_section(&w, "%s (%s): %zu offload bundle%s, %zu code object%s", f->path, dc_format_name(inv->format),
				   inv->n_hip_bundles, inv->n_hip_bundles == 1 ? "" : "s", hip, hip == 1 ? "" : "s");
	else if (inv->n_hip_bundles)
		report_rec_section(&w, "%s (%s): %zu container%s, %zu image%s, %zu offload bundle%s, %zu code object%s",
				   f->path, dc_format_name(inv->format), inv->n_containers, inv->n_containers == 1 ? "" : "s",
				   inv->n_images, inv->n_images == 1 ? "" : "s", inv->n_hip_bundles,
				   inv->n_hip_bundles == 1 ? "" : "s", hip, hip == 1 ? "" : "s");
	else
		report_rec_section(&w, "%s (%s): %zu container%s, %zu image%s", f->path, dc_format_name(inv->format),
				   inv->n_containers, inv->n_containers == 1 ? "" : "s", inv->n_images,
				   inv->n_images == 1 ? "" : "s");
	report_field(&w, NULL, "path", rv_str(f->path));
	report_field(&w, NULL, "format", rv_str(dc_format_name(inv->format)));
	report_field(&w, NULL, "containers", rv_int((long long)inv->n_containers));
	report_field(&w, NULL, "primary_containers", rv_int((long long)primary));
	arch_images_fields(&w, f, o);
	arch_hip_fields(&w, f, o);
	if (primary < inv->n_containers) {
		/* which sections: the CUDA runtime registers .nv_fatbin (else __nv_relfatbin) only */
		char secs[256] = "";
		bool *other = calloc(inv->n_sections ? inv->n_sections : 1, sizeof(bool));

		for (size_t i = 0; other && i < inv->n_containers; i++)
			if (!inv->containers[i].primary)
				other[inv->containers[i].section] = true;
		for (size_t s = 0; other && s < inv->n_sections; s++)
			if (other[s] && strlen(secs) + strlen(inv->sections[s]) + 3 < sizeof(secs))
				snprintf(secs + strlen(secs), sizeof(secs) - strlen(secs), "%s%s", secs[0] ? ", " : "",
					 inv->sections[s]);
		free(other);
		report_rec_line(&w, "%zu container%s in %s: not registered by the CUDA runtime (the library or a "
				    "device link loads them), listed but not judged", inv->n_containers - primary,
				inv->n_containers - primary == 1 ? "" : "s", secs);
	}
	if (arch_verdicts(&w, f, &o->target, v, err) != CD_OK)
		report_rec_fail(&w, CD_ENOMEM);
	if (o->resources && arch_resources(&w, f, err) != CD_OK)
		report_rec_fail(&w, CD_ENOMEM);
	if (arch_exe_fields(&w, f) != CD_OK)
		report_rec_fail(&w, CD_ENOMEM);
	cmd_note(r, report_rec_end(&w));
	/* -q: one verdict line per file and GPU */
	for (size_t i = 0; i < o->target.n_gpus; i++) {
		if (v[i].verdict == VERDICT_NONE)
			continue;
		judged = true;
		cmd_note(r, report_answer(r, "%s: %s: %s", f->path, o->target.gpus[i].name,
					  compat_verdict_name(v[i].verdict)));
	}
	if (!judged)
		cmd_note(r, report_answer(r, "%s: %s", f->path, inv->n_images ? "not judged (no GPU)" : "no device code"));
}

