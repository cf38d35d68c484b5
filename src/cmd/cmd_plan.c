/* `cudoctor plan`: which driver branch, CUDA toolkit and framework build fit these GPUs,
 * with the install commands; the decisions are src/rules/plan.c's, this file wires the
 * GPUs here (or named) and the driver into it and writes the report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/plan/rocm.h"
#include "facts/amd.h"
#include "kb/kb.h"
#include "rules/catalogue.h"
#include "rules/fix.h"
#include "rules/plan.h"
#include "rules/rules.h"
#include "util/err.h"

static const char plan_help[] =
	"Says which driver branches support every GPU, which CUDA toolkits build for all of "
	"them and run on the driver (minor-version compatibility included), and which "
	"framework builds carry code for every GPU (SASS, or PTX the driver can JIT) and run "
	"on the driver, with the recommended one, why, and its pip / uv pip install line. "
	"When no build fits every GPU it says which GPU forces which limit and how to split "
	"them. Without --gpu it plans for the GPUs and driver here. -q prints the driver's "
	"verdict, the toolkit, the build with its install line, and the warnings.";

enum { O_GPU = 1, O_DRIVER, O_FRAMEWORK, O_OS };

static const struct cli_opt plan_opts[] = {
	{ CMD_OPT_GPU(O_GPU, "sm_89, 8.9, 89, or a GPU name or part of one (\"RTX 4060 Ti\"); an AMD GPU (gfx1100, "
		  "\"RX 7900 XTX\", 780M) plans its ROCm builds; repeatable") },
	{ .id = O_DRIVER, .long_name = "driver", .arg = CLI_REQUIRED, .metavar = "VERSION",
	  .help = "the driver to plan for (580, R550, 550.54.14); default: the installed one, when the "
		  "GPUs are this machine's" },
	{ .id = O_FRAMEWORK, .long_name = "framework", .arg = CLI_REQUIRED, .metavar = "F",
	  .help = "torch (default; torch==2.7 for one release), jax, vllm, ollama, or none (driver "
		  "and toolkit only)",
	  .complete = CLI_C_WORDS, .words = "torch jax vllm ollama none" },
	{ .id = O_OS, .long_name = "os", .arg = CLI_REQUIRED, .metavar = "OS",
	  .help = "linux or windows: whose wheels and install lines (win_amd64 and python -m pip on "
		  "Windows); default: the system cudoctor runs on",
	  .complete = CLI_C_WORDS, .words = "linux windows" },
	{ 0 },
};

struct plan_args {
	struct gpu_spec specs[PLAN_MAX_GPUS];
	char uuid[PLAN_MAX_GPUS][64]; /* the GPUs here: NVML's UUID, "" unknown; --gpu: "" */
	size_t n;
	const char *driver;
	enum plan_framework fw;
	struct version fw_version;
	bool windows;                 /* plan Windows' wheels and pip line */
};

/* The pip a plan's install lines run: Windows' Python launches its own pip. */
static const char *plan_pip(bool windows)
{
	return windows ? "python -m pip" : NULL;
}

static int parse_framework(const char *s, struct plan_args *a, char *err)
{
	static const char *const names[] = { "torch", "jax", "vllm", "ollama", "none" };

	if (strncmp(s, "torch==", 7) == 0) {
		a->fw = PLAN_FW_TORCH;
		if (version_parse(s + 7, &a->fw_version) != CD_OK)
			return cd_fail(err, CD_EUSAGE, "--framework torch==VERSION wants a version like 2.7");
		return CD_OK;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			a->fw = (enum plan_framework)i;
			return CD_OK;
		}
	return cd_fail(err, CD_EUSAGE, "--framework is torch[==VERSION], jax, vllm, ollama or none");
}

static int parse_args(int argc, char **argv, const struct cli_args *args, struct plan_args *a, char *err)
{
	int rc;

	memset(a, 0, sizeof(*a));
#ifdef _WIN32
	a->windows = true;
#endif
	for (size_t i = 0; i < args->n; i++) {
		const char *val = args->v[i].value;

		switch (args->v[i].opt->id) {
		case O_GPU:
			if ((rc = kb_gpu_spec_add(val, a->specs, PLAN_MAX_GPUS, &a->n, err)) != CD_OK)
				return rc;
			break;
		case O_DRIVER: a->driver = val; break;
		case O_OS:
			if (strcmp(val, "linux") != 0 && strcmp(val, "windows") != 0)
				return cd_fail(err, CD_EUSAGE, "--os is linux or windows, not '%.40s'", val);
			a->windows = strcmp(val, "windows") == 0;
			break;
		case O_FRAMEWORK:
			if ((rc = parse_framework(val, a, err)) != CD_OK)
				return rc;
			break;
		}
	}
	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "unexpected '%.60s' (GPUs are named with --gpu)", argv[1]);
	return CD_OK;
}

/* The GPUs and driver here, judged as doctor judges the driver layer. */
static int add_native(struct report *r, struct plan_args *a, struct plan_driver *drv, struct cd_run *run, char *err)
{
	const struct gpu_probe *h;
	int rc = CD_OK;

	if ((rc = cd_run_judge_driver(run, r, err)) != CD_OK || (rc = cd_run_driver(run, &h, err)) != CD_OK)
		goto out;
	if (!rules_cuda_usable(h)) {
		rc = cd_fail(err, CD_EDRIVER, "no usable CUDA driver here: name GPUs with --gpu (and --driver)");
		goto out;
	}
	if (!a->driver && driver_has(h, DF_CUDA_VERSION)) {
		char cerr[CD_ERRMSG];

		if (!driver_has(h, DF_VERSION) || plan_driver_parse(h->user_driver_version, drv, cerr) != CD_OK) {
			memset(drv, 0, sizeof(*drv));
			drv->known = true;
		}
		drv->cuda = version_from_cuda_int(h->cuda_driver_version);
	}
	for (size_t i = 0; i < h->n_gpus && a->n < PLAN_MAX_GPUS; i++) {
		const struct gpu_info *gi = &h->gpus[i];
		char spec[16];

		if (gi->cuda_ordinal < 0 || !gpu_has(gi, GF_CC))
			continue;
		snprintf(spec, sizeof(spec), "%lld.%lld", gi->cc_major, gi->cc_minor);
		if (kb_parse_gpu_spec(spec, &a->specs[a->n], err) != CD_OK) {
			rc = cd_fail(err, CD_EFORMAT, "GPU %d (%s) has CC %s, which the tables do not know",
				     gi->cuda_ordinal, gi->name, spec);
			goto out;
		}
		a->specs[a->n].gpu = kb_gpu_by_name(gi->name);
		snprintf(a->specs[a->n].label, sizeof(a->specs[a->n].label), "%.70s (sm_%d)", gi->name,
			 a->specs[a->n].arch.num);
		if (gpu_has(gi, GF_UUID))
			snprintf(a->uuid[a->n], sizeof(a->uuid[a->n]), "%s", gi->uuid);
		a->n++;
	}
	if (a->n == 0)
		rc = cd_fail(err, CD_EDRIVER, "the driver lists no GPU with a compute capability");
out:
	return rc;
}

/* ---- text helpers ---- */

/* appends to buf (size n) at *used; stops quietly at the end */
static void __attribute__((format(printf, 4, 5))) cat(char *buf, size_t n, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*used >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *used, n - *used, fmt, ap);
	va_end(ap);
	if (w > 0)
		*used += (size_t)w;
}

static const char *branch_text(int branch, char *buf, size_t n)
{
	if (branch)
		snprintf(buf, n, "R%d", branch);
	else
		snprintf(buf, n, "current");
	return buf;
}

static const char *plan_gpu_label(const struct plan_gpu *g)
{
	return g->spec.gpu ? g->spec.gpu->name : g->spec.label;
}

static void fit_text(const struct plan_torch *t, size_t g, char *buf, size_t n)
{
	char via[24];

	kb_arch_format(t->via[g], "sm_", via, sizeof(via));
	switch (t->fit[g]) {
	case PLAN_FIT_SASS: snprintf(buf, n, "%s SASS", via); break;
	case PLAN_FIT_SASS_COMPAT: snprintf(buf, n, "%s SASS (same major)", via); break;
	case PLAN_FIT_PTX: snprintf(buf, n, "PTX %d.%d JIT", t->via[g].num / 10, t->via[g].num % 10); break;
	case PLAN_FIT_PTX_TOO_NEW: snprintf(buf, n, "PTX too new for this driver"); break;
	default: snprintf(buf, n, "no code"); break;
	}
}

static const char *fit_driver_text(int fit)
{
	return fit < 0 ? "unknown" : fit == CUDA_FITS ? "runs" :
	       fit == CUDA_NEWER_MINOR ? "runs (minor-version compatibility)" : "needs a newer driver";
}

/* ---- sections ---- */

static const char *all_sass_text(const struct plan_torch *t, size_t n);

static int gpus_section(struct report *r, const struct plan *p)
{
	static const char *const hdr[] = { "GPU", "arch", "CUDA toolkits", "driver branches" };
	json_t *arr = json_array();

	if (!arr)
		return CD_ENOMEM;
	report_section(r, "GPUs");
	report_table(r, 4, hdr);
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct plan_gpu *g = &p->gpu[i];
		char sm[24], tks[64], br[64], b1[16], b2[16];

		kb_arch_format(g->spec.arch, "sm_", sm, sizeof(sm));
		snprintf(tks, sizeof(tks), "%s .. %s", g->first_tk ? g->first_tk->release_text : "?",
			 g->last_tk ? g->last_tk->release_text : "current");
		if (g->jetson)
			snprintf(br, sizeof(br), "JetPack (L4T) driver");
		else
			snprintf(br, sizeof(br), "%s%s .. %s", g->first_branch_floor ? "<= " : "",
				 branch_text(g->first_branch, b1, sizeof(b1)), branch_text(g->last_branch, b2, sizeof(b2)));
		report_table_row(r, (const char *const[]){ plan_gpu_label(g), sm, tks, br });
		json_array_append_new(arr, json_pack("{s:s, s:s, s:b, s:o, s:o, s:i, s:i, s:b}", "gpu", plan_gpu_label(g),
			"sm", sm, "jetson", g->jetson,
			"min_toolkit", g->first_tk ? json_string(g->first_tk->release_text) : json_null(),
			"max_toolkit", g->last_tk ? json_string(g->last_tk->release_text) : json_null(),
			"first_branch", g->first_branch, "last_branch", g->last_branch,
			"driver_supports", g->driver_supports));
	}
	return report_json_set(r, "gpus", arr);
}

static int driver_section(struct report *r, const struct plan *p)
{
	struct finding_vars v;
	const struct plan_driver *d = &p->in.driver;
	char b1[16], b2[16];
	struct finding *f;
	static const char *const verdicts[] = { "unknown", "ok", "too-old", "too-new", "none" };

	report_section(r, "Driver");
	if (p->drv_empty) {
		report_kv(r, "every GPU", "no branch: %s needs %s or newer, %s ends with %s",
			  plan_gpu_label(&p->gpu[p->drv_first_gpu]), branch_text(p->drv_first, b1, sizeof(b1)),
			  plan_gpu_label(&p->gpu[p->drv_last_gpu]), branch_text(p->drv_last, b2, sizeof(b2)));
		cmd_note(r, report_answer(r, "driver: no branch supports every GPU")); /* -q */
		finding_vars_init(&v);
		f = finding_make(r, SEV_CATALOGUE, "plan-no-common-driver", "driver", &v);
		if (!f || finding_evidence(f, "%s needs %s or newer; %s is supported up to %s",
					   plan_gpu_label(&p->gpu[p->drv_first_gpu]), b1, plan_gpu_label(&p->gpu[p->drv_last_gpu]), b2))
			return CD_ENOMEM;
	} else if (!p->any_jetson || p->n_gpus > 1) {
		report_kv(r, "every GPU", "%s%s .. %s (%s sets the first%s%s)",
			  p->gpu[p->drv_first_gpu].first_branch_floor ? "<= " : "",
			  branch_text(p->drv_first, b1, sizeof(b1)), branch_text(p->drv_last, b2, sizeof(b2)),
			  plan_gpu_label(&p->gpu[p->drv_first_gpu]), p->drv_last ? ", the last: " : "",
			  p->drv_last ? plan_gpu_label(&p->gpu[p->drv_last_gpu]) : "");
	}
	if (d->known) {
		char cuda[16];

		snprintf(cuda, sizeof(cuda), "%d.%d", d->cuda.major, d->cuda.minor);
		const char *verdict = p->drv_verdict == PLAN_DRV_OK ? "supports every GPU" :
				      p->drv_verdict == PLAN_DRV_TOO_OLD ? "too old for a GPU" :
				      p->drv_verdict == PLAN_DRV_TOO_NEW ? "too new for a GPU" : "cannot support them all";

		report_kv(r, "this driver", "%s%s (CUDA %s): %s", d->branch ? "R" : "",
			  d->branch ? branch_text(d->branch, b1, sizeof(b1)) + 1 : "?", cuda, verdict);
		cmd_note(r, report_answer(r, "driver: this driver, %s%s (CUDA %s), %s", d->branch ? "R" : "",
					  d->branch ? branch_text(d->branch, b1, sizeof(b1)) + 1 : "?", cuda, verdict)); /* -q */
		if (p->drv_verdict == PLAN_DRV_TOO_OLD || p->drv_verdict == PLAN_DRV_TOO_NEW) {
			const struct plan_gpu *g = &p->gpu[p->drv_verdict == PLAN_DRV_TOO_OLD ? p->drv_first_gpu : p->drv_last_gpu];

			int to = p->drv_verdict == PLAN_DRV_TOO_OLD ? p->drv_first : p->drv_last;

			finding_vars_init(&v);
			finding_var(&v, "branch", "%d", d->branch);
			finding_var(&v, "gpu", "%s", plan_gpu_label(g));
			finding_flag(&v, "too_new", p->drv_verdict != PLAN_DRV_TOO_OLD);
			finding_var(&v, "target", "%s", branch_text(to, b1, sizeof(b1)));
			finding_var(&v, "target_branch", "%d", to);
			f = finding_make(r, SEV_WARN, "plan-driver-change/gpu", plan_gpu_label(g), &v);
			if (!f || finding_evidence(f, "%s is supported by %s .. %s", plan_gpu_label(g),
						   branch_text(g->first_branch, b1, sizeof(b1)), branch_text(g->last_branch, b2, sizeof(b2))))
				return CD_ENOMEM;
		}
	} else {
		report_kv(r, "this driver", "unknown (give --driver to judge one)");
		if (!p->drv_empty)
			cmd_note(r, report_answer(r, "driver: %s .. %s supports every GPU", branch_text(p->drv_first, b1, sizeof(b1)),
						  branch_text(p->drv_last, b2, sizeof(b2)))); /* -q */
	}
	return report_json_set(r, "driver", json_pack("{s:i, s:i, s:b, s:s, s:o, s:o}", "first_branch", p->drv_first,
			       "last_branch", p->drv_last, "empty", p->drv_empty, "verdict", verdicts[p->drv_verdict],
			       "branch", d->known && d->branch ? json_integer(d->branch) : json_null(),
			       "cuda", d->known ? json_sprintf("%d.%d", d->cuda.major, d->cuda.minor) : json_null()));
}

static int toolkit_section(struct report *r, const struct plan *p)
{
	const struct plan_toolkit *lo = NULL, *hi = NULL, *native = NULL, *compat = NULL;
	json_t *builds = json_array(), *runs = json_array();

	if (!builds || !runs) {
		json_decref(builds);
		json_decref(runs);
		return CD_ENOMEM;
	}
	for (size_t i = 0; i < p->n_tk; i++) {
		const struct plan_toolkit *t = &p->tk[i];

		if (!t->builds_all)
			continue;
		lo = lo ? lo : t;
		hi = t;
		json_array_append_new(builds, json_string(t->tk->release_text));
		if (t->driver_fit == CUDA_FITS)
			native = t;
		if (t->driver_fit == CUDA_NEWER_MINOR)
			compat = t;
		if (t->driver_fit == CUDA_FITS || t->driver_fit == CUDA_NEWER_MINOR)
			json_array_append_new(runs, json_string(t->tk->release_text));
	}
	report_section(r, "CUDA toolkits");
	if (lo)
		report_kv(r, "build every GPU", "CUDA %s .. %s", lo->tk->release_text, hi->tk->release_text);
	else
		report_kv(r, "build every GPU", "none: no toolkit builds for all of them");
	if (p->in.driver.known && lo) {
		if (native && compat)
			report_kv(r, "this driver runs", "up to %s natively; up to %s through minor-version compatibility (no PTX JIT of newer code)",
				  native->tk->release_text, compat->tk->release_text);
		else if (native || compat)
			report_kv(r, "this driver runs", "up to %s%s", (native ? native : compat)->tk->release_text,
				  native ? "" : " through minor-version compatibility");
		else
			report_kv(r, "this driver runs", "none of them");
	}
	if (p->tk_pick >= 0)
		report_kv(r, "recommended", "CUDA %s: %s", p->tk[p->tk_pick].tk->release_text, p->tk_why);
	/* -q */
	if (p->tk_pick >= 0)
		cmd_note(r, report_answer(r, "toolkit: CUDA %s", p->tk[p->tk_pick].tk->release_text));
	else
		cmd_note(r, report_answer(r, "toolkit: %s", lo ? "none recommended" : "none builds for every GPU"));
	report_json_set(r, "toolkits_build_all", builds);
	report_json_set(r, "toolkits_runnable", p->in.driver.known ? runs : json_null());
	if (!p->in.driver.known)
		json_decref(runs);
	return report_json_set(r, "toolkit", p->tk_pick >= 0 ? json_pack("{s:s, s:s}", "release",
			       p->tk[p->tk_pick].tk->release_text, "why", p->tk_why) : json_null());
}

static bool plan_windows; /* this run plans Windows' wheels */

static void pip_lines(struct report *r, const struct kb_torch_build *b)
{
	char pip[512];

	plan_torch_install(b, false, plan_pip(plan_windows), pip, sizeof(pip));
	report_kv_command(r, "pip", "%s", pip);
	report_kv_command(r, "uv", "uv %s", pip);
}

static json_t *torch_json(const struct plan *p, const struct plan_torch *t)
{
	json_t *gpus = json_array();

	for (size_t g = 0; gpus && g < p->n_gpus; g++) {
		char via[24];

		kb_arch_format(t->via[g], "sm_", via, sizeof(via));
		json_array_append_new(gpus, json_pack("{s:o, s:s, s:o}", "gpu", report_json_text(plan_gpu_label(&p->gpu[g])), "fit",
			plan_fit_name(t->fit[g]), "via", t->fit[g] <= PLAN_FIT_PTX ? json_string(via) : json_null()));
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:s, s:b, s:b, s:b, s:s}", "release", t->b->release,
		"variant", t->b->variant, "cuda", t->b->cuda_text, "status", t->b->experimental ? "experimental" : "stable",
		"uncertain", t->b->uncertain, "gpus", gpus, "driver", t->driver_fit < 0 ? "unknown" :
		t->driver_fit == CUDA_FITS ? "runs" : t->driver_fit == CUDA_NEWER_MINOR ? "minor-compat" : "too-old",
		"fits_gpus", t->fits_gpus, "runnable", t->runnable, "sass_only", t->fits_gpus && !*all_sass_text(t, p->n_gpus),
		"index_url", t->b->index_url);

	if (o) {
		char pip[512];

		plan_torch_install(t->b, false, plan_pip(plan_windows), pip, sizeof(pip));
		json_object_set_new(o, "pip", json_string(pip));
		json_object_set_new(o, "needs_branch", json_integer(plan_torch_min_branch(p, t)));
		json_object_set_new(o, "uv", json_sprintf("uv %s", pip));
	}
	return o;
}

/* " (PTX)" when some GPU gets only PTX from this build */
static const char *all_sass_text(const struct plan_torch *t, size_t n)
{
	for (size_t g = 0; g < n; g++)
		if (t->fit[g] == PLAN_FIT_PTX)
			return " (PTX)";
	return "";
}

/* one line per GPU that is served by something other than its own SASS */
static void torch_gpu_notes(struct report *r, const struct plan *p, const struct plan_torch *t)
{
	for (size_t g = 0; g < p->n_gpus; g++) {
		const struct kb_torch_build *last = plan_torch_last_exact(p->gpu[g].spec.arch);
		char sm[24], via[24], fit[64];

		if (t->fit[g] == PLAN_FIT_SASS)
			continue;
		kb_arch_format(p->gpu[g].spec.arch, "sm_", sm, sizeof(sm));
		kb_arch_format(t->via[g], "sm_", via, sizeof(via));
		fit_text(t, g, fit, sizeof(fit));
		if (last)
			report_kv(r, plan_gpu_label(&p->gpu[g]), "%s has no %s SASS (the last release that carries it: %s); it runs %s",
				  t->b->variant, sm, last->release, fit);
		else
			report_kv(r, plan_gpu_label(&p->gpu[g]), "no PyTorch wheel in the tables (%s .. %s) carries %s SASS; this one runs %s",
				  kb_torch_at(0)->release, kb_torch_at(kb_torch_count() - 1)->release, sm, fit);
	}
}

/* Without a driver: the newest build that runs on the oldest branch supporting every GPU
 * first (what most owners of these GPUs have), then the newest overall, each with the branch it
 * needs. Returns NULL; r->oom says whether it ran out of memory. */
static struct finding *no_driver_leads(struct report *r, const struct plan *p)
{
	const struct kb_torch_build *lead, *newest;
	int lb, nb;
	char pip[512];

	fix_torch_leads(p, &lead, &lb, &newest, &nb);
	if (!lead)
		lead = newest, lb = nb;
	if (lead) {
		report_kv(r, "recommended", "torch %s %s%s: needs R%d+, the oldest driver branch that supports every GPU; the "
			  "newest release that runs there (no driver known: give --driver)", lead->release, lead->variant,
			  lead->uncertain ? " (uncertain arch list)" : "", lb);
		pip_lines(r, lead);
		plan_torch_install(lead, false, plan_pip(plan_windows), pip, sizeof(pip));
		cmd_note(r, report_answer(r, "torch %s %s (needs R%d+): %s", lead->release, lead->variant, lb, pip)); /* -q */
	}
	if (newest && newest != lead) {
		report_kv(r, "newest", "torch %s %s: needs R%d+", newest->release, newest->variant, nb);
		plan_torch_install(newest, false, plan_pip(plan_windows), pip, sizeof(pip));
		report_kv_command(r, "pip", "%s", pip);
		cmd_note(r, report_answer(r, "newest: torch %s %s (needs R%d+): %s", newest->release, newest->variant, nb,
					  pip)); /* -q */
	}
	return NULL;
}

/* The build plan recommends: its pick for the driver, or without one the lead above. */
static long recommended(const struct plan *p)
{
	const struct kb_torch_build *lead, *newest;
	int lb, nb;

	if (p->in.driver.known)
		return p->torch_pick;
	fix_torch_leads(p, &lead, &lb, &newest, &nb);
	for (size_t i = 0; lead && i < p->n_torch; i++)
		if (p->torch[i].b == lead)
			return (long)i;
	return p->torch_pick;
}

static int torch_section(struct report *r, const struct plan *p)
{
	static const char *const hdr[] = { "release", "variants with code for every GPU", "this driver runs" };
	json_t *arr = json_array();
	struct finding *f;

	if (!arr)
		return CD_ENOMEM;
	report_section(r, plan_windows ? "PyTorch (download.pytorch.org wheels, Windows x86_64: win_amd64)"
				       : "PyTorch (download.pytorch.org wheels, Linux x86_64)");
	report_table(r, 3, hdr);
	for (size_t i = 0; i < p->n_torch;) {
		const char *rel = p->torch[i].b->release;
		char fits[160] = "", runs[160] = "";
		size_t uf = 0, ur = 0;

		for (; i < p->n_torch && strcmp(p->torch[i].b->release, rel) == 0; i++) {
			const struct plan_torch *t = &p->torch[i];

			json_array_append_new(arr, torch_json(p, t));
			if (!t->fits_gpus)
				continue;
			cat(fits, sizeof(fits), &uf, "%s%s%s", uf ? " " : "",
					       t->b->variant, all_sass_text(t, p->n_gpus));
			if (t->runnable && p->in.driver.known)
				cat(runs, sizeof(runs), &ur, "%s%s", ur ? " " : "",
						       t->b->variant);
		}
		report_table_row(r, (const char *const[]){ rel, *fits ? fits : "none", !p->in.driver.known ? "?" : *runs ? runs : "none" });
	}
	report_json_set(r, "torch_builds", arr);
	if (p->torch_pick >= 0 && !p->in.driver.known) {
		if ((f = no_driver_leads(r, p)) == NULL && r->oom)
			return CD_ENOMEM;
	} else if (p->torch_pick >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick];

		report_kv(r, "recommended", "torch %s %s%s: %s", t->b->release, t->b->variant, t->b->uncertain ? " (uncertain arch list)" : "",
			  "the newest release with a build for every GPU that this driver runs; stable CUDA before experimental");
		report_kv(r, "on this driver", "%s", fit_driver_text(t->driver_fit));
		char pip[512];

		pip_lines(r, t->b);
		plan_torch_install(t->b, false, plan_pip(plan_windows), pip, sizeof(pip));
		cmd_note(r, report_answer(r, "torch %s %s: %s", t->b->release, t->b->variant, pip)); /* -q */
		torch_gpu_notes(r, p, t);
	} else if (p->torch_pick_any_driver >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick_any_driver];
		int need = plan_torch_min_branch(p, t);
		char b1[16];

		report_kv(r, "recommended", "none runs on this driver; with %s or newer: torch %s %s",
			  branch_text(need, b1, sizeof(b1)), t->b->release, t->b->variant);
		cmd_note(r, report_answer(r, "torch: none runs on this driver; with %s or newer: torch %s %s", b1, t->b->release,
					  t->b->variant)); /* -q */
		pip_lines(r, t->b);
		struct finding_vars v;

		finding_vars_init(&v);
		finding_var(&v, "release", "%s", t->b->release);
		finding_var(&v, "variant", "%s", t->b->variant);
		finding_var(&v, "need", "%s", b1);
		finding_var(&v, "need_branch", "%d", need);
		finding_var(&v, "cuda", "%s", t->b->cuda_text);
		finding_var(&v, "cuda_major", "%d", t->b->cuda.major);
		finding_flag(&v, "windows", plan_windows);
		if (!finding_make(r, SEV_WARN, "plan-driver-change/torch", "torch", &v))
			return CD_ENOMEM;
	} else if (p->n_torch) {
		report_kv(r, "recommended", "none: no PyTorch build in the tables carries code for every GPU");
		cmd_note(r, report_answer(r, "torch: none carries code for every GPU")); /* -q */
	}
	if (p->torch_newest && (p->torch_pick < 0 || strcmp(p->torch[p->torch_pick].b->release, p->torch_newest->release) != 0)) {
		for (size_t i = 0; i < p->n_torch; i++) {
			const struct plan_torch *t = &p->torch[i];
			char why[160] = "";

			if (strcmp(t->b->release, p->torch_newest->release) != 0)
				continue;
			for (size_t g = 0; g < p->n_gpus && !*why; g++)
				if (t->fit[g] > PLAN_FIT_PTX)
					snprintf(why, sizeof(why), "no code for %s", plan_gpu_label(&p->gpu[g]));
			if (!*why)
				snprintf(why, sizeof(why), "%s", t->runnable ? "runs" : fit_driver_text(t->driver_fit));
			report_kv(r, "newest", "torch %s %s: %s", t->b->release, t->b->variant, why);
		}
	}
	return report_json_set(r, "torch", p->torch_pick >= 0 ? torch_json(p, &p->torch[recommended(p)]) : json_null());
}

static int fw_section(struct report *r, const struct plan *p)
{
	static const char *const hdr[] = { "build", "CUDA", "GPUs", "driver", "install" };
	const char *name = plan_framework_name(p->in.framework);
	json_t *arr = json_array();

	if (!arr)
		return CD_ENOMEM;
	report_section(r, "%s builds", name);
	report_table(r, 5, hdr);
	for (size_t i = 0; i < p->n_fw; i++) {
		const struct plan_fw *f = &p->fw[i];
		char gpus[160] = "";
		size_t u = 0;

		for (size_t g = 0; g < p->n_gpus; g++)
			if (!f->gpu_ok[g])
				cat(gpus, sizeof(gpus), &u, "%sno %s",
						      u ? ", " : "", plan_gpu_label(&p->gpu[g]));
		char drv[48];

		/* the build's own driver floor, as its table row states it (Ollama's 550), else the CUDA family's */
		if (f->driver_ok == 0 && f->b->has_min_driver)
			snprintf(drv, sizeof(drv), "too old (needs %s%s+)", strchr(f->b->min_driver_text, '.') ? "" : "R",
				 f->b->min_driver_text);
		else
			snprintf(drv, sizeof(drv), "%s", f->driver_ok < 0 ? "?" : f->driver_ok ? "runs" : "too old");
		report_table_row(r, (const char *const[]){ f->b->variant, f->b->cuda_text, *gpus ? gpus : "all", drv,
			f->b->install });
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:b, s:o, s:b, s:s, s:s, s:b}", "framework", name,
			"variant", f->b->variant, "cuda", f->b->cuda_text, "fits_gpus", f->fits_gpus,
			"driver_ok", f->driver_ok < 0 ? json_null() : json_boolean(f->driver_ok), "runnable", f->runnable,
			"min_driver", f->b->min_driver_text, "install", f->b->install, "uncertain", f->b->uncertain));
	}
	if (p->fw_pick >= 0) {
		const struct kb_fw_build *b = p->fw[p->fw_pick].b;

		report_kv(r, "recommended", "%s %s%s: the first build %s lists that fits every GPU%s", name, b->variant,
			  b->uncertain ? " (uncertain)" : "", name, p->in.driver.known ? " and runs on this driver" : "");
		report_kv(r, "install", "%s", b->install);
		cmd_note(r, report_answer(r, "%s %s: %s", name, b->variant, b->install)); /* -q */
		if (*b->notes)
			report_kv(r, "note", "%s", b->notes);
	} else {
		report_kv(r, "recommended", "none of %s's builds fits every GPU%s", name, p->in.driver.known ? " on this driver" : "");
		cmd_note(r, report_answer(r, "%s: none of its builds fits every GPU%s", name,
					  p->in.driver.known ? " on this driver" : "")); /* -q */
	}
	report_json_set(r, "framework_builds", arr);
	return report_json_set(r, "framework_build", p->fw_pick >= 0 ? json_string(p->fw[p->fw_pick].b->variant) : json_null());
}

/* CUDA_VISIBLE_DEVICES for a group: the GPUs' UUIDs, which name the same GPUs whatever the
 * enumeration order (CUDA_DEVICE_ORDER, a GPU added or gone); without them (GPUs named with
 * --gpu) no index would name the right device, so the line says where the UUIDs are. */
static void visible_devices(const struct plan *p, const struct plan_group *grp, const char (*uuid)[64],
			    char *out, size_t cap)
{
	size_t used = 0;

	for (size_t g = 0; g < p->n_gpus; g++) {
		if (!grp->member[g])
			continue;
		if (!uuid[g][0]) {
			snprintf(out, cap, "the UUIDs `nvidia-smi -L` prints for these GPUs");
			return;
		}
		cat(out, cap, &used, "%s%s", used ? "," : "", uuid[g]);
	}
}

static int split_section(struct report *r, const struct plan *p, const char (*uuid)[64])
{
	struct finding_vars v;
	json_t *arr = json_array();
	struct finding *f;

	if (!arr)
		return CD_ENOMEM;
	report_section(r, "No single build fits every GPU: the closest split");
	finding_vars_init(&v);
	finding_var(&v, "framework", "%s", plan_framework_name(p->in.framework));
	finding_var(&v, "groups", "%zu", p->n_groups);
	if (!(f = finding_make(r, SEV_CATALOGUE, "plan-no-single-build", plan_framework_name(p->in.framework), &v)))
		return CD_ENOMEM;
	for (size_t k = 0; k < p->n_groups; k++) {
		const struct plan_group *grp = &p->group[k];
		char names[256] = "", devices[PLAN_MAX_GPUS * 64 + 64] = "", what[160];
		size_t un = 0;
		json_t *members = json_array();

		for (size_t g = 0; g < p->n_gpus; g++) {
			if (!grp->member[g])
				continue;
			cat(names, sizeof(names), &un, "%s%s", un ? ", " : "", plan_gpu_label(&p->gpu[g]));
			if (members)
				json_array_append_new(members, report_json_text(plan_gpu_label(&p->gpu[g])));
		}
		if (grp->choice < 0)
			snprintf(what, sizeof(what), "nothing in the tables fits");
		else if (p->in.framework == PLAN_FW_TORCH)
			snprintf(what, sizeof(what), "torch %s %s", p->torch[grp->choice].b->release, p->torch[grp->choice].b->variant);
		else
			snprintf(what, sizeof(what), "%s", p->fw[grp->choice].b->install);
		report_kv(r, names, "%s", what);
		if (grp->choice >= 0 && p->in.framework == PLAN_FW_TORCH)
			pip_lines(r, p->torch[grp->choice].b);
		visible_devices(p, grp, uuid, devices, sizeof(devices));
		if (finding_evidence(f, "%s: %s   (CUDA_VISIBLE_DEVICES=%s)", names, what, devices))
			return CD_ENOMEM;
		json_array_append_new(arr, json_pack("{s:o, s:s}", "gpus", members ? members : json_array(), "choice", what));
	}
	return report_json_set(r, "split", arr);
}

static int jetson_section(struct report *r, const struct plan *p)
{
	struct finding_vars v;
	struct finding *f;

	for (size_t g = 0; g < p->n_gpus; g++) {
		if (!p->gpu[g].jetson)
			continue;
		finding_vars_init(&v);
		finding_var(&v, "gpu", "%s", plan_gpu_label(&p->gpu[g]));
		f = finding_make(r, SEV_CATALOGUE, "plan-jetson", plan_gpu_label(&p->gpu[g]), &v);
		if (!f || finding_evidence(f, "gpus.tsv: segment %s", p->gpu[g].spec.gpu ? p->gpu[g].spec.gpu->segment : "Jetson/embedded"))
			return CD_ENOMEM;
	}
	return CD_OK;
}

/* AMD GPUs are planned apart (cmd/plan/rocm.c): those --gpu names, else on an AMD machine with
 * nothing NVIDIA the AMD GPUs here; CD_ENOTFOUND when there are none. */
static int amd_plan(struct report *r, const struct cli_args *args, struct cd_run *run, char *err)
{
	const char *specs[PLAN_MAX_GPUS], *fw = "torch";
	size_t n = 0, nvidia = 0;
	const struct amd_host *h;
	int rc;

	for (size_t i = 0; i < args->n; i++) {
		if (args->v[i].opt->id == O_FRAMEWORK)
			fw = args->v[i].value;
		else if (args->v[i].opt->id == O_GPU && plan_rocm_is_amd(args->v[i].value) && n < PLAN_MAX_GPUS)
			specs[n++] = args->v[i].value;
		else if (args->v[i].opt->id == O_GPU)
			nvidia++;
	}
	if (n && nvidia)
		return cd_fail(err, CD_EUSAGE, "plan NVIDIA and AMD GPUs apart: one stack serves one vendor");
	if (!n && !nvidia && cd_run_amd_only(run)) {
		if ((rc = cd_run_amd(run, &h, err)) != CD_OK)
			return rc;
		for (size_t i = 0; i < h->n_gpus && n < PLAN_MAX_GPUS; i++) {
			bool seen = false;
			for (size_t k = 0; k < n; k++)
				seen |= strcmp(specs[k], h->gpus[i].gfx) == 0;
			if (!seen)
				specs[n++] = h->gpus[i].gfx;
		}
	}
	return n ? plan_rocm_report(r, specs, n, fw, err) : CD_ENOTFOUND;
}

static int plan_run(struct report *r, int argc, char **argv, const struct cd_globals *gl, char *err)
{
	struct plan_args a;
	struct plan_input in = { 0 };
	struct plan *p = NULL;
	int rc;

	(void)gl;
	if ((rc = amd_plan(r, gl->args, gl->run, err)) != CD_ENOTFOUND)
		return rc;
	if ((rc = parse_args(argc, argv, gl->args, &a, err)) != CD_OK)
		return rc;
	if ((rc = kb_load(err)) != CD_OK)
		return rc;
	if (a.driver && (rc = plan_driver_parse(a.driver, &in.driver, err)) != CD_OK)
		return rc;
	if (a.n == 0 && (rc = add_native(r, &a, &in.driver, gl->run, err)) != CD_OK)
		return rc;
	if (!(p = calloc(1, sizeof(*p))))
		return cd_fail(err, CD_ENOMEM, "out of memory");
	in.gpus = a.specs;
	in.n_gpus = a.n;
	in.framework = a.fw;
	in.fw_version = a.fw_version;
	if ((rc = plan_make(&in, p, err)) != CD_OK)
		goto out;
	report_json_set(r, "framework", json_string(plan_framework_name(a.fw)));
	report_json_set(r, "os", json_string(a.windows ? "windows" : "linux"));
	plan_windows = a.windows;
	rc = CD_ENOMEM;
	if (gpus_section(r, p) || driver_section(r, p) || toolkit_section(r, p) || jetson_section(r, p))
		goto nomem;
	if (!p->any_jetson && a.fw == PLAN_FW_TORCH && torch_section(r, p))
		goto nomem;
	if (!p->any_jetson && a.fw != PLAN_FW_TORCH && a.fw != PLAN_FW_NONE && fw_section(r, p))
		goto nomem;
	if (p->n_groups && split_section(r, p, a.uuid))
		goto nomem;
	rc = CD_OK;
	goto out;
nomem:
	rc = cd_fail(err, CD_ENOMEM, "out of memory");
out:
	free(p);
	return rc;
}

const struct cd_command cmd_plan = {
	.name = "plan",
	.summary = "which driver, CUDA toolkit and framework build fit these GPUs",
	.usage = "cudoctor plan [--gpu SPEC]... [--driver VERSION]\n"
		 "                     [--framework torch[==VERSION]|jax|vllm|ollama|none]",
	.help = plan_help,
	.opts = plan_opts,
	.run = plan_run,
};
