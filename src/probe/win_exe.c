/* A Windows program's CUDA DLLs and where Windows would load each from: the standard search
 * order for desktop applications with SafeDllSearchMode on, after KnownDLLs (Microsoft's
 * "Dynamic-link library search order",
 * https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order). */
#include "probe/win_exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/pe.h"
#include "kb/vendor_libs.h"
#include "os/fs.h"
#include "probe/paths.h"
#include "util/file.h"
#include "util/err.h"

/* The folders searched, in order; PATH's beyond this many are not (Windows caps PATH at 32767
 * characters, a few hundred folders). */
#define MAX_DIRS 260

bool win_exe_is_program(const unsigned char *data, size_t size)
{
	struct pe_file pe;
	char err[CD_ERRMSG];

	return pe_has_magic(data, size) && pe_open(&pe, data, size, err) == CD_OK &&
	       (pe.characteristics & PE_FILE_EXECUTABLE) && !(pe.characteristics & PE_FILE_DLL);
}

struct dirs {
	struct win_dll_dir d[MAX_DIRS];
	char *own[MAX_DIRS];          /* the strings d[].local points at, freed at the end */
	size_t n;
	bool oom;
};

static void add_dir(struct dirs *ds, const char *local, int step, int rank)
{
	char *copy;

	if (ds->n >= MAX_DIRS || !local || !local[0])
		return;
	if (!(copy = strdup(local))) {
		ds->oom = true;
		return;
	}
	ds->own[ds->n] = copy;
	ds->d[ds->n++] = (struct win_dll_dir){ copy, step, rank };
}

static void add_win_dir(struct dirs *ds, const char *root, const char *win, int step)
{
	char local[PROBE_PATH];

	if (win_path_local(root, win, local, sizeof local))
		add_dir(ds, local, step, -1);
}

static bool path_dir(char *dir, const char *local, int rank, void *arg)
{
	struct dirs *ds = arg;

	(void)dir;
	add_dir(ds, local, WEXE_PATH, rank);
	return ds->oom || ds->n >= MAX_DIRS;
}

/* The Windows folder: %SystemRoot% where the environment is seen, else Windows' default. */
static const char *windows_folder(const struct win_side_opts *s, char *buf, size_t n)
{
	for (size_t i = 0; s->env && s->env[i]; i++)
		if (strncasecmp(s->env[i], "SystemRoot=", 11) == 0 && s->env[i][11]) {
			snprintf(buf, n, "%s", s->env[i] + 11);
			return buf;
		}
	return "C:\\Windows";
}

/* The family part of a CUDA DLL's name, through its bits: "cudart64_" of cudart64_12.dll,
 * "nvinfer_" of nvinfer_10.dll. 0 when the name has no '_'. */
static size_t family_len(const char *dll)
{
	const char *u = NULL;

	for (const char *p = dll; *p; p++)
		if (strncasecmp(p, "64_", 3) == 0)
			return (size_t)(p - dll) + 3;
	u = strrchr(dll, '_');
	return u ? (size_t)(u - dll) + 1 : 0;
}

struct family {
	const char *dll;
	size_t len;
};

static bool same_family(const char *name, const struct family *f)
{
	size_t n = strlen(name);

	return n > f->len + 4 && strncasecmp(name, f->dll, f->len) == 0 && strcasecmp(name + n - 4, ".dll") == 0 &&
	       strcasecmp(name, f->dll) != 0;
}

/* A copy of dll's family under another name (another major) in dirs, in order: the last of a
 * folder's in its sorted listing. */
static void other_major(struct win_dirs *c, struct win_exe_dll *d, const char *root, const struct win_dll_dir *dirs,
			size_t n, bool *oom)
{
	struct family f = { d->dll, family_len(d->dll) };

	if (f.len == 0)
		return;
	for (size_t i = 0; i < n && !d->other_major[0] && !*oom; i++) {
		const char *const *names, *last = NULL;
		char local[PROBE_PATH];
		size_t k, id;

		if (!dirs[i].local || !dirs[i].local[0])
			continue;
		if (!win_dirs_list(c, dirs[i].local, &names, &k, &id)) {
			*oom = true;
			return;
		}
		for (size_t j = 0; j < k; j++)
			if (same_family(names[j], &f))
				last = names[j];
		if (last && path_join(local, sizeof local, dirs[i].local, last) == CD_OK &&
		    !win_path_windows(root, local, d->other_major, sizeof d->other_major))
			snprintf(d->other_major, sizeof d->other_major, "%s", local);
	}
}

/* The bin folders of the toolkits installed, which Windows searches only when PATH names them. */
static void toolkit_bins(struct dirs *tk, const struct win_side *ws)
{
	char bin[PROBE_PATH];

	for (size_t i = 0; ws && i < ws->n && !tk->oom; i++)
		if (ws->t[i].exists && path_join(bin, sizeof bin, ws->t[i].local, "bin") == CD_OK)
			add_dir(tk, bin, 0, -1);
}

static void dirs_free(struct dirs *ds)
{
	for (size_t i = 0; i < ds->n; i++)
		free(ds->own[i]);
	ds->n = 0;
}

static void resolve(struct win_dirs *c, struct win_exe_dll *d, const char *root, const struct dirs *ds,
		    const struct dirs *tk, bool *oom)
{
	struct win_dll_hits h;

	win_dll_search(c, root, ds->d, ds->n, d->dll, &h, oom);
	if (h.at >= 0) {
		snprintf(d->loads, sizeof d->loads, "%s", h.first);
		d->step = ds->d[h.at].step;
		d->path_rank = ds->d[h.at].rank;
	}
	if (h.second_at >= 0) {
		snprintf(d->shadowed, sizeof d->shadowed, "%s", h.second);
		d->shadowed_step = ds->d[h.second_at].step;
	}
	if (d->loads[0])
		return;
	/* the program cannot start: a copy Windows does not look at, or another major's */
	win_dll_search(c, root, tk->d, tk->n, d->dll, &h, oom);
	if (h.at >= 0)
		snprintf(d->elsewhere, sizeof d->elsewhere, "%s", h.first);
	other_major(c, d, root, ds->d, ds->n, oom);
	other_major(c, d, root, tk->d, tk->n, oom);
}

int win_exe_probe(struct win_exe *x, const char *file, const unsigned char *data, size_t size,
		  const struct win_exe_opts *o, char *err)
{
	const struct win_side_opts *s = o->side;
	const char *root = s && s->root ? s->root : "";
	struct dirs *ds = calloc(2, sizeof *ds), *tk;
	struct win_dirs *c = win_dirs_new();
	const char *imports[PE_MAX_IMPORTS];
	char local[PROBE_PATH], win[PROBE_PATH];
	struct pe_file pe;
	bool oom = false;
	size_t n;
	int rc = CD_OK;

	memset(x, 0, sizeof *x);
	if (!ds || !c) {
		free(ds);
		win_dirs_free(c);
		return cd_fail(err, CD_ENOMEM, "out of memory");
	}
	tk = ds + 1;
	if (!pe_has_magic(data, size) || (rc = pe_open(&pe, data, size, err)) != CD_OK) {
		rc = rc ? rc : cd_fail(err, CD_EFORMAT, "%s: not a PE file", file);
		goto out;
	}
	/* 7. the folder the program was loaded from */
	if (!path_real(file, local))
		snprintf(local, sizeof local, "%s", file);
	if (!win_path_windows(root, local, x->exe, sizeof x->exe))
		snprintf(x->exe, sizeof x->exe, "%s", local);
	path_parent(local);
	if (!win_path_windows(root, local, x->app_dir, sizeof x->app_dir))
		snprintf(x->app_dir, sizeof x->app_dir, "%s", local);
	add_dir(ds, local, WEXE_APP, -1);
	if (s && root[0]) {
		const char *windir = windows_folder(s, win, sizeof win);
		char sub[PROBE_PATH + 16];

		x->windows = true;
		x->from = s->from;
		/* 8. System32, 9. the 16-bit System folder, 10. the Windows folder */
		snprintf(sub, sizeof sub, "%s\\System32", windir);
		add_win_dir(ds, root, sub, WEXE_SYSTEM32);
		snprintf(sub, sizeof sub, "%s\\System", windir);
		add_win_dir(ds, root, sub, WEXE_SYSTEM16);
		add_win_dir(ds, root, windir, WEXE_WINDOWS);
		/* 11. the current folder: known when it is on the drive */
		if (o->cwd && win_path_windows(root, o->cwd, x->cwd, sizeof x->cwd))
			add_dir(ds, o->cwd, WEXE_CWD, -1);
		/* 12. PATH's folders */
		x->path_known = s->path != NULL;
		win_path_each(root, s->path, path_dir, ds);
		toolkit_bins(tk, o->ws);
	}
	oom = ds->oom || tk->oom;
	n = pe_imports(&pe, imports, PE_MAX_IMPORTS);
	for (size_t i = 0; i < n && !oom; i++) {
		struct win_exe_dll *nd, *d;
		const char *wheel;
		bool dup = false;

		/* never looked up, on disk or in the kb: a name that is no file name names no DLL */
		if (!pe_dll_name_ok(imports[i])) {
			if (x->n_malformed < WIN_EXE_MALFORMED_KEPT)
				snprintf(x->malformed[x->n_malformed], sizeof x->malformed[0], "%s", imports[i]);
			x->n_malformed++;
			continue;
		}
		if (!(wheel = kb_vendor_wheel(imports[i])) || strlen(imports[i]) >= sizeof d->dll)
			continue;
		for (size_t k = 0; k < x->n && !dup; k++)
			dup = strcasecmp(x->d[k].dll, imports[i]) == 0;
		if (dup)
			continue;
		if (!(nd = realloc(x->d, (x->n + 1) * sizeof *nd))) {
			oom = true;
			break;
		}
		x->d = nd;
		d = &x->d[x->n++];
		memset(d, 0, sizeof *d);
		snprintf(d->dll, sizeof d->dll, "%s", imports[i]);
		d->wheel = wheel;
		d->step = d->shadowed_step = d->path_rank = -1;
		resolve(c, d, root, ds, tk, &oom);
	}
	if (oom) {
		win_exe_free(x);
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
	}
out:
	dirs_free(ds);
	dirs_free(tk);
	free(ds);
	win_dirs_free(c);
	return rc;
}

int win_exe_probe_file(struct win_exe *x, const char *path, char *err)
{
	struct win_side_opts wo;
	struct win_side ws = { 0 };
	struct win_exe_opts xo = { 0 };
	struct mapped_file mf;
	/* the Windows side's drive and PATH, and this process's current folder */
	char *buf = malloc(3 * FACTS_PATH);
	int rc;

	memset(x, 0, sizeof *x);
	if (!buf)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	if ((rc = file_map(path, &mf, err)) != CD_OK)
		goto out;
	if (!mf.data || !win_exe_is_program(mf.data, mf.size))
		goto unmap;
	if (win_side_locate(&wo, buf, buf + FACTS_PATH, FACTS_PATH)) {
		xo.side = &wo;
		if ((rc = win_side_probe(&ws, &wo, err)) != CD_OK)
			goto unmap;
		xo.ws = &ws;
		if (os_getcwd(buf + 2 * FACTS_PATH, FACTS_PATH))
			xo.cwd = buf + 2 * FACTS_PATH;
	}
	rc = win_exe_probe(x, path, mf.data, mf.size, &xo, err);
	win_side_free(&ws);
unmap:
	file_unmap(&mf);
out:
	free(buf);
	return rc;
}

void win_exe_free(struct win_exe *x)
{
	free(x->d);
	memset(x, 0, sizeof *x);
}
