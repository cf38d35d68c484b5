/* Runtime rules: each CUDA library copy against the driver, and copies of one soname
 * that shadow each other on the loader path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/driver_need.h"
#include "rules/internal.h"
#include "rules/plan.h"
#include "util/err.h"
#include "util/version.h"
#include "util/str.h"

bool rules_runtime_used(const struct runtime *rt, const struct runtimes *set)
{
	if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH || rt->origin == ORIGIN_CONDA)
		return true; /* the framework beside it loads it through its RUNPATH */
	if (rt->rank < 0)
		return false;
	for (size_t i = 0; i < set->n; i++) {
		const struct runtime *o = &set->r[i];
		if (o != rt && o->rank >= 0 && o->rank < rt->rank && strcmp(o->soname, rt->soname) == 0)
			return false;
	}
	return true;
}

/* Whether rt is a framework's own runtime (a wheel's or torch's copy in the site-packages of a
 * CUDA build of its major): doctor's frameworks judge that framework with its device code on
 * every GPU and say the cause once there (rules/framework.h). */
static bool framework_runtime(const struct facts *f, const struct runtime *rt)
{
	if ((rt->origin != ORIGIN_PIP && rt->origin != ORIGIN_TORCH) || !f->driver->n_gpus)
		return false;
	for (size_t i = 0; i < f->python->n_fw; i++) {
		const struct py_framework *fw = &f->python->fw[i];
		const char *slash = strrchr(fw->path, '/');
		size_t site = slash ? (size_t)(slash - fw->path) : 0;

		if (fw->cpu_only || fw->rocm || !site || atoi(fw->cuda) != rt->version.major)
			continue;
		if (strncmp(rt->path, fw->path, site + 1) == 0)
			return true;
	}
	return false;
}

int rule_runtime_vs_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	char rv[32];

	if (!rules_driver_usable(d))
		return rules_status(oom);
	for (size_t si = 0; si < f->n_runtime_sets; si++)
	for (size_t i = 0; i < f->runtimes[si].n; i++) {
		const struct runtime *rt = &f->runtimes[si].r[i];
		struct finding_vars v;
		struct finding *x;

		/* only the runtime's version is a CUDA version (cuDNN 9, NCCL 2 are not) */
		if (!str_starts_with(rt->soname, "libcudart"))
			continue;
		/* a framework's own copy is judged with the framework, a refused toolkit's is evidence of
		 * its toolkit-newer-than-driver: one cause, one finding */
		if (!rules_known(&rt->version) || rules_cuda_fit(&rt->version, &cuda) != CUDA_NEWER_MAJOR ||
		    framework_runtime(f, rt) || rules_runtime_of_refused_toolkit(f, rt))
			continue;
		version_format(&rt->version, 2, rv, sizeof rv);
		finding_vars_init(&v);
		rules_driver_vars(d, &v);
		{
			struct gpu_spec specs[PLAN_MAX_GPUS];
			size_t ns = plan_specs_of_probe(d, specs, PLAN_MAX_GPUS);

			runtime_need_vars_for(rt->version.major, specs, ns, &v);
		}
		x = finding_make(r, rules_runtime_used(rt, &f->runtimes[si]) ? SEV_ERROR : SEV_WARN, "runtime-newer-than-driver",
				 rt->path, &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s: CUDA runtime %s (%s%s)", rt->path, rv, runtime_origin_name(rt->origin),
				       rt->from_ld_library_path ? ", from LD_LIBRARY_PATH" : "") != CD_OK;
		oom |= rules_driver_evidence(x, d) != CD_OK;
	}
	return rules_status(oom);
}

static const char *full(const struct runtime *rt, char *buf, size_t n)
{
	if (rt->version_text[0])
		snprintf(buf, n, "%s", rt->version_text);
	else
		version_format(&rt->version, 2, buf, n);
	return buf;
}

/* copies of one soname are in one set: each pair that differs and where one wins */
static int shadowed_in(const struct runtimes *set, struct report *r)
{
	bool oom = false;
	char v1[64], v2[64];

	for (size_t i = 0; i < set->n; i++) {
		const struct runtime *a = &set->r[i];

		if (!a->soname[0] || a->version.parts < 2) /* a bare soname major cannot be compared */
			continue;
		for (size_t j = 0; j < set->n; j++) {
			const struct runtime *b = &set->r[j];
			const struct runtime *win, *lose;
			struct finding_vars v;
			struct finding *x;
			bool overrides_wheel;

			if (i == j || !b->soname[0] || strcmp(a->soname, b->soname) != 0 || b->version.parts < 2)
				continue;
			if (version_cmp(&a->version, &b->version) == 0)
				continue;
			/* a wins over b when a comes first on the loader path, or when a is in
			 * LD_LIBRARY_PATH and b is a wheel's copy (LD_LIBRARY_PATH beats RUNPATH) */
			overrides_wheel = a->from_ld_library_path && (b->origin == ORIGIN_PIP || b->origin == ORIGIN_TORCH || b->origin == ORIGIN_CONDA);
			if (!(a->rank >= 0 && b->rank >= 0 && a->rank < b->rank) && !overrides_wheel)
				continue;
			win = a;
			lose = b;
			full(win, v1, sizeof v1);
			full(lose, v2, sizeof v2);
			finding_vars_init(&v);
			finding_var(&v, "soname", "%s", win->soname);
			finding_var(&v, "picked", "%s", win->path);
			finding_var(&v, "picked_version", "%s", v1);
			finding_var(&v, "shadowed_version", "%s", v2);
			finding_flag(&v, "ld_path", overrides_wheel || win->from_ld_library_path);
			x = finding_make(r, SEV_WARN, "library-shadowed", win->soname, &v);
			oom |= !x;
			oom |= finding_evidence(x, "picked: %s, version %s, %s%s", win->path, v1, runtime_origin_name(win->origin),
					       win->from_ld_library_path ? ", from LD_LIBRARY_PATH" : "") != CD_OK;
			oom |= finding_evidence(x, "shadowed: %s, version %s, %s", lose->path, v2, runtime_origin_name(lose->origin)) != CD_OK;
		}
	}
	return rules_status(oom);
}

int rule_shadowed(const struct facts *f, struct report *r)
{
	bool oom = false;

	for (size_t si = 0; si < f->n_runtime_sets; si++) {
		const struct runtimes *set = &f->runtimes[si];
		oom |= shadowed_in(set, r) != CD_OK;
	}
	return rules_status(oom);
}
