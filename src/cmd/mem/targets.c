/* The budgets `mem estimate` checks against: --gpu-memory, each --gpu SPEC (the product's
 * memory from kb/gpus.tsv), or the GPUs here (their free memory now, from NVML, as the run
 * context's driver part has them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "kb/kb.h"
#include "util/err.h"

static int from_spec(const char *spec, struct mem_target **out, size_t *n, char *err)
{
	struct gpu_spec gs;
	int rc = kb_parse_gpu_spec(spec, &gs, err);
	if (rc)
		return rc;
	if (!gs.gpu || gs.gpu->n_memory_gb == 0)
		return cd_fail(err, CD_EUSAGE, "--gpu %s names no product with a known memory size; "
			       "name the product (\"RTX 4090\", H200) or give --gpu-memory SIZE", spec);
	struct mem_target *t = calloc(gs.gpu->n_memory_gb, sizeof *t);
	if (!t)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	for (size_t i = 0; i < gs.gpu->n_memory_gb; i++) {
		/* the table's sizes are nominal ("24GB"): as the driver reports them they are GiB */
		snprintf(t[i].name, sizeof t[i].name, "%s %gGB", gs.gpu->name, gs.gpu->memory_gb[i]);
		t[i].budget = t[i].total = (uint64_t)(gs.gpu->memory_gb[i] * 1073741824.0);
		t[i].basis = "total";
	}
	*out = t;
	*n = gs.gpu->n_memory_gb;
	return CD_OK;
}

static int from_here(struct cd_run *run, struct mem_target **out, size_t *n, struct report *r, char *err)
{
	const struct gpu_probe *p;
	int rc = cd_run_driver(run, &p, err);
	if (rc)
		return rc;
	struct mem_target *t = calloc(p->n_gpus ? p->n_gpus : 1, sizeof *t);
	if (!t)
		return cd_fail(err, CD_ENOMEM, "out of memory");
	size_t k = 0;
	for (size_t i = 0; i < p->n_gpus; i++) {
		const struct gpu_info *g = &p->gpus[i];
		if (g->cuda_ordinal < 0 && p->cuda_loaded)
			continue; /* hidden from CUDA (CUDA_VISIBLE_DEVICES): a program here cannot use it */
		snprintf(t[k].name, sizeof t[k].name, "GPU %d (%.100s)", g->cuda_ordinal >= 0 ? g->cuda_ordinal : g->nvml_index,
			 g->name);
		if (gpu_has(g, GF_NVML_MEMORY)) {
			t[k].budget = (uint64_t)g->memory_free_bytes;
			t[k].total = (uint64_t)g->nvml_memory_total_bytes;
			t[k].basis = "free now";
		} else if (gpu_has(g, GF_MEMORY_TOTAL)) {
			t[k].budget = t[k].total = (uint64_t)g->memory_total_bytes;
			t[k].basis = "total";
		} else {
			continue;
		}
		k++;
	}
	if (k == 0) {
		struct report_rec top;

		free(t);
		report_rec_top(&top, r);
		report_rec_line(&top, "No GPU checked: none found here; give --gpu SPEC or --gpu-memory SIZE.");
		return report_rec_end(&top) != CD_OK ? cd_fail(err, top.rc, "out of memory") : CD_OK;
	}
	*out = t;
	*n = k;
	return CD_OK;
}

int mem_targets(struct cd_run *run, const char *const *specs, size_t n_specs, uint64_t gpu_memory,
		struct mem_target **out, size_t *n, struct report *r, char *err)
{
	int rc = CD_OK;

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
	if (n_specs == 0)
		return from_here(run, out, n, r, err);
	for (size_t i = 0; i < n_specs && rc == CD_OK; i++) {
		struct mem_target *one = NULL, *all;
		size_t k = 0;

		if ((rc = from_spec(specs[i], &one, &k, err)))
			break;
		if (!(all = realloc(*out, (*n + k) * sizeof(*all))))
			rc = cd_fail(err, CD_ENOMEM, "out of memory");
		else {
			memcpy(all + *n, one, k * sizeof(*all));
			*out = all;
			*n += k;
		}
		free(one);
	}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
