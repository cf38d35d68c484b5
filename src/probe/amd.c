/* The AMD machine from its files: /sys/class/kfd/kfd/topology/nodes/N/properties (a GPU node
 * has a gfx_target_version; 0 is a CPU), /sys/class/drm/cardN (its render node, VRAM),
 * /sys/module/amdgpu, /dev/kfd and /dev/dri/renderD*, the host's /etc/passwd and /etc/group
 * for who may open them, /opt/rocm*, and libamdhip64 loaded through the one loader. */
#include "probe/amd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/hip.h"
#include "kb/amd.h"
#include "os/env.h"
#include "os/fs.h"
#include "os/host.h"
#include "probe/paths.h"
#include "probe/pci_gpus.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"

#define SMALL ((size_t)64 << 10)

bool amd_gfx_of_target_version(unsigned v, char *out, size_t cap)
{
	unsigned major = v / 10000, minor = v / 100 % 100, step = v % 100;
	if (v == 0 || major == 0 || minor > 9 || step > 15)
		return false;
	snprintf(out, cap, "gfx%u%u%x", major, minor, step);
	return true;
}

/* A host file's text, trimmed, into buf; false when it cannot be read. */
static bool read_host(const char *root, const char *abs, char *buf, size_t cap)
{
	char path[PROBE_PATH], err[CD_ERRMSG], *text = NULL;
	size_t len = 0;
	if (host_path(path, sizeof path, root, abs) != CD_OK || file_read_text(path, SMALL, &text, &len, err) != CD_OK)
		return false;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r'))
		text[--len] = 0;
	snprintf(buf, cap, "%s", text);
	free(text);
	return true;
}

static bool exists_host(const char *root, const char *abs)
{
	char path[PROBE_PATH];
	return host_path(path, sizeof path, root, abs) == CD_OK && os_access(path, OS_EXISTS);
}

/* The value of key in KFD's "key value" lines. */
static bool prop(const char *text, const char *key, unsigned long long *v)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			*v = strtoull(p + kl + 1, NULL, 10);
			return true;
		}
	return false;
}

bool amd_gpu_from_properties(const char *text, int node, struct amd_gpu *g)
{
	unsigned long long v;

	memset(g, 0, sizeof *g);
	if (!prop(text, "gfx_target_version", &v) || v > 0xffffffffu ||
	    !amd_gfx_of_target_version((unsigned)v, g->gfx, sizeof g->gfx))
		return false;
	g->node = node;
	g->gfx_target_version = (unsigned)v;
	g->vram_bytes = -1;
	g->render_minor = prop(text, "drm_render_minor", &v) && v < 1u << 20 ? (int)v : -1;
	g->vendor_id = prop(text, "vendor_id", &v) ? (unsigned)v : 0;
	g->device_id = prop(text, "device_id", &v) ? (unsigned)v : 0;
	g->revision_id = prop(text, "revision_id", &v) ? (unsigned)v : 0;
	g->simd_count = prop(text, "simd_count", &v) ? (unsigned)v : 0;
	if (prop(text, "simd_per_cu", &v) && v && v <= 0xffffffffu)
		g->cu_count = g->simd_count / (unsigned)v;
	return true;
}

static bool is_number(const char *name, void *arg)
{
	(void)arg;
	if (!*name)
		return false;
	for (const char *p = name; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool is_card(const char *name, void *arg)
{
	return strncmp(name, "card", 4) == 0 && is_number(name + 4, arg);
}

static bool is_render(const char *name, void *arg)
{
	return strncmp(name, "renderD", 7) == 0 && is_number(name + 7, arg);
}

/* The DRM card whose device has renderD<minor>, and that card's VRAM. */
static void drm_of(struct amd_gpu *g, const char *root)
{
	char dir[PROBE_PATH], abs[128], text[64];
	char **cards = NULL;
	size_t n = 0;

	if (g->render_minor < 0 || host_path(dir, sizeof dir, root, "/sys/class/drm") != CD_OK ||
	    dir_names(dir, is_card, NULL, &cards, &n) != CD_OK)
		return;
	for (size_t i = 0; i < n && !g->card[0]; i++) {
		snprintf(abs, sizeof abs, "/sys/class/drm/%.20s/device/drm/renderD%d", cards[i], g->render_minor);
		if (exists_host(root, abs))
			snprintf(g->card, sizeof g->card, "%.15s", cards[i]);
	}
	names_free(cards, n);
	if (!g->card[0])
		return;
	snprintf(abs, sizeof abs, "/sys/class/drm/%s/device/mem_info_vram_total", g->card);
	if (read_host(root, abs, text, sizeof text) && is_number(text, NULL))
		g->vram_bytes = strtoll(text, NULL, 10);
	snprintf(abs, sizeof abs, "/sys/class/drm/%s/device/product_name", g->card);
	if (read_host(root, abs, text, sizeof text) && text[0])
		snprintf(g->product, sizeof g->product, "%s", text);
}

/* The kb's product for a target, when the target has one product alone. */
static void product_of(struct amd_gpu *g)
{
	const struct kb_amd_gpu *one = NULL;
	size_t n = 0;
	if (g->product[0])
		return;
	for (size_t i = 0; i < kb_amd_gpu_count(); i++)
		if (strcmp(kb_amd_gpu_at(i)->gfx, g->gfx) == 0) {
			one = kb_amd_gpu_at(i);
			n++;
		}
	if (n == 1)
		snprintf(g->product, sizeof g->product, "%s", one->name);
}

static void probe_kfd(struct amd_host *h, const char *root)
{
	char dir[PROBE_PATH], abs[96];
	char **names = NULL;
	size_t n = 0;

	if (host_path(dir, sizeof dir, root, "/sys/class/kfd/kfd/topology/nodes") != CD_OK || !path_is_dir(dir))
		return;
	h->kfd = true;
	if (dir_names(dir, is_number, NULL, &names, &n) != CD_OK)
		return;
	for (size_t i = 0; i < n && h->n_gpus < AMD_MAX_GPUS; i++) {
		char path[PROBE_PATH], err[CD_ERRMSG], *text = NULL;
		size_t len;
		struct amd_gpu *g = &h->gpus[h->n_gpus];
		snprintf(abs, sizeof abs, "/sys/class/kfd/kfd/topology/nodes/%.20s/properties", names[i]);
		if (host_path(path, sizeof path, root, abs) != CD_OK || file_read_text(path, SMALL, &text, &len, err) != CD_OK)
			continue;
		if (amd_gpu_from_properties(text, atoi(names[i]), g)) {
			drm_of(g, root);
			product_of(g);
			h->n_gpus++;
		}
		free(text);
	}
	names_free(names, n);
}

/* ---- who may open the device nodes ---- */

struct identity {
	char name[64];
	long uid, gid;                /* -1 unknown */
	unsigned gids[256];
	size_t n_gids;
	char *group_text;             /* the host's /etc/group */
};

/* The line of /etc/passwd or /etc/group whose field `field` (0-based, ':'-separated) is `want`. */
static const char *line_with(const char *text, size_t field, const char *want)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *f = p;
		for (size_t k = 0; k < field && f; k++)
			f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL;
		size_t wl = strlen(want);
		if (f && strncmp(f, want, wl) == 0 && (f[wl] == ':' || f[wl] == '\n' || f[wl] == 0))
			return p;
	}
	return NULL;
}

/* Field k of line (up to ':' or the line's end) into out. */
static void field_of(const char *line, size_t k, char *out, size_t cap)
{
	const char *f = line;
	out[0] = 0;
	for (size_t i = 0; i < k && f; i++)
		f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL;
	if (!f)
		return;
	size_t n = strcspn(f, ":\n");
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), f);
}

static void who(struct identity *id, const char *root)
{
	char passwd_path[PROBE_PATH], group_path[PROBE_PATH], err[CD_ERRMSG], num[32], *passwd = NULL;
	size_t len;
	const char *env = os_getenv("USER"), *line = NULL;
	bool real = !root && !host_root()[0];

	memset(id, 0, sizeof *id);
	id->uid = id->gid = -1;
	if (host_path(passwd_path, sizeof passwd_path, root, "/etc/passwd") == CD_OK)
		(void)file_read_text(passwd_path, (size_t)4 << 20, &passwd, &len, err);
	if (host_path(group_path, sizeof group_path, root, "/etc/group") == CD_OK)
		(void)file_read_text(group_path, (size_t)4 << 20, &id->group_text, &len, err);
	if (env && *env) {
		snprintf(id->name, sizeof id->name, "%.63s", env);
		line = passwd ? line_with(passwd, 0, id->name) : NULL;
	} else if (passwd) {
		snprintf(num, sizeof num, "%u", os_uid());
		if ((line = line_with(passwd, 2, num)))
			field_of(line, 0, id->name, sizeof id->name);
	}
	if (line) {
		field_of(line, 2, num, sizeof num);
		id->uid = is_number(num, NULL) ? atol(num) : -1;
		field_of(line, 3, num, sizeof num);
		id->gid = is_number(num, NULL) ? atol(num) : -1;
	}
	if (real && id->uid < 0)
		id->uid = (long)os_uid();
	if (id->gid >= 0)
		id->gids[id->n_gids++] = (unsigned)id->gid;
	/* the groups that list the user by name */
	for (const char *p = id->group_text; p && *p && id->n_gids < 255; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char members[1024], gid[32];
		field_of(p, 3, members, sizeof members);
		field_of(p, 2, gid, sizeof gid);
		for (char *m = strtok(members, ","); m && id->name[0]; m = strtok(NULL, ","))
			if (strcmp(m, id->name) == 0 && is_number(gid, NULL))
				id->gids[id->n_gids++] = (unsigned)atol(gid);
	}
	/* on this machine itself, the groups the process has (sssd, LDAP: not in /etc/group) */
	if (real)
		id->n_gids += os_groups(id->gids + id->n_gids, sizeof id->gids / sizeof id->gids[0] - id->n_gids);
	free(passwd);
}

static void add_node(struct amd_host *h, const char *root, const char *abs, const struct identity *id)
{
	char full[PROBE_PATH], gid[32];
	struct os_stat st;
	struct amd_node *n;
	const char *line;

	if (h->n_nodes == AMD_MAX_NODES)
		return;
	n = &h->nodes[h->n_nodes++];
	memset(n, 0, sizeof *n);
	n->user_in_group = -1;
	snprintf(n->path, sizeof n->path, "%s", abs);
	if (host_path(full, sizeof full, root, abs) != CD_OK || os_stat(full, &st) != 0)
		return;
	n->exists = true;
	n->accessible = os_access(full, OS_READ | OS_WRITE);
	n->mode = st.mode & 0777;
	n->gid = st.gid;
	snprintf(gid, sizeof gid, "%u", st.gid);
	if (id->group_text && (line = line_with(id->group_text, 2, gid)))
		field_of(line, 0, n->group, sizeof n->group);
	if (id->name[0] || id->n_gids) {
		n->user_in_group = 0;
		for (size_t i = 0; i < id->n_gids; i++)
			n->user_in_group |= id->gids[i] == st.gid;
	}
	n->opens = h->root || (id->uid >= 0 && (unsigned long)id->uid == st.uid ? (st.mode & 0600) == 0600
			       : n->user_in_group == 1				    ? (st.mode & 0060) == 0060
										    : (st.mode & 0006) == 0006);
}

static void probe_nodes(struct amd_host *h, const char *root)
{
	struct identity id;
	char abs[64], dir[PROBE_PATH];
	char **names = NULL;
	size_t n = 0;

	who(&id, root);
	snprintf(h->user, sizeof h->user, "%s", id.name);
	h->root = id.uid == 0;
	add_node(h, root, "/dev/kfd", &id);
	/* each GPU's render node; all of them when KFD names none */
	for (size_t i = 0; i < h->n_gpus; i++)
		if (h->gpus[i].render_minor >= 0) {
			snprintf(abs, sizeof abs, "/dev/dri/renderD%d", h->gpus[i].render_minor);
			add_node(h, root, abs, &id);
		}
	if (h->n_nodes == 1 && host_path(dir, sizeof dir, root, "/dev/dri") == CD_OK &&
	    dir_names(dir, is_render, NULL, &names, &n) == CD_OK) {
		for (size_t i = 0; i < n; i++) {
			snprintf(abs, sizeof abs, "/dev/dri/%.40s", names[i]);
			add_node(h, root, abs, &id);
		}
		names_free(names, n);
	}
	free(id.group_text);
}

/* ---- the ROCm user space ---- */

static bool is_rocm_dir(const char *name, void *arg)
{
	(void)arg;
	return strncmp(name, "rocm", 4) == 0;
}

static void probe_rocm(struct amd_host *h, const char *root)
{
	char dir[PROBE_PATH], abs[PROBE_PATH];
	char **names = NULL;
	size_t n = 0;

	if (read_host(root, "/opt/rocm/.info/version", h->rocm_version, sizeof h->rocm_version))
		snprintf(h->rocm_path, sizeof h->rocm_path, "/opt/rocm");
	else if (host_path(dir, sizeof dir, root, "/opt") == CD_OK && dir_names(dir, is_rocm_dir, NULL, &names, &n) == CD_OK) {
		for (size_t i = n; i > 0 && !h->rocm_version[0]; i--) { /* natural order: the newest last */
			snprintf(abs, sizeof abs, "/opt/%.200s/.info/version", names[i - 1]);
			if (read_host(root, abs, h->rocm_version, sizeof h->rocm_version))
				snprintf(h->rocm_path, sizeof h->rocm_path, "/opt/%.200s", names[i - 1]);
		}
		names_free(names, n);
	}
	static const char *const libdirs[] = {"lib", "lib64"};
	static const char *const sysdirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"};
	struct {
		char *out;
		const char *file;
	} libs[] = {{h->hip_library, "libamdhip64.so"}, {h->hsa_library, "libhsa-runtime64.so"}};
	for (size_t l = 0; l < 2; l++) {
		for (size_t d = 0; d < 2 && h->rocm_path[0] && !libs[l].out[0]; d++) {
			snprintf(abs, sizeof abs, "%.200s/%s/%s", h->rocm_path, libdirs[d], libs[l].file);
			if (exists_host(root, abs))
				snprintf(libs[l].out, FACTS_PATH, "%s", abs);
		}
		for (size_t d = 0; d < 3 && !libs[l].out[0]; d++) {
			snprintf(abs, sizeof abs, "%s/%s", sysdirs[d], libs[l].file);
			if (exists_host(root, abs))
				snprintf(libs[l].out, FACTS_PATH, "%s", abs);
		}
	}
}

/* NVIDIA's GPUs counted by the one PCI reader check's gpu-missing uses too */
static void probe_nvidia(struct amd_host *h, const char *root)
{
	struct pci_gpus pci;

	h->nvidia_module = exists_host(root, "/proc/driver/nvidia/version") || exists_host(root, "/sys/module/nvidia");
	pci_gpus_probe(&pci, root);
	h->nvidia_pci_gpus = pci.read ? (int)pci.n : -1;
}

void amd_probe(struct amd_host *h, const char *root)
{
	memset(h, 0, sizeof *h);
	h->hip_device_count = -1;
	probe_kfd(h, root);
	h->amdgpu_module = exists_host(root, "/sys/module/amdgpu");
	(void)read_host(root, "/sys/module/amdgpu/initstate", h->amdgpu_initstate, sizeof h->amdgpu_initstate);
	(void)read_host(root, "/sys/module/amdgpu/version", h->amdgpu_version, sizeof h->amdgpu_version);
	if (h->kfd || h->amdgpu_module || exists_host(root, "/dev/kfd"))
		probe_nodes(h, root);
	probe_rocm(h, root);
	probe_nvidia(h, root);
	h->hsa_override = os_getenv("HSA_OVERRIDE_GFX_VERSION");
	h->hip_visible = os_getenv("HIP_VISIBLE_DEVICES");
	h->rocr_visible = os_getenv("ROCR_VISIBLE_DEVICES");
	h->hsa_xnack = os_getenv("HSA_XNACK");
}

void amd_probe_hip(struct amd_host *h)
{
	struct hip hip;
	char lib[PROBE_PATH], err[CD_ERRMSG] = "";
	const char *dirs[2] = {NULL, NULL};
	int count = 0, version = 0, rc;

	if (h->rocm_path[0] && !host_root()[0] && snprintf(lib, sizeof lib, "%s/lib", h->rocm_path) > 0)
		dirs[0] = lib;
	if (hip_load(&hip, dirs, err) != CD_OK) {
		snprintf(h->hip_load_error, sizeof h->hip_load_error, "%.159s", err);
		return;
	}
	h->hip_loaded = true;
	if (hip.RuntimeGetVersion(&version) == 0)
		h->hip_runtime_version = version;
	if ((rc = hip.GetDeviceCount(&count)) == 0)
		h->hip_device_count = count;
	else
		h->hip_error = rc;
	hip_unload(&hip);
}
