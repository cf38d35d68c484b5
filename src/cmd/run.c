/* The run context: the driver opened once per run for every command that needs it, and
 * judged once, so a broken driver reads the same in every command. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "facts/kb.h"
#include "probe/amd.h"
#include "probe/gpus.h"
#include "probe/platform.h"
#include "rules/amd.h"
#include "rules/rules.h"
#include "util/err.h"

int cd_run_open(struct cd_run *run, char *err)
{
	int rc;

	if (run->opened)
		return CD_OK;
	run->opened = true;
	run->cu = calloc(1, sizeof(*run->cu));
	run->nv = calloc(1, sizeof(*run->nv));
	if (!run->cu || !run->nv)
		return cd_fail(err, CD_ENOMEM, "out of memory loading the driver libraries");
	if (cudrv_load(run->cu, run->probe.cuda_load_error) != CD_OK) {
		free(run->cu);
		run->cu = NULL;
	}
	if (nvml_load(run->nv, run->probe.nvml_load_error) != CD_OK) {
		free(run->nv);
		run->nv = NULL;
	}
	if ((rc = gpu_probe_collect(&run->probe, run->cu, run->nv, err)) != CD_OK)
		return rc;
	if ((rc = platform_probe(&run->platform, NULL, err)) != CD_OK)
		return rc;
	/* the kb's knowledge beside the driver facts before any rule reads them; without the
	 * kb the rules run on the collected facts alone (run->kb_error says why) */
	if (facts_add_kb(&run->probe, NULL, NULL, 0, NULL, run->kb_error) == CD_ENOMEM)
		return cd_fail(err, CD_ENOMEM, "out of memory loading the kb");
	run->cuda_usable = rules_cuda_usable(&run->probe);
	return CD_OK;
}

int cd_run_driver(struct cd_run *run, struct report *r, char *err)
{
	struct facts f = { 0 };
	int rc;

	if ((rc = cd_run_open(run, err)) != CD_OK || run->judged)
		return rc;
	run->judged = true;
	f.driver = &run->probe;
	f.platform = &run->platform;
	if ((rc = rules_driver(&f, r)) != CD_OK)
		return cd_fail(err, rc, "%s", cd_strerror(rc));
	return CD_OK;
}

const struct amd_host *cd_run_amd(struct cd_run *run)
{
	if (run->amd || !(run->amd = calloc(1, sizeof(*run->amd))))
		return run->amd;
	amd_probe(run->amd, NULL);
	/* HIP is loaded only where there is something AMD to ask it about */
	if (rules_amd_present(run->amd) || run->amd->rocm_version[0])
		amd_probe_hip(run->amd);
	return run->amd;
}

void cd_run_close(struct cd_run *run)
{
	if (run->nv) {
		if (driver_nvml_ok(&run->probe) && run->nv->Shutdown)
			run->nv->Shutdown();
		nvml_unload(run->nv);
		free(run->nv);
	}
	if (run->cu) {
		cudrv_unload(run->cu);
		free(run->cu);
	}
	gpu_probe_free(&run->probe);
	free(run->amd);
	memset(run, 0, sizeof(*run));
}

int cd_run_driver_once(struct report *r, struct gpu_probe *p, char *err)
{
	struct cd_run *run = calloc(1, sizeof(*run));
	int rc;

	memset(p, 0, sizeof(*p));
	if (!run)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	rc = cd_run_driver(run, r, err);
	*p = run->probe;
	run->probe.gpus = NULL;
	run->probe.n_gpus = 0;
	cd_run_close(run);
	free(run);
	return rc;
}
