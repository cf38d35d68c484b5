/* Toolkit rules: each nvcc against the driver (what its builds need) and against the
 * GPUs (what it can target), and nvidia-smi's "CUDA Version" read as the toolkit's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/version.h"
#include "util/str.h"

/* The newest toolkit in f that the driver can run, for a concrete fix. */
static const struct toolkit *fitting_toolkit(const struct facts *f)
{
	struct version cuda = rules_driver_cuda(f->driver);
	const struct toolkit *best = NULL;

	for (size_t i = 0; i < f->toolkits->n; i++) {
		const struct toolkit *t = &f->toolkits->t[i];
		if (!rules_known(&t->version) || rules_cuda_fit(&t->version, &cuda) != CUDA_FITS)
			continue;
		if (!best || version_cmp(&t->version, &best->version) > 0)
			best = t;
	}
	return best;
}

bool rules_toolkit_driver_fit(const struct toolkit *t, const struct gpu_probe *d, enum cuda_fit *fit)
{
	struct version cuda = rules_driver_cuda(d);

	if (!rules_driver_usable(d) || !rules_known(&t->version))
		return false;
	*fit = rules_cuda_fit(&t->version, &cuda);
	return true;
}

/* Whether path lies under the directory dir (len bytes of it). */
static bool in_dir(const char *path, const char *dir, size_t len)
{
	return len > 1 && strncmp(path, dir, len) == 0 && path[len] == '/';
}

/* Whether rt is a file of t's tree: under its root as found (/usr/local/cuda/lib64) or as
 * resolved, the directory above the real nvcc's bin/ (/usr/local/cuda-13.0/targets/...). */
static bool toolkit_holds(const struct toolkit *t, const struct runtime *rt)
{
	const char *bin = NULL;

	if (in_dir(rt->path, t->root, strlen(t->root)) || in_dir(rt->real_path, t->root, strlen(t->root)))
		return true;
	if (str_ends_with(t->real_nvcc, "/bin/nvcc"))
		bin = t->real_nvcc + strlen(t->real_nvcc) - strlen("/bin/nvcc");
	return bin && in_dir(rt->real_path, t->real_nvcc, (size_t)(bin - t->real_nvcc));
}

const struct toolkit *rules_runtime_of_refused_toolkit(const struct facts *f, const struct runtime *rt)
{
	enum cuda_fit fit;

	if (rt->origin != ORIGIN_TOOLKIT)
		return NULL;
	for (size_t i = 0; i < f->toolkits->n; i++) {
		const struct toolkit *t = &f->toolkits->t[i];

		if (toolkit_holds(t, rt) && rules_toolkit_driver_fit(t, f->driver, &fit) && fit == CUDA_NEWER_MAJOR)
			return t;
	}
	return NULL;
}

/* The toolkit's own libcudart copies, refused by the driver as its builds are: with x, each is
 * a line of evidence of t's finding. Returns whether a program would load one (then the finding
 * is an error whatever PATH says); false when adding a line ran out of memory (*oom set). */
static bool own_runtimes(const struct facts *f, const struct toolkit *t, struct finding *x, bool *oom)
{
	bool used = false;
	char rv[32];

	for (size_t si = 0; si < f->n_runtime_sets; si++)
		for (size_t i = 0; i < f->runtimes[si].n; i++) {
			const struct runtime *rt = &f->runtimes[si].r[i];
			bool loads;

			if (!str_starts_with(rt->soname, "libcudart") || rules_runtime_of_refused_toolkit(f, rt) != t)
				continue;
			loads = rules_runtime_used(rt, &f->runtimes[si]);
			used |= loads;
			version_format(&rt->version, 2, rv, sizeof rv);
			if (x && finding_evidence(x, "its runtime %s (CUDA %s%s) refuses this driver too: a program's first "
						  "CUDA call fails with error 35 (cudaErrorInsufficientDriver)", rt->path, rv,
						  loads ? ", the loader's pick of its soname" : "") != CD_OK)
				*oom = true;
		}
	return used;
}

int rule_toolkit_vs_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	char tv[32], dv[32];

	if (!rules_driver_usable(d))
		return rules_status(oom);
	for (size_t i = 0; i < f->toolkits->n; i++) {
		const struct toolkit *t = &f->toolkits->t[i], *ok = fitting_toolkit(f);
		struct finding_vars v;
		enum cuda_fit tn;
		struct finding *x;
		char fv[32];

		if (!rules_toolkit_driver_fit(t, d, &tn) || tn == CUDA_FITS)
			continue;
		version_format(&t->version, 2, tv, sizeof tv);
		version_format(&cuda, 2, dv, sizeof dv);
		finding_vars_init(&v);
		finding_var(&v, "toolkit_cuda", "%s", tv);
		finding_var(&v, "toolkit_major", "%d", t->version.major);
		finding_var(&v, "driver_cuda", "%s", dv);
		finding_var(&v, "driver_major", "%d", cuda.major);
		if (rules_opt(d->kb_branch))
			finding_var(&v, "kb_branch", "%s", rules_opt(d->kb_branch));
		rules_driver_fix_vars(d, &t->version, rules_opt(t->kb.min_driver), rules_opt(t->kb.min_branch), &v);
		finding_flag(&v, "fitting_selected", ok && t->selected);
		if (ok && t->selected) {
			finding_var(&v, "fitting_cuda", "%s", version_format(&ok->version, 2, fv, sizeof fv));
			finding_var(&v, "fitting_root", "%s", ok->root);
		}
		if (tn == CUDA_NEWER_MAJOR) {
			bool loaded = own_runtimes(f, t, NULL, &oom);

			x = finding_make(r, t->selected || loaded ? SEV_ERROR : SEV_WARN, "toolkit-newer-than-driver/major",
					 t->nvcc, &v);
			oom |= !x;
			oom |= finding_evidence(x, "%s reports CUDA %s%s", t->nvcc, tv, t->selected ? " (first nvcc on PATH: builds use it)" : "") != CD_OK;
			if (x)
				own_runtimes(f, t, x, &oom);
			oom |= rules_driver_evidence(x, d) != CD_OK;
		} else {
			x = finding_make(r, t->selected ? SEV_WARN : SEV_INFO, "toolkit-newer-than-driver/minor", t->nvcc, &v);
			oom |= !x;
			oom |= finding_evidence(x, "%s reports CUDA %s", t->nvcc, tv) != CD_OK;
			oom |= rules_driver_evidence(x, d) != CD_OK;
		}
	}
	return rules_status(oom);
}

/* nvidia-smi's "CUDA Version" read as the toolkit is the most common confusion. */
int rule_smi_cuda_version(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	char tv[32], dv[32];

	if (!rules_driver_usable(d))
		return rules_status(oom);
	for (size_t i = 0; i < f->toolkits->n; i++) {
		const struct toolkit *t = &f->toolkits->t[i];
		struct finding_vars v;
		struct finding *x;

		if (!t->selected || !rules_known(&t->version))
			continue;
		if (rules_cuda_fit(&t->version, &cuda) != CUDA_FITS)
			return rules_status(oom); /* toolkit-newer-than-driver explains it */
		if (t->version.major == cuda.major && t->version.minor == cuda.minor)
			return rules_status(oom);
		finding_vars_init(&v);
		finding_var(&v, "driver_cuda", "%s", version_format(&cuda, 2, dv, sizeof dv));
		finding_var(&v, "toolkit_cuda", "%s", version_format(&t->version, 2, tv, sizeof tv));
		x = finding_make(r, SEV_INFO, "driver-cuda-version", "nvidia-smi", &v);
		oom |= !x;
		oom |= rules_driver_evidence(x, d) != CD_OK;
		oom |= finding_evidence(x, "%s reports CUDA %s", t->nvcc, tv) != CD_OK;
		return rules_status(oom);
	}
	return rules_status(oom);
}

const struct toolkit *rules_build_nvcc(const struct toolkits *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].selected)
			return &ts->t[i];
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i].found_by & TK_CUDA_HOME)
			return &ts->t[i];
	return ts->n ? &ts->t[0] : NULL;
}

bool rules_toolkit_targets(const struct toolkit *t, int cc_major, int cc_minor)
{
	int sm = cc_major * 10 + cc_minor;

	for (size_t i = 0; i < t->kb.n_archs; i++)
		if (t->kb.archs[i] == sm)
			return true;
	return false;
}

static int min_arch(const struct toolkit *t)
{
	int m = 0;

	for (size_t i = 0; i < t->kb.n_archs; i++)
		if (m == 0 || t->kb.archs[i] < m)
			m = t->kb.archs[i];
	return m;
}

/* Can anything this toolkit builds run on CC major.minor? SASS of the same major
 * with a lower minor does, and PTX of any lower arch can be JIT-compiled. */
static bool toolkit_reaches(const struct toolkit *t, int sm)
{
	for (size_t i = 0; i < t->kb.n_archs; i++)
		if (t->kb.archs[i] <= sm)
			return true;
	return false;
}

int rule_toolkit_vs_gpu(const struct facts *f, struct report *r)
{
	bool oom = false;
	char subj[320], tv[32];

	for (size_t gi = 0; gi < f->driver->n_gpus; gi++) {
		const struct gpu_info *g = &f->driver->gpus[gi];
		int sm = gpu_sm(g);

		if (sm <= 0)
			continue;
		for (size_t ti = 0; ti < f->toolkits->n; ti++) {
			const struct toolkit *t = &f->toolkits->t[ti];
			struct finding_vars v;
			struct finding *x;

			if (!t->kb.known || t->kb.n_archs == 0 || rules_toolkit_targets(t, (int)g->cc_major, (int)g->cc_minor))
				continue;
			version_format(&t->version, 2, tv, sizeof tv);
			gpu_subject(g, subj, sizeof subj);
			finding_vars_init(&v);
			finding_var(&v, "nvcc_release", "%s", tv);
			finding_var(&v, "nvcc_version", "%s", tv);
			finding_var(&v, "sm", "%d", sm);
			finding_var(&v, "gpus", "sm_%d", sm);
			if (gpu_name(g))
				finding_var(&v, "gpu_name", "%s", gpu_name(g));
			if (sm < min_arch(t)) {
				if (rules_opt(g->kb_last_toolkit))
					finding_var(&v, "last_toolkit", "%s", rules_opt(g->kb_last_toolkit));
				x = finding_make(r, t->selected ? SEV_ERROR : SEV_WARN, "arch-dropped-by-toolkit", subj, &v);
				oom |= !x;
				oom |= finding_evidence(x, "%s: compute capability %d.%d", subj, (int)g->cc_major, (int)g->cc_minor) != CD_OK;
				oom |= finding_evidence(x, "%s (CUDA %s) builds sm_%d and newer (kb: toolkits.tsv)", t->nvcc, tv, min_arch(t)) != CD_OK;
				continue;
			}
			bool reaches = toolkit_reaches(t, sm);
			int ptx = t->kb.archs[t->kb.n_archs - 1] <= sm ? t->kb.archs[t->kb.n_archs - 1] : min_arch(t);

			if (rules_opt(g->kb_first_toolkit))
				finding_var(&v, "first_toolkit", "%s", rules_opt(g->kb_first_toolkit));
			finding_var(&v, "ptx_arch", "%d", ptx);
			x = finding_make(r, (t->selected && !reaches) ? SEV_ERROR : SEV_WARN, "toolkit-cannot-target-gpu", subj, &v);
			oom |= !x;
			oom |= finding_evidence(x, "%s: compute capability %d.%d", subj, (int)g->cc_major, (int)g->cc_minor) != CD_OK;
			oom |= finding_evidence(x, "%s (CUDA %s) accepts sm_%d .. sm_%d, not sm_%d", t->nvcc, tv, min_arch(t),
					       t->kb.archs[t->kb.n_archs - 1], sm) != CD_OK;
			if (rules_opt(g->kb_first_toolkit))
				oom |= finding_evidence(x, "sm_%d needs CUDA %s or newer", sm, rules_opt(g->kb_first_toolkit)) != CD_OK;
			oom |= finding_evidence(x, "%s", reaches ? "code this toolkit builds for an older arch still runs here (SASS of the same major, or PTX the driver JIT-compiles)"
							  : "no arch this toolkit knows can run on this GPU") != CD_OK;
		}
	}
	return rules_status(oom);
}
