/* `cudoctor plan`: which driver branch, CUDA toolkit and framework build fit these GPUs,
 * with the install commands; the decisions are src/rules/plan.c's, this file wires the
 * GPUs here (or named) and the driver into it and writes the report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/plan/fields.h"
#include "cmd/plan/rocm.h"
#include "kb/frameworks.h"
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

/* The JSON of the fields of t with these keys (NULL ends them), in this order. */
static void fields_by_key(struct report_rec *w, const struct field_table *t, const void *obj, ...)
{
	va_list ap;
	const char *key;

	va_start(ap, obj);
	while ((key = va_arg(ap, const char *)) != NULL) {
		const struct field *f = field_find(t, key);

		if (f)
			report_one_json(w, t, (size_t)(f - t->fields), obj);
	}
	va_end(ap);
}

/* A text line: label, the value in fmt. */
#define text_kv(w, label, ...) report_fieldf(w, label, NULL, rv_null(), __VA_ARGS__)

/* ---- sections ---- */

static int gpus_section(struct report_rec *top, const struct plan *p)
{
	const char *hdr[8];
	size_t nh = report_fields_headers(&plan_gpu_field_table, FIELD_ALL, hdr, 8);
	struct report_rec tab, row;

	report_rec_section(top, "GPUs");
	report_rec_table(top, "gpus", nh, hdr, &tab);
	for (size_t i = 0; i < p->n_gpus; i++) {
		report_rec_item(&tab, &row);
		report_fields(&row, &plan_gpu_field_table, &p->gpu[i], FIELD_ALL);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	return report_rec_end(&tab);
}

static int driver_section(struct report_rec *top, const struct plan *p)
{
	struct report *r = top->r;
	struct finding_vars v;
	const struct plan_driver *d = &p->in.driver;
	char b1[16], b2[16];
	struct finding *f;
	struct report_rec w;

	report_rec_section(top, "Driver");
	report_rec_object(top, "driver", &w);
	report_fields(&w, &plan_driver_field_table, p, FIELD_ALL);
	if (report_rec_end(&w) != CD_OK)
		return w.rc;
	if (p->drv_empty) {
		plan_branch_text(p->drv_first, b1, sizeof(b1));
		plan_branch_text(p->drv_last, b2, sizeof(b2));
		cmd_note(r, report_answer(r, "driver: no branch supports every GPU")); /* -q */
		finding_vars_init(&v);
		f = finding_make(r, SEV_CATALOGUE, "plan-no-common-driver", "driver", &v);
		if (!f || finding_evidence(f, "%s needs %s or newer; %s is supported up to %s",
					   plan_gpu_label(&p->gpu[p->drv_first_gpu]), b1, plan_gpu_label(&p->gpu[p->drv_last_gpu]), b2))
			return CD_ENOMEM;
	}
	if (d->known) {
		char cuda[16];

		snprintf(cuda, sizeof(cuda), "%d.%d", d->cuda.major, d->cuda.minor);
		const char *verdict = p->drv_verdict == PLAN_DRV_OK ? "supports every GPU" :
				      p->drv_verdict == PLAN_DRV_TOO_OLD ? "too old for a GPU" :
				      p->drv_verdict == PLAN_DRV_TOO_NEW ? "too new for a GPU" : "cannot support them all";

		cmd_note(r, report_answer(r, "driver: this driver, %s%s (CUDA %s), %s", d->branch ? "R" : "",
					  d->branch ? plan_branch_text(d->branch, b1, sizeof(b1)) + 1 : "?", cuda, verdict)); /* -q */
		if (p->drv_verdict == PLAN_DRV_TOO_OLD || p->drv_verdict == PLAN_DRV_TOO_NEW) {
			const struct plan_gpu *g = &p->gpu[p->drv_verdict == PLAN_DRV_TOO_OLD ? p->drv_first_gpu : p->drv_last_gpu];

			int to = p->drv_verdict == PLAN_DRV_TOO_OLD ? p->drv_first : p->drv_last;

			finding_vars_init(&v);
			finding_var(&v, "branch", "%d", d->branch);
			finding_var(&v, "gpu", "%s", plan_gpu_label(g));
			finding_flag(&v, "too_new", p->drv_verdict != PLAN_DRV_TOO_OLD);
			finding_var(&v, "target", "%s", plan_branch_text(to, b1, sizeof(b1)));
			finding_var(&v, "target_branch", "%d", to);
			f = finding_make(r, SEV_WARN, "plan-driver-change/gpu", plan_gpu_label(g), &v);
			if (!f || finding_evidence(f, "%s is supported by %s .. %s", plan_gpu_label(g),
						   plan_branch_text(g->first_branch, b1, sizeof(b1)), plan_branch_text(g->last_branch, b2, sizeof(b2))))
				return CD_ENOMEM;
		}
	} else if (!p->drv_empty) {
		cmd_note(r, report_answer(r, "driver: %s .. %s supports every GPU", plan_branch_text(p->drv_first, b1, sizeof(b1)),
					  plan_branch_text(p->drv_last, b2, sizeof(b2)))); /* -q */
	}
	return CD_OK;
}

static int toolkit_section(struct report_rec *top, const struct plan *p)
{
	struct report *r = top->r;
	struct report_rec w;
	bool any = false;

	for (size_t i = 0; i < p->n_tk; i++)
		any |= p->tk[i].builds_all;
	report_rec_section(top, "CUDA toolkits");
	report_fields(top, &plan_toolkit_field_table, p, FIELD_ALL);
	/* -q */
	if (p->tk_pick >= 0)
		cmd_note(r, report_answer(r, "toolkit: CUDA %s", p->tk[p->tk_pick].tk->release_text));
	else
		cmd_note(r, report_answer(r, "toolkit: %s", any ? "none recommended" : "none builds for every GPU"));
	if (p->tk_pick < 0) {
		report_field(top, NULL, "toolkit", rv_null());
		return top->rc;
	}
	report_rec_object(top, "toolkit", &w);
	report_field(&w, NULL, "release", rv_str(p->tk[p->tk_pick].tk->release_text));
	report_field(&w, NULL, "why", rv_str(p->tk_why));
	return report_rec_end(&w);
}

static bool plan_windows; /* this run plans Windows' wheels */

/* The pip and uv lines that install b. */
static void pip_lines(struct report_rec *w, const struct plan *p, const struct kb_torch_build *b)
{
	struct plan_torch t = { .b = b };
	struct plan_torch_row row = { p, &t, plan_pip(plan_windows) };
	struct report_rec text;

	report_rec_text_only(w, &text);
	report_one_field(&text, &plan_torch_field_table, (size_t)(field_find(&plan_torch_field_table, "pip") - plan_torch_field_table.fields), &row);
	report_one_field(&text, &plan_torch_field_table, (size_t)(field_find(&plan_torch_field_table, "uv") - plan_torch_field_table.fields), &row);
	if (report_rec_end(&text) != CD_OK)
		return; /* the error is w's now */
}

/* One build of the plan as its JSON object, into w. */
static void torch_fields(struct report_rec *w, const struct plan *p, const struct plan_torch *t)
{
	struct plan_torch_row row = { p, t, plan_pip(plan_windows) };
	struct report_rec gpus, g;

	fields_by_key(w, &kb_torch_build_field_table, t->b, "release", "variant", "cuda", "status", "uncertain", NULL);
	report_rec_array(w, "gpus", &gpus);
	for (size_t i = 0; i < p->n_gpus; i++) {
		struct plan_torch_gpu_row gr = { p, t, i };

		report_rec_item(&gpus, &g);
		report_fields(&g, &plan_torch_gpu_field_table, &gr, FIELD_ALL);
		if (report_rec_end(&g) != CD_OK)
			break;
	}
	if (report_rec_end(&gpus) != CD_OK)
		return; /* the error is w's now */
	fields_by_key(w, &plan_torch_field_table, &row, "driver", "fits_gpus", "runnable", "sass_only", NULL);
	fields_by_key(w, &kb_torch_build_field_table, t->b, "index_url", NULL);
	fields_by_key(w, &plan_torch_field_table, &row, "pip", "needs_branch", "uv", NULL);
}

/* one line per GPU that is served by something other than its own SASS */
static void torch_gpu_notes(struct report_rec *w, const struct plan *p, const struct plan_torch *t)
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
			text_kv(w, plan_gpu_label(&p->gpu[g]), "%s has no %s SASS (the last release that carries it: %s); it runs %s",
				t->b->variant, sm, last->release, fit);
		else
			text_kv(w, plan_gpu_label(&p->gpu[g]), "no PyTorch wheel in the tables (%s .. %s) carries %s SASS; this one runs %s",
				kb_torch_at(0)->release, kb_torch_at(kb_torch_count() - 1)->release, sm, fit);
	}
}

/* Without a driver: the newest build that runs on the oldest branch supporting every GPU
 * first (what most owners of these GPUs have), then the newest overall, each with the branch it
 * needs. Returns w's error. */
static int no_driver_leads(struct report_rec *w, const struct plan *p)
{
	struct report *r = w->r;
	const struct kb_torch_build *lead, *newest;
	int lb, nb;
	char pip[512];

	fix_torch_leads(p, &lead, &lb, &newest, &nb);
	if (!lead)
		lead = newest, lb = nb;
	if (lead) {
		text_kv(w, "recommended", "torch %s %s%s: needs R%d+, the oldest driver branch that supports every GPU; the "
			"newest release that runs there (no driver known: give --driver)", lead->release, lead->variant,
			lead->uncertain ? " (uncertain arch list)" : "", lb);
		pip_lines(w, p, lead);
		plan_torch_install(lead, false, plan_pip(plan_windows), pip, sizeof(pip));
		cmd_note(r, report_answer(r, "torch %s %s (needs R%d+): %s", lead->release, lead->variant, lb, pip)); /* -q */
	}
	if (newest && newest != lead) {
		text_kv(w, "newest", "torch %s %s: needs R%d+", newest->release, newest->variant, nb);
		plan_torch_install(newest, false, plan_pip(plan_windows), pip, sizeof(pip));
		report_rec_commands(w, true);
		text_kv(w, "pip", "%s", pip);
		report_rec_commands(w, false);
		cmd_note(r, report_answer(r, "newest: torch %s %s (needs R%d+): %s", newest->release, newest->variant, nb,
					  pip)); /* -q */
	}
	return w->rc;
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

/* The table of releases (a row per release, its variants in cells) and "torch_builds" (an
 * object per build). */
static int torch_builds(struct report_rec *top, const struct plan *p)
{
	static const char *const hdr[] = { "release", "variants with code for every GPU", "this driver runs" };
	struct report_rec tab, row, arr, it;

	report_rec_table(top, NULL, 3, hdr, &tab);
	report_rec_array(top, "torch_builds", &arr);
	report_rec_text(&arr, REPORT_TEXT_NONE);
	for (size_t i = 0; i < p->n_torch;) {
		const char *rel = p->torch[i].b->release;
		char fits[160] = "", runs[160] = "";
		size_t uf = 0, ur = 0;

		for (; i < p->n_torch && strcmp(p->torch[i].b->release, rel) == 0; i++) {
			const struct plan_torch *t = &p->torch[i];

			report_rec_item(&arr, &it);
			torch_fields(&it, p, t);
			if (report_rec_end(&it) != CD_OK)
				continue; /* the error is arr's, then top's */
			if (!t->fits_gpus)
				continue;
			cat(fits, sizeof(fits), &uf, "%s%s%s", uf ? " " : "", t->b->variant, plan_torch_ptx_note(t, p->n_gpus));
			if (t->runnable && p->in.driver.known)
				cat(runs, sizeof(runs), &ur, "%s%s", ur ? " " : "", t->b->variant);
		}
		report_rec_item(&tab, &row);
		report_field(&row, "release", NULL, rv_str(rel));
		report_field(&row, "variants with code for every GPU", NULL, rv_str(*fits ? fits : "none"));
		report_field(&row, "this driver runs", NULL, rv_str(!p->in.driver.known ? "?" : *runs ? runs : "none"));
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK || report_rec_end(&tab) != CD_OK)
		return top->rc; /* an end hands its error up */
	return top->rc;
}

static int torch_section(struct report_rec *top, const struct plan *p)
{
	struct report *r = top->r;
	struct report_rec w;

	report_rec_section(top, plan_windows ? "PyTorch (download.pytorch.org wheels, Windows x86_64: win_amd64)"
					     : "PyTorch (download.pytorch.org wheels, Linux x86_64)");
	if (torch_builds(top, p) != CD_OK)
		return top->rc;
	if (p->torch_pick >= 0 && !p->in.driver.known) {
		if (no_driver_leads(top, p) != CD_OK)
			return top->rc;
	} else if (p->torch_pick >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick];

		text_kv(top, "recommended", "torch %s %s%s: %s", t->b->release, t->b->variant, t->b->uncertain ? " (uncertain arch list)" : "",
			"the newest release with a build for every GPU that this driver runs; stable CUDA before experimental");
		text_kv(top, "on this driver", "%s", plan_fit_driver_text(t->driver_fit));
		char pip[512];

		pip_lines(top, p, t->b);
		plan_torch_install(t->b, false, plan_pip(plan_windows), pip, sizeof(pip));
		cmd_note(r, report_answer(r, "torch %s %s: %s", t->b->release, t->b->variant, pip)); /* -q */
		torch_gpu_notes(top, p, t);
	} else if (p->torch_pick_any_driver >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick_any_driver];
		int need = plan_torch_min_branch(p, t);
		char b1[16];

		text_kv(top, "recommended", "none runs on this driver; with %s or newer: torch %s %s",
			plan_branch_text(need, b1, sizeof(b1)), t->b->release, t->b->variant);
		cmd_note(r, report_answer(r, "torch: none runs on this driver; with %s or newer: torch %s %s", b1, t->b->release,
					  t->b->variant)); /* -q */
		pip_lines(top, p, t->b);
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
		text_kv(top, "recommended", "none: no PyTorch build in the tables carries code for every GPU");
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
				snprintf(why, sizeof(why), "%s", t->runnable ? "runs" : plan_fit_driver_text(t->driver_fit));
			text_kv(top, "newest", "torch %s %s: %s", t->b->release, t->b->variant, why);
		}
	}
	if (p->torch_pick < 0) {
		report_field(top, NULL, "torch", rv_null());
		return top->rc;
	}
	report_rec_object(top, "torch", &w);
	report_rec_text(&w, REPORT_TEXT_NONE);
	torch_fields(&w, p, &p->torch[recommended(p)]);
	return report_rec_end(&w);
}

static int fw_section(struct report_rec *top, const struct plan *p)
{
	struct report *r = top->r;
	const char *name = plan_framework_name(p->in.framework);
	const char *hdr[8];
	size_t nh = report_fields_headers(&plan_fw_field_table, FIELD_ALL, hdr, 8);
	struct report_rec tab, row;

	report_rec_section(top, "%s builds", name);
	report_rec_table(top, "framework_builds", nh, hdr, &tab);
	for (size_t i = 0; i < p->n_fw; i++) {
		struct plan_fw_row fr = { p, &p->fw[i] };

		report_rec_item(&tab, &row);
		report_fields(&row, &plan_fw_field_table, &fr, FIELD_ALL);
		if (report_rec_end(&row) != CD_OK)
			break;
	}
	if (report_rec_end(&tab) != CD_OK)
		return tab.rc;
	if (p->fw_pick >= 0) {
		const struct kb_fw_build *b = p->fw[p->fw_pick].b;

		text_kv(top, "recommended", "%s %s%s: the first build %s lists that fits every GPU%s", name, b->variant,
			b->uncertain ? " (uncertain)" : "", name, p->in.driver.known ? " and runs on this driver" : "");
		text_kv(top, "install", "%s", b->install);
		cmd_note(r, report_answer(r, "%s %s: %s", name, b->variant, b->install)); /* -q */
		if (*b->notes)
			text_kv(top, "note", "%s", b->notes);
	} else {
		text_kv(top, "recommended", "none of %s's builds fits every GPU%s", name, p->in.driver.known ? " on this driver" : "");
		cmd_note(r, report_answer(r, "%s: none of its builds fits every GPU%s", name,
					  p->in.driver.known ? " on this driver" : "")); /* -q */
	}
	report_field(top, NULL, "framework_build", rv_str(p->fw_pick >= 0 ? p->fw[p->fw_pick].b->variant : NULL));
	return top->rc;
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

static int split_section(struct report_rec *top, const struct plan *p, const char (*uuid)[64])
{
	struct report *r = top->r;
	struct finding_vars v;
	struct report_rec arr, it, members;
	struct finding *f;

	report_rec_section(top, "No single build fits every GPU: the closest split");
	finding_vars_init(&v);
	finding_var(&v, "framework", "%s", plan_framework_name(p->in.framework));
	finding_var(&v, "groups", "%zu", p->n_groups);
	if (!(f = finding_make(r, SEV_CATALOGUE, "plan-no-single-build", plan_framework_name(p->in.framework), &v)))
		return CD_ENOMEM;
	report_rec_array(top, "split", &arr);
	for (size_t k = 0; k < p->n_groups; k++) {
		const struct plan_group *grp = &p->group[k];
		char names[256] = "", devices[PLAN_MAX_GPUS * 64 + 64] = "", what[160];
		size_t un = 0;

		report_rec_item(&arr, &it);
		report_rec_array(&it, "gpus", &members);
		for (size_t g = 0; g < p->n_gpus; g++) {
			if (!grp->member[g])
				continue;
			cat(names, sizeof(names), &un, "%s%s", un ? ", " : "", plan_gpu_label(&p->gpu[g]));
			report_rec_push(&members, rv_str(plan_gpu_label(&p->gpu[g])));
		}
		if (report_rec_end(&members) != CD_OK)
			break; /* the error is it's, then arr's */
		if (grp->choice < 0)
			snprintf(what, sizeof(what), "nothing in the tables fits");
		else if (p->in.framework == PLAN_FW_TORCH)
			snprintf(what, sizeof(what), "torch %s %s", p->torch[grp->choice].b->release, p->torch[grp->choice].b->variant);
		else
			snprintf(what, sizeof(what), "%s", p->fw[grp->choice].b->install);
		report_fieldf(&it, names, "choice", rv_str(what), "%s", what);
		if (grp->choice >= 0 && p->in.framework == PLAN_FW_TORCH)
			pip_lines(&it, p, p->torch[grp->choice].b);
		visible_devices(p, grp, uuid, devices, sizeof(devices));
		if (report_rec_end(&it) != CD_OK)
			break;
		if (finding_evidence(f, "%s: %s   (CUDA_VISIBLE_DEVICES=%s)", names, what, devices))
			return CD_ENOMEM;
	}
	return report_rec_end(&arr);
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
	struct report_rec top;
	int rc;

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
	report_rec_top(&top, r);
	report_field(&top, NULL, "framework", rv_str(plan_framework_name(a.fw)));
	report_field(&top, NULL, "os", rv_str(a.windows ? "windows" : "linux"));
	plan_windows = a.windows;
	rc = CD_ENOMEM;
	if (gpus_section(&top, p) || driver_section(&top, p) || toolkit_section(&top, p) || jetson_section(r, p))
		goto nomem;
	if (!p->any_jetson && a.fw == PLAN_FW_TORCH && torch_section(&top, p))
		goto nomem;
	if (!p->any_jetson && a.fw != PLAN_FW_TORCH && a.fw != PLAN_FW_NONE && fw_section(&top, p))
		goto nomem;
	if (p->n_groups && split_section(&top, p, a.uuid))
		goto nomem;
	if ((rc = report_rec_end(&top)) != CD_OK)
		goto out;
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
