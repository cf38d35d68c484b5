/* Windows side rules: the CUDA_PATH variables against the toolkits installed and the nvcc.exe
 * that PATH runs (builds read CUDA_PATH: Visual Studio's CUDA integration, CMake, PyTorch's
 * extension builder; a prompt runs PATH's nvcc.exe, so the two must name one toolkit), and the
 * CUDA DLLs Python's modules import against where Python 3.8+ looks for them; and each GPU's
 * Windows driver model (WDDM, TCC, MCDM) against what it is used for. */
#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/str.h"

/* The toolkit a stale variable is best pointed at: the one PATH runs, else the newest with
 * nvcc.exe. */
static const struct win_toolkit *usable_toolkit(const struct win_side *w)
{
	const struct win_toolkit *best = NULL;

	for (size_t i = 0; i < w->n; i++) {
		const struct win_toolkit *t = &w->t[i];
		if (t->wins)
			return t;
		if (t->has_nvcc && (!best || version_cmp(&t->version, &best->version) > 0))
			best = t;
	}
	return best;
}

static void toolkit_vars(struct finding_vars *v, const char *path_name, const char *version_name,
			 const struct win_toolkit *t)
{
	char ver[32];

	finding_var(v, path_name, "%s", t->path);
	if (rules_known(&t->version))
		finding_var(v, version_name, "%s", version_format(&t->version, 3, ver, sizeof ver));
}

static int cuda_path_missing(const struct win_side *w, struct report *r)
{
	const struct win_toolkit *good = usable_toolkit(w);
	bool oom = false;

	for (size_t i = 0; i < w->n; i++) {
		const struct win_toolkit *t = &w->t[i];
		struct finding_vars v;
		struct finding *x;
		char first[64];
		size_t len;

		if (t->exists || !(t->found_by & (WTK_CUDA_PATH | WTK_CUDA_PATH_V)) || !t->vars[0])
			continue;
		len = strcspn(t->vars, " ");
		snprintf(first, sizeof first, "%.*s", (int)(len < sizeof first ? len : sizeof first - 1), t->vars);
		finding_vars_init(&v);
		finding_var(&v, "var", "%s", first);
		finding_var(&v, "cuda_path", "%s", t->path);
		if (good)
			toolkit_vars(&v, "good_path", "good_version", good);
		x = finding_make(r, SEV_CATALOGUE, "win-cuda-path-missing", first, &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s = %s, which does not exist", t->vars, t->path) != CD_OK;
		if (good)
			oom |= finding_evidence(x, "installed: %s (CUDA %s)%s", good->path,
						rules_opt(good->version_text) ? good->version_text : "unknown",
						good->wins ? ", whose nvcc.exe is first on PATH" : "") != CD_OK;
	}
	return rules_status(oom);
}

static int cuda_path_mismatch(const struct win_side *w, struct report *r)
{
	const struct win_toolkit *cp = NULL, *runs = NULL;
	struct finding_vars v;
	struct finding *x;
	bool oom = false;

	for (size_t i = 0; i < w->n; i++) {
		if ((w->t[i].found_by & WTK_CUDA_PATH) && w->t[i].exists)
			cp = &w->t[i];
		if (w->t[i].wins)
			runs = &w->t[i];
	}
	if (!cp || !runs || cp == runs)
		return CD_OK;
	finding_vars_init(&v);
	toolkit_vars(&v, "cuda_path", "cuda_path_version", cp);
	toolkit_vars(&v, "nvcc_path", "nvcc_version", runs);
	x = finding_make(r, SEV_CATALOGUE, "win-cuda-path-mismatch", "CUDA_PATH", &v);
	oom |= !x;
	oom |= finding_evidence(x, "CUDA_PATH = %s (CUDA %s)", cp->path,
				rules_opt(cp->version_text) ? cp->version_text : "unknown") != CD_OK;
	oom |= finding_evidence(x, "first nvcc.exe on PATH: %s\\bin\\nvcc.exe (CUDA %s)", runs->path,
				rules_opt(runs->version_text) ? runs->version_text : "unknown") != CD_OK;
	return rules_status(oom);
}

static const char *base_name(const char *win_path)
{
	const char *b = strrchr(win_path, '\\');

	return b ? b + 1 : win_path;
}

static int dll_loads(const struct win_side *w, struct report *r)
{
	bool oom = false;

	for (size_t i = 0; i < w->n_dll; i++) {
		const struct win_dll_load *d = &w->dll[i];
		bool shadow = d->loads[0] && d->shadowed[0] && d->from && strcmp(d->from, "module folder") != 0 &&
			      strcmp(d->from, "torch\\lib") != 0;
		const char *row = !d->loads[0] ? (d->on_path[0] ? "win-dll-not-found/on-path" : "win-dll-not-found/missing")
				  : shadow ? "win-dll-shadowed" : NULL;
		struct finding_vars v;
		struct finding *x;

		if (!row)
			continue;
		finding_vars_init(&v);
		finding_var(&v, "dll", "%s", d->dll);
		finding_var(&v, "module_name", "%s", base_name(d->module));
		finding_var(&v, "python", "%s", d->python);
		if (d->wheel && d->cuda_major)
			finding_var(&v, "wheel", "%s-cu%d", d->wheel, d->cuda_major);
		if (d->on_path[0]) {
			finding_var(&v, "on_path_dir", "%.*s", (int)(base_name(d->on_path) - d->on_path - 1), d->on_path);
		}
		if (shadow) {
			finding_var(&v, "loads", "%s", d->loads);
			finding_var(&v, "from", "%s", d->from);
			finding_var(&v, "shadowed", "%s", d->shadowed);
		}
		x = finding_make(r, SEV_CATALOGUE, row, d->module, &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s imports %s", d->module, d->dll) != CD_OK;
		if (shadow)
			oom |= finding_evidence(x, "loads %s (%s) ahead of %s", d->loads, d->from, d->shadowed) != CD_OK;
		else
			oom |= finding_evidence(x, "not in the module's folder, python.exe's folder, torch\\lib or System32") != CD_OK;
		if (!d->loads[0] && d->on_path[0])
			oom |= finding_evidence(x, "on PATH: %s", d->on_path) != CD_OK;
	}
	return rules_status(oom);
}

/* A GPU in WDDM is a display device to Windows: its kernels are under the TDR watchdog, and a
 * datacenter part loses what TCC or MCDM give it. */
static int driver_models(const struct gpu_probe *p, const struct win_side *w, struct report *r)
{
	bool oom = false;
	/* TdrLevel 0 turns the watchdog off */
	bool tdr_off = w && w->tdr_level.state == WREG_SET && w->tdr_level.value == 0;

	for (size_t i = 0; p && i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];
		const struct kb_gpu *k = gpu_has(g, GF_NAME) ? kb_gpu_by_name(g->name) : NULL;
		bool watchdog = (gpu_has(g, GF_DISPLAY_ACTIVE) && g->display_active) ||
				(gpu_has(g, GF_KERNEL_EXEC_TIMEOUT) && g->kernel_exec_timeout);
		struct finding_vars v;
		struct finding *x;
		char subj[320];

		if (!gpu_has(g, GF_DRIVER_MODEL) || g->driver_model_current != 0)
			continue;
		gpu_subject(g, subj, sizeof subj);
		finding_vars_init(&v);
		finding_var(&v, "gpu", "%s", subj);
		if (g->nvml_index >= 0)
			finding_var(&v, "index", "%d", g->nvml_index);
		if (k && k->segment && strncmp(k->segment, "Data center", 11) == 0) {
			x = finding_make(r, SEV_CATALOGUE, "gpu-wddm-datacenter", subj, &v);
			oom |= !x;
			oom |= finding_evidence(x, "NVML driver model: WDDM%s (kb: %s)",
						g->driver_model_pending != 0 ? ", another after a reboot" : "", k->segment) != CD_OK;
		}
		if (watchdog && !tdr_off) {
			if (w && w->tdr_delay.state != WREG_UNREAD)
				finding_var(&v, "tdr_delay", "%lu",
					    w->tdr_delay.state == WREG_SET ? w->tdr_delay.value : WIN_TDR_DELAY_DEFAULT);
			x = finding_make(r, SEV_CATALOGUE, "gpu-display-tdr", subj, &v);
			oom |= !x;
			oom |= finding_evidence(x, "NVML driver model: WDDM") != CD_OK;
			if (gpu_has(g, GF_DISPLAY_ACTIVE) && g->display_active)
				oom |= finding_evidence(x, "NVML: a display is active on this GPU") != CD_OK;
			if (gpu_has(g, GF_KERNEL_EXEC_TIMEOUT) && g->kernel_exec_timeout)
				oom |= finding_evidence(x, "CUDA: kernel execution timeout enabled") != CD_OK;
			if (w && w->tdr_delay.state == WREG_SET)
				oom |= finding_evidence(x, "registry: TdrDelay = %lu", w->tdr_delay.value) != CD_OK;
			else if (w && w->tdr_delay.state == WREG_UNSET)
				oom |= finding_evidence(x, "registry: TdrDelay not set (Windows' default, 2 s)") != CD_OK;
			else if (w && w->registry_note)
				oom |= finding_evidence(x, "registry: %s", w->registry_note) != CD_OK;
		}
	}
	return rules_status(oom);
}

int rules_windows(const struct facts *f, struct report *r)
{
	const struct win_side *w = f->windows;
	int rc;

	if ((rc = driver_models(f->driver, w && w->read ? w : NULL, r)) != CD_OK || !w || !w->read)
		return rc;
	if ((rc = cuda_path_missing(w, r)) != CD_OK || (rc = cuda_path_mismatch(w, r)) != CD_OK)
		return rc;
	return dll_loads(w, r);
}
