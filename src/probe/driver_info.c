/* Driver probe. The user-space version comes from NVML, else the resolved libcuda file
 * name (libcuda.so.580.159.04), else the kernel module's own line in /proc. */
#include "probe/driver_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/host.h"
#include "probe/paths.h"
#include "probe/vertext.h"
#include "util/file.h"
#include "util/host_path.h"

static void read_kmod(struct gpu_probe *p, const char *root)
{
	char path[PROBE_PATH], *text = NULL;
	size_t len;

	/* Windows' driver has no such file: its absence there says nothing */
	if (!(p->kmod_looked = os_is_linux()))
		return;
	if (host_path(path, sizeof path, root, "/proc/driver/nvidia/version") != CD_OK ||
	    file_read_text(path, 16 * 1024, &text, &len, NULL) != CD_OK)
		return;
	driver_mark(p, DF_KMOD);
	if (vt_proc_driver_version(text, len, p->kmod_version, sizeof p->kmod_version, &p->kmod_open) == CD_OK &&
	    p->kmod_version[0])
		driver_mark(p, DF_KMOD_VERSION);
	else
		p->kmod_version[0] = '\0';
	free(text);
}

static void set_version(struct gpu_probe *p, const char *version, const char *source)
{
	snprintf(p->user_driver_version, sizeof p->user_driver_version, "%s", version);
	p->user_driver_version_source = source;
	driver_mark(p, DF_VERSION);
}

void driver_info_collect(struct gpu_probe *p, const char *root)
{
	bool from_nvml = driver_has(p, DF_VERSION) && p->user_driver_version_source &&
			 strcmp(p->user_driver_version_source, DRIVER_FROM_NVML) == 0;
	char name[96];

	p->kmod_open = p->compat_lib = false;
	p->kmod_version[0] = '\0';
	driver_unmark(p, DF_KMOD);
	driver_unmark(p, DF_KMOD_VERSION);
	if (!from_nvml) {
		p->user_driver_version[0] = '\0';
		p->user_driver_version_source = NULL;
		driver_unmark(p, DF_VERSION);
	}
	read_kmod(p, root);
	if (p->cuda_loaded)
		p->compat_lib = strstr(p->cuda_path, "/compat/") != NULL;
	if (from_nvml)
		return;
	if (p->cuda_loaded) {
		const char *base = strrchr(p->cuda_path, '/');
		if (vt_soname_suffix(base ? base + 1 : p->cuda_path, "libcuda.so.", name, sizeof name) == CD_OK &&
		    strchr(name, '.')) {
			set_version(p, name, DRIVER_FROM_LIBCUDA_NAME);
			return;
		}
	}
	if (driver_has(p, DF_KMOD_VERSION))
		set_version(p, p->kmod_version, DRIVER_FROM_PROC);
}
