/* `cudoctor gencode`: nvcc -gencode flags, CMAKE_CUDA_ARCHITECTURES and TORCH_CUDA_ARCH_LIST
 * for named GPUs (or the ones here), with the toolkit and driver range the build needs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kb/kb.h"
#include "facts/toolkit.h"
#include "rules/catalogue.h"
#include "rules/gencode.h"
#include "rules/rules.h"
#include "util/err.h"

static const char gencode_help[] =
	"Prints the nvcc -gencode flags, CMAKE_CUDA_ARCHITECTURES and TORCH_CUDA_ARCH_LIST that "
	"build SASS for each GPU and PTX for the newest (so later GPUs can JIT it), and the "
	"toolkit and driver the result needs. Refuses when the toolkit cannot target a GPU, "
	"and says which toolkits can. With --format nvcc, cmake or torch (or -q) only that line "
	"is printed, for `nvcc $(cudoctor gencode --gpu sm_90 --format nvcc) ...`.";

enum { O_GPU = 1, O_NATIVE, O_ALL, O_ALL_MAJOR, O_TOOLKIT, O_PTX, O_NO_PTX, O_FORMAT };
enum { GROUP_WHICH = 1, GROUP_PTX };

static const struct cli_opt gencode_opts[] = {
	{ CMD_OPT_GPU(O_GPU, "sm_89, 8.9, 89, sm_90a, sm_100f, or a GPU name or part of one, case and "
		  "spacing ignored (\"RTX 4060 Ti\", rtx4090, H200); repeatable") },
	{ .id = O_NATIVE, .long_name = "native", .help = "the GPUs this machine has (through the driver)" },
	{ .id = O_ALL, .long_name = "all", .help = "every arch the toolkit builds", .group = GROUP_WHICH },
	{ .id = O_ALL_MAJOR, .long_name = "all-major", .help = "the lowest arch of each major version",
	  .group = GROUP_WHICH },
	{ .id = O_TOOLKIT, .long_name = "toolkit", .arg = CLI_REQUIRED, .metavar = "VERSION",
	  .help = "the CUDA release that will build (default: the nvcc found)" },
	{ .id = O_PTX, .long_name = "ptx", .help = "PTX for the newest arch (the default)", .group = GROUP_PTX },
	{ .id = O_NO_PTX, .long_name = "no-ptx", .help = "SASS only: no PTX", .group = GROUP_PTX },
	{ .id = O_FORMAT, .long_name = "format", .arg = CLI_REQUIRED, .metavar = "F",
	  .help = "which spelling to print: nvcc, cmake, torch (one line only), makefile, or all "
		  "(the default)",
	  .complete = CLI_C_WORDS, .words = "nvcc cmake torch makefile all" },
	{ 0 },
};

struct gencode_args {
	struct gpu_spec specs[GENCODE_MAX];
	size_t n;
	bool native, all, all_major, ptx;
	const char *toolkit, *format;
};

static int parse_args(int argc, char **argv, const struct cli_args *args, struct gencode_args *a,
		      char *err)
{
	int rc;

	memset(a, 0, sizeof(*a));
	a->ptx = true;
	a->format = "all";
	for (size_t i = 0; i < args->n; i++) {
		const char *val = args->v[i].value;

		switch (args->v[i].opt->id) {
		case O_GPU:
			if ((rc = kb_gpu_spec_add(val, a->specs, GENCODE_MAX, &a->n, err)) != CD_OK)
				return rc;
			break;
		case O_NATIVE: a->native = true; break;
		case O_ALL: a->all = true; break;
		case O_ALL_MAJOR: a->all_major = true; break;
		case O_TOOLKIT: a->toolkit = val; break;
		case O_PTX: a->ptx = true; break;
		case O_NO_PTX: a->ptx = false; break;
		case O_FORMAT:
			a->format = val;
			if (strcmp(val, "nvcc") && strcmp(val, "cmake") && strcmp(val, "torch") &&
			    strcmp(val, "makefile") && strcmp(val, "all"))
				return cd_fail(err, CD_EUSAGE, "--format is nvcc, cmake, torch, makefile or all, not '%.40s'",
					       val);
			break;
		}
	}
	if (argc > 1)
		return cd_fail(err, CD_EUSAGE, "unexpected '%.60s' (GPUs are named with --gpu)", argv[1]);
	if (!a->n && !a->native && !a->all && !a->all_major)
		return cd_fail(err, CD_EUSAGE, "name GPUs with --gpu, or use --native, --all or --all-major");
	return CD_OK;
}

/* The toolkit the flags are for: --toolkit, else the nvcc here, else the newest known. */
static int pick_toolkit(struct report *r, struct report_rec *top, const struct gencode_args *a, struct cd_run *run,
			const struct kb_toolkit **tk, char *err)
{
	const struct toolkits *ts;
	const struct toolkit *nv;
	struct version v;
	char nerr[CD_ERRMSG] = "";
	int rc = CD_OK;

	if (a->toolkit) {
		if (version_parse(a->toolkit, &v) != CD_OK)
			return cd_fail(err, CD_EUSAGE, "--toolkit wants a CUDA version like 12.8");
		*tk = kb_toolkit_find(&v);
		if (!*tk || !(*tk)->archs_known)
			return cd_fail(err, CD_EUSAGE, "the tables do not know which archs CUDA %d.%d builds",
				       v.major, v.minor);
		report_fieldf(top, "toolkit", "toolkit", rv_str((*tk)->release_text), "CUDA %s (--toolkit)",
			      (*tk)->release_text);
		return CD_OK;
	}
	if ((rc = cd_run_toolkits(run, &ts, nerr)) != CD_OK)
		return cd_fail(err, rc, "%s", nerr);
	nv = rules_build_nvcc(ts);
	if (nv && nv->timed_out && (rc = rules_helper_timeout(r, nv->nvcc, nv->timed_out, nv->timeout_ms)) != CD_OK)
		goto out;
	if (nv && nv->version.parts) {
		*tk = kb_toolkit_find(&nv->version);
		if (*tk && (*tk)->archs_known) {
			report_fieldf(top, "toolkit", "toolkit", rv_str((*tk)->release_text), "CUDA %s (%s)",
				      (*tk)->release_text, nv->nvcc);
			report_field(top, NULL, "nvcc_path", rv_str(nv->nvcc));
			goto out;
		}
		report_rec_line(top, "nvcc %s at %s is not in the tables; using the newest known toolkit",
				nv->version_text, nv->nvcc);
	} else if (nv && nv->timed_out) {
		report_rec_line(top, "nvcc at %s did not answer; using the newest toolkit the tables know (give "
				"--toolkit to choose)", nv->nvcc);
	} else {
		report_rec_line(top, "no nvcc found; using the newest toolkit the tables know (give "
				"--toolkit to choose)");
	}
	*tk = kb_toolkit_newest_known();
	if (!*tk) {
		rc = cd_fail(err, CD_EFORMAT, "the toolkit table knows no arch list");
		goto out;
	}
	report_fieldf(top, "toolkit", "toolkit", rv_str((*tk)->release_text), "CUDA %s (newest in the tables)",
		      (*tk)->release_text);
out:
	return rc == CD_ENOMEM ? rc : CD_OK;
}

/* --native: a spec per distinct GPU here, or a finding saying why there is none. */
static int add_native(struct report *r, struct gencode_args *a, struct cd_run *run, char *err)
{
	const struct gpu_probe *h;
	size_t visible = 0;
	int rc = CD_OK;

	/* the driver judged as doctor and devices judge it: a broken one reads the same here */
	if ((rc = cd_run_judge_driver(run, r, err)) != CD_OK || (rc = cd_run_driver(run, &h, err)) != CD_OK ||
	    !rules_cuda_usable(h))
		goto out;
	for (size_t i = 0; i < h->n_gpus; i++)
		visible += h->gpus[i].cuda_ordinal >= 0 && gpu_has(&h->gpus[i], GF_CC);
	if (visible == 0) {
		rc = cd_fail(err, CD_EDRIVER, "--native: the driver lists %d device(s), none with a compute capability",
			     driver_has(h, DF_CUDA_DEVICE_COUNT) ? h->cuda_device_count : 0);
		goto out;
	}
	for (size_t i = 0; i < h->n_gpus && a->n < GENCODE_MAX; i++) {
		const struct gpu_info *gi = &h->gpus[i];
		char spec[16];
		bool dup = false;

		if (gi->cuda_ordinal < 0 || !gpu_has(gi, GF_CC))
			continue;
		for (size_t k = 0; k < a->n; k++)
			dup |= a->specs[k].cc_major == gi->cc_major && a->specs[k].cc_minor == gi->cc_minor;
		if (dup)
			continue;
		snprintf(spec, sizeof(spec), "%lld.%lld", gi->cc_major, gi->cc_minor);
		if (kb_parse_gpu_spec(spec, &a->specs[a->n], err) != CD_OK) {
			rc = cd_fail(err, CD_EFORMAT, "GPU %d (%s) has CC %s, which the tables do not know",
				     gi->cuda_ordinal, gi->name, spec);
			goto out;
		}
		snprintf(a->specs[a->n].label, sizeof(a->specs[a->n].label), "%.70s (sm_%d)", gi->name,
			 a->specs[a->n].arch.num);
		a->n++;
	}
out:
	return rc;
}

/* The error finding for a target tk cannot build. */
static int refuse(struct report *r, const struct gencode_plan *p, const struct gencode_target *t)
{
	const struct kb_toolkit *tk = p->toolkit;
	bool dropped = strcmp(t->refusal, "arch-dropped-by-toolkit") == 0;
	struct finding_vars v;
	char sm[24];
	struct finding *f;
	int rc;

	kb_arch_format(t->spec.arch, "sm_", sm, sizeof(sm));
	finding_vars_init(&v);
	finding_var(&v, "cuda", "%s", tk->release_text);
	finding_var(&v, "sm", "%s", sm);
	if (t->min_toolkit) {
		finding_var(&v, "min_cuda", "%s", t->min_toolkit->release_text);
		if (t->max_toolkit)
			finding_var(&v, "max_cuda", "%s", t->max_toolkit->release_text);
		finding_var(&v, "use_cuda", "%s", (t->max_toolkit ? t->max_toolkit : t->min_toolkit)->release_text);
	}
	f = finding_make(r, SEV_ERROR, dropped ? "arch-dropped-by-toolkit/gencode" : "toolkit-cannot-target-gpu/gencode",
			 t->spec.label, &v);
	if (!f)
		return CD_ENOMEM;
	if (t->min_toolkit)
		TRY(finding_evidence(f, "toolkits that build %s: CUDA %s%s%s", sm,
				     t->min_toolkit->release_text, t->max_toolkit ? " to " : " and newer",
				     t->max_toolkit ? t->max_toolkit->release_text : ""));
	else
		TRY(finding_evidence(f, "no toolkit in the tables builds %s", sm));
out:
	return rc;
}

static int no_common_toolkit(struct report *r, const struct gencode_plan *p)
{
	struct finding *f = finding_make(r, SEV_WARN, "no-common-toolkit", "these GPUs", NULL);
	int rc;

	if (!f)
		return CD_ENOMEM;
	TRY(finding_evidence(f, "the newest arch needs CUDA %s or newer; the oldest is dropped after "
			     "CUDA %s", p->min_toolkit ? p->min_toolkit->release_text : "?",
			     p->max_toolkit ? p->max_toolkit->release_text : "?"));
out:
	return rc;
}

/* The four spellings: each in JSON, in the text when --format asks for it. */
static void flag_fields(struct report_rec *top, const struct gencode_plan *p, const char *format)
{
	bool all = strcmp(format, "all") == 0;

	report_rec_section(top, "Flags");
	report_rec_commands(top, true);
	report_field(top, all || strcmp(format, "nvcc") == 0 ? "nvcc" : NULL, "nvcc", rv_str(p->nvcc));
	report_fieldf(top, all || strcmp(format, "cmake") == 0 ? "cmake" : NULL, "cmake", rv_str(p->cmake),
		      "-DCMAKE_CUDA_ARCHITECTURES=\"%s\"", p->cmake);
	report_fieldf(top, all || strcmp(format, "torch") == 0 ? "torch" : NULL, "torch", rv_str(p->torch),
		      "TORCH_CUDA_ARCH_LIST=\"%s\"", p->torch);
	report_field(top, all || strcmp(format, "makefile") == 0 ? "makefile" : NULL, "makefile",
		     rv_str(p->makefile));
	report_rec_commands(top, false);
}

/* The line a build script wants: nvcc $(cudoctor gencode --gpu sm_90 --format nvcc) ... */
static int answer(struct report *r, const struct gencode_plan *p, const char *format)
{
	if (strcmp(format, "cmake") == 0)
		return report_answer(r, "-DCMAKE_CUDA_ARCHITECTURES=\"%s\"", p->cmake);
	if (strcmp(format, "torch") == 0)
		return report_answer(r, "TORCH_CUDA_ARCH_LIST=\"%s\"", p->torch);
	if (strcmp(format, "makefile") == 0)
		return report_answer(r, "%s", p->makefile);
	return report_answer(r, "%s", p->nvcc); /* -q without --format: the nvcc flags */
}

static void explain_choice(struct report_rec *top, const struct gencode_plan *p)
{
	bool any_a = false, any_f = false;

	for (size_t i = 0; i < p->n_sass; i++) {
		any_a |= p->sass[i].suffix == 'a';
		any_f |= p->sass[i].suffix == 'f';
	}
	report_rec_section(top, "Why these");
	report_rec_line(top, "SASS (code=sm_XY) for each arch: a GPU runs SASS of its own major with minor <= "
		    "its own directly, with no JIT.");
	if (p->has_ptx)
		report_rec_line(top, "PTX (code=compute_%d) for the newest: a later GPU JIT-compiles it at first "
			    "launch (slower start, cached in ~/.nv/ComputeCache); the driver must know "
			    "PTX ISA %d.%d (driver %s or newer).", p->ptx.num, p->toolkit->ptx_major,
			    p->toolkit->ptx_minor, p->ptx_min_driver);
	else
		report_rec_line(top, "No PTX (--no-ptx): GPUs newer than the listed archs cannot run the result.");
	report_rec_line(top, "Each extra arch compiles every kernel once more: build time and binary size grow "
		    "about linearly with the number of archs, so list the GPUs you ship to.");
	if (any_a || any_f)
		report_rec_line(top, "%s targets use arch-specific features and run only on %s; their PTX does "
			    "not carry to later GPUs. Use them only for code that needs those features "
			    "(wgmma, tcgen05).", any_a ? "'a'" : "'f'",
			    any_a ? "that exact compute capability" : "their family");
	else
		report_rec_line(top, "No 'a'/'f' targets: ask for sm_90a or sm_100f only when the code uses "
			    "arch-specific features; they run only on that CC (or family).");
}

/* What builds every target: a line, and min_toolkit/max_toolkit. */
static void toolkit_range_field(struct report_rec *top, const struct gencode_plan *p)
{
	const char *label = "toolkits that build every target";

	if (p->no_common_toolkit || !p->min_toolkit)
		report_fieldf(top, label, "min_toolkit", rv_null(), "none");
	else
		report_fieldf(top, label, "min_toolkit", rv_str(p->min_toolkit->release_text), "CUDA %s%s%s",
			      p->min_toolkit->release_text, p->max_toolkit ? " to " : " and newer",
			      p->max_toolkit ? p->max_toolkit->release_text : "");
	report_field(top, NULL, "max_toolkit", rv_str(p->max_toolkit && !p->no_common_toolkit
						       ? p->max_toolkit->release_text : NULL));
}

/* One row per target, each also an object of "targets"; refusals become findings. */
static int target_table(struct report_rec *top, const struct gencode_plan *p)
{
	static const char *const hdr[] = { "GPU", "CC", "target", "toolkits that build it" };
	struct report_rec tab, row;
	int rc = CD_OK;

	report_rec_table(top, "targets", 4, hdr, &tab);
	for (size_t i = 0; i < p->n; i++) {
		const struct gencode_target *t = &p->t[i];
		const char *name = t->spec.gpu ? t->spec.gpu->name : t->spec.label;
		char cc[16], sm[24];

		kb_arch_format(t->spec.arch, NULL, cc, sizeof(cc));
		kb_arch_format(t->spec.arch, "sm_", sm, sizeof(sm));
		report_rec_item(&tab, &row);
		if (t->spec.gpu && t->spec.gpu->uncertain)
			report_fieldf(&row, "GPU", "gpu", rv_str(name), "%.80s (uncertain row)", name);
		else
			report_fieldf(&row, "GPU", "gpu", rv_str(name), "%.100s", name);
		report_field(&row, "CC", "compute_capability", rv_str(cc));
		report_field(&row, "target", "sm", rv_str(sm));
		if (t->min_toolkit)
			report_fieldf(&row, "toolkits that build it", "min_toolkit",
				      rv_str(t->min_toolkit->release_text), "CUDA %s%s%s",
				      t->min_toolkit->release_text, t->max_toolkit ? " to " : " and newer",
				      t->max_toolkit ? t->max_toolkit->release_text : "");
		else
			report_fieldf(&row, "toolkits that build it", "min_toolkit", rv_null(), "none known");
		report_field(&row, NULL, "max_toolkit", rv_str(t->max_toolkit ? t->max_toolkit->release_text
									   : NULL));
		report_field(&row, NULL, "refusal", rv_str(t->refusal));
		TRY(report_rec_end(&row));
		if (t->refusal)
			TRY(refuse(top->r, p, t));
	}
	rc = report_rec_end(&tab);
out:
	return rc;
}

static int gencode_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct gencode_args *a = calloc(1, sizeof(*a));
	struct gencode_plan *p = calloc(1, sizeof(*p));
	const struct kb_toolkit *tk = NULL;
	struct report_rec top;
	int rc;

	report_rec_top(&top, r);
	if (!a || !p) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	TRY(kb_load(err));
	TRY(parse_args(argc, argv, g->args, a, err));
	/* a scripting form: its line or nothing on stdout, even when a target is refused */
	r->answer_only = strcmp(a->format, "nvcc") == 0 || strcmp(a->format, "cmake") == 0 ||
			 strcmp(a->format, "torch") == 0;
	report_rec_section(&top, "Build");
	TRY(pick_toolkit(r, &top, a, g->run, &tk, err));
	if (a->native)
		TRY(add_native(r, a, g->run, err));
	if (a->all || a->all_major)
		a->n += gencode_all_archs(tk, a->all_major, a->specs + a->n, GENCODE_MAX - a->n);
	if (a->n == 0) /* --native found nothing: the finding says why */
		goto end;
	TRY(gencode_plan(a->specs, a->n, tk, a->ptx, p, err));
	TRY(target_table(&top, p));
	if (p->no_common_toolkit)
		TRY(no_common_toolkit(r, p));
	if (p->refused || p->n_sass == 0) {
		report_field(&top, NULL, "nvcc", rv_null());
		report_field(&top, NULL, "cmake", rv_null());
		report_field(&top, NULL, "torch", rv_null());
		report_rec_section(&top, "Toolkits");
		toolkit_range_field(&top, p);
		report_field(&top, NULL, "min_driver", rv_null());
		report_field(&top, NULL, "max_driver_branch", rv_null());
		report_field(&top, NULL, "ptx_min_driver", rv_null());
		goto end;
	}
	flag_fields(&top, p, a->format);
	TRY(answer(r, p, a->format));
	report_rec_section(&top, "The result needs");
	toolkit_range_field(&top, p);
	if (p->min_driver_gpu >= 0)
		report_fieldf(&top, "driver", "min_driver", rv_str(p->min_driver), "%s or newer to run (%s is first supported "
			      "by CUDA %s's driver)", p->min_driver, p->t[p->min_driver_gpu].spec.label,
			      p->t[p->min_driver_gpu].min_toolkit->release_text);
	else
		report_fieldf(&top, "driver", "min_driver", rv_str(p->min_driver), "%s or newer to run (CUDA %d.x%s)",
			      p->min_driver, tk->release.major,
			      tk->has_minor_compat ? " minor-version compatibility floor" : "");
	if (p->max_branch_gpu >= 0)
		report_fieldf(&top, "driver branches", "max_driver_branch", rv_int(p->max_branch),
			      "up to R%d (the last branch that supports %s)", p->max_branch, p->t[p->max_branch_gpu].spec.label);
	else
		report_field(&top, NULL, "max_driver_branch", rv_null());
	report_fieldf(&top, p->has_ptx ? "driver for PTX JIT" : NULL, "ptx_min_driver",
		      rv_str(p->has_ptx ? p->ptx_min_driver : NULL), "%s or newer (PTX ISA %d.%d)",
		      p->ptx_min_driver, tk->ptx_major, tk->ptx_minor);
	explain_choice(&top, p);
end:
	rc = report_rec_end(&top);
	if (rc == CD_ENOMEM)
		rc = cd_fail(err, rc, "out of memory");
out:
	free(a);
	free(p);
	return rc;
}

const struct cd_command cmd_gencode = {
	.name = "gencode",
	.summary = "nvcc/CMake/PyTorch arch flags for your GPUs, and the toolkit and driver they need",
	.usage = "cudoctor gencode [--gpu SPEC]... [--native] [--all|--all-major]\n"
		 "                        [--toolkit VERSION] [--ptx|--no-ptx]\n"
		 "                        [--format nvcc|cmake|torch|makefile|all]",
	.help = gencode_help,
	.opts = gencode_opts,
	.run = gencode_run,
};
