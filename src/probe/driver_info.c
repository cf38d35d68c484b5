/* Driver probe. The user-space version comes from NVML, else the resolved libcuda file
 * name (libcuda.so.580.159.04), else the kernel module's own line in /proc. */
#include "probe/driver_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/vertext.h"
#include "util/file.h"

static void read_kmod(struct driver_info *di, const char *root)
{
	char p[PROBE_PATH], *text = NULL;
	size_t len;

	if (path_rooted(p, sizeof p, root, "/proc/driver/nvidia/version") != CD_OK ||
	    file_read_text(p, 16 * 1024, &text, &len, NULL) != CD_OK)
		return;
	di->kmod_present = true;
	if (vt_proc_driver_version(text, len, di->kmod_version, sizeof di->kmod_version, &di->kmod_open) != CD_OK)
		di->kmod_version[0] = '\0';
	free(text);
}

void driver_info_collect(struct driver_info *di, const struct driver_seen *s, const char *root)
{
	memset(di, 0, sizeof *di);
	read_kmod(di, root);
	if (!s->loaded) {
		snprintf(di->load_error, sizeof di->load_error, "%s", s->load_error ? s->load_error : "libcuda.so.1 not loaded");
	} else {
		di->loaded = true;
		snprintf(di->library_path, sizeof di->library_path, "%s", s->library_path ? s->library_path : "");
		snprintf(di->how, sizeof di->how, "%s", s->how ? s->how : "");
		di->compat_lib = strstr(di->library_path, "/compat/") != NULL;
		di->init_called = s->init_called;
		di->init_result = s->init_result;
		snprintf(di->init_result_name, sizeof di->init_result_name, "%s", s->init_result_name ? s->init_result_name : "");
		di->cuda_version = s->cuda_version;
	}
	if (s->nvml_version && *s->nvml_version) {
		snprintf(di->version, sizeof di->version, "%s", s->nvml_version);
		di->version_source = "NVML";
	} else if (di->loaded) {
		const char *base = strrchr(di->library_path, '/');
		if (vt_soname_suffix(base ? base + 1 : di->library_path, "libcuda.so.", di->version, sizeof di->version) == CD_OK &&
		    strchr(di->version, '.'))
			di->version_source = "libcuda file name";
		else
			di->version[0] = '\0';
	}
	if (!di->version[0] && di->kmod_version[0]) {
		snprintf(di->version, sizeof di->version, "%s", di->kmod_version);
		di->version_source = "/proc/driver/nvidia/version";
	}
}
