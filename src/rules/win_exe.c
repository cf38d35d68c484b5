/* A Windows program's CUDA DLLs against where Windows would load each from (probe/win_exe.c):
 * one it cannot find stops the program before main ("The code execution cannot proceed because
 * X.dll was not found"), and a stray copy in System32, the Windows folder or the current folder
 * runs instead of the one on PATH. */
#include <stdio.h>
#include <string.h>

#include "rules/catalogue.h"
#include "rules/internal.h"
#include "rules/rules.h"
#include "util/err.h"

/* dir\name's folder: "C:\a\b" of "C:\a\b\x.dll". */
static int dir_len(const char *win_path)
{
	const char *b = strrchr(win_path, '\\');

	return b ? (int)(b - win_path) : 0;
}

/* the values every finding of one imported DLL fills */
static void dll_vars(struct finding_vars *v, const struct win_exe *x, const struct win_exe_dll *d)
{
	finding_vars_init(v);
	finding_var(v, "dll", "%s", d->dll);
	finding_var(v, "exe", "%s", x->exe);
	finding_var(v, "app_dir", "%s", x->app_dir);
}

static int not_found(const struct win_exe *x, const struct win_exe_dll *d, struct report *r)
{
	const char *row = d->elsewhere[0] ? "win-exe-dll-not-found/elsewhere"
			  : d->other_major[0] ? "win-exe-dll-not-found/other-major"
					      : "win-exe-dll-not-found/missing";
	struct finding_vars v;
	struct finding *f;
	bool oom = false;

	dll_vars(&v, x, d);
	if (d->elsewhere[0]) {
		finding_var(&v, "elsewhere", "%s", d->elsewhere);
		finding_var(&v, "elsewhere_dir", "%.*s", dir_len(d->elsewhere), d->elsewhere);
	}
	if (d->other_major[0])
		finding_var(&v, "other_major", "%s", d->other_major);
	f = finding_make(r, SEV_CATALOGUE, row, x->exe, &v);
	oom |= !f;
	oom |= finding_evidence(f, "%s imports %s", x->exe, d->dll) != CD_OK;
	if (x->windows)
		oom |= finding_evidence(f, "not in %s, System32, System, the Windows folder, %s or %s", x->app_dir,
					x->cwd[0] ? "the current folder" : "the current folder (not known here)",
					x->path_known ? "PATH's folders" : "PATH (not known here)") != CD_OK;
	else
		oom |= finding_evidence(f, "not in %s (no Windows drive found to search the rest of the order on)",
					x->app_dir) != CD_OK;
	if (d->elsewhere[0])
		oom |= finding_evidence(f, "a copy in a toolkit folder that is not on PATH: %s", d->elsewhere) != CD_OK;
	if (d->other_major[0])
		oom |= finding_evidence(f, "another release's %s is there, which does not stand in for %s", d->other_major,
					d->dll) != CD_OK;
	return rules_status(oom);
}

static int shadowed(const struct win_exe *x, const struct win_exe_dll *d, struct report *r)
{
	struct finding_vars v;
	struct finding *f;
	bool oom = false;

	dll_vars(&v, x, d);
	finding_var(&v, "loads", "%s", d->loads);
	finding_var(&v, "from", "%s", win_exe_step_names[d->step]);
	finding_var(&v, "shadowed", "%s", d->shadowed);
	f = finding_make(r, SEV_CATALOGUE, "win-exe-dll-shadowed", x->exe, &v);
	oom |= !f;
	oom |= finding_evidence(f, "%s imports %s", x->exe, d->dll) != CD_OK;
	oom |= finding_evidence(f, "loads %s (%s) ahead of %s (%s)", d->loads, win_exe_step_names[d->step], d->shadowed,
				win_exe_step_names[d->shadowed_step]) != CD_OK;
	return rules_status(oom);
}

/* Imports that name no DLL file: a crafted or corrupt import table. Named in the evidence, and
 * in no fix line: a name that is no file name goes into no command. */
static int malformed_imports(const struct win_exe *x, struct report *r)
{
	struct finding_vars v;
	struct finding *f;
	bool oom = false;

	finding_vars_init(&v);
	finding_var(&v, "count", "%zu", x->n_malformed);
	finding_flag(&v, "one", x->n_malformed == 1);
	f = finding_make(r, SEV_WARN, "win-exe-import-malformed", x->exe, &v);
	if (!f)
		return CD_ENOMEM;
	for (size_t i = 0; i < x->n_malformed && i < WIN_EXE_MALFORMED_KEPT; i++)
		oom |= finding_evidence(f, "imports \"%s\"", x->malformed[i]) != CD_OK;
	if (x->n_malformed > WIN_EXE_MALFORMED_KEPT)
		oom |= finding_evidence(f, "and %zu more", x->n_malformed - WIN_EXE_MALFORMED_KEPT) != CD_OK;
	return rules_status(oom);
}

int rules_win_exe(const struct win_exe *x, struct report *r)
{
	int rc = CD_OK;

	if (x->n_malformed > 0)
		rc = malformed_imports(x, r);
	for (size_t i = 0; i < x->n && rc == CD_OK; i++) {
		const struct win_exe_dll *d = &x->d[i];
		/* a copy beside the program is the one it ships; PATH's order is the user's choice */
		bool stray = d->step == WEXE_SYSTEM32 || d->step == WEXE_SYSTEM16 || d->step == WEXE_WINDOWS ||
			     d->step == WEXE_CWD;

		if (!d->loads[0])
			rc = not_found(x, d, r);
		else if (stray && d->shadowed[0] && d->shadowed_step >= 0)
			rc = shadowed(x, d, r);
	}
	return rc;
}
