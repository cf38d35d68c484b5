/* Collects the deployment checks' facts: kmsg.c, modules.c, and this process's environment
 * (the one CUDA reads in every program started from the same shell). */
#include <string.h>

#include "os/env.h"
#include "probe/deploy.h"
#include "probe/kmsg.h"
#include "probe/modules.h"
#include "util/err.h"

int deploy_probe(struct deploy_info *d, const char *root, char *err)
{
	int rc;

	memset(d, 0, sizeof *d);
	TRY(kmsg_probe(&d->kmsg, root, err));
	TRY(modules_probe(&d->mods, root, err));
	d->env = os_environ();
out:
	return rc;
}
