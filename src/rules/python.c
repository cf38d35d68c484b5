/* Python rules: each framework's CUDA build against the driver, and CPU-only builds on a
 * machine with a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/cuda_types.h"
#include "rules/internal.h"
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
	char dv[32];

	if (!rules_driver_usable(d))
		return CD_OK;
	version_format(&cuda, 2, dv, sizeof dv);
	for (size_t i = 0; i < f->python->n_fw; i++) {
		const struct py_framework *fw = &f->python->fw[i];
		struct version v;
		struct finding *x;

		if (!fw_cuda(fw) || version_parse(fw->cuda, &v) != CD_OK || rules_cuda_fit(&v, &cuda) != CUDA_NEWER_MAJOR)
			continue;
		x = report_add_finding(r, SEV_ERROR, "runtime-newer-than-driver", fw_where(fw),
				       "%s %s is built for CUDA %s; this driver supports CUDA %s", fw->name, fw->version[0] ? fw->version : "",
				       fw->cuda, dv);
		oom |= !x;
		oom |= finding_evidence(x, "%s/version.py: cuda = '%s'", fw_where(fw), fw->cuda) != CD_OK;
		oom |= rules_driver_evidence(x, d) != CD_OK;
		oom |= finding_why(x, "%s loads the CUDA %s runtime it was built with; that runtime refuses a driver older than its major release "
				  "(error 35), so %s.cuda.is_available() is False.", fw->name, fw->cuda, fw->name) != CD_OK;
		oom |= rules_fix_driver_for(x, &v, rules_opt(fw->kb_min_driver), NULL) != CD_OK;
		if (strcmp(fw->name, "torch") == 0)
			oom |= finding_fix(x, "or pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ <= %d%d, what this driver supports",
					  cuda.major, cuda.minor) != CD_OK;
	}
	return rules_status(oom);
}

int rule_torch_cpu(const struct facts *f, struct report *r)
{
	struct version cuda = rules_driver_cuda(f->driver);
	bool oom = false;
	bool gpu_here = f->driver->n_gpus > 0 || (f->driver->cuda_loaded && f->driver->cuda_init_result == CUDA_SUCCESS);

	for (size_t i = 0; i < f->python->n_fw; i++) {
		const struct py_framework *fw = &f->python->fw[i];
		struct finding *x;

		if (!fw->cpu_only)
			continue;
		x = report_add_finding(r, gpu_here ? SEV_WARN : SEV_INFO, "torch-cpu-only", fw_where(fw),
				       "%s %s is a CPU-only build", fw->name, fw->version[0] ? fw->version : "");
		oom |= !x;
		oom |= finding_evidence(x, "%s/version.py: __version__ = '%s', cuda = None", fw_where(fw),
				       fw->version[0] ? fw->version : "?") != CD_OK;
		oom |= finding_why(x, "A CPU-only wheel contains no CUDA code at all: torch.cuda.is_available() is False and "
				  "tensors on 'cuda' raise \"Torch not compiled with CUDA enabled\", whatever driver and GPU are here.") != CD_OK;
		if (rules_driver_usable(f->driver))
			oom |= finding_fix(x, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ <= %d%d, what this driver supports",
					  cuda.major, cuda.minor) != CD_OK;
		else
			oom |= finding_fix(x, "pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cuXYZ   # XYZ: a CUDA version your driver supports (cudoctor kb driver VERSION)") != CD_OK;
	}
	return rules_status(oom);
}
