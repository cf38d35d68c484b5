/* Runtime rules: each CUDA library copy against the driver, and copies of one soname
 * that shadow each other on the loader path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/version.h"
#include "util/str.h"

/* Whether a program would load this copy: its framework's, or the loader's first pick
 * of its soname in its set. */
static bool runtime_used(const struct runtime *rt, const struct runtimes *set)
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

int rule_runtime_vs_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	char rv[32], dv[32];

	if (!rules_driver_usable(d))
		return rules_status(oom);
	version_format(&cuda, 2, dv, sizeof dv);
	for (size_t si = 0; si < f->n_runtime_sets; si++)
	for (size_t i = 0; i < f->runtimes[si].n; i++) {
		const struct runtime *rt = &f->runtimes[si].r[i];
		struct finding *x;

		/* only the runtime's version is a CUDA version (cuDNN 9, NCCL 2 are not) */
		if (!str_starts_with(rt->soname, "libcudart"))
			continue;
		if (!rules_known(&rt->version) || rules_cuda_fit(&rt->version, &cuda) != CUDA_NEWER_MAJOR)
			continue;
		version_format(&rt->version, 2, rv, sizeof rv);
		x = report_add_finding(r, runtime_used(rt, &f->runtimes[si]) ? SEV_ERROR : SEV_WARN, "runtime-newer-than-driver", rt->path,
				       "CUDA runtime %s (%s) needs a newer driver than this one (CUDA %s)", rv, runtime_origin_name(rt->origin), dv);
		oom |= !x;
		oom |= finding_evidence(x, "%s: CUDA runtime %s", rt->path, rv) != CD_OK;
		oom |= rules_driver_evidence(x, d) != CD_OK;
		oom |= finding_why(x, "The CUDA runtime checks the driver at its first call and refuses one older than its major release: "
				  "\"CUDA driver version is insufficient for CUDA runtime version\" (cudaErrorInsufficientDriver, 35).") != CD_OK;
		oom |= rules_fix_driver_for(x, &rt->version, rules_opt(rt->kb_min_driver), NULL) != CD_OK;
		if (rt->origin == ORIGIN_PIP || rt->origin == ORIGIN_TORCH)
			oom |= finding_fix(x, "or install wheels built for CUDA %d.x (e.g. nvidia-cuda-runtime-cu%d)", cuda.major, cuda.major) != CD_OK;
		else if (rt->from_ld_library_path)
			oom |= finding_fix(x, "or drop its directory from LD_LIBRARY_PATH") != CD_OK;
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
			x = report_add_finding(r, SEV_WARN, "library-shadowed", win->soname,
					       "%s: the loader picks %s (%s) over %s (%s)", win->soname, win->path,
					       full(win, v1, sizeof v1), lose->path, full(lose, v2, sizeof v2));
			oom |= !x;
			oom |= finding_evidence(x, "picked: %s, version %s, %s%s", win->path, v1, runtime_origin_name(win->origin),
					       win->from_ld_library_path ? ", from LD_LIBRARY_PATH" : "") != CD_OK;
			oom |= finding_evidence(x, "shadowed: %s, version %s, %s", lose->path, v2, runtime_origin_name(lose->origin)) != CD_OK;
			oom |= finding_why(x, "The dynamic loader takes the first file with the wanted soname: LD_LIBRARY_PATH first, then the library's RUNPATH, "
					  "then /etc/ld.so.cache. A program or wheel built against one version then runs with another, which fails with "
					  "undefined symbols or version errors.") != CD_OK;
			if (overrides_wheel || win->from_ld_library_path)
				oom |= finding_fix(x, "remove the directory of %s from LD_LIBRARY_PATH", win->path) != CD_OK;
			else
				oom |= finding_fix(x, "remove the stale copy or reorder /etc/ld.so.conf.d, then: sudo ldconfig") != CD_OK;
			oom |= finding_fix(x, "LD_DEBUG=libs python -c 'import torch' 2>&1 | grep %s   # see which copy loads", win->soname) != CD_OK;
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
