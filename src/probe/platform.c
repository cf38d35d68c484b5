/* Platform probe: a few stats and one small read of /proc/version; no process runs. */
#include "probe/platform.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/env.h"
#include "os/fs.h"
#include "os/host.h"
#include "probe/ldcache.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"
#include "util/str.h"

static bool rooted_exists(const char *root, const char *abs)
{
	char p[PROBE_PATH];

	return host_path(p, sizeof p, root, abs) == CD_OK && os_access(p, OS_EXISTS);
}

static bool file_contains(const char *root, const char *abs, const char *needle)
{
	char p[PROBE_PATH], *text = NULL;
	size_t len;
	bool found;

	if (host_path(p, sizeof p, root, abs) != CD_OK || file_read_text(p, 64 * 1024, &text, &len, NULL) != CD_OK)
		return false;
	found = str_contains_ci(text, needle);
	free(text);
	return found;
}

static void probe_container(struct platform_info *p, const char *root)
{
	const char *env = os_getenv("container");

	if (os_getenv("KUBERNETES_SERVICE_HOST"))
		p->container = "kubernetes";
	else if (rooted_exists(root, "/.dockerenv"))
		p->container = "docker";
	else if (rooted_exists(root, "/run/.containerenv"))
		p->container = "podman";
	else if (file_contains(root, "/proc/1/cgroup", "kubepods"))
		p->container = "kubernetes";
	else if (file_contains(root, "/proc/1/cgroup", "docker") || file_contains(root, "/proc/1/cgroup", "containerd"))
		p->container = "docker";
	else if (file_contains(root, "/proc/1/cgroup", "lxc"))
		p->container = "lxc";
	else if (env && *env)
		p->container = "container";
}

static void add_node(struct platform_info *p, const char *root, const char *abs)
{
	char full[PROBE_PATH];
	struct device_node *n;

	if (p->n_nodes == PLATFORM_MAX_NODES)
		return;
	n = &p->nodes[p->n_nodes++];
	snprintf(n->path, sizeof n->path, "%s", abs);
	if (host_path(full, sizeof full, root, abs) != CD_OK)
		return;
	n->exists = os_access(full, OS_EXISTS);
	n->accessible = n->exists && os_access(full, OS_READ | OS_WRITE);
}

static bool is_gpu_node(const char *name, void *arg)
{
	(void)arg;
	if (strncmp(name, "nvidia", 6) != 0 || !name[6])
		return false;
	for (const char *q = name + 6; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	return true;
}

static int probe_nodes(struct platform_info *p, const char *root)
{
	char dev[PROBE_PATH], abs[64];
	char **names;
	size_t n;

	add_node(p, root, "/dev/nvidiactl");
	add_node(p, root, "/dev/nvidia-uvm");
	if (host_path(dev, sizeof dev, root, "/dev") != CD_OK)
		return CD_OK;
	if (dir_names(dev, is_gpu_node, NULL, &names, &n) != CD_OK)
		return CD_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		snprintf(abs, sizeof abs, "/dev/%.50s", names[i]);
		add_node(p, root, abs);
	}
	if (n == 0)
		add_node(p, root, "/dev/nvidia0");
	names_free(names, n);
	return CD_OK;
}

static int on_ld_dir(const char *dir, void *arg)
{
	(void)arg;
	return strcmp(dir, "/usr/lib/wsl/lib") == 0;
}

bool platform_wsl(const char *root)
{
	return file_contains(root, "/proc/version", "microsoft") || file_contains(root, "/proc/version", "WSL") ||
	       file_contains(root, "/proc/sys/kernel/osrelease", "microsoft");
}

static void probe_wsl(struct platform_info *p, const char *root)
{
	char lib[PROBE_PATH], so1[PROBE_PATH], so[PROBE_PATH], cache[PROBE_PATH], err[CD_ERRMSG];
	struct ldcache c;
	bool cache_has_unversioned = false;

	p->wsl = platform_wsl(root);
	if (!p->wsl)
		return;
	p->wsl_dxg = rooted_exists(root, "/dev/dxg");
	if (host_path(lib, sizeof lib, root, "/usr/lib/wsl/lib") != CD_OK)
		return;
	p->wsl_lib_dir = path_is_dir(lib);
	if (path_join(so1, sizeof so1, lib, "libcuda.so.1") == CD_OK) {
		p->wsl_libcuda1 = os_access(so1, OS_EXISTS);
		p->wsl_libcuda1_symlink = path_is_symlink(so1);
	}
	if (host_path(cache, sizeof cache, root, "/etc/ld.so.cache") == CD_OK && ldcache_load(cache, &c, err) == CD_OK) {
		for (size_t i = 0; i < c.n; i++) {
			if (!ldcache_entry_native(&c.e[i]))
				continue;
			bool in_wsl = str_starts_with(c.e[i].path, "/usr/lib/wsl/");
			if (strcmp(c.e[i].soname, "libcuda.so") == 0 && in_wsl)
				cache_has_unversioned = true;
			if (strcmp(c.e[i].soname, "libcuda.so.1") == 0 && !in_wsl && !p->wsl_distro_libcuda[0])
				snprintf(p->wsl_distro_libcuda, sizeof p->wsl_distro_libcuda, "%s", c.e[i].path);
		}
		ldcache_free(&c);
	}
	p->wsl_libcuda_unversioned = path_join(so, sizeof so, lib, "libcuda.so") == CD_OK && os_access(so, OS_EXISTS) &&
				     (cache_has_unversioned || path_list_each(os_getenv("LD_LIBRARY_PATH"), on_ld_dir, NULL) ||
				      path_list_each(os_getenv("LIBRARY_PATH"), on_ld_dir, NULL));
}

void visible_devices_parse(const char *raw, struct visible_devices *out)
{
	const char *p = raw;

	memset(out, 0, sizeof *out);
	if (!raw)
		return;
	out->set = true;
	out->raw = raw;
	while (*p) {
		const char *start, *end;
		struct visible_token *t;
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (*p == ',')
			p++;
		if (end == start && !*p && out->n == 0)
			break; /* only blanks: the same as empty */
		if (out->n == VISIBLE_MAX_TOKENS) {
			out->truncated = true;
			return;
		}
		t = &out->tok[out->n++];
		len = (size_t)(end - start);
		if (len >= sizeof t->text)
			len = sizeof t->text - 1;
		memcpy(t->text, start, len);
		t->text[len] = '\0';
		t->kind = VIS_INVALID;
		t->index = -1;
		if (end - start >= 4 && strncmp(start, "GPU-", 4) == 0) {
			t->kind = VIS_GPU_UUID;
		} else if (end - start >= 4 && strncmp(start, "MIG-", 4) == 0) {
			t->kind = VIS_MIG_UUID;
		} else if (end > start) {
			const char *q = start;
			long v = 0;
			bool digits = true;
			for (; q < end; q++) {
				if (!isdigit((unsigned char)*q)) {
					digits = false;
					break;
				}
				if (v < 100000)
					v = v * 10 + (*q - '0');
			}
			if (digits) {
				t->kind = VIS_INDEX;
				t->index = v;
			}
		}
	}
}

static void add_iface(struct platform_info *p, const char *name, size_t n)
{
	const char *at = p->net_ifaces;
	size_t used = strlen(p->net_ifaces);

	if (n == 0 || (n == 2 && strncmp(name, "lo", 2) == 0))
		return;
	while (*at) { /* already listed? */
		size_t k = strcspn(at, " ");

		if (k == n && strncmp(at, name, n) == 0)
			return;
		at += k + (at[k] == ' ');
	}
	if (used + n + 2 <= sizeof(p->net_ifaces))
		snprintf(p->net_ifaces + used, sizeof(p->net_ifaces) - used, "%s%.*s", used ? " " : "", (int)n, name);
}

/* One column of each line of a /proc/net table: the interface (route: the first, after a header
 * line; if_inet6: the last). */
static void read_ifaces(struct platform_info *p, const char *root, const char *abs, bool last)
{
	char path[PROBE_PATH], *text = NULL;
	size_t len;

	if (host_path(path, sizeof path, root, abs) != CD_OK || file_read_text(path, 256 * 1024, &text, &len, NULL) != CD_OK)
		return;
	p->net_known = true;
	for (char *line = text, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n'), *tok = line, *end;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (!last && line == text)
			continue; /* the route table's header */
		if (last) {
			end = line + strlen(line);
			while (end > line && isspace((unsigned char)end[-1]))
				end--;
			tok = end;
			while (tok > line && !isspace((unsigned char)tok[-1]))
				tok--;
		} else {
			while (isspace((unsigned char)*tok))
				tok++;
			end = tok + strcspn(tok, " \t");
		}
		add_iface(p, tok, (size_t)(end - tok));
	}
	free(text);
}

int platform_probe(struct platform_info *p, const char *root, char *err)
{
	memset(p, 0, sizeof *p);
	/* the one place a command learns the host is Windows; under Wine the Linux host's files
	 * would otherwise read as this Windows' */
	p->windows = !os_is_linux();
	if (!p->windows) {
		probe_wsl(p, root);
		probe_container(p, root);
		read_ifaces(p, root, "/proc/net/route", false);
		read_ifaces(p, root, "/proc/net/if_inet6", true);
		if (!p->wsl && probe_nodes(p, root) != CD_OK)
			return cd_fail(err, CD_ENOMEM, "platform: out of memory");
	}
	visible_devices_parse(os_getenv("CUDA_VISIBLE_DEVICES"), &p->visible);
	p->device_order = os_getenv("CUDA_DEVICE_ORDER");
	p->image_cuda_version = os_getenv("CUDA_VERSION");
	p->nvidia_visible_devices = os_getenv("NVIDIA_VISIBLE_DEVICES");
	return CD_OK;
}

