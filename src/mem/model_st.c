/* safetensors headers (+ config.json) -> mem_model: exact bytes and parameters
 * from every tensor of every shard, attention shape from the config. */
#include <stdio.h>
#include <string.h>

#include "mem/model.h"
#include "util/err.h"

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

/* The dtype name holding most bytes (by width; F16 and BF16 both 16 bits, so look it up). */
static void majority_dtype(const struct st_file *files, size_t n_files, struct mem_model *m)
{
	uint64_t best = 0;
	for (size_t f = 0; f < n_files; f++)
		for (size_t i = 0; i < files[f].n_tensors; i++) {
			const char *d = files[f].tensors[i].dtype;
			uint64_t sum = 0;
			for (size_t g = 0; g < n_files; g++)
				for (size_t j = 0; j < files[g].n_tensors && sum <= best; j++)
					if (strcmp(files[g].tensors[j].dtype, d) == 0)
						sum += files[g].tensors[j].end - files[g].tensors[j].begin;
			if (sum > best) {
				best = sum;
				snprintf(m->dtype, sizeof m->dtype, "%s", d);
			}
			if (best * 2 > m->weight_bytes)
				return;
		}
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
		if ((rc = mem_model_alloc_layers(m, (uint32_t)n, err)))
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
	majority_dtype(files, n_files, m);
	return CD_OK;
out:
	mem_model_free(m);
	return rc;
}
