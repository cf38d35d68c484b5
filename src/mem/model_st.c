/* safetensors headers (+ config.json) -> mem_model: exact bytes and parameters
 * from every tensor of every shard, attention shape from the config. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/model.h"
#include "util/err.h"
#include "util/strindex.h"

static void count_tensor(const struct st_tensor *t, struct mem_model *m, uint64_t bytes_by_bits[65])
{
	size_t len = strlen(t->name);
	uint64_t bytes = t->end - t->begin;
	long l = mem_tensor_layer(t->name, len);
	m->params += t->n_elements;
	m->weight_bytes += bytes;
	if (t->bits <= 64)
		bytes_by_bits[t->bits] += bytes;
	/* safetensors shapes are row-major: the last dim is contiguous */
	if (t->n_dims >= 2 && t->dims[t->n_dims - 1])
		m->factored_elems += t->dims[t->n_dims - 1] + t->n_elements / t->dims[t->n_dims - 1];
	else
		m->factored_elems += t->n_elements;
	if (l >= 0 && (uint64_t)l < m->n_layers)
		m->layers[l].weight_bytes += bytes;
	else if (mem_tensor_is_embedding(t->name, len))
		m->embed_bytes += bytes;
	else if (mem_tensor_is_output(t->name, len))
		m->output_bytes += bytes;
	else
		m->other_bytes += bytes;
	if (mem_tensor_is_embedding(t->name, len) && t->n_dims == 2 && !m->vocab)
		m->vocab = t->dims[0];
}

/* The dtype name holding most bytes (by name: F16 and BF16 are both 16 bits); among equals the
 * one seen first. One pass with the sums kept per distinct name (hashed): a sum per tensor
 * over every tensor took more than 30 s for 200k tensors. */
static int majority_dtype(const struct st_file *files, size_t n_files, struct mem_model *m, char *err)
{
	struct strindex names;
	struct dsum {
		const char *dtype;
		uint64_t bytes;
	} *sums = NULL;
	size_t n = 0, cap = 0, best = 0;
	int rc = CD_OK;

	strindex_init(&names);
	for (size_t f = 0; f < n_files; f++)
		for (size_t i = 0; i < files[f].n_tensors; i++) {
			const struct st_tensor *t = &files[f].tensors[i];
			size_t at;

			if (strindex_put(&names, t->dtype, strlen(t->dtype), n, &at) != CD_OK) {
				rc = cd_fail(err, CD_ENOMEM, "out of memory");
				goto out;
			}
			if (at == n) {
				if (n == cap) {
					struct dsum *p = realloc(sums, (cap = cap ? cap * 2 : 8) * sizeof(*p));
					if (!p) {
						rc = cd_fail(err, CD_ENOMEM, "out of memory");
						goto out;
					}
					sums = p;
				}
				sums[n].dtype = t->dtype;
				sums[n++].bytes = 0;
			}
			sums[at].bytes += t->end - t->begin;
		}
	for (size_t k = 1; k < n; k++)
		if (sums[k].bytes > sums[best].bytes)
			best = k;
	if (n)
		snprintf(m->dtype, sizeof m->dtype, "%s", sums[best].dtype);
out:
	strindex_free(&names);
	free(sums);
	return rc;
}

int mem_model_from_safetensors(const struct st_file *files, size_t n_files, json_t *config,
			       struct mem_model *m, char *err)
{
	uint64_t by_bits[65] = {0};
	int rc;
	memset(m, 0, sizeof *m);
	strcpy(m->format, "safetensors");
	strcpy(m->arch, "unknown");
	if (config) {
		if ((rc = mem_model_apply_config(config, m, err)))
			goto out;
	} else {
		uint64_t n = 0;
		for (size_t f = 0; f < n_files; f++)
			for (size_t i = 0; i < files[f].n_tensors; i++) {
				long l = mem_tensor_layer(files[f].tensors[i].name, strlen(files[f].tensors[i].name));
				if (l >= 0 && (uint64_t)l + 1 > n)
					n = (uint64_t)l + 1;
			}
		if ((rc = mem_model_alloc_layers(m, n, err)))
			goto out;
		snprintf(m->note, sizeof m->note, "no config.json beside the weights: attention shape unknown, KV cache not computed");
	}
	m->bytes_exact = m->params_exact = m->shapes_known = true;
	for (size_t f = 0; f < n_files; f++)
		for (size_t i = 0; i < files[f].n_tensors; i++) {
			count_tensor(&files[f].tensors[i], m, by_bits);
			if (!files[f].tensors[i].bits)
				m->params_exact = false;
		}
	/* packed quantised checkpoints (I32 qweight, U8 blocks) make shapes count packs, not weights */
	if (config && json_object_get(config, "quantization_config")) {
		m->params_exact = false;
		snprintf(m->note, sizeof m->note,
			 "quantised checkpoint (quantization_config): bytes are exact, parameter count is of stored elements");
	}
	if ((rc = majority_dtype(files, n_files, m, err)))
		goto out;
	return CD_OK;
out:
	mem_model_free(m);
	return rc;
}
