/* Image selection and file verdicts (fatbin.md §4.2-4.7), pure and unit-tested case by case,
 * and the one family table they use (kb/arch_families.tsv). */
#include "kb/compat.h"

#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"

const struct compat_family_member *compat_family_table(size_t *n)
{
	static struct compat_family_member table[128];
	static size_t count;
	static bool built;

	if (!built) {
		for (size_t i = 0; i < kb_family_count(); i++) {
			const struct kb_family *f = kb_family_at(i);

			for (size_t k = 0; k < f->n_members && count < sizeof(table) / sizeof(table[0]); k++)
				table[count++] = (struct compat_family_member){ (unsigned)f->arch, (unsigned)f->members[k] };
		}
		built = true;
	}
	*n = count;
	return table;
}

bool compat_in_family(const struct compat_env *env, unsigned target, unsigned cc)
{
	for (size_t i = 0; i < env->n_family; i++)
		if (env->family[i].target == target && env->family[i].cc == cc)
			return true;
	return false;
}

bool compat_sass_runs(const struct compat_env *env, const struct compat_image *im)
{
	if (im->kind != COMPAT_KIND_SASS)
		return false;
	if (im->suffix == 'a')
		return im->arch == env->cc;
	if (im->suffix == 'f')
		return compat_in_family(env, im->arch, env->cc);
	return im->arch / 10 == env->cc / 10 && im->arch % 10 <= env->cc % 10;
}

bool compat_ptx_runs(const struct compat_env *env, const struct compat_image *im)
{
	if (im->kind != COMPAT_KIND_PTX)
		return false;
	if (im->suffix == 'a')
		return im->arch == env->cc;
	if (im->suffix == 'f')
		return compat_in_family(env, im->arch, env->cc);
	return im->arch <= env->cc;
}

static bool isa_ok(const struct compat_env *env, const struct compat_image *im)
{
	return env->ptx_isa_max == 0 || im->ptx_isa <= env->ptx_isa_max;
}

void compat_choose(const struct compat_image *imgs, size_t n, const struct compat_env *env,
		   struct compat_choice *out)
{
	long sass = -1, ptx = -1;
	bool ptx_fits = false, ptx_new = false;
	for (size_t i = 0; i < n; i++) {
		const struct compat_image *im = &imgs[i];
		if (!env->force_ptx_jit && compat_sass_runs(env, im)) {
			/* nearest arch wins; then the ELF without the compat blob; then the first */
			const struct compat_image *b = sass >= 0 ? &imgs[sass] : NULL;
			if (!b || im->arch > b->arch || (im->arch == b->arch && b->compat_blob && !im->compat_blob))
				sass = (long)i;
		} else if (compat_ptx_runs(env, im)) {
			ptx_fits = true;
			if (!isa_ok(env, im)) {
				ptx_new = true;
				continue;
			}
			/* nearest arch wins; among equals the last one */
			if (ptx < 0 || im->arch >= imgs[ptx].arch)
				ptx = (long)i;
		}
	}
	out->image = -1;
	out->zstd_unloadable = false;
	if (sass >= 0) {
		out->outcome = COMPAT_SASS;
		out->image = sass;
	} else if (ptx >= 0 && !env->disable_ptx_jit) {
		out->outcome = COMPAT_JIT;
		out->image = ptx;
	} else if (ptx_fits && env->disable_ptx_jit) {
		out->outcome = COMPAT_JIT_DISABLED;
	} else if (ptx_new) {
		out->outcome = COMPAT_PTX_TOO_NEW;
	} else {
		out->outcome = COMPAT_NO_IMAGE;
	}
	if (out->image >= 0 && imgs[out->image].zstd && env->zstd_ok == 0)
		out->zstd_unloadable = true;
}

void compat_tally_add(struct compat_tally *t, enum compat_outcome o)
{
	switch (o) {
	case COMPAT_SASS: t->sass++; break;
	case COMPAT_JIT: t->jit++; break;
	case COMPAT_NO_IMAGE: t->no_image++; break;
	case COMPAT_PTX_TOO_NEW: t->ptx_too_new++; break;
	case COMPAT_JIT_DISABLED: t->jit_disabled++; break;
	}
}

enum compat_verdict compat_verdict_of(const struct compat_tally *t)
{
	size_t ok = t->sass + t->jit;
	size_t bad = t->no_image + t->ptx_too_new + t->jit_disabled;
	if (ok + bad == 0)
		return VERDICT_NONE;
	if (bad == 0)
		return t->jit ? VERDICT_JIT : VERDICT_NATIVE;
	if (ok)
		return VERDICT_PARTIAL;
	/* every container fails: name the cause when they share one */
	if (t->ptx_too_new == bad)
		return VERDICT_PTX_TOO_NEW;
	if (t->jit_disabled == bad)
		return VERDICT_JIT_DISABLED;
	return VERDICT_NO_IMAGE;
}

const char *compat_verdict_name(enum compat_verdict v)
{
	static const char *const n[] = {"native", "jit", "partial", "no-image", "ptx-too-new",
					"jit-disabled", "no-device-code"};
	return (unsigned)v < sizeof(n) / sizeof(n[0]) ? n[v] : "unknown";
}

const char *compat_outcome_name(enum compat_outcome o)
{
	static const char *const n[] = {"sass", "jit", "no-image", "ptx-too-new", "jit-disabled"};
	return (unsigned)o < sizeof(n) / sizeof(n[0]) ? n[o] : "unknown";
}

/* The driver treats a variable as set when its value parses to a non-zero integer. */
static bool var_on(const char *(*get)(const char *), const char *name, bool *present)
{
	const char *v = get(name);
	*present = v != NULL && *v;
	return *present && atoi(v) != 0;
}

void compat_env_from_vars(struct compat_env *env, const char *(*get)(const char *name))
{
	bool p;
	bool force = var_on(get, "CUDA_FORCE_PTX_JIT", &p);
	if (!p)
		force = var_on(get, "CUDA_FORCE_JIT", &p);
	bool disable = var_on(get, "CUDA_DISABLE_PTX_JIT", &p);
	if (!p)
		disable = var_on(get, "CUDA_DISABLE_JIT", &p);
	env->force_ptx_jit = force;
	env->disable_ptx_jit = disable;
}

void compat_arch_list(unsigned cc, const struct kb_arch *list, const bool *ptx, size_t n, bool *sass_runs,
		      bool *ptx_runs)
{
	struct compat_env e = { .cc = cc, .zstd_ok = -1 };
	bool sass = false, jit = false;

	e.family = compat_family_table(&e.n_family);
	for (size_t k = 0; k < n; k++) {
		struct compat_image im = { ptx[k] ? COMPAT_KIND_PTX : COMPAT_KIND_SASS, (unsigned)list[k].num,
					   list[k].suffix, 0, false, false };

		if (ptx[k])
			jit |= compat_ptx_runs(&e, &im);
		else
			sass |= compat_sass_runs(&e, &im);
	}
	*sass_runs = sass;
	if (ptx_runs)
		*ptx_runs = jit;
}
