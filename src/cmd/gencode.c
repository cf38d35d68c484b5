/* `cudoctor gencode`: nvcc -gencode flags, CMAKE_CUDA_ARCHITECTURES and TORCH_CUDA_ARCH_LIST
 * for named GPUs (or the ones here), with the toolkit and driver range the build needs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/driver_check.h"
#include "explain/checks.h"
#include "kb/gencode.h"
#include "kb/kb.h"
#include "probe/gpus.h"
#include "probe/toolkits.h"
#include "util/err.h"

static const char gencode_help[] =
	"usage: cudoctor gencode [--gpu SPEC]... [--native] [--all|--all-major] [--toolkit VERSION]\n"
	"                        [--ptx|--no-ptx] [--format nvcc|cmake|torch|makefile|all]\n"
	"\n"
	"Prints the nvcc -gencode flags, CMAKE_CUDA_ARCHITECTURES and TORCH_CUDA_ARCH_LIST that\n"
	"build SASS for each GPU and PTX for the newest (so later GPUs can JIT it), and the\n"
	"toolkit and driver the result needs. Refuses when the toolkit cannot target a GPU,\n"
	"and says which toolkits can.\n"
	"\n"
	"  --gpu SPEC        sm_89, 8.9, 89, sm_90a, sm_100f, or a GPU name or part of one\n"
	"                    (\"RTX 4060 Ti\", H200); repeatable\n"
	"  --native          the GPUs this machine has (through the driver)\n"
	"  --all             every arch the toolkit builds; --all-major: the lowest of each major\n"
	"  --toolkit VERSION the CUDA release that will build (default: the nvcc found)\n"
	"  --ptx / --no-ptx  PTX for the newest arch (default on)\n"
	"  --format F        which spelling to print (default all)\n";

struct gencode_args {
	struct gpu_spec specs[GENCODE_MAX];
	size_t n;
	bool native, all, all_major, ptx;
	const char *toolkit, *format;
};

static int parse_args(int argc, char **argv, struct gencode_args *a, char *err)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },     { "native", no_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },           { "all-major", no_argument, NULL, 'm' },
		{ "toolkit", required_argument, NULL, 't' }, { "ptx", no_argument, NULL, 'p' },
		{ "no-ptx", no_argument, NULL, 'P' },        { "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->ptx = true;
	a->format = "all";
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (a->n == GENCODE_MAX)
				return cd_fail(err, CD_EUSAGE, "at most %d --gpu", GENCODE_MAX);
			if ((rc = kb_parse_gpu_spec(optarg, &a->specs[a->n], err)) != CD_OK)
				return rc;
			a->n++;
			break;
		case 'n': a->native = true; break;
		case 'a': a->all = true; break;
		case 'm': a->all_major = true; break;
		case 't': a->toolkit = optarg; break;
		case 'p': a->ptx = true; break;
		case 'P': a->ptx = false; break;
		case 'f':
			a->format = optarg;
			if (strcmp(optarg, "nvcc") && strcmp(optarg, "cmake") && strcmp(optarg, "torch") &&
			    strcmp(optarg, "makefile") && strcmp(optarg, "all"))
				return cd_fail(err, CD_EUSAGE, "--format is nvcc, cmake, torch, makefile or all");
			break;
		case ':':
			return cd_fail(err, CD_EUSAGE, "%s needs a value", argv[optind - 1]);
		default:
			return cd_fail(err, CD_EUSAGE, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cd_fail(err, CD_EUSAGE, "unexpected '%s' (GPUs are named with --gpu)", argv[optind]);
	if (a->all && a->all_major)
		return cd_fail(err, CD_EUSAGE, "--all and --all-major exclude each other");
	if (!a->n && !a->native && !a->all && !a->all_major)
		return cd_fail(err, CD_EUSAGE, "name GPUs with --gpu, or use --native, --all or --all-major");
	return CD_OK;
}

/* The toolkit the flags are for: --toolkit, else the nvcc here, else the newest known. */
static int pick_toolkit(struct report *r, const struct gencode_args *a, const struct kb_toolkit **tk,
			char *err)
{
	struct toolkits ts = { 0 };
	struct toolkits_opts o = { 0 };
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
		report_kv(r, "toolkit", "CUDA %s (--toolkit)", (*tk)->release_text);
		return CD_OK;
	}
	if ((rc = toolkits_probe(&ts, &o, nerr)) == CD_ENOMEM)
		return cd_fail(err, rc, "out of memory");
	nv = explain_build_nvcc(&ts);
	if (nv && nv->version.parts) {
		*tk = kb_toolkit_find(&nv->version);
		if (*tk && (*tk)->archs_known) {
			report_kv(r, "toolkit", "CUDA %s (%s)", (*tk)->release_text, nv->nvcc);
			report_json_set(r, "nvcc_path", json_string(nv->nvcc));
			goto out;
		}
		report_line(r, "nvcc %s at %s is not in the tables; using the newest known toolkit",
			    nv->version_text, nv->nvcc);
	} else {
		report_line(r, "no nvcc found; using the newest toolkit the tables know (give --toolkit "
			    "to choose)");
	}
	*tk = kb_toolkit_newest_known();
	if (!*tk) {
		rc = cd_fail(err, CD_EFORMAT, "the toolkit table knows no arch list");
		goto out;
	}
	report_kv(r, "toolkit", "CUDA %s (newest in the tables)", (*tk)->release_text);
out:
	toolkits_free(&ts);
	return rc == CD_ENOMEM ? rc : CD_OK;
}

/* --native: a spec per distinct GPU here, or a finding saying why there is none. */
static int add_native(struct report *r, struct gencode_args *a, char *err)
{
	struct gpu_probe *h = calloc(1, sizeof(*h));
	size_t visible = 0;
	int rc = CD_OK;

	if (!h)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	/* the driver judged as doctor and devices judge it: a broken one reads the same here */
	if ((rc = driver_check_run(r, h, err)) != CD_OK || !driver_check_cuda_usable(h))
		goto out;
	for (size_t i = 0; i < h->n_gpus; i++)
		visible += h->gpus[i].cuda_ordinal >= 0 && gpu_has(&h->gpus[i], GF_CC);
	if (visible == 0) {
		rc = cd_fail(err, CD_EDRIVER, "--native: the driver lists %d device(s), none with a compute capability",
			     h->has_cuda_device_count ? h->cuda_device_count : 0);
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
	gpu_probe_free(h);
	free(h);
	return rc;
}

static void refuse(struct report *r, const struct gencode_plan *p, const struct gencode_target *t)
{
	const struct kb_toolkit *tk = p->toolkit;
	char sm[24];
	struct finding *f;

	kb_arch_format(t->spec.arch, "sm_", sm, sizeof(sm));
	f = report_add_finding(r, SEV_ERROR, t->refusal, t->spec.label,
			       strcmp(t->refusal, "arch-dropped-by-toolkit") == 0
				       ? "CUDA %s no longer builds %s"
				       : "CUDA %s cannot build %s", tk->release_text, sm);
	if (!f)
		return;
	if (t->min_toolkit)
		finding_evidence(f, "toolkits that build %s: CUDA %s%s%s", sm, t->min_toolkit->release_text,
				 t->max_toolkit ? " to " : " and newer",
				 t->max_toolkit ? t->max_toolkit->release_text : "");
	else
		finding_evidence(f, "no toolkit in the tables builds %s", sm);
	finding_why(f, "%s", strcmp(t->refusal, "arch-dropped-by-toolkit") == 0
		    ? "Toolkits drop old architectures (CUDA 13.0 removed sm_50-sm_72, 12.0 sm_35/37); "
		      "the GPU still runs code built by an older toolkit on a driver that supports it."
		    : "Each nvcc knows a fixed list of architectures; a GPU newer than the toolkit cannot "
		      "be targeted by it.");
	if (t->min_toolkit)
		finding_fix(f, "build with CUDA %s%s%s: cudoctor gencode --toolkit %s --gpu %s",
			    t->min_toolkit->release_text, t->max_toolkit ? "-" : " or newer",
			    t->max_toolkit ? t->max_toolkit->release_text : "",
			    (t->max_toolkit ? t->max_toolkit : t->min_toolkit)->release_text, sm);
	finding_fix(f, "or leave %s out of the build", sm);
}

static void print_flags(struct report *r, const struct gencode_plan *p, const char *format)
{
	bool all = strcmp(format, "all") == 0;

	report_section(r, "Flags");
	if (all || strcmp(format, "nvcc") == 0)
		report_kv(r, "nvcc", "%s", p->nvcc);
	if (all || strcmp(format, "cmake") == 0)
		report_kv(r, "cmake", "-DCMAKE_CUDA_ARCHITECTURES=\"%s\"", p->cmake);
	if (all || strcmp(format, "torch") == 0)
		report_kv(r, "torch", "TORCH_CUDA_ARCH_LIST=\"%s\"", p->torch);
	if (all || strcmp(format, "makefile") == 0)
		report_kv(r, "makefile", "%s", p->makefile);
}

static void explain_choice(struct report *r, const struct gencode_plan *p)
{
	bool any_a = false, any_f = false;

	for (size_t i = 0; i < p->n_sass; i++) {
		any_a |= p->sass[i].suffix == 'a';
		any_f |= p->sass[i].suffix == 'f';
	}
	report_section(r, "Why these");
	report_line(r, "SASS (code=sm_XY) for each arch: a GPU runs SASS of its own major with minor <= "
		    "its own directly, with no JIT.");
	if (p->has_ptx)
		report_line(r, "PTX (code=compute_%d) for the newest: a later GPU JIT-compiles it at first "
			    "launch (slower start, cached in ~/.nv/ComputeCache); the driver must know "
			    "PTX ISA %d.%d (driver %s or newer).", p->ptx.num, p->toolkit->ptx_major,
			    p->toolkit->ptx_minor, p->ptx_min_driver);
	else
		report_line(r, "No PTX (--no-ptx): GPUs newer than the listed archs cannot run the result.");
	report_line(r, "Each extra arch compiles every kernel once more: build time and binary size grow "
		    "about linearly with the number of archs, so list the GPUs you ship to.");
	if (any_a || any_f)
		report_line(r, "%s targets use arch-specific features and run only on %s; their PTX does "
			    "not carry to later GPUs. Use them only for code that needs those features "
			    "(wgmma, tcgen05).", any_a ? "'a'" : "'f'",
			    any_a ? "that exact compute capability" : "their family");
	else
		report_line(r, "No 'a'/'f' targets: ask for sm_90a or sm_100f only when the code uses "
			    "arch-specific features; they run only on that CC (or family).");
}

static void report_toolkit_range(struct report *r, const struct gencode_plan *p)
{
	if (p->no_common_toolkit || !p->min_toolkit)
		report_kv(r, "toolkits that build every target", "none");
	else
		report_kv(r, "toolkits that build every target", "CUDA %s%s%s", p->min_toolkit->release_text,
			  p->max_toolkit ? " to " : " and newer",
			  p->max_toolkit ? p->max_toolkit->release_text : "");
}

static json_t *targets_json(const struct gencode_plan *p)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < p->n; i++) {
		const struct gencode_target *t = &p->t[i];
		char cc[16], sm[24];

		kb_arch_format(t->spec.arch, NULL, cc, sizeof(cc));
		kb_arch_format(t->spec.arch, "sm_", sm, sizeof(sm));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "gpu",
						     t->spec.gpu ? t->spec.gpu->name : t->spec.label,
						     "compute_capability", cc, "sm", sm, "min_toolkit",
						     t->min_toolkit ? json_string(t->min_toolkit->release_text)
								    : json_null(),
						     "max_toolkit", t->max_toolkit
						     ? json_string(t->max_toolkit->release_text) : json_null(),
						     "refusal", t->refusal ? json_string(t->refusal)
									   : json_null()));
	}
	return arr;
}

static int gencode_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct gencode_args *a = calloc(1, sizeof(*a));
	struct gencode_plan *p = calloc(1, sizeof(*p));
	const struct kb_toolkit *tk = NULL;
	static const char *const hdr[] = { "GPU", "CC", "target", "toolkits that build it" };
	int rc;

	(void)g;
	if (!a || !p) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = kb_load(err)) != CD_OK || (rc = parse_args(argc, argv, a, err)) != CD_OK)
		goto out;
	report_section(r, "Build");
	if ((rc = pick_toolkit(r, a, &tk, err)) != CD_OK)
		goto out;
	if (a->native && (rc = add_native(r, a, err)) != CD_OK)
		goto out;
	if (a->all || a->all_major)
		a->n += gencode_all_archs(tk, a->all_major, a->specs + a->n, GENCODE_MAX - a->n);
	if (a->n == 0) /* --native found nothing: the finding says why */
		goto out;
	if ((rc = gencode_plan(a->specs, a->n, tk, a->ptx, p, err)) != CD_OK)
		goto out;
	report_table(r, 4, hdr);
	for (size_t i = 0; i < p->n; i++) {
		const struct gencode_target *t = &p->t[i];
		char cc[16], sm[24], range[64], name[128];
		const char *row[4];

		kb_arch_format(t->spec.arch, NULL, cc, sizeof(cc));
		kb_arch_format(t->spec.arch, "sm_", sm, sizeof(sm));
		if (t->min_toolkit)
			snprintf(range, sizeof(range), "CUDA %s%s%s", t->min_toolkit->release_text,
				 t->max_toolkit ? " to " : " and newer",
				 t->max_toolkit ? t->max_toolkit->release_text : "");
		else
			snprintf(range, sizeof(range), "none known");
		if (t->spec.gpu && t->spec.gpu->uncertain)
			snprintf(name, sizeof(name), "%.80s (uncertain row)", t->spec.gpu->name);
		else
			snprintf(name, sizeof(name), "%.100s", t->spec.gpu ? t->spec.gpu->name : t->spec.label);
		row[0] = name;
		row[1] = cc;
		row[2] = sm;
		row[3] = range;
		report_table_row(r, row);
		if (t->refusal)
			refuse(r, p, t);
	}
	report_json_set(r, "targets", targets_json(p));
	report_json_set(r, "toolkit", json_string(tk->release_text));
	if (p->no_common_toolkit) {
		struct finding *f = report_add_finding(r, SEV_WARN, "no-common-toolkit", "these GPUs",
						       "no single toolkit builds all of these archs");

		if (f) {
			finding_evidence(f, "the newest arch needs CUDA %s or newer; the oldest is dropped "
					 "after CUDA %s", p->min_toolkit ? p->min_toolkit->release_text : "?",
					 p->max_toolkit ? p->max_toolkit->release_text : "?");
			finding_why(f, "Old architectures leave the toolkit before new ones arrive; one "
				    "build cannot cover both ends.");
			finding_fix(f, "build twice with two toolkits, or drop the oldest GPUs");
		}
	}
	if (p->refused || p->n_sass == 0) {
		report_json_set(r, "nvcc", json_null());
		report_json_set(r, "cmake", json_null());
		report_json_set(r, "torch", json_null());
		report_section(r, "Toolkits");
		report_toolkit_range(r, p);
		goto json;
	}
	print_flags(r, p, a->format);
	report_json_set(r, "nvcc", json_string(p->nvcc));
	report_json_set(r, "cmake", json_string(p->cmake));
	report_json_set(r, "torch", json_string(p->torch));
	report_json_set(r, "makefile", json_string(p->makefile));
	report_section(r, "The result needs");
	report_toolkit_range(r, p);
	report_kv(r, "driver", "%s or newer to run (CUDA %d.x%s)", p->min_driver, tk->release.major,
		  tk->has_minor_compat ? " minor-version compatibility floor" : "");
	if (p->has_ptx)
		report_kv(r, "driver for PTX JIT", "%s or newer (PTX ISA %d.%d)", p->ptx_min_driver,
			  tk->ptx_major, tk->ptx_minor);
	explain_choice(r, p);
json:
	report_json_set(r, "min_toolkit", p->min_toolkit && !p->no_common_toolkit
			? json_string(p->min_toolkit->release_text) : json_null());
	report_json_set(r, "max_toolkit", p->max_toolkit && !p->no_common_toolkit
			? json_string(p->max_toolkit->release_text) : json_null());
	report_json_set(r, "min_driver", p->n_sass && !p->refused ? json_string(p->min_driver)
								  : json_null());
	report_json_set(r, "ptx_min_driver", p->has_ptx && !p->refused ? json_string(p->ptx_min_driver)
								       : json_null());
out:
	free(a);
	free(p);
	return rc;
}

const struct cd_command cmd_gencode = {
	.name = "gencode",
	.summary = "nvcc/CMake/PyTorch arch flags for your GPUs, and the toolkit and driver they need",
	.help = gencode_help,
	.run = gencode_run,
};
