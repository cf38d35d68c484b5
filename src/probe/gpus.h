/* The GPU probe: with libcuda and NVML as the run context loaded them, calls cuInit and
 * nvmlInit and fills the driver facts (facts/driver.h) with every GPU (facts/gpu.h).
 * Collects only, never judges. */
#ifndef CUDOCTOR_PROBE_GPUS_H
#define CUDOCTOR_PROBE_GPUS_H

#include <stdbool.h>
#include <stddef.h>

#include "driver/cudrv.h"
#include "driver/nvml.h"
#include "facts/driver.h"

/* Collects from libraries the caller loaded (either may be NULL: not loaded), then the
 * kernel module and the user-space version (driver_info_collect). Calls cuInit and
 * nvmlInit and leaves NVML initialised for the caller (who calls nvmlShutdown); never
 * creates a context. Only running out of memory fails (CD_ENOMEM); driver failures are
 * recorded in p. */
int gpu_probe_collect(struct gpu_probe *p, const struct cudrv *cu, const struct nvml *nv, char *err);

void gpu_probe_free(struct gpu_probe *p);

/* "0000:18:00.0" from any of "00000000:18:00.0", "0000:18:00.0", "18:00.0" (domain 0);
 * false if s is not a PCI address. */
bool gpu_normalize_pci_bus_id(const char *s, char *out, size_t len);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of a CUuuid (out >= 41 bytes) */
void gpu_format_uuid(const unsigned char bytes[16], char *out, size_t len);

#endif
