/* NVIDIA's GPUs on the PCI bus as sysfs lists them (vendor 0x10de, class display VGA or 3D),
 * counted against what NVML and CUDA list. */
#ifndef CUDOCTOR_PROBE_PCI_GPUS_H
#define CUDOCTOR_PROBE_PCI_GPUS_H

#include "facts/deploy.h"

/* root NULL: the host root. Reads /sys/bus/pci/devices/{vendor,class}; on another OS, or
 * where the folder cannot be listed, p->read stays false. */
void pci_gpus_probe(struct pci_gpus *p, const char *root);

#endif
