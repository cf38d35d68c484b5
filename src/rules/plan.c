/* The plan's decisions over the kb tables: driver branch range per GPU, toolkits that build
 * for all of them, and framework builds judged image by image with compat_choose. */
#include "rules/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/compat.h"
#include "rules/catalogue.h"
#include "util/err.h"

const char *plan_framework_name(enum plan_framework f)
{
	static const char *const n[] = { "torch", "jax", "vllm", "ollama", "none" };
	return (unsigned)f < sizeof(n) / sizeof(n[0]) ? n[f] : "none";
}

const char *plan_fit_name(enum plan_fit f)
{
	static const char *const n[] = { "sass", "sass-compat", "ptx", "ptx-too-new", "none" };
	return (unsigned)f < sizeof(n) / sizeof(n[0]) ? n[f] : "none";
}

int plan_driver_parse(const char *text, struct plan_driver *out, char *err)
{
	const struct kb_driver_branch *b;
	const char *s = text;
	bool exact;

	memset(out, 0, sizeof(*out));
	if (*s == 'R' || *s == 'r')
		s++;
	if (version_parse(s, &out->version) != CD_OK || out->version.major < 100)
		return cd_fail(err, CD_EUSAGE, "--driver wants a driver version or branch (550, R550, 550.54.14), not '%.40s'", text);
	if (kb_driver_branch_of(&out->version, &b, &exact) != CD_OK)
		return cd_fail(err, CD_EUSAGE, "driver %.40s is older than every branch in the tables", text);
	out->known = true;
	out->cuda = b->cuda;
	out->branch = b->branch;
	return CD_OK;
}

/* ---- GPUs and driver branches ---- */

/* "legacy:R580 is last branch" -> 580 */
static int last_branch_of(const char *driver_support)
{
	const char *p = strstr(driver_support, "legacy:R");

	return p ? atoi(p + 8) : 0;
}

static bool is_jetson(const struct kb_gpu *g)
{
	return strstr(g->segment, "Jetson") != NULL;
}

/* A CC given without a product: what every product of that arch in the table says. */
static void arch_support(int arch, bool *jetson, int *last)
{
	size_t rows = 0, jet = 0;

	*last = 0;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		if (g->arch != arch)
			continue;
		rows++;
		jet += is_jetson(g);
		if (!*last)
			*last = last_branch_of(g->driver_support);
	}
	*jetson = rows > 0 && jet == rows;
}

void plan_gpu_support(const struct gpu_spec *s, struct plan_gpu *g)
{
	struct kb_arch plain = { s->arch.num, 0 };
	const struct kb_driver_branch *b;

	memset(g, 0, sizeof(*g));
	g->spec = *s;
	if (s->gpu) {
		g->jetson = is_jetson(s->gpu);
		g->last_branch = last_branch_of(s->gpu->driver_support);
	} else {
		arch_support(plain.num, &g->jetson, &g->last_branch);
	}
	if (kb_arch_toolkit_range(plain, &g->first_tk, &g->last_tk) == CD_OK && g->first_tk) {
		b = kb_driver_branch_for_cuda(&g->first_tk->release);
		g->first_branch = b ? b->branch : 0;
		g->first_branch_floor = g->first_tk == kb_toolkit_at(0);
	}
	g->driver_supports = true;
}

static void gpu_facts(struct plan *p, size_t i)
{
	struct plan_gpu *g = &p->gpu[i];

	plan_gpu_support(&p->in.gpus[i], g);
	if (p->in.driver.known && !g->jetson)
		g->driver_supports = (!g->first_branch || p->in.driver.branch >= g->first_branch) &&
				     (!g->last_branch || p->in.driver.branch <= g->last_branch);
	p->any_jetson |= g->jetson;
}

void plan_spec_of(unsigned cc, const char *name, struct gpu_spec *out)
{
	char spec[16], err[CD_ERRMSG];

	memset(out, 0, sizeof(*out));
	snprintf(spec, sizeof(spec), "%u.%u", cc / 10, cc % 10);
	if (kb_load(NULL) != CD_OK || kb_parse_gpu_spec(spec, out, err) != CD_OK) {
		memset(out, 0, sizeof(*out));
		out->arch.num = (int)cc;
		out->cc_major = (int)cc / 10;
		out->cc_minor = (int)cc % 10;
	}
	out->gpu = name ? kb_gpu_by_name(name) : NULL;
	if (out->gpu && out->gpu->arch != (int)cc)
		out->gpu = NULL;
	snprintf(out->label, sizeof(out->label), "%.80s", name ? name : spec);
}

size_t plan_specs_of_probe(const struct gpu_probe *p, struct gpu_spec *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->n_gpus && n < max; i++)
		if (p->gpus[i].cuda_ordinal >= 0 && gpu_sm(&p->gpus[i]) > 0)
			plan_spec_of((unsigned)gpu_sm(&p->gpus[i]), gpu_name(&p->gpus[i]), &out[n++]);
	return n;
}

void plan_advice_vars(const struct plan_branch_advice *a, int need_branch, struct finding_vars *v)
{
	char cuda[16];

	if (a->past_gpu) {
		version_format(&a->cuda_max, 2, cuda, sizeof(cuda));
		finding_flag(v, "past_gpu", true);
		finding_var(v, "gpu_name", "%s", a->gpu->gpu ? a->gpu->gpu->name : a->gpu->label);
		finding_var(v, "gpu_last_branch", "%d", a->gpu_last);
		finding_var(v, "gpu_cuda_max", "%s", cuda);
	} else {
		finding_flag(v, "past_gpu", false);
		if (a->branch > need_branch)
			finding_var(v, "need_branch", "%d", a->branch);
	}
}

int plan_branch_advice(const struct gpu_spec *gpus, size_t n, int need_branch, struct plan_branch_advice *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = kb_load(NULL)) != CD_OK)
		return rc;
	out->branch = need_branch;
	for (size_t i = 0; i < n; i++) {
		struct plan_gpu g;

		plan_gpu_support(&gpus[i], &g);
		if (g.jetson)
			continue;
		if (g.first_branch > out->branch)
			out->branch = g.first_branch;
		if (g.last_branch && (!out->gpu_last || g.last_branch < out->gpu_last)) {
			out->gpu_last = g.last_branch;
			out->gpu = &gpus[i];
			out->last_tk = g.last_tk;
		}
	}
	if (out->gpu_last && out->branch > out->gpu_last) {
		const struct kb_driver_branch *b;

		out->past_gpu = true;
		/* what that GPU's last branch still runs: the newest CUDA of the branch, and no newer
		 * than the last toolkit that builds the GPU */
		for (size_t i = 0; i < kb_driver_count(); i++)
			if ((b = kb_driver_at(i))->branch == out->gpu_last)
				out->cuda_max = b->cuda;
		if (out->last_tk && (!out->cuda_max.parts || version_cmp(&out->last_tk->release, &out->cuda_max) < 0))
			out->cuda_max = out->last_tk->release;
		out->branch = 0;
	}
	return CD_OK;
}

static void driver_range(struct plan *p)
{
	bool any = false;

	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct plan_gpu *g = &p->gpu[i];

		if (g->jetson)
			continue;
		if (!any || g->first_branch > p->drv_first) {
			p->drv_first = g->first_branch;
			p->drv_first_gpu = i;
		}
		if (g->last_branch && (!p->drv_last || g->last_branch < p->drv_last)) {
			p->drv_last = g->last_branch;
			p->drv_last_gpu = i;
		}
		any = true;
	}
	p->drv_empty = p->drv_last && p->drv_first > p->drv_last;
	if (!p->in.driver.known)
		p->drv_verdict = PLAN_DRV_UNKNOWN;
	else if (p->drv_empty)
		p->drv_verdict = PLAN_DRV_NONE;
	else if (p->in.driver.branch < p->drv_first)
		p->drv_verdict = PLAN_DRV_TOO_OLD;
	else if (p->drv_last && p->in.driver.branch > p->drv_last)
		p->drv_verdict = PLAN_DRV_TOO_NEW;
	else
		p->drv_verdict = PLAN_DRV_OK;
}

static bool driver_supports(const struct plan *p, const bool *mask)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		if ((!mask || mask[i]) && !p->gpu[i].driver_supports)
			return false;
	return true;
}

/* ---- toolkits ---- */

static void toolkits(struct plan *p)
{
	const struct plan_driver *d = &p->in.driver;

	p->tk_pick = -1;
	for (size_t i = 0; i < kb_toolkit_count() && p->n_tk < PLAN_MAX_TOOLKITS; i++) {
		const struct kb_toolkit *tk = kb_toolkit_at(i);
		struct plan_toolkit *t;

		if (!tk->archs_known)
			continue;
		t = &p->tk[p->n_tk++];
		t->tk = tk;
		t->builds_all = true;
		for (size_t g = 0; g < p->n_gpus && t->builds_all; g++) {
			struct kb_arch plain = { p->gpu[g].spec.arch.num, 0 };

			if (!kb_toolkit_accepts(tk, plain)) {
				t->builds_all = false;
				t->blocker = g;
			}
		}
		t->driver_fit = d->known ? (int)rules_cuda_fit(&tk->release, &d->cuda) : -1;
	}
}

/* The toolkit to build with: the one the chosen framework build uses (extensions must match
 * its CUDA), else the newest this driver runs without minor-version compatibility (its PTX
 * stays JIT-able here), else the newest that builds every GPU. */
static void pick_toolkit(struct plan *p, const struct version *framework_cuda)
{
	long native = -1, any = -1;

	for (size_t i = 0; i < p->n_tk; i++) {
		const struct plan_toolkit *t = &p->tk[i];

		if (!t->builds_all)
			continue;
		if (framework_cuda && t->tk->release.major == framework_cuda->major &&
		    t->tk->release.minor == framework_cuda->minor && t->driver_fit != CUDA_NEWER_MAJOR) {
			p->tk_pick = (long)i;
			p->tk_why = "the CUDA the framework build was made with: extensions you compile must match it";
			return;
		}
		if (t->driver_fit == CUDA_FITS)
			native = (long)i;
		if (t->driver_fit != CUDA_NEWER_MAJOR)
			any = (long)i;
	}
	if (native >= 0) {
		p->tk_pick = native;
		p->tk_why = "the newest that builds every GPU and that this driver runs natively (its PTX stays JIT-able here)";
	} else if (any >= 0) {
		p->tk_pick = any;
		p->tk_why = p->in.driver.known
			? "the newest that builds every GPU; it runs on this driver only through minor-version compatibility (build SASS, its PTX cannot be JIT-compiled here)"
			: "the newest that builds every GPU (no driver known: check its minimum driver)";
	}
}

/* ---- PyTorch wheels ---- */

static size_t family_table(struct compat_family_member *m, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < kb_family_count(); i++) {
		const struct kb_family *f = kb_family_at(i);

		for (size_t k = 0; k < f->n_members && n < max; k++) {
			m[n].target = (unsigned)f->arch;
			m[n].cc = (unsigned)f->members[k];
			n++;
		}
	}
	return n;
}

static void torch_fit(struct plan *p, struct plan_torch *t, const struct compat_family_member *fam,
		      size_t n_fam)
{
	const struct kb_torch_build *b = t->b;
	struct compat_image im[KB_TORCH_MAX_ARCHS + 1];
	size_t n = 0;
	const struct kb_toolkit *tk = kb_toolkit_find(&b->cuda);
	const struct kb_ptx_isa *jit = p->in.driver.known ? kb_ptx_isa_max_for_cuda(&p->in.driver.cuda) : NULL;

	memset(im, 0, sizeof(im));
	for (size_t i = 0; i < b->n_archs; i++, n++) {
		im[n].kind = COMPAT_KIND_SASS;
		im[n].arch = (unsigned)b->archs[i].num;
		im[n].suffix = b->archs[i].suffix;
	}
	if (b->has_ptx) {
		im[n].kind = COMPAT_KIND_PTX;
		im[n].arch = (unsigned)b->ptx.num;
		im[n].ptx_isa = tk ? COMPAT_ISA(tk->ptx_major, tk->ptx_minor) : 0;
		n++;
	}
	t->fits_gpus = true;
	for (size_t g = 0; g < p->n_gpus; g++) {
		struct compat_env env = { 0 };
		struct compat_choice c;

		env.cc = (unsigned)p->gpu[g].spec.arch.num;
		env.ptx_isa_max = jit ? COMPAT_ISA(jit->major, jit->minor) : 0;
		env.zstd_ok = -1;
		env.family = fam;
		env.n_family = n_fam;
		compat_choose(im, n, &env, &c);
		switch (c.outcome) {
		case COMPAT_SASS:
			t->fit[g] = im[c.image].arch == env.cc ? PLAN_FIT_SASS : PLAN_FIT_SASS_COMPAT;
			break;
		case COMPAT_JIT: t->fit[g] = PLAN_FIT_PTX; break;
		case COMPAT_PTX_TOO_NEW: t->fit[g] = PLAN_FIT_PTX_TOO_NEW; break;
		default: t->fit[g] = PLAN_FIT_NONE; break;
		}
		if (c.image >= 0) {
			t->via[g].num = (int)im[c.image].arch;
			t->via[g].suffix = im[c.image].suffix;
		}
		if (t->fit[g] > PLAN_FIT_PTX)
			t->fits_gpus = false;
	}
	t->driver_fit = p->in.driver.known ? (int)rules_cuda_fit(&b->cuda, &p->in.driver.cuda) : -1;
	t->runnable = t->fits_gpus && t->driver_fit != CUDA_NEWER_MAJOR && driver_supports(p, NULL) &&
		      !p->drv_empty;
}

static bool fits_mask(const struct plan_torch *t, const bool *mask, size_t n)
{
	for (size_t g = 0; g < n; g++)
		if (mask[g] && t->fit[g] > PLAN_FIT_PTX)
			return false;
	return true;
}

static bool all_sass(const struct plan_torch *t, const bool *mask, size_t n)
{
	for (size_t g = 0; g < n; g++)
		if ((!mask || mask[g]) && t->fit[g] > PLAN_FIT_SASS_COMPAT)
			return false;
	return true;
}

/* Preference: newer release, SASS over PTX, native CUDA over minor-version compatibility,
 * stable over experimental (what PyTorch itself recommends), newer CUDA. */
static bool torch_better(const struct plan_torch *a, const struct plan_torch *b, const bool *mask,
			 size_t n)
{
	int c = version_cmp(&a->b->release_v, &b->b->release_v);

	if (c)
		return c > 0;
	if (all_sass(a, mask, n) != all_sass(b, mask, n))
		return all_sass(a, mask, n);
	if ((a->driver_fit == CUDA_FITS) != (b->driver_fit == CUDA_FITS))
		return a->driver_fit == CUDA_FITS;
	if (a->b->experimental != b->b->experimental)
		return !a->b->experimental;
	return version_cmp(&a->b->cuda, &b->b->cuda) > 0;
}

/* best variant for the GPUs in mask; use_driver: the driver must run it */
static long torch_best(const struct plan *p, const bool *mask, bool use_driver)
{
	long best = -1;

	for (size_t i = 0; i < p->n_torch; i++) {
		const struct plan_torch *t = &p->torch[i];

		if (!fits_mask(t, mask, p->n_gpus))
			continue;
		if (use_driver && (t->driver_fit == CUDA_NEWER_MAJOR || !driver_supports(p, mask)))
			continue;
		if (best < 0 || torch_better(t, &p->torch[best], mask, p->n_gpus))
			best = (long)i;
	}
	return best;
}

static void torch_plan(struct plan *p)
{
	struct compat_family_member fam[64];
	size_t n_fam = family_table(fam, 64);
	bool all[PLAN_MAX_GPUS];

	for (size_t i = 0; i < kb_torch_count() && p->n_torch < PLAN_MAX_TORCH; i++) {
		const struct kb_torch_build *b = kb_torch_at(i);
		struct plan_torch *t;

		if (strcmp(b->platform, "x86_64") != 0)
			continue;
		if (p->in.fw_version.parts && !kb_torch_release_matches(b, &p->in.fw_version))
			continue;
		t = &p->torch[p->n_torch++];
		t->b = b;
		torch_fit(p, t, fam, n_fam);
		p->torch_newest = b;
	}
	for (size_t g = 0; g < p->n_gpus; g++)
		all[g] = true;
	p->torch_pick = p->in.driver.known ? torch_best(p, all, true) : torch_best(p, all, false);
	if (p->drv_empty)
		p->torch_pick = -1;
	p->torch_pick_any_driver = torch_best(p, all, false);
}

const struct kb_torch_build *plan_torch_last_exact(struct kb_arch arch)
{
	const struct kb_torch_build *last = NULL;

	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		for (size_t k = 0; k < b->n_archs; k++)
			if (b->archs[k].num == arch.num && !b->archs[k].suffix)
				last = b;
	}
	return last;
}

void plan_torch_install(const struct kb_torch_build *b, bool reinstall, const char *pip, char *out, size_t n)
{
	snprintf(out, n, "%s install %storch==%s --index-url %s", pip ? pip : "pip", reinstall ? "--force-reinstall " : "",
		 b->release, b->index_url);
}

int plan_torch_min_branch(const struct plan *p, const struct plan_torch *t)
{
	const struct kb_toolkit *tk = kb_toolkit_find(&t->b->cuda);
	const struct kb_driver_branch *b = NULL;
	bool exact;
	int branch;

	if (tk && tk->has_minor_compat)
		kb_driver_branch_of(&tk->minor_compat_floor, &b, &exact);
	else
		b = kb_driver_branch_for_cuda(&t->b->cuda);
	branch = b ? b->branch : 0;
	if (!branch)
		return 0;
	if (!p->drv_empty && p->drv_first > branch)
		branch = p->drv_first;
	return branch;
}

/* ---- JAX, vLLM, Ollama ---- */

static bool fw_gpu_ok(const struct kb_fw_build *b, const struct plan_gpu *g)
{
	int cc = g->spec.arch.num;
	const struct kb_toolkit *tk;
	struct kb_arch plain = { cc, 0 };

	if (cc < b->min_cc || (b->max_cc && cc > b->max_cc))
		return false;
	if (!b->cuda.parts)
		return true;
	/* the build's CUDA must target the GPU at all: CUDA 13 builds nothing below sm_75 */
	tk = kb_toolkit_find(&b->cuda);
	return !tk || !tk->archs_known || kb_toolkit_accepts(tk, plain);
}

static int fw_driver_ok(const struct plan *p, const struct kb_fw_build *b)
{
	const struct plan_driver *d = &p->in.driver;
	const struct kb_driver_branch *br;
	bool exact;

	if (!d->known)
		return -1;
	if (b->has_min_driver) {
		if (kb_driver_branch_of(&b->min_driver, &br, &exact) == CD_OK)
			return d->branch >= br->branch;
		return version_cmp(&d->version, &b->min_driver) >= 0;
	}
	return rules_cuda_fit(&b->cuda, &d->cuda) != CUDA_NEWER_MAJOR;
}

static void fw_plan(struct plan *p, const char *name)
{
	p->fw_pick = -1;
	for (size_t i = 0; i < kb_fw_count() && p->n_fw < PLAN_MAX_FW; i++) {
		const struct kb_fw_build *b = kb_fw_at(i);
		struct plan_fw *f;

		if (strcmp(b->framework, name) != 0)
			continue;
		f = &p->fw[p->n_fw++];
		f->b = b;
		f->fits_gpus = true;
		for (size_t g = 0; g < p->n_gpus; g++) {
			f->gpu_ok[g] = fw_gpu_ok(b, &p->gpu[g]);
			f->fits_gpus &= f->gpu_ok[g];
		}
		f->driver_ok = fw_driver_ok(p, b);
		f->runnable = f->fits_gpus && f->driver_ok != 0 && driver_supports(p, NULL) && !p->drv_empty;
		/* table order is the framework's own preference (its default build first) */
		if (f->runnable && p->fw_pick < 0)
			p->fw_pick = (long)(p->n_fw - 1);
	}
}

static long fw_best(const struct plan *p, const bool *mask)
{
	for (size_t i = 0; i < p->n_fw; i++) {
		bool ok = p->fw[i].driver_ok != 0 && driver_supports(p, mask);

		for (size_t g = 0; g < p->n_gpus && ok; g++)
			ok = !mask[g] || p->fw[i].gpu_ok[g];
		if (ok)
			return (long)i;
	}
	return -1;
}

/* ---- the split when nothing fits every GPU ---- */

static long best_for(const struct plan *p, const bool *mask)
{
	if (p->in.framework == PLAN_FW_TORCH)
		return torch_best(p, mask, p->in.driver.known);
	return fw_best(p, mask);
}

static void split(struct plan *p)
{
	bool need;

	if (p->n_gpus < 2 || p->in.framework == PLAN_FW_NONE || p->any_jetson)
		return;
	need = p->in.framework == PLAN_FW_TORCH ? p->torch_pick_any_driver < 0 : true;
	if (p->in.framework != PLAN_FW_TORCH)
		for (size_t i = 0; i < p->n_fw && need; i++)
			need = !p->fw[i].fits_gpus;
	if (!need)
		return;
	/* greedy: each GPU joins the first group whose GPUs it can share a choice with */
	for (size_t g = 0; g < p->n_gpus; g++) {
		bool placed = false;

		for (size_t k = 0; k < p->n_groups && !placed; k++) {
			bool trial[PLAN_MAX_GPUS];
			long c;

			memcpy(trial, p->group[k].member, sizeof(trial));
			trial[g] = true;
			c = best_for(p, trial);
			if (c >= 0 && p->group[k].choice >= 0) {
				p->group[k].member[g] = true;
				p->group[k].choice = c;
				placed = true;
			}
		}
		if (!placed) {
			struct plan_group *grp = &p->group[p->n_groups++];

			memset(grp, 0, sizeof(*grp));
			grp->member[g] = true;
			grp->choice = best_for(p, grp->member);
		}
	}
}

void plan_torch_leads(const struct plan *p, const struct kb_torch_build **lead, int *lead_branch,
		      const struct kb_torch_build **newest, int *newest_branch)
{
	long lb = -1, nb = p->torch_pick_any_driver;

	*lead = *newest = NULL;
	*lead_branch = *newest_branch = 0;
	/* the oldest branch that supports every GPU: what most owners of the oldest GPU have */
	for (size_t i = 0; i < p->n_torch; i++) {
		const struct plan_torch *t = &p->torch[i];
		int br = plan_torch_min_branch(p, t);

		if (!t->fits_gpus || t->b->experimental || !br || (p->drv_first && br > p->drv_first))
			continue;
		if (lb < 0 || version_cmp(&t->b->release_v, &p->torch[lb].b->release_v) > 0 ||
		    (version_cmp(&t->b->release_v, &p->torch[lb].b->release_v) == 0 &&
		     version_cmp(&t->b->cuda, &p->torch[lb].b->cuda) > 0))
			lb = (long)i;
	}
	if (lb >= 0) {
		*lead = p->torch[lb].b;
		*lead_branch = plan_torch_min_branch(p, &p->torch[lb]);
	}
	if (nb >= 0) {
		*newest = p->torch[nb].b;
		*newest_branch = plan_torch_min_branch(p, &p->torch[nb]);
	}
}

int plan_make(const struct plan_input *in, struct plan *p, char *err)
{
	const struct version *fw_cuda = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	if (in->n_gpus == 0 || in->n_gpus > PLAN_MAX_GPUS)
		return cd_fail(err, CD_EUSAGE, "give 1 to %d GPUs", PLAN_MAX_GPUS);
	if ((rc = kb_load(err)) != CD_OK || (rc = kb_fw_load(err)) != CD_OK)
		return rc;
	p->in = *in;
	p->n_gpus = in->n_gpus;
	p->torch_pick = p->torch_pick_any_driver = p->fw_pick = -1;
	for (size_t i = 0; i < in->n_gpus; i++)
		gpu_facts(p, i);
	driver_range(p);
	toolkits(p);
	if (!p->any_jetson) {
		if (in->framework == PLAN_FW_TORCH) {
			torch_plan(p);
			if (p->in.fw_version.parts && p->n_torch == 0)
				return cd_fail(err, CD_EUSAGE, "no PyTorch %d.%d in the tables (cudoctor kb torch lists them)",
					       in->fw_version.major, in->fw_version.minor);
			if (p->torch_pick >= 0)
				fw_cuda = &p->torch[p->torch_pick].b->cuda;
		} else if (in->framework != PLAN_FW_NONE) {
			fw_plan(p, plan_framework_name(in->framework));
			if (p->fw_pick >= 0 && p->fw[p->fw_pick].b->cuda.parts >= 2)
				fw_cuda = &p->fw[p->fw_pick].b->cuda;
		}
	}
	/* without a driver the lead is the build for the oldest branch that supports every GPU,
	 * so the toolkit to match is its CUDA, not the newest build's */
	if (in->framework == PLAN_FW_TORCH && !in->driver.known && !p->any_jetson) {
		const struct kb_torch_build *lead, *newest;
		int lb, nb;

		plan_torch_leads(p, &lead, &lb, &newest, &nb);
		if (lead)
			fw_cuda = &lead->cuda;
	}
	pick_toolkit(p, fw_cuda);
	split(p);
	return CD_OK;
}
