/* `plan` for an AMD GPU: the ROCm builds of PyTorch and JAX whose code objects run on it
 * (its processor, or a generic target covering it), the one to pick (the newest), and the
 * ROCm releases that support the GPU on Linux. Pure: the kb's AMD tables and the GPU in, a
 * plan out. */
#ifndef CUDOCTOR_RULES_PLAN_ROCM_H
#define CUDOCTOR_RULES_PLAN_ROCM_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/amd.h"

#define PLAN_ROCM_MAX_BUILDS 64

struct plan_rocm {
	char gfx[32];                           /* the GPU's processor */
	const struct kb_amd_gpu *product;       /* the product when the GPU was named by it, else NULL */
	const struct kb_amd_target *target;     /* its row of amd_targets.tsv, or NULL */
	const struct kb_rocm_build *fits[PLAN_ROCM_MAX_BUILDS]; /* builds that run on it, table order */
	size_t n_fits;
	const struct kb_rocm_build *torch_pick, *jax_pick;      /* the newest of each, or NULL */
	/* a build of the GPU's family (its generic processor covers both) when none fits: what
	 * HSA_OVERRIDE_GFX_VERSION would make load (unsupported) */
	const struct kb_rocm_build *family_build;
	char family_target[32];                 /* that build's target of the family ("gfx1100") */
	char override[16];                      /* its HSA_OVERRIDE_GFX_VERSION ("11.0.0") */
};

/* The plan for processor gfx (product: the GPU named, or NULL). */
void plan_rocm_make(const char *gfx, const struct kb_amd_gpu *product, struct plan_rocm *out);
/* The newest build of framework ("torch", "jax") that runs on gfx, or NULL. */
const struct kb_rocm_build *plan_rocm_pick(const char *framework, const char *gfx);
/* "11.0.0" for "gfx1100": HSA_OVERRIDE_GFX_VERSION's spelling of a concrete processor. */
bool plan_rocm_override_of(const char *gfx, char *out, size_t cap);

#endif
