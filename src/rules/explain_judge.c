/* explain's verdict on a recognised error (rules/explain_judge.h): the text's facts first, the
 * user's options over them, this machine's only for a text from it. */
#include "rules/explain_judge.h"

#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "kb/vendor_libs.h"
#include "rules/fix.h"
#include "rules/driver_need.h"
#include "rules/oom.h"
#include "rules/rules.h"
#include "util/err.h"
#include "util/version.h"

static bool probe_driver_cuda(const struct gpu_probe *g, int *cuda)
{
	*cuda = driver_has(g, DF_CUDA_VERSION) && g->cuda_driver_version > 0 ? g->cuda_driver_version
		: driver_has(g, DF_NVML_CUDA_VERSION) ? g->nvml_cuda_driver_version : 0;
	return *cuda > 0;
}

/* "NVIDIA GeForce RTX 3090" and "GeForce RTX 3090": the shorter inside the longer */
static bool same_gpu(const char *a, const char *b)
{
	return a[0] && b[0] && (strstr(a, b) || strstr(b, a));
}

static bool gpu_here(const struct gpu_probe *g, const char *name)
{
	for (size_t i = 0; i < g->n_gpus; i++)
		if (same_gpu(g->gpus[i].name, name))
			return true;
	return false;
}

static void cuda_text(int cuda, char *out, size_t n)
{
	snprintf(out, n, "%d.%d", cuda / 1000, cuda % 1000 / 10);
}

bool rules_error_without_driver(const char *id)
{
	static const char *const ids[] = { "no-driver", "wsl-libcuda", "container-toolkit-missing", "nvml-unavailable",
					   "torch-cpu-only", "libcuda-link-missing" };

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(id, ids[i]) == 0)
			return true;
	return false;
}

void rules_text_origin(const struct text_facts *t, const struct gpu_probe *here, bool host_windows, bool driverless,
		       struct text_origin *o)
{
	char a[16], b[16];
	int cuda;

	o->here = false;
	if (!here) {
		snprintf(o->why, sizeof(o->why), "this machine was not checked (--offline): the text's facts decide");
		return;
	}
	if (!here->cuda_loaded && driverless && !t->driver_version[0] && !t->driver_cuda && !t->n_gpus) {
		o->here = true;
		snprintf(o->why, sizeof(o->why), "this machine has no NVIDIA driver either, and the text shows none at "
			 "work: its checks count");
		return;
	}
	if (!here->cuda_loaded) {
		snprintf(o->why, sizeof(o->why), "this machine has no NVIDIA driver (libcuda cannot be loaded): the text "
			 "is from another machine, and its facts decide");
		return;
	}
	if (t->driver_version[0] && here->user_driver_version[0] &&
	    strcmp(t->driver_version, here->user_driver_version) != 0) {
		snprintf(o->why, sizeof(o->why), "the text's driver %s is not this machine's %.40s: its facts decide",
			 t->driver_version, here->user_driver_version);
		return;
	}
	if (t->driver_cuda && probe_driver_cuda(here, &cuda) && cuda != t->driver_cuda) {
		cuda_text(t->driver_cuda, a, sizeof(a));
		cuda_text(cuda, b, sizeof(b));
		snprintf(o->why, sizeof(o->why), "the text's driver runs CUDA %s, this machine's CUDA %s: the text's "
			 "facts decide", a, b);
		return;
	}
	for (size_t i = 0; i < t->n_gpus; i++)
		if (here->n_gpus && !gpu_here(here, t->gpus[i])) {
			snprintf(o->why, sizeof(o->why), "the text's GPU %.80s is not among this machine's: its facts "
				 "decide", t->gpus[i]);
			return;
		}
	if (t->os != TEXT_OS_UNKNOWN && (t->os == TEXT_OS_WINDOWS) != host_windows) {
		snprintf(o->why, sizeof(o->why), "the text is from %s and this machine runs %s: its facts decide",
			 t->os == TEXT_OS_WINDOWS ? "Windows" : "Linux", host_windows ? "Windows" : "Linux");
		return;
	}
	o->here = true;
	snprintf(o->why, sizeof(o->why), "nothing in the text contradicts this machine: its checks count");
}

static void judged(struct explain_verdict *out, const char *name, enum fact_source src, const char *fmt, const char *v)
{
	struct judged_fact *f;

	if (out->n_facts == EXPLAIN_MAX_JUDGED)
		return;
	f = &out->facts[out->n_facts++];
	f->name = name;
	f->source = src;
	snprintf(f->value, sizeof(f->value), fmt, v);
}

/* The driver a verdict reads: --driver, else the text's, else this machine's for a text from it. */
static void driver_values(const struct explain_judge *j, struct explain_verdict *out)
{
	const struct arch_driver *d = &j->target->driver;
	int text_cuda = j->text->driver_cuda ? j->text->driver_cuda : j->e->driver_cuda;
	bool here = j->origin->here && d->known;
	char cuda[16];

	if ((j->driver_given || (here && !text_cuda)) && d->known && d->cuda) {
		struct version dc = version_from_cuda_int(d->cuda);

		rules_cuda_vars(d->version, &dc, &out->vars);
		cuda_text(d->cuda, cuda, sizeof(cuda));
		judged(out, "driver_cuda", j->driver_given ? FACT_GIVEN : FACT_HERE, "%s", cuda);
	} else if (text_cuda > 0) { /* "found version 11040": the CUDA the driver runs */
		struct version dc = version_from_cuda_int(text_cuda);

		rules_cuda_vars(j->text->driver_version[0] ? j->text->driver_version : NULL, &dc, &out->vars);
		cuda_text(text_cuda, cuda, sizeof(cuda));
		judged(out, "driver_cuda", FACT_TEXT, "%s", cuda);
	}
	if ((j->driver_given || (here && !j->text->driver_version[0])) && d->version[0]) {
		finding_var(&out->vars, "driver_version", "%s", d->version);
		finding_var(&out->vars, "driver_branch", "%.*s", (int)strcspn(d->version, "."), d->version);
		judged(out, "driver", j->driver_given ? FACT_GIVEN : FACT_HERE, "%s", d->version);
	} else if (j->text->driver_version[0]) {
		finding_var(&out->vars, "driver_version", "%s", j->text->driver_version);
		finding_var(&out->vars, "driver_branch", "%.*s", (int)strcspn(j->text->driver_version, "."),
			    j->text->driver_version);
		judged(out, "driver", FACT_TEXT, "%s", j->text->driver_version);
	}
}

/* The GPUs a verdict names: --gpu, else the text's compute capabilities, else this machine's
 * for a text from it; each compute capability once, as `--gpu sm_86 --gpu sm_90`. */
static void gpu_values(const struct explain_judge *j, struct explain_verdict *out)
{
	const struct arch_target *t = j->target;
	unsigned ccs[ARCH_MAX_GPUS + TEXT_GPUS_MAX];
	size_t n = 0, used = 0;
	enum fact_source src = FACT_NONE;
	char gpus[160] = "";

	if (j->n_given_gpus) {
		for (size_t i = 0; i < j->n_given_gpus && i < t->n_gpus; i++)
			ccs[n++] = t->gpus[i].cc;
		src = FACT_GIVEN;
	} else if (j->text->n_ccs) {
		for (size_t i = 0; i < j->text->n_ccs; i++)
			ccs[n++] = j->text->ccs[i].num;
		src = FACT_TEXT;
	} else if (j->origin->here) {
		for (size_t i = 0; i < t->n_gpus; i++)
			ccs[n++] = t->gpus[i].cc;
		src = FACT_HERE;
	}
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= ccs[k] == ccs[i];
		if (!seen && ccs[i] && used < sizeof(gpus))
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%ssm_%u", used ? " --gpu " : "", ccs[i]);
	}
	if (gpus[0]) {
		finding_var(&out->vars, "gpus", "%s", gpus);
		judged(out, "gpus", src, "%s", gpus);
	}
}

/* The platform the text shows picks a finding's fix lines. */
static void platform_flags(const struct text_platform *tp, struct finding_vars *v)
{
	finding_flag(v, "wsl", tp->os == TP_WSL2);
	finding_flag(v, "container", tp->container);
	finding_flag(v, "cdi", tp->hook == TP_HOOK_CDI);
	finding_flag(v, "kubernetes", tp->runtime == TP_KUBERNETES);
	finding_flag(v, "docker_desktop", tp->runtime == TP_DOCKER_DESKTOP);
	finding_flag(v, "jetson", tp->jetson);
	finding_flag(v, "hyperv", tp->hyperv);
	finding_flag(v, "macos", tp->os == TP_MACOS);
	finding_flag(v, "amd", tp->vendor == TP_AMD);
	finding_flag(v, "intel", tp->vendor == TP_INTEL);
	finding_flag(v, "apple", tp->vendor == TP_APPLE);
	if (tp_vendor_name(tp->vendor))
		finding_var(v, "vendor", "%s", tp->vendor == TP_AMD     ? "AMD"
					       : tp->vendor == TP_INTEL ? "Intel"
					       : tp->vendor == TP_APPLE ? "Apple"
									: "NVIDIA");
}

/* What the error's own text gives: its code, library, versions, arch, platform. */
static void error_values(const struct explain_judge *j, struct explain_verdict *out)
{
	const struct text_error *e = j->e;
	const char *key = e->message_key ? e->message_key : "";

	if (e->code >= 0)
		finding_var(&out->vars, "code", "%d", e->code);
	if (e->library[0])
		finding_var(&out->vars, "library", "%s", e->library);
	if (e->built_with[0])
		finding_var(&out->vars, "built_with", "%s", e->built_with);
	if (e->has_arch) {
		char arch[24];

		kb_arch_format(e->arch, "sm_", arch, sizeof(arch));
		finding_var(&out->vars, "sm", "%s", arch + 3);
	}
	finding_flag(&out->vars, "windows", e->windows);
	if (j->platform)
		platform_flags(j->platform, &out->vars);
	finding_var(&out->vars, "pip", "%s", e->pip);
	finding_var(&out->vars, "python", "%s", e->python);
	finding_flag(&out->vars, "torch_dll", e->torch_dll);
	if (e->library[0] && !e->torch_dll && kb_vendor_wheel(e->library))
		finding_var(&out->vars, "package", "%s-cuXY", kb_vendor_wheel(e->library));
	finding_flag(&out->vars, "expandable", e->has_oom && oom_expandable_helps(&e->oom));
	/* a runtime's own knobs for its memory: llama.cpp's/Ollama's, vLLM's, TGI's */
	finding_flag(&out->vars, "ggml", strncmp(key, "ggml-", 5) == 0 || strncmp(key, "ollama-", 7) == 0);
	finding_flag(&out->vars, "vllm", strncmp(key, "vllm-", 5) == 0);
	finding_flag(&out->vars, "tgi", strncmp(key, "tgi-", 4) == 0);
	if (e->tgi_prefill > 0)
		finding_var(&out->vars, "tgi_prefill", "%ld", e->tgi_prefill);
	if (e->tgi_total > 0)
		finding_var(&out->vars, "tgi_total", "%ld", e->tgi_total);
	if (e->has_vram_wait)
		finding_var(&out->vars, "seconds", "%.1f", e->vram_wait_s);
}

static void text_values(const struct explain_judge *j, struct explain_verdict *out)
{
	const struct text_facts *t = j->text;
	char cuda[16];

	if (t->torch_version[0])
		judged(out, "torch", FACT_TEXT, "%s", t->torch_version);
	if (t->torch_cuda) {
		cuda_text(t->torch_cuda, cuda, sizeof(cuda));
		judged(out, "torch_cuda", FACT_TEXT, "%s", cuda);
	}
	if (t->os != TEXT_OS_UNKNOWN || t->wsl || t->container || t->jetson || t->rocm)
		judged(out, "platform", FACT_TEXT, "%s",
		       t->rocm ? "ROCm" : t->jetson ? "Jetson" : t->wsl ? "WSL2" : t->os == TEXT_OS_WINDOWS ? "Windows"
		       : t->container ? "container" : "Linux");
}

static enum fix_source fix_src(enum fact_source s)
{
	return s == FACT_TEXT ? FIX_SRC_TEXT : s == FACT_HERE ? FIX_SRC_HERE : s == FACT_GIVEN ? FIX_SRC_GIVEN : FIX_SRC_NONE;
}

/* The fix engine's problem for an id, or -1 when its fix names no build, driver or wheel. */
static int fix_problem_of(const char *id)
{
	if (!strcmp(id, "no-kernel-image") || !strcmp(id, "partial-kernel-image") || !strcmp(id, "jit-disabled"))
		return FIX_NO_IMAGE;
	if (!strcmp(id, "runtime-newer-than-driver"))
		return FIX_RUNTIME_TOO_NEW;
	if (!strcmp(id, "arch-dropped-by-toolkit"))
		return FIX_ARCH_DROPPED;
	if (!strcmp(id, "torch-cpu-only"))
		return FIX_CPU_ONLY;
	return -1;
}

/* The framework whose build failed: PyTorch's words anywhere in the text, else the program
 * whose own message matched (its message row's key names it). */
static enum plan_framework text_framework(const struct explain_judge *j)
{
	static const struct {
		const char *prefix;
		enum plan_framework fw;
	} by_key[] = {
		{ "torch-", PLAN_FW_TORCH }, { "comfyui-", PLAN_FW_TORCH }, { "ollama-", PLAN_FW_OLLAMA },
		{ "vllm-", PLAN_FW_VLLM },   { "jax-", PLAN_FW_JAX },
	};
	const char *key = j->e->message_key ? j->e->message_key : "";

	if (j->torch)
		return PLAN_FW_TORCH;
	for (size_t i = 0; i < sizeof(by_key) / sizeof(by_key[0]); i++)
		if (!strncmp(key, by_key[i].prefix, strlen(by_key[i].prefix)))
			return by_key[i].fw;
	return PLAN_FW_NONE;
}

/* GPUs the text names without their compute capability ("NVIDIA GeForce RTX 3090" in
 * nvidia-smi's table): the kb's row gives it; a name it lacks stays unknown. */
static void text_gpus_by_name(const struct text_facts *t, struct fix_situation *s)
{
	for (size_t i = 0; i < t->n_gpus; i++) {
		const struct kb_gpu *g = kb_gpu_by_name(t->gpus[i]);

		if (g && g->arch > 0)
			fix_add_gpu(s, (unsigned)g->arch, t->gpus[i], FIX_SRC_TEXT);
	}
}

/* The engine's lines (fix1.., torch_install) from the facts the verdict judged, each with its
 * source: the same situation gets the same lines from every command. */
static int fix_values(const struct explain_judge *j, struct explain_verdict *out, char *err)
{
	int problem = fix_problem_of(out->row);
	enum plan_framework fw;
	struct fix_situation s;
	struct fix_lines l;
	int rc;

	if (problem < 0)
		return CD_OK;
	fix_situation_init(&s);
	for (size_t i = 0; i < out->n_facts; i++) {
		const struct judged_fact *f = &out->facts[i];

		if (!strcmp(f->name, "driver"))
			fix_set_driver(&s, f->value, fix_src(f->source)); /* a driver the kb lacks stays unknown */
		else if (!strcmp(f->name, "driver_cuda") && s.driver.src == FIX_SRC_NONE) {
			struct version v;

			if (version_parse(f->value, &v) == CD_OK)
				fix_set_driver_cuda(&s, &v, fix_src(f->source));
		}
	}
	if (j->n_given_gpus)
		for (size_t i = 0; i < j->n_given_gpus && i < j->target->n_gpus; i++)
			fix_add_gpu(&s, j->target->gpus[i].cc, NULL, FIX_SRC_GIVEN);
	else if (j->text->n_ccs)
		for (size_t i = 0; i < j->text->n_ccs; i++)
			fix_add_gpu(&s, j->text->ccs[i].num, i < j->text->n_gpus ? j->text->gpus[i] : NULL, FIX_SRC_TEXT);
	else if (j->text->n_gpus)
		text_gpus_by_name(j->text, &s);
	else if (j->origin->here)
		for (size_t i = 0; i < j->target->n_gpus; i++)
			fix_add_gpu(&s, j->target->gpus[i].cc, NULL, FIX_SRC_HERE);
	s.platform.src = j->e->windows || j->text->os != TEXT_OS_UNKNOWN ? FIX_SRC_TEXT : FIX_SRC_NONE;
	s.platform.os = j->text->wsl ? FIX_OS_WSL2 : j->e->windows ? FIX_OS_WINDOWS
			: j->text->os == TEXT_OS_LINUX ? FIX_OS_LINUX : FIX_OS_UNKNOWN;
	snprintf(s.platform.pip, sizeof(s.platform.pip), "%s", j->e->pip ? j->e->pip : "");
	fw = text_framework(j);
	if (fw != PLAN_FW_NONE) {
		s.framework.src = FIX_SRC_TEXT;
		s.framework.fw = fw;
		if (fw == PLAN_FW_TORCH && j->text->torch_version[0])
			(void)version_parse(j->text->torch_version, &s.framework.version); /* unread: unknown */
		if (fw == PLAN_FW_TORCH && j->text->torch_cuda)
			s.framework.cuda = version_from_cuda_int(j->text->torch_cuda);
		s.binary.src = FIX_SRC_TEXT;
		s.binary.kind = fw == PLAN_FW_OLLAMA ? FIX_BIN_APP : FIX_BIN_FRAMEWORK;
	}
	if ((rc = fix_plan(&s, (enum fix_problem)problem, &l, err)) != CD_OK)
		return rc;
	fix_vars(&l, &out->vars);
	return CD_OK;
}

int rules_explain_verdict(const struct explain_judge *j, struct explain_verdict *out, char *err)
{
	const struct explain_checks *ck = j->checks;
	const char *mrow;

	memset(out, 0, sizeof(*out));
	out->row = kb_finding_find(j->e->id) ? j->e->id : "cuda-error";
	finding_vars_init(&out->vars);
	gpu_values(j, out);
	if (j->binary)
		finding_var(&out->vars, "binary", "%s", j->binary);
	driver_values(j, out);
	error_values(j, out);
	text_values(j, out);
	finding_flag(&out->vars, "torch", text_framework(j) == PLAN_FW_TORCH);
	finding_flag(&out->vars, "force_jit", j->target->force_jit);
	/* a --binary that is a PyTorch extension is rebuilt for the GPUs judged with
	 * TORCH_CUDA_ARCH_LIST, not fixed by another torch wheel */
	if (j->binary_file && j->target->n_gpus)
		arch_torch_extension_vars(j->binary_file, j->target->gpus[0].cc, j->target, &out->vars);
	/* the binary's own runtime against the driver judged: a driver the user gave, or this
	 * machine's for a text from it */
	if (ck && ck->runtime_verdict.fails && strcmp(j->e->id, "runtime-newer-than-driver") == 0 &&
	    (j->driver_given || j->origin->here))
		driver_need_vars(&ck->runtime, &j->target->driver, j->target, &out->vars);
	/* doctor's rule for the id, when it fires here too, on a text from here: doctor's values and
	 * case, so the finding reads as doctor's */
	if (j->here && j->origin->here && rules_machine_vars_known(out->row)) {
		struct finding_vars mv;

		finding_vars_init(&mv);
		if (rules_machine_vars(out->row, j->here, &mv, &mrow)) {
			finding_vars_merge(&out->vars, &mv);
			out->row = mrow;
			out->machine = true;
		}
	}
	/* an AMD "no code object" error whose binary was judged on an AMD GPU without code for it:
	 * the target missing, what the file carries and the build to install, as arch says them */
	if (ck && ck->binary.judged && j->binary_file && strcmp(out->row, "rocm-gfx-target-missing") == 0)
		for (size_t i = 0; i < ck->binary.n; i++) {
			int rc = arch_amd_missing_vars(j->binary_file, j->target, ck->binary.gpus[i], &ck->binary.v[i],
						       &out->vars, &out->row);
			if (rc == CD_ENOMEM)
				return cd_fail(err, rc, "out of memory");
			if (rc == CD_OK)
				break;
		}
	return fix_values(j, out, err);
}
