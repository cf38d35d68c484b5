/* NVIDIA's GPUs on the PCI bus from sysfs (probe/pci_gpus.h). */
#include "probe/pci_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/fs.h"
#include "os/host.h"
#include "probe/gpus.h"
#include "util/err.h"
#include "util/file.h"
#include "util/host_path.h"

/* a sysfs attribute's value as a number ("0x10de\n"); -1 when unreadable */
static long long attr(const char *dir, const char *name)
{
	char path[4200], err[CD_ERRMSG], *text = NULL, *end;
	long long v = -1;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
	    file_read_text(path, 64, &text, NULL, err) != CD_OK)
		return -1;
	v = strtoll(text, &end, 16);
	if (end == text)
		v = -1;
	free(text);
	return v;
}

static int by_bus(const void *a, const void *b)
{
	return strcmp(a, b);
}

void pci_gpus_probe(struct pci_gpus *p, const char *root)
{
	char base[4096], dir[4200];
	struct os_dir *d;
	const char *name;

	memset(p, 0, sizeof *p);
	if (!os_is_linux() || host_path(base, sizeof base, root, "/sys/bus/pci/devices") != CD_OK ||
	    os_dir_open(base, &d) != 0)
		return;
	p->read = true;
	while ((name = os_dir_next(d)) != NULL) {
		long long cls;
		char id[16];

		if (name[0] == '.' || !gpu_normalize_pci_bus_id(name, id, sizeof id) ||
		    (size_t)snprintf(dir, sizeof dir, "%s/%s", base, name) >= sizeof dir || attr(dir, "vendor") != 0x10de)
			continue;
		/* 0x0300xx a VGA controller, 0x0302xx a 3D controller (every datacenter GPU); an
		 * NVSwitch (0x0680xx) and the GPU's audio function (0x0403xx) are not GPUs */
		cls = attr(dir, "class") >> 8;
		if (cls != 0x0300 && cls != 0x0302)
			continue;
		if (p->n < PCI_GPUS_MAX)
			snprintf(p->bus_id[p->n], sizeof p->bus_id[p->n], "%s", id);
		p->n++;
	}
	os_dir_close(d);
	/* in bus order, as the other lists are */
	qsort(p->bus_id, p->n < PCI_GPUS_MAX ? p->n : PCI_GPUS_MAX, sizeof p->bus_id[0],
	      by_bus);
}
