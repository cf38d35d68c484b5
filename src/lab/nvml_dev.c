/* Finding the CUDA device in NVML by PCI address, and reading its clock and link. */
#include "lab/nvml_dev.h"

#include <string.h>

int lab_nvml_sm_clock(void *user)
{
	struct lab_nvml *v = user;
	unsigned mhz = 0;
	if (!v || !v->ok || !v->n->DeviceGetClockInfo || v->n->DeviceGetClockInfo(v->dev, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS)
		return 0;
	return (int)mhz;
}

int lab_nvml_link(void *user, int *gen, int *width)
{
	struct lab_nvml *v = user;
	unsigned g = 0, w = 0;
	if (!v || !v->ok || !v->n->DeviceGetCurrPcieLinkGeneration || !v->n->DeviceGetCurrPcieLinkWidth ||
	    v->n->DeviceGetCurrPcieLinkGeneration(v->dev, &g) != NVML_SUCCESS ||
	    v->n->DeviceGetCurrPcieLinkWidth(v->dev, &w) != NVML_SUCCESS)
		return -1;
	*gen = (int)g;
	*width = (int)w;
	return 0;
}

void lab_nvml_open(struct lab_nvml *v, const struct nvml *nv, struct cudrv *d, CUdevice dev)
{
	int dom = -1, bus = -1, slot = -1;
	unsigned count = 0;
	memset(v, 0, sizeof *v);
	if (!nv || !d->DeviceGetAttribute || d->DeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev) != CUDA_SUCCESS ||
	    d->DeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev) != CUDA_SUCCESS ||
	    d->DeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev) != CUDA_SUCCESS)
		return;
	v->n = nv;
	if (!nv->DeviceGetCount || !nv->DeviceGetHandleByIndex || !nv->DeviceGetPciInfo ||
	    nv->DeviceGetCount(&count) != NVML_SUCCESS)
		return;
	for (unsigned i = 0; i < count && !v->ok; i++) {
		nvmlDevice_t h;
		nvmlPciInfo_t pci;
		memset(&pci, 0, sizeof pci);
		if (nv->DeviceGetHandleByIndex(i, &h) == NVML_SUCCESS && nv->DeviceGetPciInfo(h, &pci) == NVML_SUCCESS &&
		    pci.domain == (unsigned)dom && pci.bus == (unsigned)bus && pci.device == (unsigned)slot) {
			v->dev = h;
			v->ok = true;
		}
	}
}

/* The NVML handle belongs to the run context, which shuts it down. */
void lab_nvml_close(struct lab_nvml *v)
{
	memset(v, 0, sizeof *v);
}
