/* Driver probe. The user-space version comes from NVML, else the resolved libcuda file
 * name (libcuda.so.580.159.04), else the kernel module's own line in /proc. */
#include "probe/driver_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/paths.h"
#include "probe/vertext.h"
#include "util/file.h"

static void read_kmod(struct gpu_probe *p, const char *root)
{
	char path[PROBE_PATH], *text = NULL;
	size_t len;

	if (path_rooted(path, sizeof path, root, "/proc/driver/nvidia/version") != CD_OK ||
	    file_read_text(path, 16 * 1024, &text, &len, NULL) != CD_OK)
		return;
	p->kmod_present = true;
	if (vt_proc_driver_version(text, len, p->kmod_version, sizeof p->kmod_version, &p->kmod_open) != CD_OK)
		p->kmod_version[0] = '\0';
	free(text);
}

void driver_info_collect(struct gpu_probe *p, const char *root)
{
	p->kmod_present = p->kmod_open = p->compat_lib = false;
	p->kmod_version[0] = p->user_driver_version[0] = '\0';
	p->user_driver_version_source = NULL;
	read_kmod(p, root);
	if (p->cuda_loaded)
		p->compat_lib = strstr(p->cuda_path, "/compat/") != NULL;
	if (p->has_driver_version && p->driver_version[0]) {
		snprintf(p->user_driver_version, sizeof p->user_driver_version, "%s", p->driver_version);
		p->user_driver_version_source = "NVML";
	} else if (p->cuda_loaded) {
		const char *base = strrchr(p->cuda_path, '/');
		if (vt_soname_suffix(base ? base + 1 : p->cuda_path, "libcuda.so.", p->user_driver_version,
				     sizeof p->user_driver_version) == CD_OK &&
		    strchr(p->user_driver_version, '.'))
			p->user_driver_version_source = "libcuda file name";
		else
			p->user_driver_version[0] = '\0';
	}
	if (!p->user_driver_version[0] && p->kmod_version[0]) {
		snprintf(p->user_driver_version, sizeof p->user_driver_version, "%s", p->kmod_version);
		p->user_driver_version_source = "/proc/driver/nvidia/version";
	}
}
