/* CUDA runtime discovery. The loader's order for a program without RUNPATH is
 * LD_LIBRARY_PATH, then /etc/ld.so.cache (ld.so(8)); wheels, torch/lib and conda are
 * found by the frameworks through their own RUNPATH and get rank -1. */
#include "probe/runtimes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "os/host.h"
#include "probe/distinfo.h"
#include "probe/ldcache.h"
#include "probe/vertext.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"

#define RANK_LDCACHE 1000

/* Where each library's version is written down: the wheel's distribution name, the
 * toolkit's version.json key, the wheel's directory under site-packages/nvidia. */
struct lib_kind {
	const char *stem, *dist_stem, *json_key, *wheel_dir;
};

static const struct lib_kind kinds[] = {
	{ "libcudart", "nvidia_cuda_runtime", "cuda_cudart", "cuda_runtime" },
	{ "libcublas", "nvidia_cublas", "libcublas", "cublas" },
	{ "libcublasLt", "nvidia_cublas", "libcublas", "cublas" },
	{ "libnvJitLink", "nvidia_nvjitlink", "libnvjitlink", "nvjitlink" },
	{ "libcusparse", "nvidia_cusparse", "libcusparse", "cusparse" },
	{ "libcudnn", "nvidia_cudnn", NULL, "cudnn" },
	{ "libnccl", "nvidia_nccl", NULL, "nccl" },
};

const char *const runtime_libraries[] = { "libcublas", "libcublasLt", "libnvJitLink", "libcusparse", "libcudnn", "libnccl", NULL };

static const struct lib_kind *kind_of(const char *stem)
{
	static const struct lib_kind unknown = { NULL, NULL, NULL, NULL };

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].stem, stem) == 0)
			return &kinds[i];
	return &unknown;
}

struct scan {
	struct runtimes *out;
	const struct runtimes_opts *o;
	const char *stem;      /* "libcudart" */
	const struct lib_kind *kind;
	char so_prefix[64];    /* "libcudart.so." */
	int rc;
	int ld_index;
};

/* "libcudart.so.12[.x.y]" or a wheel's hashed "libcudart-1a2b3c.so.12" */
static bool is_runtime_name(const char *name, void *arg)
{
	const struct scan *s = arg;
	size_t sl = strlen(s->stem);
	const char *so;

	if (strncmp(name, s->stem, sl) != 0)
		return false;
	if (name[sl] == '-') {
		so = strstr(name + sl, ".so.");
		return so && so[4] >= '0' && so[4] <= '9';
	}
	return strncmp(name + sl, ".so.", 4) == 0 && name[sl + 4] >= '0' && name[sl + 4] <= '9';
}

static void soname_of(const char *file, char *out, size_t n)
{
	const char *so = strstr(file, ".so."), *end;

	if (!so) {
		snprintf(out, n, "%s", file);
		return;
	}
	end = so + 4;
	while (*end >= '0' && *end <= '9')
		end++;
	snprintf(out, n, "%.*s", (int)(end - file), file);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static enum runtime_origin origin_of(const char *real)
{
	const char *conda = os_getenv("CONDA_PREFIX");
	char dir[PROBE_PATH], probe[PROBE_PATH];

	if (strstr(real, "/site-packages/") || strstr(real, "/dist-packages/"))
		return strstr(real, "/torch/lib/") ? ORIGIN_TORCH : ORIGIN_PIP;
	if (conda && *conda && str_starts_with(real, conda) && real[strlen(conda)] == '/')
		return ORIGIN_CONDA;
	snprintf(dir, sizeof dir, "%s", real);
	path_parent(dir);
	for (int up = 0; up < 3; up++) {
		path_parent(dir);
		if (path_join(probe, sizeof probe, dir, "bin/nvcc") == CD_OK && path_is_file(probe))
			return ORIGIN_TOOLKIT;
		if (path_join(probe, sizeof probe, dir, "version.json") == CD_OK && path_is_file(probe))
			return ORIGIN_TOOLKIT;
	}
	return ORIGIN_SYSTEM;
}

static bool version_from_root(const char *root, int major, const struct lib_kind *k, struct runtime *rt)
{
	char p[PROBE_PATH], *text = NULL;
	size_t len;
	int hv;

	if (k->json_key && path_join(p, sizeof p, root, "version.json") == CD_OK && path_is_file(p) &&
	    file_read_text(p, 256 * 1024, &text, &len, NULL) == CD_OK) {
		int rc = vt_version_json(text, len, k->json_key, rt->version_text, sizeof rt->version_text);
		free(text);
		text = NULL;
		if (rc == CD_OK) {
			rt->version_source = "version.json";
			return true;
		}
	}
	if (k->dist_stem && path_join(p, sizeof p, root, "dist-info") == CD_OK &&
	    distinfo_find(p, k->dist_stem, major, DI_ANY, rt->version_text, sizeof rt->version_text) == CD_OK) {
		rt->version_source = "dist-info";
		return true;
	}
	/* the header knows only the runtime's version */
	if (k == &kinds[0] && path_join(p, sizeof p, root, "include/cuda_runtime_api.h") == CD_OK && path_is_file(p) &&
	    file_read_text(p, 1024 * 1024, &text, &len, NULL) == CD_OK) {
		int rc = vt_cudart_header(text, len, &hv);
		free(text);
		if (rc == CD_OK && hv / 1000 == major) {
			snprintf(rt->version_text, sizeof rt->version_text, "%d.%d", hv / 1000, (hv % 1000) / 10);
			rt->version_source = "cuda_runtime_api.h";
			return true;
		}
	}
	return false;
}

static void fill_version(struct runtime *rt, const char *so_prefix, const struct lib_kind *k)
{
	char dir[PROBE_PATH], up[PROBE_PATH], p[PROBE_PATH], *text = NULL;
	const char *so = strstr(rt->soname, ".so.");
	int major = so ? atoi(so + 4) : 0;
	size_t len;

	/* 1. the real file's name: libcudart.so.12.4.127 */
	if (vt_soname_suffix(base_name(rt->real_path), so_prefix, rt->version_text, sizeof rt->version_text) == CD_OK &&
	    strchr(rt->version_text, '.')) {
		rt->version_source = "file name";
		goto parse;
	}
	snprintf(dir, sizeof dir, "%s", rt->real_path);
	path_parent(dir);
	/* 2. wheels: site-packages/nvidia/{cuda_runtime,cuNN}/lib -> site-packages; before the
	 * wheel's own include/cuda_runtime_api.h, which only knows major.minor */
	snprintf(up, sizeof up, "%s", dir);
	path_parent(up);
	path_parent(up);
	path_parent(up);
	char wheel_lib[96];
	snprintf(wheel_lib, sizeof wheel_lib, "/nvidia/%s/lib", k->wheel_dir ? k->wheel_dir : "-");
	if (rt->origin == ORIGIN_PIP && k->dist_stem &&
	    distinfo_find(up, k->dist_stem, major, str_ends_with(dir, wheel_lib) && k == &kinds[0] ? DI_CU_SUFFIX : DI_ANY,
			  rt->version_text, sizeof rt->version_text) == CD_OK) {
		rt->version_source = "dist-info";
		goto parse;
	}
	/* 3. a toolkit root (or the wheel's package dir): lib64/.. or targets/<arch>/lib/../../.. */
	snprintf(up, sizeof up, "%s", dir);
	for (int i = 0; i < 3; i++) {
		path_parent(up);
		if (i != 1 && version_from_root(up, major, k, rt))
			goto parse;
	}
	/* 4. torch/lib: the CUDA torch was built with, from torch/version.py */
	if (rt->origin == ORIGIN_TORCH && k == &kinds[0]) {
		struct torch_version_py tv;
		snprintf(up, sizeof up, "%s", dir);
		path_parent(up);
		if (path_join(p, sizeof p, up, "version.py") == CD_OK && path_is_file(p) &&
		    file_read_text(p, 64 * 1024, &text, &len, NULL) == CD_OK) {
			int rc = vt_torch_version_py(text, len, &tv);
			free(text);
			if (rc == CD_OK && tv.cuda[0]) {
				snprintf(rt->version_text, sizeof rt->version_text, "%s", tv.cuda);
				rt->version_source = "torch/version.py";
				goto parse;
			}
		}
	}
	/* 5. only the soname's major */
	if (major > 0) {
		snprintf(rt->version_text, sizeof rt->version_text, "%d", major);
		rt->version_source = "soname";
	}
parse:
	if (!rt->version_text[0] || version_parse(rt->version_text, &rt->version) != CD_OK)
		memset(&rt->version, 0, sizeof rt->version);
}

static void add_file(struct scan *s, const char *dir, const char *name, int rank, bool from_ld)
{
	char path[PROBE_PATH], real[PROBE_PATH];
	struct runtimes *out = s->out;
	struct runtime *rt, *nr;

	if (path_join(path, sizeof path, dir, name) != CD_OK || !path_real(path, real) || !path_is_file(real))
		return;
	for (size_t i = 0; i < out->n; i++) {
		rt = &out->r[i];
		if (strcmp(rt->real_path, real) != 0)
			continue;
		if (rank >= 0 && (rt->rank < 0 || rank < rt->rank)) {
			rt->rank = rank;
			rt->from_ld_library_path = from_ld;
		}
		return;
	}
	nr = realloc(out->r, (out->n + 1) * sizeof *nr);
	if (!nr) {
		s->rc = CD_ENOMEM;
		return;
	}
	out->r = nr;
	rt = &out->r[out->n++];
	memset(rt, 0, sizeof *rt);
	snprintf(rt->path, sizeof rt->path, "%s", path);
	snprintf(rt->real_path, sizeof rt->real_path, "%s", real);
	soname_of(name, rt->soname, sizeof rt->soname);
	rt->rank = rank;
	rt->from_ld_library_path = from_ld;
	rt->origin = origin_of(real);
	fill_version(rt, s->so_prefix, s->kind);
}

static void scan_dir(struct scan *s, const char *dir, int rank, bool from_ld)
{
	char **names;
	size_t n;

	if (s->rc != CD_OK)
		return;
	if (dir_names(dir, is_runtime_name, s, &names, &n) != CD_OK) {
		s->rc = CD_ENOMEM;
		return;
	}
	for (size_t i = 0; i < n && s->rc == CD_OK; i++)
		add_file(s, dir, names[i], rank, from_ld);
	names_free(names, n);
}

static int on_ld_dir(const char *dir, void *arg)
{
	struct scan *s = arg;

	scan_dir(s, dir, s->ld_index++, true);
	return s->rc;
}

static void scan_ldcache(struct scan *s)
{
	char cache_path[PROBE_PATH], err[CD_ERRMSG] = "";
	struct ldcache c;

	if (host_path(cache_path, sizeof cache_path, s->o->root, "/etc/ld.so.cache") != CD_OK)
		return;
	if (ldcache_load(cache_path, &c, err) != CD_OK) {
		snprintf(s->out->ldcache_error, sizeof s->out->ldcache_error, "%s", err);
		return;
	}
	s->out->ldcache_ok = true;
	for (size_t i = 0; i < c.n && s->rc == CD_OK; i++) {
		const struct ldcache_entry *e = &c.e[i];
		char dir[PROBE_PATH], rooted[PROBE_PATH];
		if (!ldcache_entry_native(e) || !is_runtime_name(e->soname, s))
			continue;
		snprintf(dir, sizeof dir, "%s", e->path);
		path_parent(dir);
		if (host_path(rooted, sizeof rooted, s->o->root, dir) != CD_OK)
			continue;
		add_file(s, rooted, base_name(e->path), RANK_LDCACHE + (int)i, false);
	}
	ldcache_free(&c);
}

static bool is_cuda_dir(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "cuda") == 0 || str_starts_with(name, "cuda-");
}

static void scan_toolkits(struct scan *s)
{
	static const char *const libdirs[] = { "lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib" };
	char usr_local[PROBE_PATH], root[PROBE_PATH], dir[PROBE_PATH];
	const char *env_roots[] = { os_getenv("CUDA_HOME"), os_getenv("CUDA_PATH") };
	char **names;
	size_t n;

	for (size_t e = 0; e < 2; e++)
		for (size_t k = 0; env_roots[e] && *env_roots[e] && k < sizeof libdirs / sizeof libdirs[0]; k++)
			if (path_join(dir, sizeof dir, env_roots[e], libdirs[k]) == CD_OK)
				scan_dir(s, dir, -1, false);
	if (!os_is_linux() || host_path(usr_local, sizeof usr_local, s->o->root, "/usr/local") != CD_OK)
		return; /* /usr/local/cuda*: Linux's place */
	if (dir_names(usr_local, is_cuda_dir, NULL, &names, &n) != CD_OK) {
		s->rc = CD_ENOMEM;
		return;
	}
	for (size_t i = n; i-- > 0;)
		for (size_t k = 0; k < sizeof libdirs / sizeof libdirs[0]; k++)
			if (path_join(root, sizeof root, usr_local, names[i]) == CD_OK &&
			    path_join(dir, sizeof dir, root, libdirs[k]) == CD_OK)
				scan_dir(s, dir, -1, false);
	names_free(names, n);
}

static void scan_python(struct scan *s)
{
	static const char *const subdirs[] = { "nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cu14/lib", "torch/lib" };
	char dir[PROBE_PATH], own[96];

	snprintf(own, sizeof own, "nvidia/%s/lib", s->kind->wheel_dir ? s->kind->wheel_dir : "cuda_runtime");
	for (size_t i = 0; i < s->o->n_site_dirs; i++) {
		if (path_join(dir, sizeof dir, s->o->site_dirs[i], own) == CD_OK)
			scan_dir(s, dir, -1, false);
		for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++)
			if (path_join(dir, sizeof dir, s->o->site_dirs[i], subdirs[k]) == CD_OK)
				scan_dir(s, dir, -1, false);
	}
	const char *conda = os_getenv("CONDA_PREFIX");
	if (conda && *conda && path_join(dir, sizeof dir, conda, "lib") == CD_OK)
		scan_dir(s, dir, -1, false);
}

int runtimes_probe(struct runtimes *out, const struct runtimes_opts *o, char *err)
{
	struct scan s = { .out = out, .o = o, .stem = o->library ? o->library : "libcudart", .rc = CD_OK };

	s.kind = kind_of(s.stem);

	memset(out, 0, sizeof *out);
	out->library = s.stem;
	snprintf(s.so_prefix, sizeof s.so_prefix, "%s.so.", s.stem);
	/* the loader's places are Linux's: Windows looks for DLLs elsewhere (the Windows side) */
	if (os_is_linux()) {
		path_list_each(os_getenv("LD_LIBRARY_PATH"), on_ld_dir, &s);
		if (s.rc == CD_OK)
			scan_ldcache(&s);
	}
	if (s.rc == CD_OK)
		scan_toolkits(&s);
	if (s.rc == CD_OK)
		scan_python(&s);
	if (s.rc != CD_OK) {
		runtimes_free(out);
		return cd_fail(err, s.rc, "runtimes: out of memory");
	}
	for (size_t i = 0; i < out->n; i++) {
		struct runtime *a = &out->r[i];
		bool first = a->rank >= 0;
		for (size_t j = 0; j < out->n && first; j++) {
			const struct runtime *b = &out->r[j];
			if (j != i && b->rank >= 0 && b->rank < a->rank && strcmp(a->soname, b->soname) == 0)
				first = false;
		}
		a->picked = first;
	}
	return CD_OK;
}

void runtimes_free(struct runtimes *r)
{
	free(r->r);
	r->r = NULL;
	r->n = 0;
}
