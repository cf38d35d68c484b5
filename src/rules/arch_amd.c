/* Arch verdicts on AMD GPUs: each offload bundle of a file (one translation unit's device
 * code, registered with the HIP runtime on its own) judged by whether a code object fits the
 * GPU: its processor, or a generic processor covering it, with every feature it fixes
 * (xnack, sramecc) set as the GPU runs; amdgcnspirv code is compiled by the runtime. Reads
 * only facts: the file's inventory, the GPU's processor and settings, the kb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "facts/amd.h"
#include "kb/amd.h"
#include "rules/plan_rocm.h"
#include "rules/arch.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/sort.h"
#include "util/str.h"

bool arch_amd_override_gfx(const char *value, char *gfx, size_t cap)
{
	unsigned major, minor, step;
	char tail;
	if (!value || sscanf(value, "%u.%u.%u%c", &major, &minor, &step, &tail) != 3 || major == 0 || major > 99 ||
	    minor > 9 || step > 15)
		return false;
	snprintf(gfx, cap, "gfx%u%u%x", major, minor, step);
	return true;
}

static enum hipfb_feature feature_default(bool supported, int dflt)
{
	return !supported || dflt < 0 ? HIPFB_FEAT_ANY : dflt ? HIPFB_FEAT_ON : HIPFB_FEAT_OFF;
}

int arch_amd_gpu_spec(const char *spec, struct arch_gpu *g, char *label, size_t label_cap, char *err)
{
	struct hipfb_target t;
	const struct kb_amd_gpu *product = NULL;
	const struct kb_amd_target *x;

	if (strncasecmp(spec, "gfx", 3) == 0) {
		char lower[64];
		size_t n = strlen(spec);
		if (n >= sizeof lower)
			return cd_fail(err, CD_EUSAGE, "--gpu '%.80s' is no AMD target id (gfx1100, gfx90a:xnack+)", spec);
		for (size_t i = 0; i <= n; i++)
			lower[i] = (char)(spec[i] >= 'A' && spec[i] <= 'Z' ? spec[i] + 32 : spec[i]);
		for (char *p = lower; *p; p++) /* features keep their spelling: "xnack+" */
			if (*p == ':')
				break;
		if (!hipfb_parse_target(lower, n, &t))
			return cd_fail(err, CD_EUSAGE, "--gpu '%.80s' is no AMD target id (gfx1100, gfx90a:xnack+)", spec);
		if (kb_amd_is_generic(t.processor))
			return cd_fail(err, CD_EUSAGE, "--gpu %s is a generic target, not a GPU: name a processor it covers "
				       "(gfx1100 for gfx11-generic)", t.processor);
	} else if ((product = kb_amd_gpu_find(spec))) {
		memset(&t, 0, sizeof t);
		snprintf(t.processor, sizeof t.processor, "%s", product->gfx);
	} else {
		return CD_ENOTFOUND;
	}
	if (!(x = kb_amd_target_find(t.processor)))
		return cd_fail(err, CD_EUSAGE, "--gpu %s: a processor cudoctor does not know (kb/amd_targets.tsv)", t.processor);
	if ((t.xnack != HIPFB_FEAT_ANY && !x->xnack) || (t.sramecc != HIPFB_FEAT_ANY && !x->sramecc))
		return cd_fail(err, CD_EUSAGE, "--gpu %.80s: %s has no %s setting", spec, t.processor,
			       t.xnack != HIPFB_FEAT_ANY && !x->xnack ? "xnack" : "sramecc");
	memset(g, 0, sizeof(*g));
	g->amd = true;
	g->ordinal = -1;
	snprintf(g->gfx, sizeof g->gfx, "%s", t.processor);
	/* xnack left unnamed is decided when judged (HSA_XNACK, else off); SRAM ECC as the
	 * processor's products ship it */
	g->xnack = t.xnack;
	g->sramecc = t.sramecc != HIPFB_FEAT_ANY ? t.sramecc : feature_default(x->sramecc, x->sramecc_default);
	if (label) {
		char id[64];
		hipfb_target_name(&t, id, sizeof id);
		if (product)
			snprintf(label, label_cap, "%s (%s)", product->name, id);
		else
			snprintf(label, label_cap, "%s", id);
	}
	return CD_OK;
}

void arch_amd_gpu_of(const struct amd_gpu *g, size_t i, struct arch_gpu *out)
{
	const struct kb_amd_target *x = kb_amd_target_find(g->gfx);
	memset(out, 0, sizeof(*out));
	out->amd = true;
	out->ordinal = -1;
	snprintf(out->gfx, sizeof out->gfx, "%s", g->gfx);
	snprintf(out->name, sizeof out->name, "AMD GPU %zu (%s%s%s)", i, g->product[0] ? g->product : g->gfx,
		 g->product[0] ? ", " : "", g->product[0] ? g->gfx : "");
	out->sramecc = x ? feature_default(x->sramecc, x->sramecc_default) : HIPFB_FEAT_ANY;
}

/* ---- judging ---- */

enum fit { FIT_NONE, FIT_FEATURES, FIT_JIT, FIT_GENERIC, FIT_EXACT };

/* The GPU as the runtime sees it: the override's processor when HSA_OVERRIDE_GFX_VERSION
 * names one, xnack from HSA_XNACK when the GPU has the setting and --gpu did not name it. */
struct seen_gpu {
	char gfx[32];
	enum hipfb_feature xnack, sramecc;
	bool has_xnack, has_sramecc;
};

static void seen_of(const struct arch_target *t, const struct arch_gpu *g, struct seen_gpu *s)
{
	const struct kb_amd_target *x;
	memset(s, 0, sizeof(*s));
	snprintf(s->gfx, sizeof s->gfx, "%s", t->hsa_override_gfx[0] ? t->hsa_override_gfx : g->gfx);
	x = kb_amd_target_find(g->gfx);
	s->has_xnack = !x || x->xnack;
	s->has_sramecc = !x || x->sramecc;
	s->xnack = g->xnack != HIPFB_FEAT_ANY ? g->xnack
		   : !s->has_xnack			? HIPFB_FEAT_ANY
		   : t->hsa_xnack != HIPFB_FEAT_ANY	? t->hsa_xnack
							: HIPFB_FEAT_OFF;
	s->sramecc = g->sramecc;
}

/* A feature the code fixes against the GPU's setting: code that leaves it out runs either way;
 * on a GPU without the setting only "off" (unsupported) code runs; an unknown setting passes. */
static bool feature_fits(enum hipfb_feature code, enum hipfb_feature gpu, bool has)
{
	if (code == HIPFB_FEAT_ANY)
		return true;
	if (!has)
		return code == HIPFB_FEAT_OFF;
	return gpu == HIPFB_FEAT_ANY || gpu == code;
}

static enum fit entry_fit(const struct dc_hip_entry *e, const struct seen_gpu *s)
{
	if (e->host || !e->target_known)
		return FIT_NONE;
	if (strcmp(e->arch, "spirv64") == 0)
		return FIT_JIT; /* amdgcnspirv: the runtime compiles it for the GPU it loads on */
	if (!kb_amd_target_covers(e->target.processor, s->gfx))
		return FIT_NONE;
	if (!feature_fits(e->target.xnack, s->xnack, s->has_xnack) ||
	    !feature_fits(e->target.sramecc, s->sramecc, s->has_sramecc))
		return FIT_FEATURES;
	return strcmp(e->target.processor, s->gfx) == 0 ? FIT_EXACT : FIT_GENERIC;
}

struct present {
	char name[64];
	double rank;
};

/* Targets in the kb's order (by family, oldest first), a generic one after the last processor it
 * covers; what the kb does not know after them, in natural order. */
static double target_rank(const char *name)
{
	char proc[32];
	size_t n = strcspn(name, ":");
	double rank = -1;
	snprintf(proc, sizeof proc, "%.*s", (int)(n < sizeof proc ? n : sizeof proc - 1), name);
	for (size_t i = 0; i < kb_amd_target_count(); i++) {
		const struct kb_amd_target *x = kb_amd_target_at(i);
		if (strcmp(x->processor, proc) == 0)
			return (double)i;
		if (x->generic && strcmp(x->generic, proc) == 0)
			rank = (double)i + 0.5;
	}
	return rank >= 0 ? rank : 1e9;
}

static int present_cmp(const void *a, const void *b)
{
	const struct present *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return str_natcmp(x->name, y->name);
}

char *arch_amd_carries(const struct dc_inventory *inv, long bundle)
{
	struct present seen[64];
	size_t n = 0;
	struct strbuf sb;
	size_t from = 0, to = inv->n_hip_entries;
	if (bundle >= 0 && (size_t)bundle < inv->n_hip_bundles) {
		from = inv->hip_bundles[bundle].first_entry;
		to = from + inv->hip_bundles[bundle].n_entries;
	}
	sb_init(&sb);
	for (size_t i = from; i < to; i++) {
		const struct dc_hip_entry *e = &inv->hip_entries[i];
		char name[64];
		bool dup = false;
		if (e->host)
			continue;
		dc_hip_entry_name(e, name, sizeof name);
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(seen[k].name, name) == 0;
		if (!dup && n < sizeof seen / sizeof seen[0]) {
			snprintf(seen[n].name, sizeof seen[0].name, "%s", name);
			seen[n++].rank = target_rank(name);
		}
	}
	cd_qsort(seen, n, sizeof seen[0], present_cmp);
	for (size_t k = 0; k < n; k++)
		sb_printf(&sb, "%s%s", k ? ", " : "", seen[k].name);
	if (!n)
		sb_append(&sb, "no AMD code object");
	return sb_detach(&sb);
}

static bool has_device_entries(const struct dc_inventory *inv)
{
	for (size_t i = 0; i < inv->n_hip_entries; i++)
		if (!inv->hip_entries[i].host)
			return true;
	return false;
}

/* The sentence of v on GPU s. CD_OK or CD_ENOMEM. */
static int reason_of(const struct arch_file *f, const struct arch_target *t, const struct seen_gpu *s,
		     struct arch_verdict *v)
{
	char *all = arch_amd_carries(&f->inv, -1), *bad = NULL, via[160] = "";
	size_t cap = sizeof v->reason;
	if (!all)
		return CD_ENOMEM;
	if (t->hsa_override_gfx[0])
		snprintf(via, sizeof via, " (HSA_OVERRIDE_GFX_VERSION=%s: the runtime takes the GPU for %s)",
			 t->hsa_override, t->hsa_override_gfx);
	if (v->failing_container >= 0 && !(bad = arch_amd_carries(&f->inv, v->failing_container))) {
		free(all);
		return CD_ENOMEM;
	}
	switch (v->verdict) {
	case VERDICT_NATIVE:
		snprintf(v->reason, cap, "every offload bundle has a code object for %s (%s)%s", s->gfx, v->image, via);
		break;
	case VERDICT_JIT:
		snprintf(v->reason, cap, "%zu of %zu offload bundles have no code object for %s; the HIP runtime compiles "
			 "their SPIR-V (amdgcnspirv) when they are first loaded%s", v->jit, v->judged, s->gfx, via);
		break;
	case VERDICT_PARTIAL:
		snprintf(v->reason, cap, "%zu of %zu offload bundles have no code object for %s (one holds only %s); "
			 "their kernels fail with \"invalid device function\" while the rest run%s", v->failing, v->judged,
			 s->gfx, bad ? bad : "?", via);
		break;
	case VERDICT_NO_IMAGE:
		if (v->features_only)
			snprintf(v->reason, cap, "the code for %s fixes xnack or sramecc to a setting this GPU does not run "
				 "with (file carries %s; GPU: xnack %s, sramecc %s)%s: hipErrorNoBinaryForGpu", s->gfx, all,
				 s->xnack == HIPFB_FEAT_ON ? "on" : s->xnack == HIPFB_FEAT_OFF ? "off" : "-",
				 s->sramecc == HIPFB_FEAT_ON ? "on" : s->sramecc == HIPFB_FEAT_OFF ? "off" : "-", via);
		else
			snprintf(v->reason, cap, "no code object for %s (file carries %s)%s: the HIP runtime stops with "
				 "hipErrorNoBinaryForGpu \"Unable to find code object for all current devices!\"", s->gfx, all,
				 via);
		break;
	default:
		snprintf(v->reason, cap, "no offload bundle with code objects to judge");
		break;
	}
	free(all);
	free(bad);
	return CD_OK;
}

/* A file with only NVIDIA code judged on an AMD GPU, or only AMD code on an NVIDIA one. */
static int other_vendor(const struct arch_file *f, bool amd_gpu, struct arch_verdict *v)
{
	char *all = amd_gpu ? arch_carries(&f->inv) : arch_amd_carries(&f->inv, -1);
	if (!all)
		return CD_ENOMEM;
	v->verdict = VERDICT_NO_IMAGE;
	v->other_vendor = true;
	v->judged = 1;
	v->failing = 1;
	snprintf(v->reason, sizeof v->reason, amd_gpu ? "built for NVIDIA GPUs only (file carries %s): an AMD GPU runs "
						       "none of it"
						     : "built for AMD GPUs only (file carries %s): an NVIDIA GPU runs "
						       "none of it",
		 all);
	free(all);
	return CD_OK;
}

int arch_amd_other_vendor(const struct arch_file *f, struct arch_verdict *v)
{
	return has_device_entries(&f->inv) ? other_vendor(f, false, v) : CD_OK;
}

int arch_amd_judge(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
		   struct arch_verdict *v)
{
	const struct dc_inventory *inv = &f->inv;
	struct seen_gpu s;
	size_t fit = 0;

	memset(v, 0, sizeof(*v));
	v->chosen_image = v->failing_container = -1;
	if (!has_device_entries(inv))
		return inv->n_containers ? other_vendor(f, true, v) : CD_OK;
	seen_of(t, g, &s);
	for (size_t b = 0; b < inv->n_hip_bundles; b++) {
		const struct dc_hip_bundle *hb = &inv->hip_bundles[b];
		enum fit best = FIT_NONE;
		long pick = -1;
		bool device = false;
		for (uint32_t k = 0; k < hb->n_entries; k++) {
			const struct dc_hip_entry *e = &inv->hip_entries[hb->first_entry + k];
			enum fit how = entry_fit(e, &s);
			device |= !e->host;
			if (how > best) {
				best = how;
				pick = (long)(hb->first_entry + k);
			}
		}
		if (!device)
			continue; /* the host's entry alone: nothing to load */
		v->judged++;
		if (best >= FIT_GENERIC || best == FIT_JIT) {
			v->jit += best == FIT_JIT;
			fit++;
			if (v->chosen_image < 0 || best != FIT_JIT)
				v->chosen_image = pick;
		} else {
			v->failing++;
			if (v->failing_container < 0)
				v->failing_container = (long)b;
			v->features_only |= best == FIT_FEATURES;
		}
	}
	v->verdict = v->judged == 0 ? VERDICT_NONE
		     : v->failing == 0 ? (v->jit ? VERDICT_JIT : VERDICT_NATIVE)
		     : fit ? VERDICT_PARTIAL
			   : VERDICT_NO_IMAGE;
	if (v->chosen_image >= 0)
		dc_hip_entry_name(&inv->hip_entries[v->chosen_image], v->image, sizeof v->image);
	return reason_of(f, t, &s, v);
}

/* ---- findings ---- */

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* PyTorch's own ROCm libraries (torch/lib/libtorch_hip.so, libc10_hip.so ...) */
static bool torch_file(const char *path)
{
	return strstr(path, "/torch/lib/") || strncmp(base_of(path), "libtorch", 8) == 0 ||
	       strncmp(base_of(path), "libc10", 6) == 0;
}

static bool jax_file(const char *path)
{
	return strstr(path, "jax_rocm") || strstr(path, "jax_plugins/xla_rocm");
}

/* The values every AMD finding of f on gfx shares: the GPU, what the file carries, what runs
 * the GPU's code, the build to install and what HSA_OVERRIDE_GFX_VERSION would do. */
static void amd_vars(const struct arch_file *f, const struct arch_gpu *g, const char *gfx, const char *carries,
		     struct finding_vars *v)
{
	struct plan_rocm p;
	const struct kb_amd_gpu *product = NULL;
	const struct kb_amd_target *x = kb_amd_target_find(gfx);
	const struct kb_rocm_build *b;
	bool torch = torch_file(f->path), jax = jax_file(f->path);

	for (size_t i = 0; i < kb_amd_gpu_count() && !product; i++) /* the GPU named by its product */
		if (strstr(g->name, kb_amd_gpu_at(i)->name))
			product = kb_amd_gpu_at(i);
	plan_rocm_make(gfx, product, &p);
	finding_var(v, "gfx", "%s", gfx);
	if (carries)
		finding_var(v, "carries", "%s", carries);
	if (x && x->generic)
		finding_var(v, "generic", "%s", x->generic);
	finding_flag(v, "torch", torch);
	finding_flag(v, "jax", jax);
	finding_flag(v, "gfx_known", true);
	if (torch && (b = p.torch_pick)) {
		finding_var(v, "torch_install", "%s", b->install);
		finding_var(v, "torch_build", "%s+%s", b->release, b->variant);
	} else if (torch) {
		finding_var(v, "torch_none", "%s", gfx);
	}
	if (jax && (b = p.jax_pick)) {
		finding_var(v, "jax_install", "%s", b->install);
		finding_var(v, "jax_build", "%s %s", b->release, b->variant);
	}
	if (product && product->rocm && product->has_last)
		finding_var(v, "rocm_note", "ROCm %d.%d to %d.%d support the %s (%s) on Linux", product->rocm_first.major,
			    product->rocm_first.minor, product->rocm_last.major, product->rocm_last.minor, product->name, gfx);
	else if (product && product->rocm)
		finding_var(v, "rocm_note", "ROCm %d.%d or newer supports the %s (%s) on Linux", product->rocm_first.major,
			    product->rocm_first.minor, product->name, gfx);
	else if (product)
		finding_var(v, "rocm_note", "ROCm does not list the %s (%s) for Linux: builds for it are the community's",
			    product->name, gfx);
	/* the override that would load a carried target of the GPU's own family */
	for (size_t i = 0; x && x->generic && i < f->inv.n_hip_entries; i++) {
		const struct dc_hip_entry *e = &f->inv.hip_entries[i];
		const struct kb_amd_target *y;
		char ov[16];
		if (e->host || !e->target_known || !(y = kb_amd_target_find(e->target.processor)) || !y->generic ||
		    strcmp(y->generic, x->generic) != 0 || !plan_rocm_override_of(y->processor, ov, sizeof ov))
			continue;
		finding_var(v, "override", "%s", ov);
		finding_var(v, "override_target", "%s", y->processor);
		break;
	}
	if (carries && !finding_var_get(v, "override"))
		finding_var(v, "no_override", "%s", gfx);
}

int arch_amd_missing_vars(const struct arch_file *f, const struct arch_target *t, const struct arch_gpu *g,
			  const struct arch_verdict *v, struct finding_vars *fv, const char **row)
{
	const char *gfx = t->hsa_override_gfx[0] ? t->hsa_override_gfx : g->gfx;
	char *all;

	if (!g->amd || v->other_vendor || v->verdict != VERDICT_NO_IMAGE)
		return CD_ENOTFOUND;
	if (!(all = arch_amd_carries(&f->inv, -1)))
		return CD_ENOMEM;
	amd_vars(f, g, gfx, all, fv);
	finding_flag(fv, "xnack", v->features_only);
	*row = v->features_only ? "rocm-gfx-target-missing/feature" : "rocm-gfx-target-missing";
	free(all);
	return CD_OK;
}

int arch_amd_findings(struct report *r, const struct arch_file *f, const struct arch_target *t,
		      const struct arch_gpu *g, const struct arch_verdict *v)
{
	char subject[512], *all = NULL, *bad = NULL;
	const char *gfx = t->hsa_override_gfx[0] && g->amd ? t->hsa_override_gfx : g->gfx;
	struct finding_vars fv;
	struct finding *fd = NULL;
	int rc = CD_OK;

	if (v->verdict != VERDICT_NO_IMAGE && v->verdict != VERDICT_PARTIAL)
		return CD_OK;
	snprintf(subject, sizeof subject, "%s on %s", f->path, g->name);
	finding_vars_init(&fv);
	if (v->other_vendor) {
		if (g->amd) {
			amd_vars(f, g, gfx, NULL, &fv);
			fd = finding_make(r, SEV_CATALOGUE, "gpu-vendor-mismatch/nvidia-code", subject, &fv);
			rc = !fd || finding_evidence(fd, "%s", v->reason) ? CD_ENOMEM : CD_OK;
		} else {
			finding_flag(&fv, "torch", torch_file(f->path));
			fd = finding_make(r, SEV_CATALOGUE, "gpu-vendor-mismatch/amd-code", subject, &fv);
			rc = !fd || finding_evidence(fd, "%s", v->reason) ? CD_ENOMEM : CD_OK;
		}
		return rc;
	}
	if (!(all = arch_amd_carries(&f->inv, -1)) ||
	    (v->failing_container >= 0 && !(bad = arch_amd_carries(&f->inv, v->failing_container)))) {
		rc = CD_ENOMEM;
		goto out;
	}
	amd_vars(f, g, gfx, all, &fv);
	if (v->verdict == VERDICT_PARTIAL) {
		finding_var(&fv, "failing", "%zu", v->failing);
		finding_var(&fv, "judged", "%zu", v->judged);
		fd = finding_make(r, 2 * v->failing >= v->judged ? SEV_WARN : SEV_INFO, "rocm-partial-code-object", subject,
				  &fv);
		if (!fd || finding_evidence(fd, "file carries: %s", all) ||
		    finding_evidence(fd, "a bundle without a code object for %s holds: %s", gfx, bad ? bad : "?"))
			rc = CD_ENOMEM;
		goto out;
	}
	finding_flag(&fv, "xnack", v->features_only);
	fd = finding_make(r, SEV_ERROR, v->features_only ? "rocm-gfx-target-missing/feature" : "rocm-gfx-target-missing",
			  subject, &fv);
	if (!fd || finding_evidence(fd, "file carries: %s", all) ||
	    finding_evidence(fd, "%s runs %s%s%s code objects", g->name, gfx,
			     kb_amd_target_find(gfx) && kb_amd_target_find(gfx)->generic ? " and " : "",
			     kb_amd_target_find(gfx) && kb_amd_target_find(gfx)->generic ? kb_amd_target_find(gfx)->generic : "") ||
	    (t->hsa_override_gfx[0] && finding_evidence(fd, "HSA_OVERRIDE_GFX_VERSION=%s is set: the runtime takes the GPU "
							   "for %s", t->hsa_override, t->hsa_override_gfx)))
		rc = CD_ENOMEM;
out:
	free(all);
	free(bad);
	return rc;
}
