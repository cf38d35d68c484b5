/* AMD's HIP runtime (libamdhip64) through the one loader: the version it reports and the
 * devices it sees. Only what doctor asks; nothing here launches work. */
#ifndef CUDOCTOR_DRIVER_HIP_H
#define CUDOCTOR_DRIVER_HIP_H

#include "driver/loader.h"

typedef int (*hip_int_fn)(int *);

struct hip {
	struct dl_lib lib;
	hip_int_fn RuntimeGetVersion; /* hipRuntimeGetVersion(int *) */
	hip_int_fn GetDeviceCount;    /* hipGetDeviceCount(int *) */
};

/* Loads libamdhip64 ($CUDOCTOR_LIBHIP, the loader's search, then dirs: the ROCm install's lib
 * folders, NULL-terminated). CD_OK, or CD_ENOTFOUND with err naming what was tried. */
int hip_load(struct hip *h, const char *const *dirs, char *err);
void hip_unload(struct hip *h);

#endif
