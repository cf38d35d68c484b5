/* Python discovery from the filesystem: the environment cudoctor was started from (the
 * wheel's launcher), $VIRTUAL_ENV, $CONDA_PREFIX, then python3 on PATH (a venv's pyvenv.cfg,
 * a pyenv shim's selected version, or the real binary's prefix). Starting the interpreter
 * would cost ~20 ms and importing torch seconds. */
#include "probe/python.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "os/env.h"
#include "os/fs.h"
#include "probe/fw_files.h"
#include "probe/pep514.h"
#include "probe/vertext.h"
#include "probe/windows.h"
#include "util/err.h"
#include "util/file.h"
#include "util/str.h"

struct ctx {
	struct python_info *out;
	const struct python_opts *o;
	int rc;
	char pyver[32]; /* "python3.11" of the PATH interpreter, for the user site */
	char tool_env[PROBE_PATH]; /* pipx's or uvx's environment of cudoctor alone: not the user's */
	const char *win_env;       /* probing a Windows-side environment: its kind, and its python.exe */
	const char *win_python;
};

/* Whether prefix is the environment that holds cudoctor alone (pipx's, uvx's, a venv made for it). */
static bool is_tool_env(const struct ctx *c, const char *prefix)
{
	char real[PROBE_PATH];

	return c->tool_env[0] && path_real(prefix, real) && strcmp(real, c->tool_env) == 0;
}

static void add_env(struct ctx *c, const char *interp, const char *prefix, const char *kind)
{
	struct python_info *p = c->out;
	char real[PROBE_PATH];

	if (p->n_envs == PY_MAX_ENVS || !path_is_dir(prefix))
		return;
	if (!path_real(prefix, real))
		snprintf(real, sizeof real, "%s", prefix);
	if (strcmp(real, c->tool_env) == 0)
		return;
	for (size_t i = 0; i < p->n_envs; i++)
		if (strcmp(p->envs[i].prefix, real) == 0)
			return;
	struct py_env *e = &p->envs[p->n_envs++];
	snprintf(e->interpreter, sizeof e->interpreter, "%s", interp ? interp : "");
	snprintf(e->prefix, sizeof e->prefix, "%s", real);
	e->kind = kind;
}

/* pyenv's choice: $PYENV_VERSION, .python-version from the cwd up, $PYENV_ROOT/version */
static bool pyenv_version(const char *pyenv_root, char *out, size_t n)
{
	const char *env = os_getenv("PYENV_VERSION");
	char dir[PROBE_PATH], file[PROBE_PATH], *text = NULL;
	size_t len;

	if (env && *env) {
		snprintf(out, n, "%.*s", (int)strcspn(env, ":"), env);
		return true;
	}
	if (os_getcwd(dir, sizeof dir)) {
		for (;;) {
			if (path_join(file, sizeof file, dir, ".python-version") == CD_OK && path_is_file(file))
				goto read;
			if (strcmp(dir, "/") == 0)
				break;
			path_parent(dir);
		}
	}
	if (path_join(file, sizeof file, pyenv_root, "version") != CD_OK || !path_is_file(file))
		return false;
read:
	if (file_read_text(file, 4096, &text, &len, NULL) != CD_OK)
		return false;
	char *t = str_trim(text);
	snprintf(out, n, "%.*s", (int)strcspn(t, " \t\r\n:"), t);
	free(text);
	return out[0] != '\0';
}

/* "3.11.7" -> "python3.11" */
static void pyver_of(const char *ver, char *out, size_t n)
{
	const char *dot = strchr(ver, '.');
	size_t len = dot ? (size_t)(dot - ver) + 1 + strspn(dot + 1, "0123456789") : strlen(ver);

	snprintf(out, n, "python%.*s", (int)len, ver);
}

static int find_python3(const char *dir, void *arg)
{
	struct ctx *c = arg;
	char py[PROBE_PATH], prefix[PROBE_PATH], cfg[PROBE_PATH], real[PROBE_PATH];
	size_t dl = strlen(dir);

	if (path_join(py, sizeof py, dir, "python3") != CD_OK || !os_access(py, OS_EXEC))
		return 0;
	snprintf(prefix, sizeof prefix, "%s", dir);
	path_parent(prefix);
	if (dl >= 6 && strcmp(dir + dl - 6, "/shims") == 0) {
		char ver[128], versions[PROBE_PATH], vp[PROBE_PATH];
		if (path_join(versions, sizeof versions, prefix, "versions") == CD_OK && path_is_dir(versions)) {
			if (!pyenv_version(prefix, ver, sizeof ver) || strcmp(ver, "system") == 0)
				return 0; /* the shim defers to the next python3 on PATH */
			if (path_join(vp, sizeof vp, versions, ver) == CD_OK) {
				char bin[PROBE_PATH];
				pyver_of(ver, c->pyver, sizeof c->pyver);
				if (path_join(bin, sizeof bin, vp, "bin/python3") != CD_OK)
					bin[0] = '\0';
				add_env(c, bin, vp, "pyenv");
			}
			return 1;
		}
	}
	/* cudoctor's own environment is not the user's: its python3 on PATH (an activated venv
	 * that holds cudoctor alone) defers to the next one */
	if (is_tool_env(c, prefix))
		return 0;
	if (path_join(cfg, sizeof cfg, prefix, "pyvenv.cfg") == CD_OK && path_is_file(cfg)) {
		add_env(c, py, prefix, "venv");
		return 1;
	}
	if (!path_real(py, real))
		return 1;
	const char *b = strrchr(real, '/');
	if (b && str_starts_with(b + 1, "python3."))
		snprintf(c->pyver, sizeof c->pyver, "%s", b + 1);
	snprintf(prefix, sizeof prefix, "%s", real);
	path_parent(prefix);
	path_parent(prefix);
	add_env(c, py, prefix, "system");
	return 1;
}

static void add_site(struct ctx *c, const char *dir)
{
	struct python_info *p = c->out;
	char real[PROBE_PATH], **nv;

	if (!path_is_dir(dir) || !path_real(dir, real))
		return;
	for (size_t i = 0; i < p->n_site_dirs; i++)
		if (strcmp(p->site_dirs[i], real) == 0)
			return;
	nv = realloc(p->site_dirs, (p->n_site_dirs + 1) * sizeof *nv);
	if (!nv) {
		c->rc = CD_ENOMEM;
		return;
	}
	p->site_dirs = nv;
	p->site_dirs[p->n_site_dirs] = cd_strdup(real);
	if (!p->site_dirs[p->n_site_dirs]) {
		c->rc = CD_ENOMEM;
		return;
	}
	p->n_site_dirs++;
}

static bool is_python_dir(const char *name, void *arg)
{
	(void)arg;
	return str_starts_with(name, "python3");
}

static void add_prefix_sites(struct ctx *c, const char *prefix)
{
	static const char *const libs[] = { "lib", "local/lib", "lib64" };
	static const char *const kinds[] = { "site-packages", "dist-packages" };
	char lib[PROBE_PATH], pydir[PROBE_PATH], site[PROBE_PATH];

	for (size_t l = 0; l < sizeof libs / sizeof libs[0]; l++) {
		char **names;
		size_t n;
		if (path_join(lib, sizeof lib, prefix, libs[l]) != CD_OK)
			continue;
		if (dir_names(lib, is_python_dir, NULL, &names, &n) != CD_OK) {
			c->rc = CD_ENOMEM;
			return;
		}
		for (size_t i = n; i-- > 0;) /* newest python first */
			for (size_t k = 0; k < 2; k++)
				if (path_join(pydir, sizeof pydir, lib, names[i]) == CD_OK &&
				    path_join(site, sizeof site, pydir, kinds[k]) == CD_OK)
					add_site(c, site);
		names_free(names, n);
	}
}

static bool is_dist_info(const char *name, void *arg)
{
	(void)arg;
	return str_ends_with(name, ".dist-info");
}

static struct py_framework *add_fw(struct ctx *c)
{
	struct python_info *p = c->out;
	struct py_framework *nf = realloc(p->fw, (p->n_fw + 1) * sizeof *nf);

	if (!nf) {
		c->rc = CD_ENOMEM;
		return NULL;
	}
	p->fw = nf;
	memset(&p->fw[p->n_fw], 0, sizeof p->fw[0]);
	if (c->win_env) {
		p->fw[p->n_fw].win_env = c->win_env;
		snprintf(p->fw[p->n_fw].win_python, sizeof p->fw[0].win_python, "%s", c->win_python);
	}
	return &p->fw[p->n_fw++];
}

struct code_ctx {
	struct ctx *c;
	struct py_framework *f;
};

static int add_code(const char *path, void *arg)
{
	struct code_ctx *cc = arg;
	struct py_framework *f = cc->f;

	if (f->n_code == PY_MAX_CODE)
		return CD_OK;
	for (size_t i = 0; i < f->n_code; i++)
		if (strcmp(f->code[i], path) == 0)
			return CD_OK;
	if (!(f->code[f->n_code] = cd_strdup(path)))
		return CD_ENOMEM;
	f->n_code++;
	return CD_OK;
}

/* f's device-code files under site, by the one finder (probe/fw_files.h) */
static void find_code(struct ctx *c, struct py_framework *f, const char *site)
{
	const struct fw_files_row *row = fw_files_row(f->name);
	struct code_ctx cc = { c, f };

	if (row && c->rc == CD_OK) {
		f->code_alternatives = row->alternatives;
		c->rc = fw_files_each(row, site, add_code, &cc);
	}
}

static void probe_torch(struct ctx *c, const char *site)
{
	char dir[PROBE_PATH], vp[PROBE_PATH], *text = NULL;
	struct torch_version_py tv;
	struct py_framework *f;
	size_t len;

	if (path_join(dir, sizeof dir, site, "torch") != CD_OK ||
	    path_join(vp, sizeof vp, site, fw_files_row("torch")->version_file) != CD_OK ||
	    !path_is_file(vp) || file_read_text(vp, 64 * 1024, &text, &len, NULL) != CD_OK)
		return;
	if (vt_torch_version_py(text, len, &tv) == CD_OK && (f = add_fw(c)) != NULL) {
		snprintf(f->name, sizeof f->name, "torch");
		snprintf(f->version, sizeof f->version, "%s", tv.version);
		snprintf(f->cuda, sizeof f->cuda, "%s", tv.cuda);
		snprintf(f->path, sizeof f->path, "%s", dir);
		f->rocm = tv.hip[0] != '\0';
		f->cpu_only = strstr(tv.version, "+cpu") != NULL || (tv.has_cuda_line && !tv.cuda[0] && !f->rocm);
		if (!f->cpu_only)
			find_code(c, f, site); /* a ROCm build's libtorch_hip.so too: judged on AMD GPUs */
	}
	free(text);
}

/* Frameworks known by distribution name; the CUDA major comes from the name when it
 * carries one (cupy-cuda12x, jax-cuda12-plugin, onnxruntime-gpu does not). */
static const char *const framework_dists[] = {
	"jax", "jaxlib", "jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm60_plugin", "jax_rocm7_plugin",
	"tensorflow", "cupy_cuda11x", "cupy_cuda12x", "cupy_cuda13x", "cupy_rocm_5_0", "cupy_rocm_4_3",
	"onnxruntime_gpu", "triton", "vllm", "paddlepaddle_gpu",
	"tensorrt", "xformers", "flash_attn", "bitsandbytes", "llama_cpp_python", "ctranslate2",
};

static void dashes(char *s)
{
	for (; *s; s++)
		if (*s == '_')
			*s = '-';
}

static void probe_dists(struct ctx *c, const char *site)
{
	char **names;
	size_t n;
	struct python_info *p = c->out;

	if (dir_names(site, is_dist_info, NULL, &names, &n) != CD_OK) {
		c->rc = CD_ENOMEM;
		return;
	}
	for (size_t i = 0; i < n && c->rc == CD_OK; i++) {
		char pkg[96], ver[48];
		if (vt_dist_info_name(names[i], pkg, sizeof pkg, ver, sizeof ver) != CD_OK)
			continue;
		if (str_starts_with(pkg, "nvidia_")) {
			struct py_wheel *nw = realloc(p->wheels, (p->n_wheels + 1) * sizeof *nw);
			if (!nw) {
				c->rc = CD_ENOMEM;
				break;
			}
			p->wheels = nw;
			struct py_wheel *w = &p->wheels[p->n_wheels++];
			snprintf(w->name, sizeof w->name, "%s", pkg);
			dashes(w->name);
			snprintf(w->version, sizeof w->version, "%s", ver);
			snprintf(w->site, sizeof w->site, "%s", site);
			continue;
		}
		for (size_t k = 0; k < sizeof framework_dists / sizeof framework_dists[0]; k++) {
			if (strcasecmp(pkg, framework_dists[k]) != 0)
				continue;
			struct py_framework *f = add_fw(c);
			if (!f)
				break;
			snprintf(f->name, sizeof f->name, "%s", framework_dists[k]);
			dashes(f->name);
			snprintf(f->version, sizeof f->version, "%s", ver);
			const char *cu = strstr(framework_dists[k], "cuda");
			if (cu && cu[4] >= '1' && cu[4] <= '9')
				snprintf(f->cuda, sizeof f->cuda, "%.2s", cu + 4);
			f->rocm = strstr(framework_dists[k], "rocm") != NULL;
			if (path_join(f->path, sizeof f->path, site, names[i]) != CD_OK)
				f->path[0] = '\0';
			find_code(c, f, site);
		}
	}
	names_free(names, n);
}

/* What a tool installer puts beside the tool in an environment of its own (pipx, uv, venv's
 * pip and setuptools, their .pth hooks), by name up to the first '-' or '.' */
static bool is_users_entry(const char *name, void *arg)
{
	static const char *const tool[] = { "cudoctor", "pip", "setuptools", "wheel", "pkg_resources",
					    "_distutils_hack", "distutils", "__pycache__", "_virtualenv",
					    "pipx_shared" };
	size_t len = strcspn(name, "-.");

	(void)arg;
	for (size_t i = 0; i < sizeof tool / sizeof tool[0]; i++)
		if (strlen(tool[i]) == len && strncasecmp(name, tool[i], len) == 0)
			return false;
	return true; /* something else is installed: the user's environment */
}

/* An environment whose site-packages hold cudoctor and nothing else: pipx's or uvx's */
static bool holds_cudoctor_alone(const char *prefix)
{
	static const char *const kinds[] = { "site-packages", "dist-packages" };
	char lib[PROBE_PATH], pydir[PROBE_PATH], site[PROBE_PATH], **pys, **other;
	size_t n_py, n_sites = 0, n_other = 0;

	if (path_join(lib, sizeof lib, prefix, "lib") != CD_OK || dir_names(lib, is_python_dir, NULL, &pys, &n_py) != CD_OK)
		return false;
	for (size_t i = 0; i < n_py && n_other == 0; i++)
		for (size_t k = 0; k < 2; k++) {
			size_t n = 0;
			if (path_join(pydir, sizeof pydir, lib, pys[i]) != CD_OK ||
			    path_join(site, sizeof site, pydir, kinds[k]) != CD_OK || !path_is_dir(site) ||
			    dir_names(site, is_users_entry, NULL, &other, &n) != CD_OK)
				continue;
			names_free(other, n);
			n_sites++;
			n_other += n;
		}
	names_free(pys, n_py);
	return n_sites > 0 && n_other == 0;
}

bool python_launcher_env(char *prefix, size_t n)
{
	const char *env = os_getenv("CUDOCTOR_PYTHON_PREFIX");

	if (!env || !*env || !path_is_dir(env) || holds_cudoctor_alone(env))
		return false;
	snprintf(prefix, n, "%s", env);
	return true;
}

static const char *env_kind(const char *prefix)
{
	char p[PROBE_PATH];

	if (path_join(p, sizeof p, prefix, "pyvenv.cfg") == CD_OK && path_is_file(p))
		return "venv";
	if (path_join(p, sizeof p, prefix, "conda-meta") == CD_OK && path_is_dir(p))
		return "conda";
	return "system";
}

/* --- the Windows side: Python installs that are on no PATH cudoctor can see ------------ */

/* One Windows environment at prefix (python.exe and Lib/site-packages), its frameworks probed
 * now, each knowing its python.exe for a Windows fix line. */
static void add_windows_env(struct ctx *c, const char *prefix, const char *kind)
{
	char exe[PROBE_PATH], site[PROBE_PATH], win[PROBE_PATH];
	size_t before = c->out->n_envs;

	if (c->rc != CD_OK || path_join(exe, sizeof exe, prefix, "python.exe") != CD_OK || !path_is_file(exe) ||
	    path_join(site, sizeof site, prefix, "Lib/site-packages") != CD_OK || !path_is_dir(site) ||
	    !win_path_windows(c->o->win_root, exe, win, sizeof win))
		return;
	add_env(c, exe, prefix, kind);
	if (c->out->n_envs == before)
		return;
	before = c->out->n_site_dirs;
	add_site(c, site);
	if (c->out->n_site_dirs == before || c->rc != CD_OK)
		return;
	c->win_env = kind;
	c->win_python = win;
	probe_torch(c, c->out->site_dirs[before]);
	probe_dists(c, c->out->site_dirs[before]);
	c->win_env = c->win_python = NULL;
}

static bool is_python3_dir(const char *name, void *arg)
{
	(void)arg;
	return strncasecmp(name, "Python3", 7) == 0;
}

static bool is_any_dir(const char *name, void *arg)
{
	(void)arg;
	return name[0] != '.';
}

/* Each dir/NAME/sub accepted by keep (sub NULL: dir/NAME) as an environment of kind. */
static void add_windows_envs_in(struct ctx *c, const char *dir, bool (*keep)(const char *, void *), const char *sub,
				const char *kind)
{
	char p[PROBE_PATH], q[PROBE_PATH];
	char **names;
	size_t n;

	if (c->rc != CD_OK || !path_is_dir(dir))
		return;
	if (dir_names(dir, keep, NULL, &names, &n) != CD_OK) {
		c->rc = CD_ENOMEM;
		return;
	}
	for (size_t i = 0; i < n && c->rc == CD_OK; i++)
		if (path_join(p, sizeof p, dir, names[i]) == CD_OK &&
		    (!sub || path_join(q, sizeof q, p, sub) == CD_OK))
			add_windows_env(c, sub ? q : p, kind);
	names_free(names, n);
}

/* A conda install's base environment and every one under its envs. */
static void add_windows_conda(struct ctx *c, const char *dir)
{
	static const char *const installs[] = { "miniconda3", "anaconda3", "miniforge3" };
	char base[PROBE_PATH], envs[PROBE_PATH];

	for (size_t i = 0; i < sizeof installs / sizeof installs[0]; i++)
		if (path_join(base, sizeof base, dir, installs[i]) == CD_OK && path_is_dir(base)) {
			add_windows_env(c, base, "conda (Windows)");
			if (path_join(envs, sizeof envs, base, "envs") == CD_OK)
				add_windows_envs_in(c, envs, is_any_dir, NULL, "conda (Windows)");
		}
}

/* ComfyUI's portable python_embeded where people unpack it (the drive's top, a user's folder,
 * Desktop, Downloads, Documents: DIR/python_embeded and DIR/ANY/python_embeded), conda, and
 * python.org's installs (the py launcher's usual places). */
static void add_windows_places(struct ctx *c, const char *dir, bool user)
{
	static const char *const spots[] = { "", "Desktop", "Downloads", "Documents" };
	char sub[PROBE_PATH], p[PROBE_PATH];

	for (size_t i = 0; i < (user ? sizeof spots / sizeof spots[0] : 1) && c->rc == CD_OK; i++) {
		const char *d = dir;

		if (spots[i][0]) {
			if (path_join(sub, sizeof sub, dir, spots[i]) != CD_OK || !path_is_dir(sub))
				continue;
			d = sub;
		}
		if (path_join(p, sizeof p, d, "python_embeded") == CD_OK)
			add_windows_env(c, p, "python_embeded");
		add_windows_envs_in(c, d, is_any_dir, "python_embeded", "python_embeded");
	}
	if (user) {
		add_windows_conda(c, dir);
		if (path_join(p, sizeof p, dir, "AppData/Local/Programs/Python") == CD_OK)
			add_windows_envs_in(c, p, is_python3_dir, NULL, "python.org (Windows)");
	}
}

static bool is_user_dir(const char *name, void *arg)
{
	(void)arg;
	return name[0] != '.' && strcmp(name, "Public") != 0 && strcmp(name, "Default") != 0 &&
	       strcmp(name, "Default User") != 0 && strcmp(name, "All Users") != 0;
}

static void add_windows(struct ctx *c, const char *root)
{
	char users[PROBE_PATH], u[PROBE_PATH], p[PROBE_PATH];
	char **names;
	size_t n;

	add_windows_places(c, root, false);
	if (path_join(p, sizeof p, root, "ProgramData") == CD_OK)
		add_windows_conda(c, p);
	if (path_join(p, sizeof p, root, "Program Files") == CD_OK)
		add_windows_envs_in(c, p, is_python3_dir, NULL, "python.org (Windows)");
	if (path_join(users, sizeof users, root, "Users") != CD_OK || dir_names(users, is_user_dir, NULL, &names, &n) != CD_OK)
		return;
	for (size_t i = 0; i < n && c->rc == CD_OK; i++)
		if (path_join(u, sizeof u, users, names[i]) == CD_OK)
			add_windows_places(c, u, true);
	names_free(names, n);
}

/* The installs the py launcher lists (PEP 514), each an environment unless found already;
 * where the registry cannot be read (WSL2) the fact says so. */
static void add_windows_registered(struct ctx *c)
{
	struct pep514_install *in = NULL;
	char local[PROBE_PATH], err[CD_ERRMSG];
	size_t n = 0;
	int rc;

	if (!c->o->win_registry) {
		c->out->win_registry = "not readable from WSL2";
		return;
	}
	if ((rc = pep514_installs(&in, &n, err)) == CD_EUNSUPPORTED) {
		c->out->win_registry = "not readable";
		return;
	}
	if (rc != CD_OK) {
		c->rc = rc;
		return;
	}
	c->out->win_registry = "read";
	c->out->n_win_registered = n;
	for (size_t i = 0; i < n && c->rc == CD_OK; i++)
		if (win_path_local(c->o->win_root, in[i].path, local, sizeof local))
			add_windows_env(c, local, "py launcher (Windows)");
	free(in);
}

int python_probe(struct python_info *out, const struct python_opts *o, char *err)
{
	struct ctx c = { .out = out, .o = o, .rc = CD_OK };
	const char *venv = os_getenv("VIRTUAL_ENV"), *conda = os_getenv("CONDA_PREFIX");
	const char *launcher = os_getenv("CUDOCTOR_PYTHON_PREFIX");
	char bin[PROBE_PATH], home[PROBE_PATH];

	memset(out, 0, sizeof *out);
	/* the environment cudoctor runs from is the one in question, unless it is cudoctor's own */
	if (python_launcher_env(home, sizeof home)) {
		if (path_join(bin, sizeof bin, home, "bin/python3") != CD_OK || !os_access(bin, OS_EXEC))
			bin[0] = '\0';
		add_env(&c, bin, home, env_kind(home));
	} else if (launcher && *launcher && !path_real(launcher, c.tool_env)) {
		c.tool_env[0] = '\0';
	}
	if (venv && *venv && path_join(bin, sizeof bin, venv, "bin/python3") == CD_OK)
		add_env(&c, bin, venv, "venv");
	if (conda && *conda && path_join(bin, sizeof bin, conda, "bin/python3") == CD_OK)
		add_env(&c, bin, conda, "conda");
	path_list_each(os_getenv("PATH"), find_python3, &c);
	for (size_t i = 0; i < out->n_envs && c.rc == CD_OK; i++)
		add_prefix_sites(&c, out->envs[i].prefix);
	if (c.rc == CD_OK && o && o->home && c.pyver[0]) {
		char site[PROBE_PATH], rel[96];
		snprintf(rel, sizeof rel, ".local/lib/%s/site-packages", c.pyver);
		if (path_join(site, sizeof site, o->home, rel) == CD_OK)
			add_site(&c, site);
	}
	for (size_t i = 0; i < out->n_site_dirs && c.rc == CD_OK; i++) {
		probe_torch(&c, out->site_dirs[i]);
		probe_dists(&c, out->site_dirs[i]);
	}
	if (c.rc == CD_OK && o && o->win_root) {
		add_windows(&c, o->win_root);
		add_windows_registered(&c);
	}
	if (c.rc != CD_OK) {
		python_free(out);
		return cd_fail(err, c.rc, "python: out of memory");
	}
	return CD_OK;
}

void python_free(struct python_info *p)
{
	for (size_t i = 0; i < p->n_site_dirs; i++)
		free(p->site_dirs[i]);
	free(p->site_dirs);
	for (size_t i = 0; i < p->n_fw; i++)
		for (size_t k = 0; k < p->fw[i].n_code; k++)
			free(p->fw[i].code[k]);
	free(p->fw);
	free(p->wheels);
	memset(p, 0, sizeof *p);
}
