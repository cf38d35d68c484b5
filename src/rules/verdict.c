/* The verdict: one ok finding when every layer was checked and nothing is wrong. */
#include <stdio.h>

#include "driver/cuda_types.h"
#include "rules/catalogue.h"
#include "rules/internal.h"
#include "util/err.h"
#include "util/version.h"

int rules_verdict(const struct facts *f, struct report *r)
{
	bool oom = false;
	const struct gpu_probe *d = f->driver;
	struct version cuda = rules_driver_cuda(d);
	struct finding *x;
	char b[32];
	size_t i, warnings = 0, n_runtimes = 0;

	for (i = 0; i < f->n_runtime_sets; i++)
		n_runtimes += f->runtimes[i].n;
	for (i = 0; i < r->n_findings; i++)
		if (r->findings[i].severity >= SEV_WARN)
			warnings++;
	if (warnings || !d->cuda_loaded || !driver_has(d, DF_CUDA_INIT) || d->cuda_init_result != CUDA_SUCCESS)
		return rules_status(oom);
	x = finding_make(r, SEV_OK, "stack-consistent", "CUDA stack", NULL);
	oom |= !x;
	oom |= finding_evidence(x, "driver %s runs CUDA up to %s", rules_opt(d->user_driver_version) ? rules_opt(d->user_driver_version) : "(version unknown)",
			       version_format(&cuda, 2, b, sizeof b)) != CD_OK;
	oom |= finding_evidence(x, "%zu GPU(s), %zu toolkit(s), %zu CUDA librar%s, %zu framework(s) checked against it",
			       f->driver->n_gpus, f->toolkits->n, n_runtimes, n_runtimes == 1 ? "y" : "ies",
			       f->python->n_fw) != CD_OK;
	return rules_status(oom);
}
