/* Python rules: CPU-only builds on a machine with a GPU. A framework's CUDA build against the
 * driver is judged with its device code, by doctor's frameworks (rules/framework.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/driver_need.h"
#include "rules/fix.h"
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

/* The engine's CUDA build for this machine's GPUs and driver, in the environment's own pip. */
static void cuda_build_vars(const struct facts *f, const struct py_framework *fw, struct finding_vars *v)
{
	struct fix_situation s;
	struct fix_lines l;
	char err[CD_ERRMSG], q[200];

	fix_situation_init(&s);
	for (size_t g = 0; g < f->driver->n_gpus; g++)
		if (f->driver->gpus[g].cuda_ordinal >= 0 && gpu_sm(&f->driver->gpus[g]) > 0)
			fix_add_gpu(&s, (unsigned)gpu_sm(&f->driver->gpus[g]), gpu_name(&f->driver->gpus[g]), FIX_SRC_HERE);
	if (rules_driver_usable(f->driver) && driver_has(f->driver, DF_VERSION))
		fix_set_driver(&s, f->driver->user_driver_version, FIX_SRC_HERE);
	s.framework.fw = PLAN_FW_TORCH;
	s.framework.cpu_only = true;
	s.framework.src = FIX_SRC_HERE;
	s.binary.kind = FIX_BIN_FRAMEWORK;
	s.platform.os = fw->win_env ? FIX_OS_WINDOWS : FIX_OS_LINUX;
	if (fw->win_env && str_quote_cmd(fw->win_python, SHQ_NONE, q, sizeof(q)) == CD_OK)
		snprintf(s.platform.pip, sizeof(s.platform.pip), "%s -m pip", q);
	if (fix_plan(&s, FIX_CPU_ONLY, &l, err) != CD_OK)
		return;
	fix_vars(&l, v);
	finding_flag(v, "fixed", true);
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
		cuda_build_vars(f, fw, &v);
		x = finding_make(r, gpu_here ? SEV_WARN : SEV_INFO, "torch-cpu-only", fw_where(fw), &v);
		oom |= !x;
		oom |= finding_evidence(x, "%s/version.py: __version__ = '%s', cuda = None", fw_where(fw),
				       fw->version[0] ? fw->version : "?") != CD_OK;
	}
	return rules_status(oom);
}
