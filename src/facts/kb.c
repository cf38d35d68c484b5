/* The kb's knowledge beside each fact: lookups only, every field written once here. */
#include "facts/kb.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"
#include "util/err.h"
#include "util/str.h"

/* The oldest driver branch that runs CUDA v fully: its first release and its name. */
static bool branch_for(const struct version *v, char *min_driver, size_t n1, char *branch, size_t n2)
{
	const struct kb_driver_branch *b;

	if (v->parts == 0 || !(b = kb_driver_branch_for_cuda(v)))
		return false;
	version_format(&b->first_version, 3, min_driver, n1);
	snprintf(branch, n2, "R%d", b->branch);
	return true;
}

static void add_driver(struct gpu_probe *p)
{
	const struct kb_driver_branch *b;
	struct version dv;
	bool exact;

	if (driver_has(p, DF_VERSION) && version_parse(p->user_driver_version, &dv) == CD_OK &&
	    kb_driver_branch_of(&dv, &b, &exact) == CD_OK) {
		snprintf(p->kb_branch, sizeof p->kb_branch, "R%d", exact ? b->branch : dv.major);
		driver_mark(p, DF_BRANCH);
	}
}

static void add_gpus(struct gpu_probe *p)
{
	for (size_t i = 0; i < p->n_gpus; i++) {
		struct gpu_info *g = &p->gpus[i];
		const struct kb_toolkit *first = NULL, *last = NULL;
		struct kb_arch a = { .num = gpu_sm(g), .suffix = 0 };

		if (a.num > 0 && kb_arch_toolkit_range(a, &first, &last) == CD_OK) {
			snprintf(g->kb_first_toolkit, sizeof g->kb_first_toolkit, "%s", first ? first->release_text : "");
			snprintf(g->kb_last_toolkit, sizeof g->kb_last_toolkit, "%s", last ? last->release_text : "");
		}
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void add_toolkit(struct toolkit *t)
{
	struct toolkit_kb *k = &t->kb;
	const struct kb_toolkit *kt;

	branch_for(&t->version, k->min_driver, sizeof k->min_driver, k->min_branch, sizeof k->min_branch);
	if (t->version.parts == 0 || !(kt = kb_toolkit_find(&t->version)) || !kt->archs_known)
		return;
	for (size_t i = 0; i < kt->n_archs && k->n_archs < TOOLKIT_KB_MAX_ARCHS; i++) {
		bool dup = false;
		if (kt->archs[i].suffix != 0)
			continue;
		for (size_t j = 0; j < k->n_archs; j++)
			dup |= k->archs[j] == kt->archs[i].num;
		if (!dup)
			k->archs[k->n_archs++] = kt->archs[i].num;
	}
	cd_qsort(k->archs, k->n_archs, sizeof k->archs[0], cmp_int);
	k->known = k->n_archs > 0;
}

static void add_runtime(struct runtime *r)
{
	char branch[16];

	if (str_starts_with(r->soname, "libcudart"))
		branch_for(&r->version, r->kb_min_driver, sizeof r->kb_min_driver, branch, sizeof branch);
}

static void add_framework(struct py_framework *f)
{
	char branch[16];
	struct version v;

	/* a bare major (cupy-cuda12x) names no release */
	if (f->cuda[0] && strchr(f->cuda, '.') && version_parse(f->cuda, &v) == CD_OK)
		branch_for(&v, f->kb_min_driver, sizeof f->kb_min_driver, branch, sizeof branch);
}

int facts_add_kb(struct gpu_probe *p, struct toolkits *tk, struct runtimes *runtimes,
		 size_t n_runtime_sets, struct python_info *py, char *err)
{
	int rc = kb_load(err);

	if (rc != CD_OK)
		return rc;
	if (p) {
		add_driver(p);
		add_gpus(p);
	}
	for (size_t i = 0; tk && i < tk->n; i++)
		add_toolkit(&tk->t[i]);
	for (size_t s = 0; runtimes && s < n_runtime_sets; s++)
		for (size_t i = 0; i < runtimes[s].n; i++)
			add_runtime(&runtimes[s].r[i]);
	for (size_t i = 0; py && i < py->n_fw; i++)
		add_framework(&py->fw[i]);
	return CD_OK;
}
