/* One driver-layer judgement for doctor's neighbours (devices, lab, mem): the same facts
 * through the same rules, so a broken driver reads the same in every command. */
#include <stdlib.h>
#include <string.h>

#include "cmd/driver_check.h"
#include "cmd/gpu_findings.h"
#include "probe/driver_info.h"
#include "probe/platform.h"
#include "util/err.h"

static int judge(struct report *r, const struct gpu_probe *p, char *err)
{
	struct driver_seen seen;
	struct driver_info *di = calloc(1, sizeof(*di));
	struct platform_info *pf = calloc(1, sizeof(*pf));
	struct stack_platform sp;
	int rc;

	if (!di || !pf) {
		rc = cd_fail(err, CD_ENOMEM, "out of memory");
		goto out;
	}
	gpu_driver_seen(p, &seen);
	driver_info_collect(di, &seen, NULL);
	if ((rc = platform_probe(pf, NULL, err)) != CD_OK)
		goto out;
	platform_stack_facts(pf, &sp);
	rc = gpu_driver_findings(r, p, di, &sp);
out:
	free(di);
	free(pf);
	return rc;
}

int driver_check_facts(struct report *r, const struct gpu_probe *p, char *err)
{
	return judge(r, p, err);
}

int driver_check_run(struct report *r, struct gpu_probe *p, char *err)
{
	int rc = gpu_probe_run(p, err);

	return rc == CD_OK ? judge(r, p, err) : rc;
}

bool driver_check_cuda_usable(const struct gpu_probe *p)
{
	/* mirrors rule_no_driver, rule_init and rule_no_device_count */
	return p->cuda_loaded && p->cuda_init_called && p->cuda_init_result == CUDA_SUCCESS &&
	       !(p->has_cuda_device_count && p->cuda_device_count == 0);
}

int driver_check(struct report *r, bool *cuda_usable, char *err)
{
	struct gpu_probe *p = calloc(1, sizeof(*p));
	int rc;

	*cuda_usable = false;
	if (!p)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	rc = driver_check_run(r, p, err);
	if (rc == CD_OK)
		*cuda_usable = driver_check_cuda_usable(p);
	gpu_probe_free(p);
	free(p);
	return rc;
}
