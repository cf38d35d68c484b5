/* The framework verdict: each framework's or app's device code judged per GPU by arch's
 * judge, its runtime by the driver-need rule, the branch by plan's GPU ranges, and its fix
 * chosen by plan (the wheel that carries the arch for this driver, or the branch to install). */
#include "rules/framework.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/frameworks.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/str.h"
#include "util/version.h"

const char *fw_run_text(enum fw_run r)
{
	static const char *const t[] = { "runs natively", "runs (PTX JIT at first load)", "no kernel image",
					 "PTX too new for this driver", "driver too old", "GPU not supported by this driver",
					 "not judged" };
	return (unsigned)r < sizeof(t) / sizeof(t[0]) ? t[r] : "not judged";
}

const char *fw_run_name(enum fw_run r)
{
	static const char *const t[] = { "native", "jit", "no-image", "ptx-too-new", "driver-too-old", "gpu-unsupported",
					 "unknown" };
	return (unsigned)r < sizeof(t) / sizeof(t[0]) ? t[r] : "unknown";
}

enum plan_framework fw_plan_of(const char *name)
{
	if (strcmp(name, "torch") == 0)
		return PLAN_FW_TORCH;
	if (str_starts_with(name, "jax"))
		return PLAN_FW_JAX;
	if (strcmp(name, "vllm") == 0)
		return PLAN_FW_VLLM;
	if (strcmp(name, "ollama") == 0)
		return PLAN_FW_OLLAMA;
	return PLAN_FW_NONE;
}

/* worse image verdicts rank higher; a partial library (arch-specific extras) still runs */
static int image_rank(enum compat_verdict v)
{
	switch (v) {
	case VERDICT_NATIVE: return 1;
	case VERDICT_PARTIAL: return 1;
	case VERDICT_JIT: return 2;
	case VERDICT_PTX_TOO_NEW: return 3;
	case VERDICT_JIT_DISABLED: return 3;
	case VERDICT_NO_IMAGE: return 4;
	default: return 0;
	}
}

static enum fw_run run_of_image(enum compat_verdict v)
{
	switch (v) {
	case VERDICT_NATIVE:
	case VERDICT_PARTIAL: return FW_RUN_NATIVE;
	case VERDICT_JIT: return FW_RUN_JIT;
	case VERDICT_NO_IMAGE:
	case VERDICT_JIT_DISABLED: return FW_RUN_NO_IMAGE;
	case VERDICT_PTX_TOO_NEW: return FW_RUN_PTX_TOO_NEW;
	default: return FW_RUN_UNKNOWN;
	}
}

/* The driver as plan reads it: its version's branch, or only its CUDA. */
static void plan_driver_of(const struct arch_driver *d, struct plan_driver *out)
{
	char err[CD_ERRMSG];

	memset(out, 0, sizeof(*out));
	if (!d->known)
		return;
	if (!d->version[0] || plan_driver_parse(d->version, out, err) != CD_OK) {
		memset(out, 0, sizeof(*out));
		out->known = d->cuda > 0;
	}
	if (d->cuda)
		out->cuda = version_from_cuda_int(d->cuda);
}

static int driver_branch(const struct arch_driver *d)
{
	struct plan_driver pd;

	plan_driver_of(d, &pd);
	return pd.branch;
}

/* The branch line for need_branch, capped by what the GPU supports (plan_branch_advice). */
static void branch_fix(struct fw_verdict *v, const struct gpu_spec *spec, int need_branch, const char *what)
{
	struct plan_branch_advice adv;
	char cuda[16];

	if (plan_branch_advice(spec, 1, need_branch, &adv) != CD_OK || (!adv.branch && !adv.past_gpu))
		return;
	if (adv.past_gpu) {
		version_format(&adv.cuda_max, 2, cuda, sizeof(cuda));
		snprintf(v->fix_why, sizeof(v->fix_why),
			 "no driver branch that supports %s runs %s (R%d is its last): use a build for CUDA %s or older",
			 spec->gpu ? spec->gpu->name : spec->label, what, adv.gpu_last, cuda);
		return;
	}
	snprintf(v->fix, sizeof(v->fix), "sudo apt install nvidia-driver-%d", adv.branch);
	if (adv.gpu_last)
		snprintf(v->fix_why, sizeof(v->fix_why), "R%d .. R%d run %s and support %s; or your distribution's package "
			 "for that branch", adv.branch, adv.gpu_last, what, spec->gpu ? spec->gpu->name : spec->label);
	else
		snprintf(v->fix_why, sizeof(v->fix_why), "R%d or newer runs %s; or your distribution's package for that branch",
			 adv.branch, what);
}

/* The fix for a failing verdict from plan: the build of a's framework that carries code for this
 * GPU and runs on this driver, else the branch the best build needs; for an app plan has no table
 * for, the branch its runtime needs. */
static int choose_fix(const struct fw_app *a, const struct arch_target *t, const struct gpu_spec *spec,
		      struct fw_verdict *v)
{
	struct plan_input in = { 0 };
	struct plan *p;
	char err[CD_ERRMSG], what[64];

	v->fix[0] = v->fix_why[0] = '\0';
	if (v->gpu_last_branch) {
		/* the driver is past the GPU's last branch: back to that branch, whatever the build */
		snprintf(v->fix, sizeof(v->fix), "sudo apt install nvidia-driver-%d", v->gpu_last_branch);
		snprintf(v->fix_why, sizeof(v->fix_why), "R%d is the last branch that supports %s; or your distribution's "
			 "package for that branch", v->gpu_last_branch, spec->gpu ? spec->gpu->name : spec->label);
		return CD_OK;
	}
	if (a->plan == PLAN_FW_NONE) {
		if (v->run == FW_RUN_DRIVER_TOO_OLD && v->need.branch) {
			snprintf(what, sizeof(what), "CUDA %d.x", v->need.cuda.major);
			branch_fix(v, spec, v->need.branch, what);
		} else if (v->run == FW_RUN_NO_IMAGE || v->run == FW_RUN_PTX_TOO_NEW) {
			snprintf(v->fix_why, sizeof(v->fix_why), "install a build of %s whose kernels include %s", a->name,
				 v->missing[0] ? v->missing : "this GPU's arch");
		}
		return CD_OK;
	}
	if (!(p = malloc(sizeof(*p))))
		return CD_ENOMEM;
	in.gpus = spec;
	in.n_gpus = 1;
	in.framework = a->plan;
	plan_driver_of(&t->driver, &in.driver);
	if (plan_make(&in, p, err) != CD_OK)
		goto out;
	if (a->plan == PLAN_FW_TORCH) {
		if (p->torch_pick >= 0) {
			const struct plan_torch *pt = &p->torch[p->torch_pick];

			plan_torch_install(pt->b, true, a->pip, v->fix, sizeof(v->fix));
			snprintf(v->fix_why, sizeof(v->fix_why), "torch %s %s: the newest wheel with code for sm_%d that this driver runs",
				 pt->b->release, pt->b->variant, spec->arch.num);
		} else if (p->torch_pick_any_driver >= 0) {
			const struct plan_torch *pt = &p->torch[p->torch_pick_any_driver];

			snprintf(what, sizeof(what), "torch %s %s", pt->b->release, pt->b->variant);
			branch_fix(v, spec, plan_torch_min_branch(p, pt), what);
		} else {
			snprintf(v->fix_why, sizeof(v->fix_why), "no PyTorch wheel in the tables carries code for sm_%d",
				 spec->arch.num);
		}
	} else if (p->fw_pick >= 0) {
		snprintf(v->fix, sizeof(v->fix), "%s", p->fw[p->fw_pick].b->install);
		snprintf(v->fix_why, sizeof(v->fix_why), "%s %s: the build for this GPU and driver",
			 plan_framework_name(a->plan), p->fw[p->fw_pick].b->variant);
	} else if (v->run == FW_RUN_DRIVER_TOO_OLD && v->need.branch) {
		snprintf(what, sizeof(what), "CUDA %d.x", v->need.cuda.major);
		branch_fix(v, spec, v->need.branch, what);
	}
out:
	free(p);
	return CD_OK;
}

/* The runtime file i loads: its NEEDED libcudart (or static runtime), else the CUDA the
 * framework's version.py names. */
static void need_of(const struct fw_app *a, size_t i, struct runtime_need *need)
{
	struct version cuda;
	char how[160];

	if (a->files[i].need)
		*need = *a->files[i].need;
	else
		runtime_need_of(a->files[i].data, a->files[i].size, need);
	if (!need->known)
		runtime_need_of_library(a->files[i].path, need);
	if (need->known)
		return;
	memset(need, 0, sizeof(*need));
	if (a->cuda && a->cuda[0] && version_parse(a->cuda, &cuda) == CD_OK) {
		snprintf(how, sizeof(how), "%s %s was built for CUDA %s", a->name, a->version, a->cuda);
		runtime_need_of_cuda(&cuda, how, need);
	}
}

/* How bad a file's state is on one GPU: 0 runs natively .. higher fails; its runtime refusing
 * the driver counts as the worst image. */
static int file_rank(const struct arch_verdict *v, bool need_fails)
{
	return need_fails ? 5 : image_rank(v->verdict);
}

int fw_judge(const struct fw_app *a, const struct arch_target *t, const struct gpu_spec *specs,
	     struct fw_verdict *out, char *err)
{
	struct arch_verdict *per = NULL;
	int branch = driver_branch(&t->driver), rc = CD_OK;

	if (t->n_gpus && !(per = calloc(t->n_gpus, sizeof(*per))))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t g = 0; g < t->n_gpus; g++) {
		memset(&out[g], 0, sizeof(out[g]));
		out[g].file = -1;
		out[g].image.verdict = VERDICT_NONE;
	}
	/* every file on every GPU: the worst decides, or the best of alternatives */
	for (size_t i = 0; i < a->n_files && rc == CD_OK; i++) {
		struct runtime_need need;

		if ((rc = arch_judge(&a->files[i], t, per, err)) != CD_OK)
			break;
		need_of(a, i, &need);
		for (size_t g = 0; g < t->n_gpus; g++) {
			struct driver_need_verdict dn = driver_need_verdict(&need, &t->driver);
			bool fails = dn.judged && dn.fails;
			struct fw_verdict *v = &out[g];
			int now = v->file < 0 ? -1 : file_rank(&v->image, v->need_fails), it = file_rank(&per[g], fails);

			if (per[g].verdict == VERDICT_NONE && !fails)
				continue; /* no kernels here to judge */
			if (v->file < 0 || (a->alternatives ? it < now : it > now)) {
				v->image = per[g];
				v->file = (long)i;
				v->need = need;
				v->need_fails = fails;
			}
		}
	}
	free(per);
	if (rc != CD_OK)
		return rc;
	for (size_t g = 0; g < t->n_gpus; g++) {
		struct fw_verdict *v = &out[g];
		struct driver_gpu_verdict dg = driver_gpu_verdict(&t->gpus[g], &t->driver);
		struct plan_gpu pg;

		if (v->file < 0 && a->n_files == 0 && a->cuda && a->cuda[0]) {
			/* no device code found: the runtime alone */
			struct version cuda;
			char how[160];

			snprintf(how, sizeof(how), "%s %s was built for CUDA %s", a->name, a->version, a->cuda);
			if (version_parse(a->cuda, &cuda) == CD_OK) {
				struct driver_need_verdict dn;

				runtime_need_of_cuda(&cuda, how, &v->need);
				dn = driver_need_verdict(&v->need, &t->driver);
				v->need_fails = dn.judged && dn.fails;
			}
		}
		plan_gpu_support(&specs[g], &pg);
		v->run = v->file >= 0 ? run_of_image(v->image.verdict) : FW_RUN_UNKNOWN;
		if (v->run == FW_RUN_UNKNOWN && v->file >= 0)
			v->run = FW_RUN_NATIVE; /* only its runtime was judged, and it failed below */
		if (v->run == FW_RUN_NO_IMAGE || v->run == FW_RUN_PTX_TOO_NEW)
			snprintf(v->missing, sizeof(v->missing), "sm_%u", t->gpus[g].cc);
		if (v->need_fails && !fw_run_fails(v->run))
			v->run = FW_RUN_DRIVER_TOO_OLD;
		if (dg.judged && dg.fails) {
			v->run = FW_RUN_GPU_UNSUPPORTED;
		} else if (branch && pg.last_branch && !pg.jetson && branch > pg.last_branch) {
			v->run = FW_RUN_GPU_UNSUPPORTED;
			v->gpu_last_branch = pg.last_branch;
		}
		if (fw_run_fails(v->run) && (rc = choose_fix(a, t, &specs[g], v)) != CD_OK)
			return cd_fail(err, rc, "out of memory");
	}
	return CD_OK;
}

/* framework-cannot-run on one GPU: a cause other than its runtime (no image, the branch). */
static int cannot_run(struct report *r, const struct fw_app *a, const struct arch_gpu *g, const struct fw_verdict *v)
{
	const struct arch_file *f = v->file >= 0 ? &a->files[v->file] : NULL;
	char subject[320], *carries = NULL;
	struct finding_vars vars;
	struct finding *x;
	bool oom = false;

	snprintf(subject, sizeof(subject), "%s%s%s on %s", a->name, a->version[0] ? " " : "", a->version, g->name);
	finding_vars_init(&vars);
	finding_var(&vars, "app", "%s%s%s", a->name, a->version[0] ? " " : "", a->version);
	finding_var(&vars, "gpu_name", "%s", g->name);
	finding_var(&vars, "run", "%s", fw_run_text(v->run));
	if (v->missing[0] && v->run != FW_RUN_NO_IMAGE)
		finding_var(&vars, "missing", "%s", v->missing);
	if (v->fix[0])
		finding_var(&vars, "fix_a", "%s", v->fix);
	if (v->fix_why[0])
		finding_var(&vars, "fix_a_why", "%s", v->fix_why);
	finding_flag(&vars, "fixed", v->fix[0] || v->fix_why[0]);
	x = finding_make(r, SEV_ERROR, "framework-cannot-run", subject, &vars);
	if (!x)
		return CD_ENOMEM;
	if (f) {
		if (!(carries = arch_carries(&f->inv)))
			return CD_ENOMEM;
		oom |= finding_evidence(x, "%s carries %s", f->path, carries) != CD_OK;
		oom |= finding_evidence(x, "on %s: %s", g->name, v->image.reason) != CD_OK;
		free(carries);
	}
	if (v->need.known && v->need_fails)
		oom |= finding_evidence(x, "%s: CUDA %d.x needs driver %s or newer, not %s", v->need.how, v->need.cuda.major,
					v->need.min_driver_text[0] ? v->need.min_driver_text : "?", "this one") != CD_OK;
	if (v->gpu_last_branch)
		oom |= finding_evidence(x, "R%d is the last driver branch that supports %s", v->gpu_last_branch, g->name) != CD_OK;
	return oom ? CD_ENOMEM : CD_OK;
}

/* runtime-newer-than-driver for the app: its runtime is the cause, once however many GPUs it
 * stops; what it stops on each GPU is the evidence, and plan's pick for the first is the fix. */
static int runtime_too_new(struct report *r, const struct fw_app *a, const struct arch_target *t,
			   const struct fw_verdict *v)
{
	const struct fw_verdict *first = NULL;
	char subject[320], why_only[sizeof(first->fix_why) + 2];
	struct finding *x;
	int rc;

	for (size_t g = 0; g < t->n_gpus && !first; g++)
		if (v[g].run == FW_RUN_DRIVER_TOO_OLD)
			first = &v[g];
	if (!first)
		return CD_OK;
	if (first->file >= 0)
		snprintf(subject, sizeof(subject), "%s", a->files[first->file].path);
	else
		snprintf(subject, sizeof(subject), "%s%s%s", a->name, a->version[0] ? " " : "", a->version);
	/* plan's command, or only what it says when there is none (no branch runs it on this GPU) */
	snprintf(why_only, sizeof(why_only), "%s%s", first->fix_why[0] ? "# " : "", first->fix_why);
	if ((rc = driver_need_finding_to(r, subject, &first->need, t, first->fix[0] ? first->fix : why_only,
					 first->fix[0] ? first->fix_why : NULL, &x)) != CD_OK)
		return rc;
	for (size_t g = 0; g < t->n_gpus; g++) {
		if (v[g].run != FW_RUN_DRIVER_TOO_OLD)
			continue;
		if (finding_evidence(x, "so %s%s%s cannot run on %s%s%s%s", a->name, a->version[0] ? " " : "", a->version,
				     t->gpus[g].name, v[g].image.image[0] ? " (its device code has " : "",
				     v[g].image.image, v[g].image.image[0] ? " for it: only the runtime stops it)" : "") != CD_OK)
			return CD_ENOMEM;
		if ((v[g].fix[0] || v[g].fix_why[0]) && strcmp(v[g].fix, first->fix) != 0 &&
		    finding_evidence(x, "for %s: %s%s%s", t->gpus[g].name, v[g].fix, v[g].fix[0] ? "   # " : "# ",
				     v[g].fix_why) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}

int fw_driver_findings(struct report *r, const struct arch_target *t, size_t *at)
{
	for (size_t g = 0; g < t->n_gpus; g++) {
		struct driver_gpu_verdict dg = driver_gpu_verdict(&t->gpus[g], &t->driver);

		at[g] = dg.judged && dg.fails ? r->n_findings : FW_NO_FINDING;
		if (driver_gpu_finding(r, &t->gpus[g], &t->driver, &dg) != CD_OK)
			return CD_ENOMEM;
	}
	return CD_OK;
}

/* Lines of the driver's finding on GPU g: a stopped there, what else would stop it on a driver
 * that supports the GPU (no image for it, its runtime's floor), and plan's fix for a, which also
 * meets those (its row in "Will it run" says the same). */
static int stopped_by_driver(struct finding *x, const struct fw_app *a, const struct arch_gpu *g,
			     const struct fw_verdict *v)
{
	char also[160] = "";

	if (v->missing[0])
		snprintf(also, sizeof(also), " (nor on a newer driver alone: its device code has no image for %s)", v->missing);
	else if (v->need_fails)
		snprintf(also, sizeof(also), " (its CUDA %d.x runtime needs driver %s or newer too)", v->need.cuda.major,
			 v->need.min_driver_text[0] ? v->need.min_driver_text : "a newer one");
	if (finding_evidence(x, "so %s%s%s cannot run on %s%s", a->name, a->version[0] ? " " : "", a->version, g->name, also) != CD_OK)
		return CD_ENOMEM;
	if ((v->fix[0] || v->fix_why[0]) &&
	    finding_evidence(x, "for %s%s%s: %s%s%s", a->name, a->version[0] ? " " : "", a->version, v->fix,
			     v->fix[0] ? "   # " : "# ", v->fix_why) != CD_OK)
		return CD_ENOMEM;
	return CD_OK;
}

int fw_findings(struct report *r, const struct fw_app *a, const struct arch_target *t, const struct fw_verdict *v,
		const size_t *driver_finding)
{
	int rc = runtime_too_new(r, a, t, v);

	for (size_t g = 0; g < t->n_gpus && rc == CD_OK; g++) {
		if (!fw_run_fails(v[g].run) || v[g].run == FW_RUN_DRIVER_TOO_OLD)
			continue;
		if (v[g].run == FW_RUN_GPU_UNSUPPORTED && !v[g].gpu_last_branch && driver_finding &&
		    driver_finding[g] < r->n_findings)
			rc = stopped_by_driver(&r->findings[driver_finding[g]], a, &t->gpus[g], &v[g]);
		else
			rc = cannot_run(r, a, &t->gpus[g], &v[g]);
	}
	return rc;
}
