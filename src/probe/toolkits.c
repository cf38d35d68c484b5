/* Toolkit discovery: PATH, $CUDACXX, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda*, /opt/cuda,
 * conda and the pip nvcc wheel. Versions come from version.json / version.txt /
 * dist-info; `nvcc --version` (~30-50 ms) runs only when no file tells. */
#include "probe/toolkits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "os/host.h"
#include "probe/distinfo.h"
#include "probe/spawn.h"
#include "probe/vertext.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"

#define SMALL_FILE (256 * 1024)

static int read_small(const char *dir, const char *name, char **text, size_t *len)
{
	char p[PROBE_PATH];

	if (path_join(p, sizeof p, dir, name) != CD_OK || !path_is_file(p))
		return CD_ENOTFOUND;
	return file_read_text(p, SMALL_FILE, text, len, NULL);
}

int toolkit_version_from_files(const char *root, char *out, size_t n, const char **source)
{
	char *text = NULL, site[PROBE_PATH], dist[PROBE_PATH];
	size_t len = 0;
	int rc;

	if (read_small(root, "version.json", &text, &len) == CD_OK) {
		rc = vt_version_json(text, len, "cuda", out, n);
		if (rc != CD_OK)
			rc = vt_version_json(text, len, "cuda_nvcc", out, n);
		free(text);
		if (rc == CD_OK) {
			*source = "version.json";
			return CD_OK;
		}
	}
	if (read_small(root, "version.txt", &text, &len) == CD_OK) {
		rc = vt_version_txt(text, len, out, n);
		free(text);
		if (rc == CD_OK) {
			*source = "version.txt";
			return CD_OK;
		}
	}
	/* a toolkit assembled from wheels keeps their dist-info beside bin/ */
	if (path_join(dist, sizeof dist, root, "dist-info") == CD_OK &&
	    distinfo_find(dist, "nvidia_cuda_nvcc", 0, DI_ANY, out, n) == CD_OK) {
		*source = "dist-info";
		return CD_OK;
	}
	/* pip: site-packages/nvidia/cuda_nvcc (CUDA 12 wheels) or site-packages/nvidia/cuNN */
	snprintf(site, sizeof site, "%s", root);
	const char *base = strrchr(site, '/');
	int want_major = 0;
	enum distinfo_suffix which = DI_CU_SUFFIX;
	if (base && base[1] == 'c' && base[2] == 'u' && base[3] >= '0' && base[3] <= '9') {
		want_major = atoi(base + 3);
		which = DI_ANY;
	}
	path_parent(site);
	path_parent(site);
	if (distinfo_find(site, "nvidia_cuda_nvcc", want_major, which, out, n) == CD_OK) {
		*source = "dist-info";
		return CD_OK;
	}
	return CD_ENOTFOUND;
}

struct finder {
	struct toolkits *out;
	const struct toolkits_opts *o;
	int path_index;
	int rc;
};

/* A small shell script that execs another nvcc by absolute path (/usr/local/bin/nvcc
 * -> exec /usr/local/cuda-13.0/bin/nvcc "$@"): that nvcc, resolved, into target. */
static bool wrapper_target(const char *script, char *target)
{
	char *text = NULL, *p;
	size_t len;
	bool found = false;

	if (file_read_text(script, 4096, &text, &len, NULL) != CD_OK)
		return false;
	if (len > 2 && text[0] == '#' && text[1] == '!' && len < 4095) {
		for (p = text; (p = strstr(p, "/nvcc")) != NULL; p += 5) {
			char *start = p, cand[PROBE_PATH];
			if (p[5] != '\0' && p[5] != '"' && p[5] != '\'' && p[5] != ' ' && p[5] != '\n' && p[5] != '\t')
				continue;
			while (start > text && start[-1] != ' ' && start[-1] != '"' && start[-1] != '\'' && start[-1] != '\n' && start[-1] != '\t')
				start--;
			if (*start != '/' || (size_t)(p + 5 - start) >= sizeof cand)
				continue;
			memcpy(cand, start, (size_t)(p + 5 - start));
			cand[p + 5 - start] = '\0';
			if (path_is_executable(cand) && path_real(cand, target)) {
				found = true;
				break;
			}
		}
	}
	free(text);
	return found;
}

static struct toolkit *find_or_add(struct finder *fd, const char *nvcc, unsigned by, bool *added)
{
	char real[PROBE_PATH], target[PROBE_PATH];
	struct toolkits *ts = fd->out;
	struct toolkit *t, *nt;
	bool wrapper = false;

	*added = false;
	if (!path_is_executable(nvcc) || !path_real(nvcc, real))
		return NULL;
	if (wrapper_target(real, target) && strcmp(target, real) != 0) {
		snprintf(real, sizeof real, "%s", target);
		wrapper = true;
	}
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->t[i].real_nvcc, real) == 0) {
			ts->t[i].found_by |= by | (wrapper ? TK_WRAPPER : 0u);
			return &ts->t[i];
		}
	nt = realloc(ts->t, (ts->n + 1) * sizeof *nt);
	if (!nt) {
		fd->rc = CD_ENOMEM;
		return NULL;
	}
	ts->t = nt;
	t = &ts->t[ts->n++];
	memset(t, 0, sizeof *t);
	snprintf(t->nvcc, sizeof t->nvcc, "%s", nvcc);
	snprintf(t->real_nvcc, sizeof t->real_nvcc, "%s", real);
	/* a wrapper's toolkit is where its target lives */
	snprintf(t->root, sizeof t->root, "%s", wrapper ? real : nvcc);
	path_parent(t->root); /* bin */
	path_parent(t->root);
	if (wrapper)
		t->found_by |= TK_WRAPPER;
	t->found_by |= by;
	t->path_rank = -1;
	*added = true;
	return t;
}

static void add_dir(struct finder *fd, const char *bindir, unsigned by)
{
	char nvcc[PROBE_PATH];
	bool added;

	if (path_join(nvcc, sizeof nvcc, bindir, "nvcc") != CD_OK)
		return;
	find_or_add(fd, nvcc, by, &added);
}

static int on_path_dir(const char *dir, void *arg)
{
	struct finder *fd = arg;
	char nvcc[PROBE_PATH];
	struct toolkit *t;
	bool added;

	if (path_join(nvcc, sizeof nvcc, dir, "nvcc") == CD_OK) {
		t = find_or_add(fd, nvcc, TK_PATH, &added);
		if (t && t->path_rank < 0)
			t->path_rank = fd->path_index;
	}
	fd->path_index++;
	return fd->rc;
}

static void add_env_root(struct finder *fd, const char *var, unsigned by)
{
	const char *v = os_getenv(var);
	char bin[PROBE_PATH];

	if (!v || !*v || path_join(bin, sizeof bin, v, "bin") != CD_OK)
		return;
	add_dir(fd, bin, by);
}

static bool is_cuda_dir(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "cuda") == 0 || str_starts_with(name, "cuda-");
}

static void add_system(struct finder *fd)
{
	char usr_local[PROBE_PATH], bin[PROBE_PATH], sub[PROBE_PATH];
	char **names;
	size_t n;

	if (host_path(usr_local, sizeof usr_local, fd->o->root, "/usr/local") != CD_OK)
		return;
	if (dir_names(usr_local, is_cuda_dir, NULL, &names, &n) != CD_OK) {
		fd->rc = CD_ENOMEM;
		return;
	}
	/* newest last by strverscmp; list newest first so equal files keep the plain
	 * versioned name rather than a symlink like /usr/local/cuda */
	for (size_t i = n; i-- > 0;) {
		if (path_join(sub, sizeof sub, usr_local, names[i]) == CD_OK &&
		    path_join(bin, sizeof bin, sub, "bin") == CD_OK)
			add_dir(fd, bin, TK_SYSTEM);
	}
	names_free(names, n);
	if (host_path(bin, sizeof bin, fd->o->root, "/opt/cuda/bin") == CD_OK)
		add_dir(fd, bin, TK_SYSTEM);
}

static void add_pip(struct finder *fd)
{
	static const char *const subdirs[] = { "nvidia/cuda_nvcc/bin", "nvidia/cu13/bin", "nvidia/cu14/bin" };
	char bin[PROBE_PATH];

	for (size_t s = 0; s < fd->o->n_site_dirs; s++)
		for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++)
			if (path_join(bin, sizeof bin, fd->o->site_dirs[s], subdirs[k]) == CD_OK)
				add_dir(fd, bin, TK_PIP);
}

static void add_cudacxx(struct finder *fd)
{
	const char *v = os_getenv("CUDACXX");
	bool added;

	if (v && *v)
		find_or_add(fd, v, TK_CUDACXX, &added);
}

static void fill_version(struct toolkit *t, const struct toolkits_opts *o, bool *spawned)
{
	const char *src = NULL;
	char out[4096];
	size_t len;

	if (toolkit_version_from_files(t->root, t->version_text, sizeof t->version_text, &src) == CD_OK) {
		t->version_source = src;
	} else if (!o->no_spawn) {
		char *argv[] = { t->nvcc, "--version", NULL };
		int rc;

		*spawned = true;
		rc = spawn_capture(argv, out, sizeof out, &len, NULL);
		if (rc == CD_OK && vt_nvcc_version(out, len, t->version_text, sizeof t->version_text) == CD_OK)
			t->version_source = "nvcc --version";
		if (rc == CD_ETIMEOUT) {
			t->timed_out = "--version";
			t->timeout_ms = spawn_timeout_ms();
		}
	}
	if (t->version_text[0] && version_parse(t->version_text, &t->version) != CD_OK)
		memset(&t->version, 0, sizeof t->version);
}

static void fill_archs(struct toolkit *t)
{
	char out[4096];
	size_t len;
	char *argv[] = { t->nvcc, "--list-gpu-arch", NULL };
	int rc;

	if (t->timed_out) /* it hung once: asking again would only wait again */
		return;
	if ((rc = spawn_capture(argv, out, sizeof out, &len, NULL)) != CD_OK) {
		if (rc == CD_ETIMEOUT) {
			t->timed_out = "--list-gpu-arch";
			t->timeout_ms = spawn_timeout_ms();
		}
		return;
	}
	for (size_t i = 0; i < len; i++)
		if (out[i] == '\n' || out[i] == '\r')
			out[i] = ' ';
	t->gpu_archs = cd_strdup(str_trim(out));
}

int toolkits_probe(struct toolkits *out, const struct toolkits_opts *o, char *err)
{
	struct finder fd = { .out = out, .o = o, .path_index = 0, .rc = CD_OK };
	struct toolkit *sel = NULL;

	memset(out, 0, sizeof *out);
	path_list_each(os_getenv("PATH"), on_path_dir, &fd);
	if (fd.rc == CD_OK)
		add_cudacxx(&fd);
	if (fd.rc == CD_OK)
		add_env_root(&fd, "CUDA_HOME", TK_CUDA_HOME);
	if (fd.rc == CD_OK)
		add_env_root(&fd, "CUDA_PATH", TK_CUDA_PATH);
	if (fd.rc == CD_OK && os_is_linux()) /* /usr/local/cuda*, /opt/cuda: Linux's places */
		add_system(&fd);
	if (fd.rc == CD_OK) {
		const char *conda = os_getenv("CONDA_PREFIX");
		char bin[PROBE_PATH];
		if (conda && *conda && path_join(bin, sizeof bin, conda, "bin") == CD_OK)
			add_dir(&fd, bin, TK_CONDA);
	}
	if (fd.rc == CD_OK)
		add_pip(&fd);
	if (fd.rc != CD_OK) {
		toolkits_free(out);
		return cd_fail(err, fd.rc, "toolkits: out of memory");
	}
	for (size_t i = 0; i < out->n; i++) {
		struct toolkit *t = &out->t[i];
		fill_version(t, o, &out->spawned);
		if (t->path_rank >= 0 && (!sel || t->path_rank < sel->path_rank))
			sel = t;
	}
	if (sel) {
		sel->selected = true;
		if (o->list_archs)
			fill_archs(sel);
	}
	return CD_OK;
}

void toolkits_free(struct toolkits *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->t[i].gpu_archs);
	free(ts->t);
	ts->t = NULL;
	ts->n = 0;
}
