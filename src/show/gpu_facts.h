/* The driver and GPU facts as records, written from their field tables (facts/driver.h,
 * facts/gpu.h): what doctor and devices both show, so the two cannot differ but in the
 * view (FIELD_BRIEF for doctor, FIELD_FULL for devices). */
#ifndef CUDOCTOR_SHOW_GPU_FACTS_H
#define CUDOCTOR_SHOW_GPU_FACTS_H

#include "facts/driver.h"
#include "report/report.h"

/* "driver" (with "nvml" inside) under top, its labelled fields of view as key/value lines
 * of the current section. Returns the records' first error (top has it too). */
int gpu_facts_driver(struct report_rec *top, const struct gpu_probe *p, unsigned view);

/* One GPU's fields into g (an item of a "gpus" array or table), then its "processes" and
 * "mig_devices" (JSON; as text tables when g is a key/value record). */
void gpu_facts_gpu(struct report_rec *g, const struct gpu_info *gi, unsigned view);

/* "processes" of g: null when NVML could not list them; in text a table when there are any. */
void gpu_facts_processes(struct report_rec *g, const struct gpu_info *gi);

/* "mig_devices" of g: null when not listed (MIG off or unknown, or NVML without the calls);
 * in text, while MIG is on, a table of them or a line saying why there is none. */
void gpu_facts_mig(struct report_rec *g, const struct gpu_info *gi);

#endif
