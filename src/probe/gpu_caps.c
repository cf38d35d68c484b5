/* GPU compute capabilities and the driver version into the driver facts, cheapest first: the
 * kernel module's own /proc files with the kb's names (no library at all), then NVML (its init
 * does not set up CUDA), then libcuda's version without cuInit. */
#include "probe/gpu_caps.h"
#include "os/env.h"
#include "os/fs.h"
#include "os/host.h"
#include "util/host_path.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "kb/kb.h"
#include "probe/driver_info.h"
#include "probe/paths.h"
#include "probe/platform.h"
#include "probe/vertext.h"
#include "util/file.h"
#include "util/str.h"
#include "util/version.h"

struct nvml_gpu {
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	unsigned cc;
};

static bool same_kind(const struct nvml_gpu *a, const struct nvml_gpu *b)
{
	return a->cc == b->cc && strcmp(a->name, b->name) == 0;
}

/* The NVML index (PCI order) of CUDA_VISIBLE_DEVICES token t, or -1 when it cannot be
 * resolved the way CUDA would. */
static int token_device(const struct visible_token *t, const struct nvml_gpu *g, size_t n)
{
	int found = -1;

	if (t->kind == VIS_INDEX)
		return t->index >= 0 && (size_t)t->index < n ? (int)t->index : -1;
	if (t->kind != VIS_GPU_UUID)
		return -1; /* MIG-<uuid> names an instance NVML lists elsewhere; bad tokens end CUDA's list */
	for (size_t i = 0; i < n; i++)
		if (str_starts_with(g[i].uuid, t->text)) {
			if (found >= 0)
				return -1; /* an ambiguous prefix */
			found = (int)i;
		}
	return found;
}

/* CUDA's view of the NVML devices: which of them, in which order. False when that cannot
 * be told without cuInit: MIG on (CUDA then shows instances), differing GPUs in the default
 * FASTEST_FIRST order (CUDA's ranking is its own), or a CUDA_VISIBLE_DEVICES that CUDA
 * would cut short or that names what NVML cannot match. */
static bool cuda_view(const struct nvml_gpu *g, size_t n, const bool *mig, int *map, size_t *n_map)
{
	const char *order = os_getenv("CUDA_DEVICE_ORDER");
	struct visible_devices vd;
	bool used[GPU_CAPS_MAX] = { false };

	if (n == 0 || n > GPU_CAPS_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (mig[i] || (!(order && strcmp(order, "PCI_BUS_ID") == 0) && !same_kind(&g[i], &g[0])))
			return false;
	visible_devices_parse(os_getenv("CUDA_VISIBLE_DEVICES"), &vd);
	*n_map = 0;
	if (!vd.set) {
		for (size_t i = 0; i < n; i++)
			map[(*n_map)++] = (int)i;
		return true;
	}
	if (vd.n == 0 || vd.truncated)
		return false;
	for (size_t k = 0; k < vd.n; k++) {
		int d = token_device(&vd.tok[k], g, n);

		if (d < 0 || used[d])
			return false;
		used[d] = true;
		map[(*n_map)++] = d;
	}
	return true;
}

/* One GPU CUDA would see at ordinal, with what is known of it; NULL when out of memory. */
static struct gpu_info *add_gpu(struct gpu_probe *p, int ordinal, const char *name, const char *uuid, unsigned cc)
{
	struct gpu_info *grown = realloc(p->gpus, (p->n_gpus + 1) * sizeof(*grown)), *g;

	if (!grown)
		return NULL;
	p->gpus = grown;
	g = &grown[p->n_gpus++];
	memset(g, 0, sizeof(*g));
	g->cuda_ordinal = ordinal;
	g->nvml_index = -1;
	if (name[0]) {
		snprintf(g->name, sizeof g->name, "%s", name);
		gpu_mark(g, GF_NAME);
	}
	if (uuid[0]) {
		snprintf(g->uuid, sizeof g->uuid, "%.*s", (int)sizeof g->uuid - 1, uuid);
		gpu_mark(g, GF_UUID);
	}
	g->cc_major = cc / 10;
	g->cc_minor = cc % 10;
	gpu_mark(g, GF_CC);
	return g;
}

/* p's GPUs as CUDA would see g (PCI order; nvml: g is NVML's list); false when that view
 * needs cuInit, or memory ran out (p's GPUs are then none). */
static bool take_view(struct gpu_probe *p, const struct nvml_gpu *g, size_t n, const bool *mig, bool nvml)
{
	int map[GPU_CAPS_MAX];
	size_t n_map = 0;

	if (!cuda_view(g, n, mig, map, &n_map))
		return false;
	for (size_t k = 0; k < n_map; k++) {
		struct gpu_info *gi = add_gpu(p, (int)k, g[map[k]].name, g[map[k]].uuid, g[map[k]].cc);
		if (!gi) {
			free(p->gpus);
			p->gpus = NULL;
			p->n_gpus = 0;
			return false;
		}
		if (nvml)
			gi->nvml_index = map[k];
	}
	return true;
}

/* The value of "Key:" in a /proc information file, blanks trimmed, into out. */
static bool info_field(const char *text, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v, *e;

		if (strncmp(l, key, klen) != 0 || l[klen] != ':')
			continue;
		for (v = l + klen + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v; *e && *e != '\n'; e++)
			;
		while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		snprintf(out, n, "%.*s", (int)(e - v), v);
		return true;
	}
	return false;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One GPU of /proc/driver/nvidia/gpus/BUS: its model named in the kb (for the compute
 * capability), its UUID, and whether MIG instances exist on it (CUDA then shows those). */
static bool proc_gpu(const char *bus, struct nvml_gpu *g, bool *mig)
{
	char path[PROBE_PATH], rel[PROBE_PATH], minor[16] = "", *text = NULL;
	const struct kb_gpu *k;
	size_t len;
	bool ok = false;
	struct os_dir *d;
	const char *e;

	memset(g, 0, sizeof(*g));
	*mig = false;
	snprintf(rel, sizeof rel, "/proc/driver/nvidia/gpus/%s/information", bus);
	if (host_path(path, sizeof path, NULL, rel) != CD_OK || file_read_text(path, 16 * 1024, &text, &len, NULL) != CD_OK)
		return false;
	if (!info_field(text, "Model", g->name, sizeof g->name) || !(k = kb_gpu_by_name(g->name)) || k->arch <= 0)
		goto out;
	g->cc = (unsigned)k->arch;
	if (!info_field(text, "GPU UUID", g->uuid, sizeof g->uuid) || !str_starts_with(g->uuid, "GPU-"))
		g->uuid[0] = '\0';
	if (!info_field(text, "Device Minor", minor, sizeof minor))
		goto out;
	snprintf(rel, sizeof rel, "/proc/driver/nvidia/capabilities/gpu%s/mig", minor);
	if (host_path(path, sizeof path, NULL, rel) == CD_OK && os_dir_open(path, &d) == 0) {
		while ((e = os_dir_next(d)))
			if (strncmp(e, "gi", 2) == 0)
				*mig = true;
		os_dir_close(d);
	}
	ok = true;
out:
	free(text);
	return ok;
}

/* Only a version whose branch the kb lists, so its CUDA version is known. */
bool gpu_caps_from_proc(struct gpu_probe *p, bool want_gpus)
{
	char path[PROBE_PATH], version[32], *text = NULL, *names[GPU_CAPS_MAX], err[CD_ERRMSG];
	struct nvml_gpu g[GPU_CAPS_MAX];
	bool mig[GPU_CAPS_MAX], exact = false, open_module = false, ok = false;
	const struct kb_driver_branch *b;
	struct version v;
	size_t len, n = 0;
	struct os_dir *d = NULL;
	const char *e;

	if (!os_is_linux() || /* the kernel module's files are Linux's */
	    host_path(path, sizeof path, NULL, "/proc/driver/nvidia/version") != CD_OK ||
	    file_read_text(path, 16 * 1024, &text, &len, NULL) != CD_OK ||
	    vt_proc_driver_version(text, len, version, sizeof version, &open_module) != CD_OK ||
	    version_parse(version, &v) != CD_OK || kb_load(err) != CD_OK ||
	    kb_driver_branch_of(&v, &b, &exact) != CD_OK || !exact || b->cuda.parts == 0)
		goto out;
	if (want_gpus) {
		if (host_path(path, sizeof path, NULL, "/proc/driver/nvidia/gpus") != CD_OK || os_dir_open(path, &d) != 0)
			goto out;
		while ((e = os_dir_next(d)) && n < GPU_CAPS_MAX)
			if (e[0] != '.' && !(names[n++] = cd_strdup(e)))
				goto out;
		if (e || n == 0)
			goto out; /* more GPUs than we hold, or none */
		cd_qsort(names, n, sizeof(names[0]), cmp_name);
		for (size_t i = 0; i < n; i++)
			if (!proc_gpu(names[i], &g[i], &mig[i]))
				goto out;
		if (!take_view(p, g, n, mig, false))
			goto out;
	}
	/* the module's version is the user-space one here: nothing else was asked */
	snprintf(p->kmod_version, sizeof p->kmod_version, "%s", version);
	p->kmod_open = open_module;
	p->kmod_looked = true;
	driver_mark(p, DF_KMOD);
	driver_mark(p, DF_KMOD_VERSION);
	snprintf(p->user_driver_version, sizeof p->user_driver_version, "%s", version);
	p->user_driver_version_source = DRIVER_FROM_PROC;
	driver_mark(p, DF_VERSION);
	ok = true;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	os_dir_close(d);
	free(text);
	return ok;
}

/* GPUs through NVML; false when they must come from cuInit instead. */
static bool nvml_gpus(const struct nvml *nv, struct gpu_probe *p)
{
	struct nvml_gpu g[GPU_CAPS_MAX];
	bool mig[GPU_CAPS_MAX];
	unsigned count = 0;

	if (!nv->DeviceGetCount || !nv->DeviceGetHandleByIndex || !nv->DeviceGetCudaComputeCapability ||
	    nv->DeviceGetCount(&count) != NVML_SUCCESS || count == 0 || count > GPU_CAPS_MAX)
		return false;
	for (unsigned i = 0; i < count; i++) {
		nvmlDevice_t dev;
		int major = 0, minor = 0;
		unsigned cur = 0, pending = 0;

		memset(&g[i], 0, sizeof(g[i]));
		if (nv->DeviceGetHandleByIndex(i, &dev) != NVML_SUCCESS ||
		    nv->DeviceGetCudaComputeCapability(dev, &major, &minor) != NVML_SUCCESS || major <= 0)
			return false;
		g[i].cc = (unsigned)(major * 10 + minor);
		if (!nv->DeviceGetName || nv->DeviceGetName(dev, g[i].name, sizeof(g[i].name)) != NVML_SUCCESS)
			g[i].name[0] = '\0';
		if (nv->DeviceGetUUID && nv->DeviceGetUUID(dev, g[i].uuid, sizeof(g[i].uuid)) != NVML_SUCCESS)
			g[i].uuid[0] = '\0';
		mig[i] = nv->DeviceGetMigMode && nv->DeviceGetMigMode(dev, &cur, &pending) == NVML_SUCCESS &&
			 cur == NVML_DEVICE_MIG_ENABLE;
	}
	return take_view(p, g, count, mig, true);
}

bool gpu_caps_from_nvml(struct gpu_probe *p, const struct nvml *nv, bool want_gpus)
{
	bool done = false;
	int v = 0;

	if (!nv || !nv->Init || nv->Init() != NVML_SUCCESS)
		return false;
	if (nv->SystemGetCudaDriverVersion && nv->SystemGetCudaDriverVersion(&v) == NVML_SUCCESS && v > 0) {
		p->nvml_cuda_driver_version = v;
		driver_mark(p, DF_NVML_CUDA_VERSION);
	}
	if (nv->SystemGetDriverVersion &&
	    nv->SystemGetDriverVersion(p->user_driver_version, (unsigned)sizeof(p->user_driver_version)) == NVML_SUCCESS &&
	    p->user_driver_version[0]) {
		p->user_driver_version_source = DRIVER_FROM_NVML;
		driver_mark(p, DF_VERSION);
	} else {
		p->user_driver_version[0] = '\0';
	}
	done = want_gpus && nvml_gpus(nv, p);
	if (nv->Shutdown)
		nv->Shutdown();
	return done;
}

void gpu_caps_from_cuda(struct gpu_probe *p, const struct cudrv *cu)
{
	int ver = 0;

	if (cu) {
		p->cuda_loaded = true;
		snprintf(p->cuda_path, sizeof p->cuda_path, "%s", cu->path);
		snprintf(p->cuda_how, sizeof p->cuda_how, "%s", cu->how);
		if (cu->DriverGetVersion && cu->DriverGetVersion(&ver) == CUDA_SUCCESS && ver > 0) {
			p->cuda_driver_version = ver;
			driver_mark(p, DF_CUDA_VERSION);
		}
	}
	/* the version as every command resolves it: NVML's, else the libcuda file name's, else the
	 * module's (which may name the driver even where libcuda did not load) */
	driver_info_collect(p, NULL);
}
