/* plan for AMD GPUs: which ROCm framework builds carry code the GPU runs, the newest of each
 * framework, and, when none does, the nearest build of its family. */
#include "rules/plan_rocm.h"

#include <stdio.h>
#include <string.h>

bool plan_rocm_override_of(const char *gfx, char *out, size_t cap)
{
	size_t n = strlen(gfx);
	if (n < 6 || strncmp(gfx, "gfx", 3) != 0 || strchr(gfx, '-'))
		return false;
	char minor = gfx[n - 2], s = gfx[n - 1];
	if (minor < '0' || minor > '9' || !((s >= '0' && s <= '9') || (s >= 'a' && s <= 'f')))
		return false;
	unsigned step = s <= '9' ? (unsigned)(s - '0') : (unsigned)(s - 'a' + 10);
	snprintf(out, cap, "%.*s.%c.%u", (int)(n - 5), gfx + 3, minor, step);
	return true;
}

const struct kb_rocm_build *plan_rocm_pick(const char *framework, const char *gfx)
{
	const struct kb_rocm_build *pick = NULL;
	for (size_t i = 0; i < kb_rocm_build_count(); i++) {
		const struct kb_rocm_build *b = kb_rocm_build_at(i);
		if (strcmp(b->framework, framework) == 0 && kb_rocm_build_covers(b, gfx))
			pick = b; /* oldest first: the last one is the newest */
	}
	return pick;
}

/* A concrete target of b in gfx's family (both under one generic processor), or NULL. */
static const char *family_target(const struct kb_rocm_build *b, const struct kb_amd_target *x)
{
	for (size_t i = 0; x && x->generic && i < b->n_targets; i++) {
		const struct kb_amd_target *y = kb_amd_target_find(b->targets[i]);
		if (y && y->generic && strcmp(y->generic, x->generic) == 0)
			return b->targets[i];
	}
	return NULL;
}

void plan_rocm_make(const char *gfx, const struct kb_amd_gpu *product, struct plan_rocm *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->gfx, sizeof out->gfx, "%s", gfx);
	out->product = product;
	out->target = kb_amd_target_find(gfx);
	for (size_t i = 0; i < kb_rocm_build_count(); i++) {
		const struct kb_rocm_build *b = kb_rocm_build_at(i);
		const char *fam;
		if (kb_rocm_build_covers(b, gfx)) {
			if (out->n_fits < PLAN_ROCM_MAX_BUILDS)
				out->fits[out->n_fits++] = b;
		} else if (strcmp(b->framework, "torch") == 0 && (fam = family_target(b, out->target))) {
			out->family_build = b; /* the newest torch build of the family */
			snprintf(out->family_target, sizeof out->family_target, "%s", fam);
		}
	}
	out->torch_pick = plan_rocm_pick("torch", gfx);
	out->jax_pick = plan_rocm_pick("jax", gfx);
	if (out->torch_pick)
		out->family_build = NULL;
	if (out->family_build && !plan_rocm_override_of(out->family_target, out->override, sizeof out->override))
		out->family_build = NULL;
}
