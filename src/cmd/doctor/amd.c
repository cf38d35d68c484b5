/* doctor's AMD part: the machine through show/amd.c, each scanned framework's HIP code judged
 * on each AMD GPU by rules/arch (the deciding file's findings with them), then rules/amd.c. */
#include "cmd/doctor/amd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/amd.h"
#include "rules/arch.h"
#include "rules/framework.h"
#include "rules/plan_rocm.h"
#include "show/amd.h"
#include "util/err.h"

/* How bad a verdict is, for the worst (or, among alternatives, the best) file of an app. */
static int badness(enum compat_verdict v)
{
	return v == VERDICT_NATIVE ? 0 : v == VERDICT_JIT ? 1 : v == VERDICT_PARTIAL ? 2 : v == VERDICT_NONE ? -1 : 3;
}

/* One app on every GPU of t: a row each, and the deciding file's findings. */
static int judge_app(struct report *r, struct report_rec *tab, const struct fw_app *a, const struct arch_target *t,
		     size_t *rows, char *err)
{
	struct arch_verdict *v = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*v)), *best = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*v));
	long *pick = calloc(t->n_gpus ? t->n_gpus : 1, sizeof(*pick));
	int rc = CD_OK;

	if (!v || !best || !pick) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t g = 0; g < t->n_gpus; g++) {
		pick[g] = -1;
		best[g].verdict = VERDICT_NONE;
	}
	for (size_t i = 0; i < a->n_files; i++) {
		if ((rc = arch_judge(&a->files[i], t, v, err)) != CD_OK)
			goto out;
		for (size_t g = 0; g < t->n_gpus; g++) {
			int now = badness(v[g].verdict), was = badness(best[g].verdict);
			if (now < 0 || (was >= 0 && (a->alternatives ? now >= was : now <= was)))
				continue;
			best[g] = v[g];
			pick[g] = (long)i;
		}
	}
	for (size_t g = 0; g < t->n_gpus && rc == CD_OK; g++) {
		struct report_rec row;
		const struct kb_rocm_build *b;
		char what[160], fix[400] = "";
		if (pick[g] < 0)
			continue;
		snprintf(what, sizeof what, "%s%s%s", a->name, a->version[0] ? " " : "", a->version);
		if (best[g].verdict != VERDICT_NATIVE && best[g].verdict != VERDICT_JIT &&
		    (b = plan_rocm_pick(strcmp(a->name, "torch") == 0 ? "torch" : "jax", t->gpus[g].gfx)) &&
		    (strcmp(a->name, "torch") == 0 || strncmp(a->name, "jax", 3) == 0))
			snprintf(fix, sizeof fix, "%s", b->install);
		report_rec_item(tab, &row);
		report_field(&row, "framework", "framework", rv_str(what));
		report_field(&row, "GPU", "gpu", rv_str(t->gpus[g].name));
		report_field(&row, NULL, "result", rv_str(compat_verdict_name(best[g].verdict)));
		report_field(&row, "will it run", "verdict", rv_str(best[g].reason));
		report_field(&row, NULL, "file", rv_str(a->files[pick[g]].path));
		report_field(&row, "fix", "fix", rv_str(fix[0] ? fix : NULL));
		if ((rc = report_rec_end(&row)) != CD_OK)
			break;
		++*rows;
		if (arch_findings(r, &a->files[pick[g]], t, &t->gpus[g], &best[g]) != CD_OK)
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
	}
out:
	free(v);
	free(best);
	free(pick);
	return rc;
}

static int will_it_run(struct report *r, struct report_rec *top, const struct amd_host *h, const struct doctor_scan *s,
		       char *err)
{
	static const char *const hdr[] = {"framework", "GPU", "will it run", "fix"};
	struct arch_target *t = calloc(1, sizeof(*t));
	struct report_rec tab;
	size_t rows = 0;
	const struct fw_app *a;
	int rc = CD_OK;

	if (!t)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	arch_target_init(t);
	for (size_t i = 0; i < h->n_gpus && t->n_gpus < ARCH_MAX_GPUS; i++)
		arch_amd_gpu_of(&h->gpus[i], i, &t->gpus[t->n_gpus++]);
	report_rec_section(top, "Will it run on the AMD GPUs");
	report_rec_table(top, "will_it_run_amd", 4, hdr, &tab);
	for (size_t i = 0; t->n_gpus && (a = doctor_scan_app(s, i)) && rc == CD_OK; i++)
		rc = judge_app(r, &tab, a, t, &rows, err);
	if (report_rec_end(&tab) != CD_OK && rc == CD_OK)
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	if (rc == CD_OK && !rows)
		report_rec_line(top, "%s", t->n_gpus ? "no framework or app with device code found" : "no AMD GPU to judge against");
	free(t);
	return rc;
}

int doctor_amd(struct report *r, struct cd_run *run, const struct doctor_scan *s, char *err)
{
	const struct amd_host *h;
	struct report_rec top;
	int rc;

	if ((rc = cd_run_amd(run, &h, err)) != CD_OK)
		return rc;
	if (!rules_amd_present(h))
		return CD_OK; /* nothing AMD here: no section */
	report_rec_top(&top, r);
	if (show_amd(&top, h, cd_run_amd_only(run), FIELD_BRIEF) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	rc = will_it_run(r, &top, h, s, err);
	if (report_rec_end(&top) != CD_OK && rc == CD_OK)
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	if (rc == CD_OK && rules_amd(r, h) != CD_OK)
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	return rc;
}
