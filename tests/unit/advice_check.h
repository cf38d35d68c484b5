/* Shared by the tests of advice: reads the driver branches, PyTorch wheels and NVIDIA
 * packages out of a command's output and checks each against the kb for the GPUs it was about:
 * a branch the GPUs support (from the first branch that runs code for each to its last), a
 * wheel whose arch list runs on each GPU, a package of the CUDA major expected. */
#ifndef CUDOCTOR_TEST_ADVICE_CHECK_H
#define CUDOCTOR_TEST_ADVICE_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/frameworks.h"
#include "kb/kb.h"
#include "rules/plan.h"

struct advice_seen {
	size_t branches, wheels, packages; /* how many of each were checked */
};

/* Why text breaks a rule, into why (empty when it does not). */
static inline void advice_branch_check(int branch, const struct gpu_spec *gpus, size_t n, char *why, size_t cap)
{
	for (size_t i = 0; i < n; i++) {
		struct plan_gpu g;

		plan_gpu_support(&gpus[i], &g);
		if (g.jetson)
			continue;
		if (g.last_branch && branch > g.last_branch) {
			snprintf(why, cap, "R%d is past %s's last branch R%d", branch, gpus[i].label, g.last_branch);
			return;
		}
		if (g.first_branch && !g.first_branch_floor && branch < g.first_branch) {
			snprintf(why, cap, "R%d predates %s (first R%d)", branch, gpus[i].label, g.first_branch);
			return;
		}
	}
}

/* A torch build's arch list against each GPU: SASS of the same major and no higher minor, or
 * PTX of an arch no higher. */
static inline void advice_wheel_check(const char *release, const char *variant, const struct gpu_spec *gpus,
				      size_t n, char *why, size_t cap)
{
	const struct kb_torch_build *b = NULL;

	for (size_t i = 0; i < kb_torch_count(); i++) {
		const struct kb_torch_build *t = kb_torch_at(i);

		if (strcmp(t->release, release) == 0 && strcmp(t->variant, variant) == 0 &&
		    strcmp(t->platform, "x86_64") == 0)
			b = t;
	}
	if (!b) {
		snprintf(why, cap, "torch %s %s is not in kb/torch.tsv", release, variant);
		return;
	}
	for (size_t g = 0; g < n; g++) {
		int cc = gpus[g].arch.num;
		bool runs = b->has_ptx && b->ptx.num <= cc;

		for (size_t k = 0; k < b->n_archs && !runs; k++)
			runs = !b->archs[k].suffix && b->archs[k].num / 10 == cc / 10 && b->archs[k].num <= cc;
		if (!runs) {
			snprintf(why, cap, "torch %s %s carries no code for %s (sm_%d)", release, variant, gpus[g].label, cc);
			return;
		}
	}
}

/* Every advice in text. want_major: the CUDA major NVIDIA packages must name (0: any).
 * Returns the first broken rule as a message in why (empty: none), and counts what it saw. */
static inline void advice_check_text(const char *text, const struct gpu_spec *gpus, size_t n, int want_major,
				     struct advice_seen *seen, char *why, size_t cap)
{
	const char *p;

	why[0] = '\0';
	for (p = text; (p = strstr(p, "nvidia-driver-")) && !why[0]; p++) {
		int branch = atoi(p + 14);

		if (branch < 100)
			continue; /* nvidia-driver-{need_branch} in a template is not advice */
		seen->branches++;
		advice_branch_check(branch, gpus, n, why, cap);
	}
	for (p = text; (p = strstr(p, "torch==")) && !why[0]; p++) {
		char release[32] = "", variant[16] = "";
		const char *u = strstr(p, "/whl/");
		const char *nl = strpbrk(p, "\"\n");

		if (!u || (nl && u > nl) || sscanf(p + 7, "%31[0-9.]", release) != 1 || sscanf(u + 5, "%15[a-z0-9]", variant) != 1)
			continue;
		seen->wheels++;
		advice_wheel_check(release, variant, gpus, n, why, cap);
	}
	for (p = text; (p = strstr(p, "-cu")) && want_major && !why[0]; p++) {
		const char *s = p;
		int major;

		while (s > text && (s[-1] == '-' || (s[-1] >= 'a' && s[-1] <= 'z')))
			s--;
		if (strncmp(s, "nvidia-", 7) != 0 || sscanf(p + 3, "%d", &major) != 1)
			continue;
		seen->packages++;
		if (major != want_major)
			snprintf(why, cap, "%.*s names CUDA %d, the library is CUDA %d", (int)(p + 5 - s), s, major, want_major);
	}
}

#endif
