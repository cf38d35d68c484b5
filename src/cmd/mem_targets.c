/* The budgets `mem estimate` checks against: --gpu-memory, --gpu SPEC, or the GPUs here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem_internal.h"
#include "util/err.h"

int mem_targets(const char *gpu_spec, uint64_t gpu_memory, struct mem_target **out, size_t *n,
		struct report *r, char *err)
{
	*out = NULL;
	*n = 0;
	if (gpu_memory) {
		struct mem_target *t = calloc(1, sizeof *t);
		if (!t)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		snprintf(t->name, sizeof t->name, "--gpu-memory");
		t->budget = t->total = gpu_memory;
		t->basis = "given";
		*out = t;
		*n = 1;
		return CD_OK;
	}
	if (gpu_spec)
		return cd_fail(err, CD_EUSAGE, "--gpu needs the GPU table, which this build lacks; use --gpu-memory SIZE");
	report_line(r, "No GPU checked: none found here; give --gpu SPEC or --gpu-memory SIZE.");
	return CD_OK;
}
