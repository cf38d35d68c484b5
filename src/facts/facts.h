/* One run's collection, as the rules read it: every layer's facts side by side. Each
 * pointer points at what its probe filled; nothing here is a copy. */
#ifndef CUDOCTOR_FACTS_FACTS_H
#define CUDOCTOR_FACTS_FACTS_H

#include <stddef.h>

#include "facts/driver.h"
#include "facts/platform.h"
#include "facts/python.h"
#include "facts/runtime.h"
#include "facts/toolkit.h"
#include "facts/windows.h"

struct facts {
	const struct gpu_probe *driver;       /* the driver layer and its GPUs */
	const struct platform_info *platform;
	/* the rest is doctor's: every rule but the driver layer's reads them */
	const struct toolkits *toolkits;
	const struct runtimes *runtimes;      /* [0] every libcudart, then one set per other CUDA library */
	size_t n_runtime_sets;
	const struct python_info *python;
	const struct win_side *windows;       /* the Windows side (WSL2's /mnt/c); NULL: not probed */
	const char *kb_error;                 /* the kb did not load: why (the facts lack its knowledge); "" or NULL: it did */
};

#endif
