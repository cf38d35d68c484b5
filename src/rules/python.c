/* Python rules: each framework's CUDA build against the driver, and CPU-only builds on a
 * machine with a GPU. */
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

/* A framework's CUDA release as judged: "12.4"; NULL for a CPU-only build or a bare
 * major (cupy-cuda12x), which names no release. */
static const char *fw_cuda(const struct py_framework *fw)
{
	return fw->cuda[0] && strchr(fw->cuda, '.') ? fw->cuda : NULL;
}

/* where a framework's finding points: its package directory, else its name */
static const char *fw_where(const struct py_framework *fw)
{
	return fw->path[0] ? fw->path : fw->name;
}

int rule_framework_vs_driver(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);

	if (!rules_driver_usable(d))
		return CD_OK;
	for (size_t i = 0; i < f->python->n_fw; i++) {
		const struct py_framework *fw = &f->python->fw[i];
		struct version v;
		struct finding_vars vars;
		struct finding *x;

		if (!fw_cuda(fw) || version_parse(fw->cuda, &v) != CD_OK || rules_cuda_fit(&v, &cuda) != CUDA_NEWER_MAJOR)
			continue;
		finding_vars_init(&vars);
		rules_driver_vars(d, &vars);
		{
			struct gpu_spec specs[PLAN_MAX_GPUS];
			size_t ns = plan_specs_of_probe(d, specs, PLAN_MAX_GPUS);

			runtime_need_vars_for(v.major, specs, ns, &vars);
		}
		x = finding_make(r, SEV_ERROR, "runtime-newer-than-driver", fw_where(fw), &vars);
		oom |= !x;
		oom |= finding_evidence(x, "%s %s: %s/version.py: cuda = '%s'", fw->name, fw->version[0] ? fw->version : "",
				       fw_where(fw), fw->cuda) != CD_OK;
		oom |= rules_driver_evidence(x, d) != CD_OK;
	}
	return rules_status(oom);
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
		if (fw->version[0])
			finding_var(&v, "framework_version", "%s", fw->version);
		x = finding_make(r, gpu_here ? SEV_WARN : SEV_INFO, "torch-cpu-only", fw_where(fw), &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s/version.py: __version__ = '%s', cuda = None", fw_where(fw),
				       fw->version[0] ? fw->version : "?") != CD_OK;
	}
	return rules_status(oom);
}
