/* The stack's facts: probes in the order that lets later ones use earlier results (Python's
 * site-packages feed the toolkit and runtime searches), then the kb's knowledge beside them
 * (the run context gave the driver facts theirs before the driver rules ran). */
#include "probe/stack.h"

#include <stdlib.h>
#include <string.h>

#include "facts/kb.h"
#include "os/env.h"
#include "util/err.h"

int stack_probe(struct stack_facts *df, const struct stack_opts *o, char *err)
{
	struct toolkits_opts to = { 0 };
	struct runtimes_opts ro = { 0 };
	struct python_opts po = { .home = os_getenv("HOME") };
	struct win_side_opts wo;
	/* the Windows side's drive and PATH, where this machine has one it can read (WSL2's /mnt/c) */
	char *win = malloc(2 * FACTS_PATH);
	bool windows;
	int rc;

	memset(df, 0, sizeof *df);
	if (!win)
		return cd_fail(err, CD_ENOMEM, "doctor: out of memory");
	windows = win_side_locate(&wo, win, win + FACTS_PATH, FACTS_PATH);
	po.win_root = windows ? wo.root : NULL;
	po.win_registry = windows && wo.registry;
	if ((rc = python_probe(&df->py, &po, err)) != CD_OK)
		goto fail;
	to.root = o->root;
	to.site_dirs = (const char *const *)df->py.site_dirs;
	to.n_site_dirs = df->py.n_site_dirs;
	to.list_archs = o->list_archs;
	if ((rc = toolkits_probe(&df->tk, &to, err)) != CD_OK)
		goto fail;
	ro.root = o->root;
	ro.site_dirs = to.site_dirs;
	ro.n_site_dirs = to.n_site_dirs;
	if ((rc = runtimes_probe(&df->rt[0], &ro, err)) != CD_OK)
		goto fail;
	df->n_rt = 1;
	for (size_t l = 0; runtime_libraries[l] && df->n_rt < STACK_MAX_RUNTIME_SETS; l++) {
		ro.library = runtime_libraries[l];
		if ((rc = runtimes_probe(&df->rt[df->n_rt], &ro, err)) != CD_OK)
			goto fail;
		df->n_rt++;
	}
	wo.py = &df->py;
	if (windows && (rc = win_side_probe(&df->win, &wo, err)) != CD_OK)
		goto fail;
	free(win);
	return CD_OK;
fail:
	free(win);
	stack_facts_free(df);
	return rc;
}

int stack_join(struct stack_facts *df, const struct gpu_probe *gp, const struct platform_info *pf, char *err)
{
	df->gp = gp;
	df->pf = pf;
	/* without the kb the rules still run, on the collected facts alone */
	if (facts_add_kb(NULL, &df->tk, df->rt, df->n_rt, &df->py, df->kb_error) == CD_ENOMEM) {
		stack_facts_free(df);
		return cd_fail(err, CD_ENOMEM, "doctor: out of memory");
	}
	df->f.driver = df->gp;
	df->f.platform = df->pf;
	df->f.toolkits = &df->tk;
	df->f.runtimes = df->rt;
	df->f.n_runtime_sets = df->n_rt;
	df->f.python = &df->py;
	df->f.windows = &df->win;
	return CD_OK;
}

void stack_facts_free(struct stack_facts *df)
{
	toolkits_free(&df->tk);
	for (size_t l = 0; l < df->n_rt; l++)
		runtimes_free(&df->rt[l]);
	python_free(&df->py);
	win_side_free(&df->win);
	memset(df, 0, sizeof *df);
}
