/* The run context: the driver opened once per run for every command that needs it, and
 * judged once, so a broken driver reads the same in every command. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probe/gpus.h"
#include "probe/platform.h"
#include "rules/rules.h"
#include "util/err.h"

/* nvmlInit on a second thread while the first waits in cuInit: the two do not depend on each
 * other, and doctor's time is otherwise theirs added up (about 25 ms of NVML after ~200 ms of
 * cuInit on the H200). The probe initialises both again, which then returns at once; NVML
 * counts its initialisations, so cd_run_close shuts this one down too. */
static void *nvml_prewarm(void *arg)
{
	struct cd_run *run = arg;

	run->nvml_prewarmed = run->nv->Init && run->nv->Init() == NVML_SUCCESS;
	return NULL;
}

static void prewarm(struct cd_run *run)
{
	pthread_t t;
	bool threaded = run->nv && pthread_create(&t, NULL, nvml_prewarm, run) == 0;

	if (run->cu && run->cu->Init)
		(void)run->cu->Init(0); /* the probe's own call records the result */
	if (threaded)
		pthread_join(t, NULL);
}

int cd_run_driver(struct cd_run *run, struct report *r, char *err)
{
	struct facts f = { 0 };
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
	prewarm(run);
	if ((rc = gpu_probe_collect(&run->probe, run->cu, run->nv, err)) != CD_OK)
		return rc;
	if ((rc = platform_probe(&run->platform, NULL, err)) != CD_OK)
		return rc;
	run->cuda_usable = rules_cuda_usable(&run->probe);
	f.driver = &run->probe;
	f.platform = &run->platform;
	if ((rc = rules_driver(&f, r)) != CD_OK)
		return cd_fail(err, rc, "%s", cd_strerror(rc));
	return CD_OK;
}

void cd_run_close(struct cd_run *run)
{
	if (run->nv) {
		if (driver_nvml_ok(&run->probe) && run->nv->Shutdown)
			run->nv->Shutdown();
		if (run->nvml_prewarmed && run->nv->Shutdown)
			run->nv->Shutdown();
		nvml_unload(run->nv);
		free(run->nv);
	}
	if (run->cu) {
		cudrv_unload(run->cu);
		free(run->cu);
	}
	gpu_probe_free(&run->probe);
	memset(run, 0, sizeof(*run));
}
