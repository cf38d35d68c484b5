/* The fix engine over plan: the situation's facts become a plan's input, and the plan's picks
 * become the install, driver and ask lines every command prints for that situation. */
#include "rules/fix.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/frameworks.h"
#include "util/err.h"

const char *fix_source_name(enum fix_source s)
{
	static const char *const n[] = { "", "text", "here", "given" };
	return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "";
}

void fix_situation_init(struct fix_situation *s)
{
	memset(s, 0, sizeof(*s));
	s->framework.fw = PLAN_FW_NONE;
}

int fix_add_gpu(struct fix_situation *s, unsigned cc, const char *name, enum fix_source src)
{
	struct fix_gpu *g;

	if (s->n_gpus >= FIX_MAX_GPUS)
		return CD_EUSAGE;
	g = &s->gpu[s->n_gpus++];
	g->cc = cc;
	snprintf(g->name, sizeof(g->name), "%s", name ? name : "");
	g->src = src;
	return CD_OK;
}

int fix_set_driver(struct fix_situation *s, const char *version, enum fix_source src)
{
	struct plan_driver d;
	char err[CD_ERRMSG];

	if (!version || plan_driver_parse(version, &d, err) != CD_OK)
		return CD_EUSAGE;
	s->driver.src = src;
	snprintf(s->driver.version, sizeof(s->driver.version), "%s", version);
	s->driver.branch = d.branch;
	s->driver.cuda = d.cuda;
	return CD_OK;
}

void fix_set_driver_cuda(struct fix_situation *s, const struct version *cuda, enum fix_source src)
{
	const struct kb_driver_branch *b;

	s->driver.src = src;
	s->driver.version[0] = '\0';
	s->driver.cuda = *cuda;
	/* the oldest branch that runs it stands for the driver: what a GPU's support is judged by */
	s->driver.branch = kb_load(NULL) == CD_OK && (b = kb_driver_branch_for_cuda(cuda)) ? b->branch : 0;
}

/* ---- lines ---- */

static struct fix_line *add(struct fix_lines *l, enum fix_line_kind kind)
{
	struct fix_line *x;

	if (l->n >= FIX_MAX_LINES)
		return NULL;
	x = &l->line[l->n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	return x;
}

#define LINE(l, kind, cmdfmt, ...) \
	do { \
		struct fix_line *x_ = add((l), (kind)); \
		if (x_) \
			snprintf(x_->cmd, sizeof(x_->cmd), cmdfmt, __VA_ARGS__); \
	} while (0)

static void why(struct fix_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct fix_lines *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->n)
		return;
	va_start(ap, fmt);
	vsnprintf(l->line[l->n - 1].why, sizeof(l->line[0].why), fmt, ap);
	va_end(ap);
}

static bool windows(const struct fix_situation *s)
{
	return s->platform.os == FIX_OS_WINDOWS || s->platform.os == FIX_OS_WSL2;
}

static const char *pip_of(const struct fix_situation *s)
{
	return s->platform.pip[0] ? s->platform.pip : NULL;
}

/* The line that installs driver branch `branch` on this platform. */
static void driver_line(const struct fix_situation *s, struct fix_lines *l, int branch, const char *what)
{
	if (windows(s)) {
		LINE(l, FIX_LINE_DRIVER, "%s", "");
		why(l, "install an NVIDIA driver of branch R%d or newer from nvidia.com/drivers%s: it runs %s", branch,
		    s->platform.os == FIX_OS_WSL2 ? " on Windows (WSL2 uses the host's driver)" : "", what);
		return;
	}
	LINE(l, FIX_LINE_DRIVER, "sudo apt install nvidia-driver-%d", branch);
	why(l, "R%d or newer runs %s; or your distribution's package for that branch", branch, what);
}

/* The missing facts' one command each. */
static void ask_gpu(const struct fix_situation *s, struct fix_lines *l)
{
	LINE(l, FIX_LINE_ASK, "%s", "nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv");
	why(l, "the GPU%s not known: its name and driver pick the build (cudoctor plan --gpu%s names it)",
	    s->driver.src ? " is" : " and the driver are", windows(s) ? "" : " with them");
	if (!l->missing)
		l->missing = "gpu";
}

static void ask_driver(struct fix_lines *l)
{
	LINE(l, FIX_LINE_ASK, "%s", "nvidia-smi");
	why(l, "the driver is not known: its \"CUDA Version\" decides which of these runs");
	if (!l->missing)
		l->missing = "driver";
}

static void torch_line(const struct fix_situation *s, struct fix_lines *l, const struct kb_torch_build *b)
{
	struct fix_line *x = add(l, FIX_LINE_INSTALL);

	if (!x)
		return;
	plan_torch_install(b, true, pip_of(s), x->cmd, sizeof(x->cmd));
	if (!l->torch)
		l->torch = b; /* the first named is the one to try */
}

/* Without a GPU: the newest torch build whose CUDA the driver runs. */
static const struct kb_torch_build *torch_for_driver(const struct version *cuda)
{
	const struct kb_torch_build *best = NULL;

	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *b = kb_torch_at(i);

		if (strcmp(b->platform, "x86_64") != 0 || b->experimental ||
		    rules_cuda_fit(&b->cuda, cuda) == CUDA_NEWER_MAJOR)
			continue;
		if (!best || version_cmp(&b->release_v, &best->release_v) > 0 ||
		    (version_cmp(&b->release_v, &best->release_v) == 0 && version_cmp(&b->cuda, &best->cuda) > 0))
			best = b;
	}
	return best;
}

void fix_torch_leads(const struct plan *p, const struct kb_torch_build **lead, int *lead_branch,
		     const struct kb_torch_build **newest, int *newest_branch)
{
	plan_torch_leads(p, lead, lead_branch, newest, newest_branch);
}

static void plan_input_of(const struct fix_situation *s, struct gpu_spec *specs, struct plan_input *in)
{
	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < s->n_gpus; i++)
		plan_spec_of(s->gpu[i].cc, s->gpu[i].name[0] ? s->gpu[i].name : NULL, &specs[i]);
	in->gpus = specs;
	in->n_gpus = s->n_gpus;
	in->framework = s->framework.fw == PLAN_FW_NONE ? PLAN_FW_TORCH : s->framework.fw;
	if (s->driver.src) {
		in->driver.known = true;
		in->driver.cuda = s->driver.cuda;
		in->driver.branch = s->driver.branch;
		if (s->driver.version[0])
			version_parse(s->driver.version[0] == 'R' ? s->driver.version + 1 : s->driver.version,
				      &in->driver.version);
	}
}

/* torch's lines for GPUs known: plan's pick for the driver, else the branch its best needs;
 * without a driver, the build for the oldest branch and the newest with its floor. */
static void torch_with_gpus(const struct fix_situation *s, const struct plan *p, struct fix_lines *l)
{
	char what[64];

	if (s->driver.src && p->torch_pick >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick];

		torch_line(s, l, t->b);
		why(l, "PyTorch %s %s: the newest wheel with code for %s that this driver runs", t->b->release,
		    t->b->variant, p->n_gpus > 1 ? "every GPU" : "this GPU");
		return;
	}
	if (s->driver.src && p->torch_pick_any_driver >= 0) {
		const struct plan_torch *t = &p->torch[p->torch_pick_any_driver];

		l->need_branch = plan_torch_min_branch(p, t);
		snprintf(what, sizeof(what), "torch %s %s", t->b->release, t->b->variant);
		if (l->need_branch)
			driver_line(s, l, l->need_branch, what);
		torch_line(s, l, t->b);
		why(l, "PyTorch %s %s, once the driver is R%d or newer", t->b->release, t->b->variant, l->need_branch);
		return;
	}
	if (!s->driver.src) {
		const struct kb_torch_build *lead, *newest;
		int lb, nb;

		fix_torch_leads(p, &lead, &lb, &newest, &nb);
		if (lead) {
			torch_line(s, l, lead);
			why(l, "PyTorch %s %s: needs R%d+, the oldest branch that supports %s", lead->release, lead->variant,
			    lb, p->n_gpus > 1 ? "every GPU" : "this GPU");
			l->need_branch = lb;
		}
		if (newest && newest != lead) {
			torch_line(s, l, newest);
			why(l, "PyTorch %s %s: the newest, needs R%d+", newest->release, newest->variant, nb);
			if (!lead)
				l->need_branch = nb;
		}
		if (lead || newest) {
			ask_driver(l);
			return;
		}
	}
	LINE(l, FIX_LINE_NOTE, "%s", "");
	why(l, "no PyTorch wheel in cudoctor's tables carries code for %s", p->n_gpus > 1 ? "every GPU" : "this GPU");
}

/* Without a GPU, the newest build overall and the branch its CUDA major needs: what a driver
 * update would open, for a GPU that branch still supports. */
static void newer_driver_line(const struct fix_situation *s, struct fix_lines *l, const struct kb_torch_build *have)
{
	const struct kb_torch_build *newest = torch_for_driver(&(struct version){ .major = 99, .parts = 1 });
	const struct kb_driver_branch *b;
	struct version major;

	if (!newest || newest == have)
		return;
	major = (struct version){ .major = newest->cuda.major, .parts = 1 };
	if (!(b = kb_driver_branch_for_cuda(&major)) || b->branch <= s->driver.branch)
		return;
	if (windows(s)) {
		LINE(l, FIX_LINE_DRIVER, "%s", "");
		why(l, "or install an NVIDIA driver of branch R%d or newer from nvidia.com/drivers%s: it runs torch %s %s, "
		    "the newest, where that branch still supports the GPU", b->branch,
		    s->platform.os == FIX_OS_WSL2 ? " on Windows (WSL2 uses the host's driver)" : "", newest->release,
		    newest->variant);
		return;
	}
	LINE(l, FIX_LINE_DRIVER, "sudo apt install nvidia-driver-%d", b->branch);
	why(l, "or R%d or newer for newer builds (torch %s %s, the newest), where that branch still supports the GPU",
	    b->branch, newest->release, newest->variant);
}

static void torch_lines(const struct fix_situation *s, struct fix_lines *l, char *err, int *rc)
{
	struct gpu_spec specs[FIX_MAX_GPUS];
	struct plan_input in;
	struct plan *p;

	if (!s->n_gpus) {
		const struct kb_torch_build *b = s->driver.src ? torch_for_driver(&s->driver.cuda) : NULL;

		if (b) {
			torch_line(s, l, b);
			if (version_cmp(&b->cuda, &s->driver.cuda) > 0)
				why(l, "PyTorch %s %s: the newest wheel a CUDA %d.%d driver runs, by minor-version "
				    "compatibility; check that its arch list has the GPU's", b->release, b->variant,
				    s->driver.cuda.major, s->driver.cuda.minor);
			else
				why(l, "PyTorch %s %s: the newest wheel this driver runs; check that its arch list has the GPU's",
				    b->release, b->variant);
			newer_driver_line(s, l, b);
		} else if (!s->driver.src && (b = torch_for_driver(&(struct version){ .major = 99, .parts = 1 }))) {
			/* nothing known: the newest build, which most GPUs run, with the driver it needs */
			const struct kb_driver_branch *br =
				kb_driver_branch_for_cuda(&(struct version){ .major = b->cuda.major, .parts = 1 });

			torch_line(s, l, b);
			if (br)
				why(l, "PyTorch %s %s, the newest: needs an NVIDIA driver of branch R%d or newer and a GPU its "
				    "arch list has", b->release, b->variant, br->branch);
			else
				why(l, "PyTorch %s %s, the newest", b->release, b->variant);
		}
		ask_gpu(s, l); /* its query names the driver too */
		return;
	}
	if (!(p = malloc(sizeof(*p)))) {
		*rc = cd_fail(err, CD_ENOMEM, "out of memory");
		return;
	}
	plan_input_of(s, specs, &in);
	in.framework = PLAN_FW_TORCH;
	if ((*rc = plan_make(&in, p, err)) == CD_OK)
		torch_with_gpus(s, p, l);
	free(p);
}

/* Another framework's or app's build from plan's table. */
static void fw_lines(const struct fix_situation *s, struct fix_lines *l, char *err, int *rc)
{
	struct gpu_spec specs[FIX_MAX_GPUS];
	struct plan_input in;
	struct plan *p;

	if (!s->n_gpus) {
		ask_gpu(s, l);
		return;
	}
	if (!(p = malloc(sizeof(*p)))) {
		*rc = cd_fail(err, CD_ENOMEM, "out of memory");
		return;
	}
	plan_input_of(s, specs, &in);
	if ((*rc = plan_make(&in, p, err)) == CD_OK && p->fw_pick >= 0) {
		LINE(l, FIX_LINE_INSTALL, "%s", p->fw[p->fw_pick].b->install);
		why(l, "%s %s: the build for %s", plan_framework_name(in.framework), p->fw[p->fw_pick].b->variant,
		    s->driver.src ? "this GPU and driver" : "this GPU");
		if (!s->driver.src)
			ask_driver(l);
	}
	free(p);
}

/* An NVIDIA library: a release that carries the GPU's arch, in the form the file came in. */
static void nvlib_lines(const struct fix_situation *s, struct fix_lines *l)
{
	struct kb_arch arch = { s->n_gpus ? (int)s->gpu[0].cc : 0, 0 };
	const struct kb_toolkit *first = NULL, *last = NULL;
	int major = s->binary.cuda_major;
	bool in_range;

	if (!s->n_gpus) {
		ask_gpu(s, l);
		return;
	}
	if (kb_arch_toolkit_range(arch, &first, &last) != CD_OK || !first) {
		LINE(l, FIX_LINE_NOTE, "%s", "");
		why(l, "no CUDA release cudoctor knows carries sm_%u yet", s->gpu[0].cc);
		return;
	}
	/* the library's own major when a release of it builds the arch, else the last major that does */
	in_range = major && (int)first->release.major <= major && (!last || (int)last->release.major >= major);
	if (!in_range)
		major = last ? last->release.major : first->release.major;
	if (s->binary.kind == FIX_BIN_NV_WHEEL && s->binary.wheel[0]) {
		LINE(l, FIX_LINE_INSTALL, "%s install -U '%s-cu%d'", pip_of(s) ? pip_of(s) : "pip", s->binary.wheel, major);
		if (last && !in_range)
			why(l, "CUDA %s is the last toolkit for sm_%u: the -cu%d wheel carries it, no -cu%d one does",
			    last->release_text, s->gpu[0].cc, major, s->binary.cuda_major);
		else
			why(l, "NVIDIA's library: a release whose kernels include sm_%u, not a rebuild", s->gpu[0].cc);
		return;
	}
	if (s->binary.kind == FIX_BIN_NV_CONDA) {
		LINE(l, FIX_LINE_INSTALL, "conda install -c nvidia 'cuda-libraries=%s'",
		     last && !in_range ? last->release_text : first->release_text);
		why(l, "a conda env's CUDA libraries come from its packages: a release that carries sm_%u", s->gpu[0].cc);
		return;
	}
	if (last && !in_range) {
		LINE(l, FIX_LINE_NOTE, "%s", "");
		why(l, "CUDA %s is the last toolkit for sm_%u: install it (NVIDIA's installer, or your distribution's "
		    "cuda-toolkit-%d-%d package) and use its libraries", last->release_text, s->gpu[0].cc,
		    last->release.major, last->release.minor);
		return;
	}
	LINE(l, FIX_LINE_NOTE, "%s", "");
	why(l, "install a CUDA %d.x toolkit release that carries sm_%u (its release notes list its architectures), "
	    "from NVIDIA or your distribution's package, not pip", major, s->gpu[0].cc);
}

/* A binary's own CUDA runtime is too new: the driver its major needs (own builds, apps without
 * a table). */
static void runtime_driver_lines(const struct fix_situation *s, struct fix_lines *l, char *err, int *rc)
{
	struct gpu_spec specs[FIX_MAX_GPUS];
	struct plan_branch_advice adv;
	struct version v = { 0 };
	const struct kb_driver_branch *b;
	char what[32];

	if (!s->binary.cuda_major) {
		/* no branch can be named without the runtime's CUDA: the row's own lines say how to
		 * compare the two */
		l->missing = s->driver.src ? "runtime" : "driver";
		return;
	}
	v.major = s->binary.cuda_major;
	v.parts = 1;
	for (size_t i = 0; i < s->n_gpus; i++)
		plan_spec_of(s->gpu[i].cc, s->gpu[i].name[0] ? s->gpu[i].name : NULL, &specs[i]);
	b = kb_driver_branch_for_cuda(&v);
	if (!b)
		return;
	if ((*rc = plan_branch_advice(specs, s->n_gpus, b->branch, &adv)) != CD_OK) {
		cd_fail(err, *rc, "the kb did not load");
		return;
	}
	snprintf(what, sizeof(what), "CUDA %d.x", v.major);
	if (adv.past_gpu) {
		LINE(l, FIX_LINE_NOTE, "%s", "");
		why(l, "no driver branch that supports %s runs CUDA %d.x (R%d is its last)",
		    adv.gpu->gpu ? adv.gpu->gpu->name : adv.gpu->label, v.major, adv.gpu_last);
		return;
	}
	l->need_branch = adv.branch;
	driver_line(s, l, adv.branch, what);
}

int fix_plan(const struct fix_situation *s, enum fix_problem problem, struct fix_lines *out, char *err)
{
	enum plan_framework fw = s->framework.fw;
	int rc = CD_OK;

	memset(out, 0, sizeof(*out));
	if ((rc = kb_load(err)) != CD_OK || (rc = kb_fw_load(err)) != CD_OK)
		return rc;
	out->replace = s->binary.kind == FIX_BIN_FRAMEWORK || s->binary.kind == FIX_BIN_APP ||
		       s->binary.kind == FIX_BIN_NV_WHEEL || s->binary.kind == FIX_BIN_NV_TOOLKIT ||
		       s->binary.kind == FIX_BIN_NV_CONDA;
	switch (s->binary.kind) {
	case FIX_BIN_NV_WHEEL:
	case FIX_BIN_NV_TOOLKIT:
	case FIX_BIN_NV_CONDA:
		if (problem == FIX_RUNTIME_TOO_NEW)
			runtime_driver_lines(s, out, err, &rc);
		else
			nvlib_lines(s, out);
		return rc;
	case FIX_BIN_OWN_BUILD:
	case FIX_BIN_TORCH_EXT:
		/* rebuilt, not replaced: only a driver can be named */
		if (problem == FIX_RUNTIME_TOO_NEW)
			runtime_driver_lines(s, out, err, &rc);
		return rc;
	default:
		break;
	}
	if (problem == FIX_CPU_ONLY || problem == FIX_INSTALL)
		fw = fw == PLAN_FW_NONE ? PLAN_FW_TORCH : fw;
	if (fw == PLAN_FW_TORCH)
		torch_lines(s, out, err, &rc);
	else if (fw != PLAN_FW_NONE)
		fw_lines(s, out, err, &rc);
	else if (problem == FIX_RUNTIME_TOO_NEW)
		runtime_driver_lines(s, out, err, &rc);
	return rc;
}

void fix_vars(const struct fix_lines *l, struct finding_vars *v)
{
	static const char *const cmd[] = { "fix_a", "fix_b", "fix_c", "fix_d" };
	static const char *const why_[] = { "fix_a_why", "fix_b_why", "fix_c_why", "fix_d_why" };

	if (l->n)
		finding_flag(v, "fixed", true);
	if (l->replace)
		finding_flag(v, "replace", true);

	for (size_t i = 0; i < l->n && i < 4; i++) {
		const struct fix_line *x = &l->line[i];

		/* a note is a comment line of its own */
		if (x->cmd[0])
			finding_var(v, cmd[i], "%s", x->cmd);
		else
			finding_var(v, cmd[i], "# %s", x->why);
		if (x->cmd[0] && x->why[0])
			finding_var(v, why_[i], "%s", x->why);
	}
	if (l->torch) {
		for (size_t i = 0; i < l->n; i++)
			if (l->line[i].kind == FIX_LINE_INSTALL && strstr(l->line[i].cmd, l->torch->index_url)) {
				finding_var(v, "torch_install", "%s", l->line[i].cmd);
				break;
			}
		finding_var(v, "torch_build", "%s %s", l->torch->release, l->torch->variant);
	}
}
