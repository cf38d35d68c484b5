/* Collects the deployment checks' facts: kmsg.c, modules.c, and this process's environment
 * (the one CUDA reads in every program started from the same shell), and the GPUs on the
 * PCI bus (pci_gpus.c). */
#include <string.h>

#include "os/env.h"
#include "probe/deploy.h"
#include "probe/kmsg.h"
#include "probe/modules.h"
#include "probe/pci_gpus.h"
#include "util/err.h"

int deploy_probe(struct deploy_info *d, const char *root, char *err)
{
	int rc;

	memset(d, 0, sizeof *d);
	TRY(kmsg_probe(&d->kmsg, root, err));
	TRY(modules_probe(&d->mods, root, err));
	pci_gpus_probe(&d->pci, root);
	d->env = os_environ();
out:
	return rc;
}
