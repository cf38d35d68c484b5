/* The run context's driver steps for one command path, the facts moved out to the caller. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/driver_check.h"
#include "rules/rules.h"
#include "util/err.h"

int driver_check_run(struct report *r, struct gpu_probe *p, char *err)
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

bool driver_check_cuda_usable(const struct gpu_probe *p)
{
	return rules_cuda_usable(p);
}
