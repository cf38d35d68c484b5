/* plan's field tables (cmd/plan/fields.h): a plan's GPUs, driver and toolkit verdicts and
 * builds described once, for its text and its JSON. */
#include "cmd/plan/fields.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/rules.h"

const char *plan_gpu_label(const struct plan_gpu *g)
{
	return g->spec.gpu ? g->spec.gpu->name : g->spec.label;
}

const char *plan_branch_text(int branch, char *buf, size_t n)
{
	if (branch)
		snprintf(buf, n, "R%d", branch);
	else
		snprintf(buf, n, "current");
	return buf;
}

const char *plan_torch_ptx_note(const struct plan_torch *t, size_t n_gpus)
{
	for (size_t g = 0; g < n_gpus; g++)
		if (t->fit[g] == PLAN_FIT_PTX)
			return " (PTX)";
	return "";
}

const char *plan_fit_driver_text(int fit)
{
	return fit < 0 ? "unknown" : fit == CUDA_FITS ? "runs" :
	       fit == CUDA_NEWER_MINOR ? "runs (minor-version compatibility)" : "needs a newer driver";
}

static bool str(struct field_value *v, const char *s)
{
	v->kind = s ? FV_STR : FV_NULL;
	v->s = s;
	return s != NULL;
}

static bool __attribute__((format(printf, 2, 3))) strf(struct field_value *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->buf, sizeof v->buf, fmt, ap);
	va_end(ap);
	return str(v, v->buf);
}

static bool boolean(struct field_value *v, bool b)
{
	v->kind = FV_BOOL;
	v->b = b;
	return true;
}

static bool integer(struct field_value *v, long long i)
{
	v->kind = FV_INT;
	v->i = i;
	return true;
}

/* ---- gpus[] ---- */

#define G(m) offsetof(struct plan_gpu, m)

static bool pg_name(const void *obj, struct field_value *v)
{
	return str(v, plan_gpu_label(obj));
}

static bool pg_sm(const void *obj, struct field_value *v)
{
	kb_arch_format(((const struct plan_gpu *)obj)->spec.arch, "sm_", v->buf, sizeof v->buf);
	return str(v, v->buf);
}

static bool gpu_toolkits(const void *obj, struct field_value *v)
{
	const struct plan_gpu *g = obj;

	return strf(v, "%s .. %s", g->first_tk ? g->first_tk->release_text : "?",
		    g->last_tk ? g->last_tk->release_text : "current");
}

static bool gpu_branches(const void *obj, struct field_value *v)
{
	const struct plan_gpu *g = obj;
	char b1[16], b2[16];

	if (g->jetson)
		return str(v, "JetPack (L4T) driver");
	return strf(v, "%s%s .. %s", g->first_branch_floor ? "<= " : "", plan_branch_text(g->first_branch, b1, sizeof b1),
		    plan_branch_text(g->last_branch, b2, sizeof b2));
}

static bool gpu_min_toolkit(const void *obj, struct field_value *v)
{
	const struct plan_gpu *g = obj;

	return str(v, g->first_tk ? g->first_tk->release_text : NULL);
}

static bool gpu_max_toolkit(const void *obj, struct field_value *v)
{
	const struct plan_gpu *g = obj;

	return str(v, g->last_tk ? g->last_tk->release_text : NULL);
}

static const struct field plan_gpu_fields[] = {
	{ .key = "gpu", .label = "GPU", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = pg_name },
	{ .key = "sm", .label = "arch", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = pg_sm },
	{ .label = "CUDA toolkits", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = gpu_toolkits },
	{ .label = "driver branches", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = gpu_branches },
	{ .key = "jetson", .kind = FK_BOOL, .off = G(jetson), .valid = FIELD_ALWAYS },
	{ .key = "min_toolkit", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = gpu_min_toolkit },
	{ .key = "max_toolkit", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = gpu_max_toolkit },
	{ .key = "first_branch", .kind = FK_INT, .off = G(first_branch), .valid = FIELD_ALWAYS },
	{ .key = "last_branch", .kind = FK_INT, .off = G(last_branch), .valid = FIELD_ALWAYS },
	{ .key = "driver_supports", .kind = FK_BOOL, .off = G(driver_supports), .valid = FIELD_ALWAYS },
};

const struct field_table plan_gpu_field_table = {
	"gpus[]", plan_gpu_fields, sizeof plan_gpu_fields / sizeof plan_gpu_fields[0], -1, NULL, NULL,
};

/* ---- driver ---- */

#define P(m) offsetof(struct plan, m)

static bool drv_every(const void *obj, struct field_value *v)
{
	const struct plan *p = obj;
	char b1[16], b2[16];

	if (p->drv_empty)
		return strf(v, "no branch: %s needs %s or newer, %s ends with %s", plan_gpu_label(&p->gpu[p->drv_first_gpu]),
			    plan_branch_text(p->drv_first, b1, sizeof b1), plan_gpu_label(&p->gpu[p->drv_last_gpu]),
			    plan_branch_text(p->drv_last, b2, sizeof b2));
	if (p->any_jetson && p->n_gpus <= 1)
		return false; /* a Jetson alone runs its JetPack's driver */
	return strf(v, "%s%s .. %s (%s sets the first%s%s)", p->gpu[p->drv_first_gpu].first_branch_floor ? "<= " : "",
		    plan_branch_text(p->drv_first, b1, sizeof b1), plan_branch_text(p->drv_last, b2, sizeof b2),
		    plan_gpu_label(&p->gpu[p->drv_first_gpu]), p->drv_last ? ", the last: " : "",
		    p->drv_last ? plan_gpu_label(&p->gpu[p->drv_last_gpu]) : "");
}

static const char *drv_verdict_text(const struct plan *p)
{
	return p->drv_verdict == PLAN_DRV_OK ? "supports every GPU" :
	       p->drv_verdict == PLAN_DRV_TOO_OLD ? "too old for a GPU" :
	       p->drv_verdict == PLAN_DRV_TOO_NEW ? "too new for a GPU" : "cannot support them all";
}

static bool drv_this(const void *obj, struct field_value *v)
{
	const struct plan *p = obj;
	const struct plan_driver *d = &p->in.driver;
	char b[16];

	if (!d->known)
		return false;
	return strf(v, "%s%s (CUDA %d.%d): %s", d->branch ? "R" : "", d->branch ? plan_branch_text(d->branch, b, sizeof b) + 1 : "?",
		    d->cuda.major, d->cuda.minor, drv_verdict_text(p));
}

static bool drv_verdict(const void *obj, struct field_value *v)
{
	static const char *const verdicts[] = { "unknown", "ok", "too-old", "too-new", "none" };

	return str(v, verdicts[((const struct plan *)obj)->drv_verdict]);
}

static bool drv_branch(const void *obj, struct field_value *v)
{
	const struct plan_driver *d = &((const struct plan *)obj)->in.driver;

	return d->known && d->branch && integer(v, d->branch);
}

static bool drv_cuda(const void *obj, struct field_value *v)
{
	const struct plan_driver *d = &((const struct plan *)obj)->in.driver;

	return d->known && strf(v, "%d.%d", d->cuda.major, d->cuda.minor);
}

static const struct field plan_driver_fields[] = {
	{ .label = "every GPU", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = drv_every },
	{ .label = "this driver", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = drv_this,
	  .unknown = "unknown (give --driver to judge one)" },
	{ .key = "first_branch", .kind = FK_INT, .off = P(drv_first), .valid = FIELD_ALWAYS },
	{ .key = "last_branch", .kind = FK_INT, .off = P(drv_last), .valid = FIELD_ALWAYS },
	{ .key = "empty", .kind = FK_BOOL, .off = P(drv_empty), .valid = FIELD_ALWAYS },
	{ .key = "verdict", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = drv_verdict },
	{ .key = "branch", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = drv_branch },
	{ .key = "cuda", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = drv_cuda },
};

const struct field_table plan_driver_field_table = {
	"driver", plan_driver_fields, sizeof plan_driver_fields / sizeof plan_driver_fields[0], -1, NULL, NULL,
};

/* ---- toolkits ---- */

/* the first and last toolkits that build for every GPU, the newest this driver runs natively
 * and through minor-version compatibility; false when none builds for all */
static bool tk_range(const struct plan *p, const struct plan_toolkit **lo, const struct plan_toolkit **hi,
		     const struct plan_toolkit **native, const struct plan_toolkit **compat)
{
	*lo = *hi = *native = *compat = NULL;
	for (size_t i = 0; i < p->n_tk; i++) {
		const struct plan_toolkit *t = &p->tk[i];

		if (!t->builds_all)
			continue;
		*lo = *lo ? *lo : t;
		*hi = t;
		if (t->driver_fit == CUDA_FITS)
			*native = t;
		if (t->driver_fit == CUDA_NEWER_MINOR)
			*compat = t;
	}
	return *lo != NULL;
}

static bool tk_build_all(const void *obj, struct field_value *v)
{
	const struct plan_toolkit *lo, *hi, *native, *compat;

	if (!tk_range(obj, &lo, &hi, &native, &compat))
		return str(v, "none: no toolkit builds for all of them");
	return strf(v, "CUDA %s .. %s", lo->tk->release_text, hi->tk->release_text);
}

static bool tk_runs(const void *obj, struct field_value *v)
{
	const struct plan *p = obj;
	const struct plan_toolkit *lo, *hi, *native, *compat;

	if (!tk_range(p, &lo, &hi, &native, &compat) || !p->in.driver.known)
		return false;
	if (native && compat)
		return strf(v, "up to %s natively; up to %s through minor-version compatibility (no PTX JIT of newer code)",
			    native->tk->release_text, compat->tk->release_text);
	if (native || compat)
		return strf(v, "up to %s%s", (native ? native : compat)->tk->release_text,
			    native ? "" : " through minor-version compatibility");
	return str(v, "none of them");
}

static bool tk_recommended(const void *obj, struct field_value *v)
{
	const struct plan *p = obj;

	return p->tk_pick >= 0 && strf(v, "CUDA %s: %s", p->tk[p->tk_pick].tk->release_text, p->tk_why);
}

/* the releases of the toolkits that build for every GPU (and that the driver runs) */
static bool tk_list(const struct plan *p, bool runnable, struct field_value *v)
{
	size_t used = 0;

	v->buf[0] = '\0';
	for (size_t i = 0; i < p->n_tk && used < sizeof v->buf; i++) {
		const struct plan_toolkit *t = &p->tk[i];
		int k;

		if (!t->builds_all || (runnable && t->driver_fit != CUDA_FITS && t->driver_fit != CUDA_NEWER_MINOR))
			continue;
		k = snprintf(v->buf + used, sizeof v->buf - used, "%s%s", used ? " " : "", t->tk->release_text);
		used += k > 0 ? (size_t)k : 0;
	}
	v->kind = FV_LIST;
	v->s = v->buf;
	v->seps = " ";
	return true;
}

static bool tk_build_list(const void *obj, struct field_value *v)
{
	return tk_list(obj, false, v);
}

static bool tk_run_list(const void *obj, struct field_value *v)
{
	const struct plan *p = obj;

	return p->in.driver.known && tk_list(p, true, v);
}

static const struct field plan_toolkit_fields[] = {
	{ .label = "build every GPU", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = tk_build_all },
	{ .label = "this driver runs", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = tk_runs },
	{ .label = "recommended", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = tk_recommended },
	{ .key = "toolkits_build_all", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tk_build_list },
	{ .key = "toolkits_runnable", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tk_run_list },
};

const struct field_table plan_toolkit_field_table = {
	"", plan_toolkit_fields, sizeof plan_toolkit_fields / sizeof plan_toolkit_fields[0], -1, NULL, NULL,
};

/* ---- torch_builds[] ---- */

static bool torch_driver(const void *obj, struct field_value *v)
{
	int fit = ((const struct plan_torch_row *)obj)->t->driver_fit;

	return str(v, fit < 0 ? "unknown" : fit == CUDA_FITS ? "runs" : fit == CUDA_NEWER_MINOR ? "minor-compat" : "too-old");
}

static bool torch_fits(const void *obj, struct field_value *v)
{
	return boolean(v, ((const struct plan_torch_row *)obj)->t->fits_gpus);
}

static bool torch_runnable(const void *obj, struct field_value *v)
{
	return boolean(v, ((const struct plan_torch_row *)obj)->t->runnable);
}

static bool torch_sass_only(const void *obj, struct field_value *v)
{
	const struct plan_torch_row *row = obj;

	return boolean(v, row->t->fits_gpus && !*plan_torch_ptx_note(row->t, row->p->n_gpus));
}

static bool torch_pip(const void *obj, struct field_value *v)
{
	const struct plan_torch_row *row = obj;

	plan_torch_install(row->t->b, false, row->pip, v->buf, sizeof v->buf);
	return str(v, v->buf);
}

static bool torch_needs_branch(const void *obj, struct field_value *v)
{
	const struct plan_torch_row *row = obj;

	return integer(v, plan_torch_min_branch(row->p, row->t));
}

static bool torch_uv(const void *obj, struct field_value *v)
{
	const struct plan_torch_row *row = obj;
	char pip[512];

	plan_torch_install(row->t->b, false, row->pip, pip, sizeof pip);
	return strf(v, "uv %s", pip);
}

static const struct field plan_torch_fields[] = {
	{ .key = "driver", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_driver },
	{ .key = "fits_gpus", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_fits },
	{ .key = "runnable", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_runnable },
	{ .key = "sass_only", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_sass_only },
	{ .key = "pip", .label = "pip", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_COMMAND, .get = torch_pip },
	{ .key = "needs_branch", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = torch_needs_branch },
	{ .key = "uv", .label = "uv", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .flags = FIELD_COMMAND, .get = torch_uv },
};

const struct field_table plan_torch_field_table = {
	"torch_builds[]", plan_torch_fields, sizeof plan_torch_fields / sizeof plan_torch_fields[0], -1, NULL, NULL,
};

static bool tg_gpu(const void *obj, struct field_value *v)
{
	const struct plan_torch_gpu_row *row = obj;

	return str(v, plan_gpu_label(&row->p->gpu[row->g]));
}

static bool tg_fit(const void *obj, struct field_value *v)
{
	const struct plan_torch_gpu_row *row = obj;

	return str(v, plan_fit_name(row->t->fit[row->g]));
}

static bool tg_via(const void *obj, struct field_value *v)
{
	const struct plan_torch_gpu_row *row = obj;

	if (row->t->fit[row->g] > PLAN_FIT_PTX)
		return false;
	kb_arch_format(row->t->via[row->g], "sm_", v->buf, sizeof v->buf);
	return str(v, v->buf);
}

static const struct field plan_torch_gpu_fields[] = {
	{ .key = "gpu", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tg_gpu },
	{ .key = "fit", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tg_fit },
	{ .key = "via", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = tg_via },
};

const struct field_table plan_torch_gpu_field_table = {
	"torch_builds[].gpus[]", plan_torch_gpu_fields, sizeof plan_torch_gpu_fields / sizeof plan_torch_gpu_fields[0],
	-1, NULL, NULL,
};

/* ---- framework_builds[] ---- */

static bool fw_framework(const void *obj, struct field_value *v)
{
	return str(v, plan_framework_name(((const struct plan_fw_row *)obj)->p->in.framework));
}

static bool fw_variant(const void *obj, struct field_value *v)
{
	return str(v, ((const struct plan_fw_row *)obj)->f->b->variant);
}

static bool fw_cuda(const void *obj, struct field_value *v)
{
	return str(v, ((const struct plan_fw_row *)obj)->f->b->cuda_text);
}

/* "all", or the GPUs it has no code for */
static bool fw_gpus(const void *obj, struct field_value *v)
{
	const struct plan_fw_row *row = obj;
	size_t used = 0;

	v->buf[0] = '\0';
	for (size_t g = 0; g < row->p->n_gpus && used < 160; g++) {
		int k;

		if (row->f->gpu_ok[g])
			continue;
		k = snprintf(v->buf + used, 160 - used, "%sno %s", used ? ", " : "", plan_gpu_label(&row->p->gpu[g]));
		used += k > 0 ? (size_t)k : 0;
	}
	return str(v, *v->buf ? v->buf : "all");
}

static bool fw_fits(const void *obj, struct field_value *v)
{
	return boolean(v, ((const struct plan_fw_row *)obj)->f->fits_gpus);
}

static bool fw_driver_ok(const void *obj, struct field_value *v)
{
	const struct plan_fw *f = ((const struct plan_fw_row *)obj)->f;

	return f->driver_ok >= 0 && boolean(v, f->driver_ok);
}

/* the build's own driver floor, as its table row states it (Ollama's 550), else the CUDA family's */
static bool fw_driver(const void *obj, struct field_value *v)
{
	const struct plan_fw *f = ((const struct plan_fw_row *)obj)->f;

	if (f->driver_ok == 0 && f->b->has_min_driver)
		return strf(v, "too old (needs %s%s+)", strchr(f->b->min_driver_text, '.') ? "" : "R", f->b->min_driver_text);
	return str(v, f->driver_ok < 0 ? "?" : f->driver_ok ? "runs" : "too old");
}

static bool fw_runnable(const void *obj, struct field_value *v)
{
	return boolean(v, ((const struct plan_fw_row *)obj)->f->runnable);
}

static bool fw_min_driver(const void *obj, struct field_value *v)
{
	return str(v, ((const struct plan_fw_row *)obj)->f->b->min_driver_text);
}

static bool fw_install(const void *obj, struct field_value *v)
{
	return str(v, ((const struct plan_fw_row *)obj)->f->b->install);
}

static bool fw_uncertain(const void *obj, struct field_value *v)
{
	return boolean(v, ((const struct plan_fw_row *)obj)->f->b->uncertain);
}

static const struct field plan_fw_fields[] = {
	{ .key = "framework", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_framework },
	{ .key = "variant", .label = "build", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = fw_variant },
	{ .key = "cuda", .label = "CUDA", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = fw_cuda },
	{ .label = "GPUs", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = fw_gpus },
	{ .key = "fits_gpus", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_fits },
	{ .key = "driver_ok", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_driver_ok },
	{ .label = "driver", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = fw_driver },
	{ .key = "runnable", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_runnable },
	{ .key = "min_driver", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_min_driver },
	{ .key = "install", .label = "install", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .get = fw_install },
	{ .key = "uncertain", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = fw_uncertain },
};

const struct field_table plan_fw_field_table = {
	"framework_builds[]", plan_fw_fields, sizeof plan_fw_fields / sizeof plan_fw_fields[0], -1, NULL, NULL,
};
