/* The one way a finding names a GPU: by CUDA's ordinal, which is what programs use, or by
 * NVML's index for a GPU CUDA does not see (hidden by CUDA_VISIBLE_DEVICES, or cuInit
 * failed). */
#include <stdio.h>

#include "rules/rules.h"

void gpu_subject(const struct gpu_info *g, char *buf, size_t len)
{
	const char *name = gpu_name(g) ? gpu_name(g) : "unknown GPU";

	if (g->cuda_ordinal >= 0)
		snprintf(buf, len, "GPU %d (%s)", g->cuda_ordinal, name);
	else
		snprintf(buf, len, "NVML device %d (%s)", g->nvml_index, name);
}
