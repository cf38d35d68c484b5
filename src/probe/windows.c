/* A Windows drive's CUDA toolkits, read as files wherever the drive is (C:\, /mnt/c, a test's
 * tree): the CUDA_PATH variables, the installer's default folder and PATH's nvcc.exe. */
#include "probe/windows.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binfmt/pe.h"
#include "kb/vendor_libs.h"
#include "os/env.h"
#include "os/host.h"
#include "os/registry.h"
#include "probe/paths.h"
#include "probe/platform.h"
#include "probe/toolkits.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"
#include "util/strindex.h"

/* Where NVIDIA's installer puts each release: v12.4, v13.0 */
#define DEFAULT_FOLDER "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"

static bool drive_path(const char *s)
{
	return isalpha((unsigned char)s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/' || s[2] == '\0');
}

/* "." and ".." folded out of a drive path in place: "C:\Windows\.\x\..\System32" is
 * "C:\Windows\System32" (".." at the root stays there, as Windows reads it). */
static void fold_dots(char *s)
{
	char out[PROBE_PATH];
	size_t w = 3;
	const char *r = s + 3;

	if (!drive_path(s) || s[2] != '\\' || strlen(s) >= sizeof out)
		return;
	memcpy(out, s, 3);
	while (*r) {
		size_t len = strcspn(r, "\\");

		if (len == 2 && r[0] == '.' && r[1] == '.') {
			if (w > 3) { /* back over the last name and its separator */
				w--;
				while (w > 3 && out[w - 1] != '\\')
					w--;
			}
		} else if (len > 0 && !(len == 1 && r[0] == '.')) {
			memcpy(out + w, r, len);
			w += len;
			out[w++] = '\\';
		}
		r += len;
		if (*r == '\\')
			r++;
	}
	if (w > 3)
		w--; /* no separator after the last name */
	out[w] = '\0';
	memcpy(s, out, w + 1);
}

/* "c:/x/./y/../z\" -> "C:\x\z"; "C:" -> "C:\". */
static void win_normalise(const char *in, char *out, size_t n)
{
	size_t len;

	snprintf(out, n, "%s", in);
	for (char *p = out; *p; p++)
		if (*p == '/')
			*p = '\\';
	fold_dots(out);
	if (drive_path(out))
		out[0] = (char)toupper((unsigned char)out[0]);
	len = strlen(out);
	while (len > 3 && out[len - 1] == '\\')
		out[--len] = '\0';
	if (len == 2 && drive_path(out) && n > 3) {
		out[2] = '\\';
		out[3] = '\0';
	}
}

bool win_path_local(const char *root, const char *win, char *out, size_t n)
{
	char base[PROBE_PATH];
	size_t len = strlen(root);
	int k;

	out[0] = '\0';
	if (!drive_path(win) || len >= sizeof base)
		return false;
	memcpy(base, root, len + 1);
	if (len == 2 && base[1] == ':') {
		/* on Windows itself the root is a drive ("C:"), and every drive is its own */
		base[0] = win[0];
	} else if (tolower((unsigned char)win[0]) != 'c') {
		/* /mnt/c's neighbours are the other drives */
		if (len < 2 || base[len - 2] != '/' || tolower((unsigned char)base[len - 1]) != 'c')
			return false;
		base[len - 1] = (char)tolower((unsigned char)win[0]);
	}
	while (len > 1 && base[len - 1] == '/')
		base[--len] = '\0';
	k = snprintf(out, n, "%s/%s", base, win[2] ? win + 3 : "");
	if (k < 0 || (size_t)k >= n) {
		out[0] = '\0';
		return false;
	}
	for (char *p = out + len; *p; p++)
		if (*p == '\\')
			*p = '/';
	for (size_t l = strlen(out); l > 1 && out[l - 1] == '/'; l--)
		out[l - 1] = '\0';
	return true;
}

bool win_path_windows(const char *root, const char *local, char *out, size_t n)
{
	size_t len = strlen(root);
	char drive = 'C';
	const char *rest;
	int k;

	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len == 0) {
		out[0] = '\0';
		return false; /* no drive to name it on */
	}
	if (len == 2 && root[1] == ':' && isalpha((unsigned char)local[0]) && local[1] == ':') {
		/* on Windows itself: a local path is already one */
		drive = (char)toupper((unsigned char)local[0]);
		rest = local + 2;
	} else if (strncmp(local, root, len) == 0 && (local[len] == '/' || local[len] == '\0')) {
		rest = local + len;
	} else if (len >= 2 && root[len - 2] == '/' && tolower((unsigned char)root[len - 1]) == 'c' &&
		   strncmp(local, root, len - 1) == 0 && isalpha((unsigned char)local[len - 1]) &&
		   (local[len] == '/' || local[len] == '\0')) {
		drive = (char)toupper((unsigned char)local[len - 1]);
		rest = local + len;
	} else {
		out[0] = '\0';
		return false;
	}
	while (*rest == '/')
		rest++;
	k = snprintf(out, n, "%c:\\%s", drive, rest);
	if (k < 0 || (size_t)k >= n) {
		out[0] = '\0';
		return false;
	}
	for (char *p = out; *p; p++)
		if (*p == '/')
			*p = '\\';
	return true;
}

/* The toolkits found so far by their case-folded Windows path, and the room w->t has: a folder
 * of 20,000 release folders is added in linear time. */
struct tk_index {
	struct strindex ix;
	char **keys;              /* the folded paths ix borrows, one per toolkit */
	size_t cap;
};

static void tk_index_free(struct tk_index *tx)
{
	for (size_t i = 0; tx->keys && tx->keys[i]; i++)
		free(tx->keys[i]);
	free(tx->keys);
	strindex_free(&tx->ix);
}

static struct win_toolkit *add_toolkit(struct win_side *w, struct tk_index *tx, const char *root, const char *win,
				       unsigned by)
{
	char norm[FACTS_PATH], *key;
	struct win_toolkit *t;
	size_t at;

	win_normalise(win, norm, sizeof norm);
	if (!drive_path(norm))
		return NULL;
	if (!(key = strdup(norm))) {
		w->oom = true;
		return NULL;
	}
	for (char *p = key; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strindex_get(&tx->ix, key, strlen(key), &at)) {
		free(key);
		w->t[at].found_by |= by;
		return &w->t[at];
	}
	if (w->n == tx->cap) {
		size_t cap = tx->cap ? tx->cap * 2 : 8;
		struct win_toolkit *nt = realloc(w->t, cap * sizeof *nt);
		char **nk = nt ? realloc(tx->keys, (cap + 1) * sizeof *nk) : NULL;

		if (nt)
			w->t = nt;
		if (!nk) {
			free(key);
			w->oom = true;
			return NULL;
		}
		tx->keys = nk;
		tx->cap = cap;
	}
	tx->keys[w->n] = key;
	tx->keys[w->n + 1] = NULL;
	if (strindex_put(&tx->ix, key, strlen(key), w->n, NULL) != CD_OK) {
		w->oom = true;
		return NULL;
	}
	t = &w->t[w->n++];
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s", norm);
	win_path_local(root, norm, t->local, sizeof t->local);
	t->found_by = by;
	t->path_rank = -1;
	return t;
}

static void add_var(struct win_toolkit *t, const char *name, size_t len)
{
	size_t used = strlen(t->vars);

	if (used + len + 2 < sizeof t->vars)
		snprintf(t->vars + used, sizeof t->vars - used, "%s%.*s", used ? " " : "", (int)len, name);
}

/* CUDA_PATH and every CUDA_PATH_Vx_y, in the environment's order. */
static void from_env(struct win_side *w, struct tk_index *tx, const struct win_side_opts *o)
{
	for (size_t i = 0; o->env[i] && !w->oom; i++) {
		const char *e = o->env[i], *eq = strchr(e, '=');
		size_t len = eq ? (size_t)(eq - e) : 0;
		bool plain = len == 9 && strncasecmp(e, "CUDA_PATH", 9) == 0;
		bool versioned = len > 11 && strncasecmp(e, "CUDA_PATH_V", 11) == 0;
		struct win_toolkit *t;

		if (!plain && !versioned)
			continue;
		if (plain)
			snprintf(w->cuda_path, sizeof w->cuda_path, "%s", eq + 1);
		if ((t = add_toolkit(w, tx, o->root, eq + 1, plain ? WTK_CUDA_PATH : WTK_CUDA_PATH_V)) != NULL)
			add_var(t, e, len);
	}
}

static bool is_release_dir(const char *name, void *arg)
{
	(void)arg;
	return (name[0] == 'v' || name[0] == 'V') && isdigit((unsigned char)name[1]);
}

static void from_default_folder(struct win_side *w, struct tk_index *tx, const struct win_side_opts *o)
{
	char local[PROBE_PATH], win[PROBE_PATH];
	char **names;
	size_t n;

	if (!win_path_local(o->root, DEFAULT_FOLDER, local, sizeof local))
		return;
	if (dir_names(local, is_release_dir, NULL, &names, &n) != CD_OK) {
		w->oom = true;
		return;
	}
	for (size_t i = 0; i < n && !w->oom; i++) {
		snprintf(win, sizeof win, "%s\\%s", DEFAULT_FOLDER, names[i]);
		add_toolkit(w, tx, o->root, win, WTK_DEFAULT);
	}
	names_free(names, n);
}

void win_path_each(const char *root, const char *path,
		   bool (*fn)(char *dir, const char *local, int rank, void *arg), void *arg)
{
	int rank = 0;

	while (path && *path) {
		const char *end = strchr(path, ';');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		char raw[PROBE_PATH], dir[PROBE_PATH], local[PROBE_PATH];

		if (len > 0 && len < sizeof raw) {
			memcpy(raw, path, len);
			raw[len] = '\0';
			win_normalise(str_trim(raw), dir, sizeof dir);
			if (win_path_local(root, dir, local, sizeof local) && fn(dir, local, rank, arg))
				return;
			rank++;
		}
		path = end ? end + 1 : NULL;
	}
}

struct path_toolkits {
	struct win_side *w;
	struct tk_index *tx;
	const char *root;
};

static bool path_toolkit(char *dir, const char *local, int rank, void *arg)
{
	struct path_toolkits *pt = arg;
	char nvcc[PROBE_PATH], *sep;
	struct win_toolkit *t;

	if (path_join(nvcc, sizeof nvcc, local, "nvcc.exe") != CD_OK || !path_is_file(nvcc))
		return pt->w->oom;
	if ((sep = strrchr(dir, '\\')) != NULL && sep > dir + 2)
		*sep = '\0'; /* the toolkit is the folder above bin */
	if ((t = add_toolkit(pt->w, pt->tx, pt->root, dir, WTK_PATH)) != NULL && t->path_rank < 0)
		t->path_rank = rank;
	return pt->w->oom;
}

/* Each folder of PATH with an nvcc.exe: the toolkit above its bin. */
static void from_path(struct win_side *w, struct tk_index *tx, const struct win_side_opts *o)
{
	struct path_toolkits pt = { w, tx, o->root };

	win_path_each(o->root, o->path, path_toolkit, &pt);
}

static bool is_cudart_dll(const char *name, void *arg)
{
	struct version v;

	(void)arg;
	return version_of_dll_name(name, "cudart", &v);
}

static void fill(struct win_toolkit *t, bool *oom)
{
	char p[PROBE_PATH], bin[PROBE_PATH];
	const char *src = NULL;
	char **names;
	size_t n;

	t->exists = t->local[0] && path_is_dir(t->local);
	if (!t->exists || path_join(bin, sizeof bin, t->local, "bin") != CD_OK)
		return;
	t->has_nvcc = path_join(p, sizeof p, bin, "nvcc.exe") == CD_OK && path_is_file(p);
	if (toolkit_version_from_files(t->local, t->version_text, sizeof t->version_text, &src) == CD_OK &&
	    version_parse(t->version_text, &t->version) == CD_OK) {
		t->version_source = src;
		return;
	}
	t->version_text[0] = '\0';
	/* a toolkit without version.json still names its runtime's release: cudart64_12.dll */
	if (dir_names(bin, is_cudart_dll, NULL, &names, &n) != CD_OK) {
		*oom = true;
		return;
	}
	if (n > 0 && version_of_dll_name(names[n - 1], "cudart", &t->version)) {
		version_format(&t->version, 2, t->version_text, sizeof t->version_text);
		t->version_source = "cudart64_*.dll";
	}
	names_free(names, n);
}

/* --- the CUDA DLLs a Windows Python module would load, and from where ------------------- */

struct on_path {
	struct win_dirs *c;
	struct win_dll_load *d;
	const char *root;
	bool *oom;
};

static bool dll_on_path(char *dir, const char *local, int rank, void *arg)
{
	struct on_path *op = arg;
	char hit[PROBE_PATH];

	(void)dir;
	(void)rank;
	if (!win_dirs_find(op->c, local, op->d->dll, hit, sizeof hit, op->oom))
		return *op->oom;
	win_path_windows(op->root, hit, op->d->on_path, sizeof op->d->on_path);
	return true;
}

struct module_dirs {
	const char *dir[4];           /* Python 3.8+'s order for an extension module's DLLs */
	const char *from[4];
};

void win_dll_search(struct win_dirs *c, const char *root, const struct win_dll_dir *dirs, size_t n,
		    const char *name, struct win_dll_hits *h, bool *oom)
{
	const char *const *names;
	char hit[PROBE_PATH];
	size_t count, id;

	memset(h, 0, sizeof *h);
	h->at = h->second_at = -1;
	win_dirs_search(c);
	for (size_t i = 0; i < n && h->second_at < 0 && !*oom; i++) {
		if (!dirs[i].local || !dirs[i].local[0])
			continue;
		if (!win_dirs_list(c, dirs[i].local, &names, &count, &id)) {
			*oom = true;
			break;
		}
		/* a folder named twice (PATH repeats System32) is one place: its copy is found once */
		if (!win_dirs_visit(c, id) || !win_dirs_find(c, dirs[i].local, name, hit, sizeof hit, oom))
			continue;
		char *out = h->at < 0 ? h->first : h->second;
		if (!win_path_windows(root, hit, out, sizeof h->first))
			snprintf(out, sizeof h->first, "%s", hit); /* a folder on no drive keeps its own name */
		*(h->at < 0 ? &h->at : &h->second_at) = (int)i;
	}
}

static void resolve(struct win_dirs *c, struct win_dll_load *d, const struct module_dirs *md,
		    const struct win_side_opts *o, bool *oom)
{
	struct win_dll_dir dirs[4];
	struct win_dll_hits h;

	for (size_t i = 0; i < 4; i++)
		dirs[i] = (struct win_dll_dir){ md->dir[i], (int)i, -1 };
	win_dll_search(c, o->root, dirs, 4, d->dll, &h, oom);
	if (h.at >= 0) {
		snprintf(d->loads, sizeof d->loads, "%s", h.first);
		d->from = md->from[h.at];
	}
	if (h.second_at >= 0)
		snprintf(d->shadowed, sizeof d->shadowed, "%s", h.second);
	/* PATH, which an extension module's DLLs are not looked for in since Python 3.8 */
	struct on_path op = { c, d, o->root, oom };
	win_path_each(o->root, o->path, dll_on_path, &op);
}

/* The CUDA major a module was built for, from the runtime or cuBLAS it imports. */
static int module_cuda_major(const char *const *imports, size_t n)
{
	struct version v;

	for (size_t i = 0; i < n; i++)
		if (version_of_dll_name(imports[i], "cudart", &v) || version_of_dll_name(imports[i], "cublas", &v))
			return v.major;
	return 0;
}

static void module_loads(struct win_dirs *c, struct win_side *w, const struct win_side_opts *o,
			 const struct py_framework *fw, const char *file, const struct module_dirs *md_env)
{
	struct module_dirs md = *md_env;
	struct mapped_file mf;
	struct pe_file pe;
	const char *imports[64];
	char dir[PROBE_PATH], err[CD_ERRMSG];
	size_t n;
	int major;

	if (file_map(file, &mf, err) != CD_OK)
		return;
	if (!mf.data || !pe_has_magic(mf.data, mf.size) || pe_open(&pe, mf.data, mf.size, err) != CD_OK)
		goto out;
	snprintf(dir, sizeof dir, "%s", file);
	path_parent(dir);
	md.dir[0] = dir;
	n = pe_imports(&pe, imports, sizeof imports / sizeof imports[0]);
	major = module_cuda_major(imports, n);
	for (size_t i = 0; i < n && !w->oom; i++) {
		const char *wheel = kb_vendor_wheel(imports[i]);
		struct win_dll_load *nd, *d;

		if (!wheel || !pe_dll_name_ok(imports[i]) || strlen(imports[i]) >= sizeof d->dll)
			continue;
		if (!(nd = realloc(w->dll, (w->n_dll + 1) * sizeof *nd))) {
			w->oom = true;
			break;
		}
		w->dll = nd;
		d = &w->dll[w->n_dll++];
		memset(d, 0, sizeof *d);
		win_path_windows(o->root, file, d->module, sizeof d->module);
		snprintf(d->dll, sizeof d->dll, "%s", imports[i]);
		snprintf(d->python, sizeof d->python, "%s", fw->win_python);
		d->wheel = wheel;
		d->cuda_major = major;
		resolve(c, d, &md, o, &w->oom);
	}
out:
	file_unmap(&mf);
}

static void from_frameworks(struct win_side *w, const struct win_side_opts *o)
{
	struct win_dirs *c = win_dirs_new();
	char system32[PROBE_PATH];

	if (!c) {
		w->oom = true;
		return;
	}
	if (!win_path_local(o->root, "C:\\Windows\\System32", system32, sizeof system32))
		system32[0] = '\0';
	for (size_t i = 0; o->py && i < o->py->n_fw && !w->oom; i++) {
		const struct py_framework *fw = &o->py->fw[i];
		char exe_dir[PROBE_PATH], torch_lib[PROBE_PATH];
		struct module_dirs md = { { NULL, exe_dir, torch_lib, system32 },
					  { "module folder", "python.exe folder", "torch\\lib", "System32" } };

		if (!fw->win_env || !win_path_local(o->root, fw->win_python, exe_dir, sizeof exe_dir))
			continue;
		path_parent(exe_dir);
		/* torch adds torch\lib with os.add_dll_directory when it is imported */
		if (path_join(torch_lib, sizeof torch_lib, exe_dir, "Lib/site-packages/torch/lib") != CD_OK ||
		    !path_is_dir(torch_lib))
			torch_lib[0] = '\0';
		for (size_t k = 0; k < fw->n_code && !w->oom; k++)
			module_loads(c, w, o, fw, fw->code[k], &md);
	}
	win_dirs_free(c);
}

/* --- the registry: the GPU watchdog and scheduling ------------------------------------- */

#define GRAPHICS_DRIVERS "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"

static void reg_dword(const char *name, struct win_reg_dword *out)
{
	int rc = os_registry_hklm_dword(GRAPHICS_DRIVERS, name, &out->value);

	out->state = rc == 0 ? WREG_SET : rc == -ENOENT ? WREG_UNSET : WREG_UNREAD;
}

static void from_registry(struct win_side *w, const struct win_side_opts *o)
{
	if (!o->registry) {
		/* Windows' registry is not a file a WSL2 distribution can read */
		w->registry_note = "not readable from WSL2";
		return;
	}
	reg_dword("TdrDelay", &w->tdr_delay);
	reg_dword("TdrLevel", &w->tdr_level);
	reg_dword("HwSchMode", &w->hw_sch_mode);
	if (w->tdr_delay.state == WREG_UNREAD && w->tdr_level.state == WREG_UNREAD)
		w->registry_note = "not readable";
}

int win_side_probe(struct win_side *w, const struct win_side_opts *o, char *err)
{
	struct win_toolkit *first = NULL;
	struct tk_index tx = { 0 };

	memset(w, 0, sizeof *w);
	if (!o->root || !o->root[0])
		return CD_OK;
	w->read = true;
	w->from = o->from;
	snprintf(w->root, sizeof w->root, "%s", o->root);
	w->env_visible = o->env != NULL;
	strindex_init(&tx.ix);
	if (o->env)
		from_env(w, &tx, o);
	from_default_folder(w, &tx, o);
	from_path(w, &tx, o);
	tk_index_free(&tx);
	from_frameworks(w, o);
	from_registry(w, o);
	if (o->py) {
		w->py_registry = o->py->win_registry;
		w->py_registered = o->py->n_win_registered;
	}
	for (size_t i = 0; i < w->n && !w->oom; i++) {
		struct win_toolkit *t = &w->t[i];
		fill(t, &w->oom);
		if (t->has_nvcc && t->path_rank >= 0 && (!first || t->path_rank < first->path_rank))
			first = t;
	}
	if (w->oom) {
		win_side_free(w);
		return cd_fail(err, CD_ENOMEM, "windows: out of memory");
	}
	if (first)
		first->wins = true;
	return CD_OK;
}

void win_side_free(struct win_side *w)
{
	free(w->t);
	free(w->dll);
	memset(w, 0, sizeof *w);
}

bool win_side_locate(struct win_side_opts *o, char *root_buf, char *path_buf, size_t n)
{
	const char *path = os_getenv("PATH");
	size_t used = 0;

	memset(o, 0, sizeof *o);
	if (!os_is_linux()) {
		/* this is Windows: its system drive, its environment, its PATH and its registry */
		const char *drive = os_getenv("SystemDrive");

		snprintf(root_buf, n, "%.2s", drive && isalpha((unsigned char)drive[0]) && drive[1] == ':' ? drive : "C:");
		char top[4];
		snprintf(top, sizeof top, "%s/", root_buf); /* "C:" alone is the drive's current folder */
		if (!path_is_dir(top))
			return false;
		o->root = root_buf;
		o->from = "this Windows";
		o->env = os_environ();
		snprintf(path_buf, n, "%s", path ? path : "");
		o->path = path_buf;
		o->registry = true;
		return true;
	}
	if (!platform_wsl(NULL) || host_path(root_buf, n, NULL, "/mnt/c") != CD_OK || !path_is_dir(root_buf))
		return false;
	o->root = root_buf;
	o->from = "WSL2 (/mnt/c)";
	/* WSL appends Windows' PATH as /mnt/X/... folders: those, in Windows form, are its PATH */
	path_buf[0] = '\0';
	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);

		if (len >= 6 && strncmp(path, "/mnt/", 5) == 0 && isalpha((unsigned char)path[5]) &&
		    (len == 6 || path[6] == '/') && used + len + 4 < n) {
			int k = snprintf(path_buf + used, n - used, "%s%c:\\%.*s", used ? ";" : "",
					 toupper((unsigned char)path[5]), len > 7 ? (int)(len - 7) : 0, path + 7);
			for (char *p = path_buf + used; k > 0 && *p; p++)
				if (*p == '/')
					*p = '\\';
			used += k > 0 ? (size_t)k : 0;
		}
		path = end ? end + 1 : NULL;
	}
	o->path = path_buf;
	return true;
}
