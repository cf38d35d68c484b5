/* Python rules: CPU-only builds on a machine with a GPU. A framework's CUDA build against the
 * driver is judged with its device code, by doctor's frameworks (rules/framework.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/driver_need.h"
#include "rules/internal.h"
#include "rules/plan.h"
#include "util/err.h"
#include "util/version.h"
#include "util/str.h"

/* where a framework's finding points: its package directory, else its name */
static const char *fw_where(const struct py_framework *fw)
{
	return fw->path[0] ? fw->path : fw->name;
}

int rule_torch_cpu(const struct facts *f, struct report *r)
{
	bool oom = false;
	bool gpu_here = f->driver->n_gpus > 0 || (f->driver->cuda_loaded && f->driver->cuda_init_result == CUDA_SUCCESS);

	for (size_t i = 0; i < f->python->n_fw; i++) {
		const struct py_framework *fw = &f->python->fw[i];
		struct finding_vars v;
		struct finding *x;

		if (!fw->cpu_only)
			continue;
		finding_vars_init(&v);
		if (rules_driver_usable(f->driver))
			rules_driver_vars(f->driver, &v);
		finding_var(&v, "framework", "%s", fw->name);
		/* a Windows environment's fix runs its own python.exe (the catalogue quotes it) */
		finding_flag(&v, "windows", fw->win_env != NULL);
		if (fw->win_env)
			finding_var(&v, "python", "%s", fw->win_python);
		if (fw->version[0])
			finding_var(&v, "framework_version", "%s", fw->version);
		x = finding_make(r, gpu_here ? SEV_WARN : SEV_INFO, "torch-cpu-only", fw_where(fw), &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s/version.py: __version__ = '%s', cuda = None", fw_where(fw),
				       fw->version[0] ? fw->version : "?") != CD_OK;
	}
	return rules_status(oom);
}
