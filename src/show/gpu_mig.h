/* MIG devices of one GPU for mem status, which builds its JSON by hand: the JSON shape and
 * text table doctor and devices write through gpu_facts_mig, so the three agree. */
#ifndef CUDOCTOR_SHOW_GPU_MIG_H
#define CUDOCTOR_SHOW_GPU_MIG_H

#include <jansson.h>

#include "facts/gpu.h"
#include "report/report.h"

/* [{index, gpu_instance_id, compute_instance_id, uuid, name, memory_total_bytes,
 * memory_used_bytes, memory_free_bytes}], unknown values null; json null when the
 * MIG devices were not listed (MIG off or unknown, or NVML without the calls).
 * NULL only when out of memory. */
json_t *gpu_mig_devices_json(const struct gpu_info *g);

/* A table "MIG device | GI/CI | name | UUID | memory total / used / free" (nothing when
 * the list is unknown; a line saying so when MIG is on without instances or the driver
 * cannot list them). Returns CD_OK or CD_ENOMEM. */
int gpu_mig_devices_text(struct report *r, const struct gpu_info *g);

#endif
