/* `plan --gpu gfx1100`: a section per AMD GPU (its processor, the generic target covering it,
 * the ROCm releases that support it on Linux), the ROCm builds of the framework with whether
 * each carries its code, the pick and its install line; when no build fits, a finding that
 * says so and what HSA_OVERRIDE_GFX_VERSION would do (unsupported, risky). */
#include "cmd/plan/rocm.h"

#include <stdio.h>
#include <string.h>

#include "rules/catalogue.h"
#include "rules/plan_rocm.h"
#include "util/err.h"

bool plan_rocm_is_amd(const char *spec)
{
	struct arch_gpu g;
	char err[CD_ERRMSG];
	return arch_amd_gpu_spec(spec, &g, NULL, 0, err) != CD_ENOTFOUND;
}

static void support_text(const struct kb_amd_gpu *p, char *buf, size_t cap)
{
	if (!p)
		snprintf(buf, cap, "name the product (--gpu \"RX 7900 XTX\") for its ROCm support");
	else if (p->rocm && p->has_last)
		snprintf(buf, cap, "ROCm %d.%d to %d.%d%s", p->rocm_first.major, p->rocm_first.minor, p->rocm_last.major,
			 p->rocm_last.minor, p->uncertain ? " (uncertain)" : "");
	else if (p->rocm)
		snprintf(buf, cap, "ROCm %d.%d or newer%s", p->rocm_first.major, p->rocm_first.minor,
			 p->uncertain ? " (uncertain)" : "");
	else
		snprintf(buf, cap, "not listed by ROCm for Linux");
}

/* The GPU's own fields into it (an item of "gpus"). */
static void gpu_fields(struct report_rec *it, const struct arch_gpu *g, const struct plan_rocm *p)
{
	char support[128];

	support_text(p->product, support, sizeof support);
	report_rec_section(it, "%s", g->name);
	report_field(it, NULL, "gpu", rv_str(g->name));
	report_fieldf(it, "target", "gfx", rv_str(p->gfx), "%s%s%s", p->gfx,
		      p->target && p->target->generic ? ", covered by " : "",
		      p->target && p->target->generic ? p->target->generic : "");
	report_field(it, NULL, "generic", rv_str(p->target ? p->target->generic : NULL));
	report_field(it, NULL, "product", rv_str(p->product ? p->product->name : NULL));
	if (p->product && p->product->vram_gb > 0)
		report_fieldf(it, "memory", "vram_gb", rv_real(p->product->vram_gb), "%g GB", p->product->vram_gb);
	else
		report_field(it, NULL, "vram_gb", rv_null());
	report_fieldf(it, "ROCm on Linux", "rocm", p->product ? rv_str(p->product->rocm_text) : rv_null(), "%s", support);
}

static int builds_section(struct report_rec *top, const char *framework, const struct plan_rocm *p)
{
	static const char *const hdr[] = {"framework", "release", "variant", "ROCm", "carries", "targets"};
	struct report_rec tab, row;

	report_rec_table(top, "builds", 6, hdr, &tab);
	for (size_t i = 0; i < kb_rocm_build_count(); i++) {
		const struct kb_rocm_build *b = kb_rocm_build_at(i);
		char rocm[16], targets[512] = "";
		bool fits = kb_rocm_build_covers(b, p->gfx);
		if (framework && strcmp(b->framework, framework) != 0)
			continue;
		for (size_t k = 0; k < b->n_targets; k++)
			snprintf(targets + strlen(targets), sizeof targets - strlen(targets), "%s%s", k ? " " : "", b->targets[k]);
		snprintf(rocm, sizeof rocm, "%d.%d", b->rocm.major, b->rocm.minor);
		report_rec_item(&tab, &row);
		report_field(&row, "framework", "framework", rv_str(b->framework));
		report_field(&row, "release", "release", rv_str(b->release));
		report_field(&row, "variant", "variant", rv_str(b->variant));
		report_field(&row, "ROCm", "rocm", rv_str(rocm));
		report_fieldf(&row, "carries", "fits", rv_bool(fits), "%s%s", fits ? "yes" : "no", b->uncertain ? "?" : "");
		report_field(&row, NULL, "uncertain", rv_bool(b->uncertain));
		report_field(&row, "targets", "targets", rv_str(targets));
		report_field(&row, NULL, "install", rv_str(b->install));
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return CD_ENOMEM;
	report_rec_line(top, "(carries: a code object for %s or a generic target covering it; ? marks a row whose "
			     "targets are read from the build scripts, not the wheel)", p->gfx);
	return top->rc;
}

static int pick_section(struct report *r, struct report_rec *top, const char *framework, const struct plan_rocm *p,
			const char *subject)
{
	const struct kb_rocm_build *pick = strcmp(framework, "jax") == 0 ? p->jax_pick : p->torch_pick;
	struct finding_vars v;
	struct report_rec w;
	struct finding *f;

	report_rec_object(top, "pick", &w);
	if (pick) {
		report_rec_section(&w, "Install");
		report_fieldf(&w, framework, "build", rv_str(pick->variant), "%s %s+%s, the newest build with code for %s",
			      framework, pick->release, pick->variant, p->gfx);
		report_field(&w, NULL, "release", rv_str(pick->release));
		report_field(&w, "install", "install", rv_str(pick->install));
		report_answer(r, "%s", pick->install);
		return report_rec_end(&w);
	}
	report_field(&w, NULL, "build", rv_null());
	if (report_rec_end(&w) != CD_OK)
		return CD_ENOMEM;
	finding_vars_init(&v);
	finding_var(&v, "framework", "%s", framework);
	finding_var(&v, "gfx", "%s", p->gfx);
	if (p->family_build) {
		finding_var(&v, "override", "%s", p->override);
		finding_var(&v, "family_target", "%s", p->family_target);
	}
	f = finding_make(r, SEV_WARN, "plan-no-rocm-build", subject, &v);
	if (!f || (p->family_build &&
		   finding_evidence(f, "%s %s+%s carries %s, of the same family", p->family_build->framework,
				    p->family_build->release, p->family_build->variant, p->family_target)))
		return CD_ENOMEM;
	return CD_OK;
}

int plan_rocm_report(struct report *r, const char *const *specs, size_t n, const char *framework, char *err)
{
	struct report_rec top, gpus, it;
	int rc;

	if (strcmp(framework, "torch") && strcmp(framework, "jax") && strcmp(framework, "none"))
		return cd_fail(err, CD_EUSAGE, "--framework for AMD GPUs is torch, jax or none");
	report_rec_top(&top, r);
	report_field(&top, NULL, "framework", rv_str(framework));
	report_rec_array(&top, "gpus", &gpus);
	for (size_t i = 0; i < n; i++) {
		struct arch_gpu g;
		struct plan_rocm p;
		char label[160];
		if ((rc = arch_amd_gpu_spec(specs[i], &g, label, sizeof label, err)) != CD_OK)
			return rc;
		snprintf(g.name, sizeof g.name, "%s", label);
		plan_rocm_make(g.gfx, kb_amd_gpu_find(specs[i]), &p);
		report_rec_item(&gpus, &it);
		gpu_fields(&it, &g, &p);
		if (strcmp(framework, "none") != 0 &&
		    (builds_section(&it, framework, &p) != CD_OK || pick_section(r, &it, framework, &p, label) != CD_OK))
			return cd_fail(err, CD_ENOMEM, "out of memory");
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&gpus) != CD_OK || (rc = report_rec_end(&top)) != CD_OK)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	return CD_OK;
}
