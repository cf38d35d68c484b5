/* The model description shared by the loaders: tensor-name roles, dtype sizes,
 * and the --params path. */
#include "mem/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

void mem_model_free(struct mem_model *m)
{
	free(m->layers);
	m->layers = NULL;
	m->n_layers = 0;
}

int mem_model_alloc_layers(struct mem_model *m, uint64_t n, char *err)
{
	if (n > MEM_MAX_LAYERS)
		return cd_fail(err, CD_EFORMAT, "%llu layers: more than any model has (at most %d)",
			       (unsigned long long)n, MEM_MAX_LAYERS);
	free(m->layers);
	m->layers = calloc(n ? n : 1, sizeof *m->layers);
	m->n_layers = m->layers ? (uint32_t)n : 0;
	return m->layers ? CD_OK : cd_fail(err, CD_ENOMEM, "out of memory");
}

static const struct {
	const char *name;
	double bits;
} dtype_names[] = {
	{"f32", 32}, {"float32", 32}, {"fp32", 32}, {"float", 32},
	{"f16", 16}, {"float16", 16}, {"fp16", 16}, {"half", 16},
	{"bf16", 16}, {"bfloat16", 16},
	{"f64", 64}, {"float64", 64},
	{"fp8", 8}, {"f8", 8}, {"float8", 8}, {"f8_e4m3", 8}, {"f8_e5m2", 8},
	{"float8_e4m3fn", 8}, {"float8_e5m2", 8}, {"int8", 8}, {"i8", 8}, {"u8", 8},
	{"int4", 4}, {"fp4", 4}, {"nf4", 4}, {"f4", 4},
};

double mem_dtype_bits(const char *name)
{
	if (!name)
		return 0;
	if (strncasecmp(name, "torch.", 6) == 0)
		name += 6;
	for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
		if (strcasecmp(dtype_names[i].name, name) == 0)
			return dtype_names[i].bits;
	const struct ggml_type_info *t = ggml_type_by_name(name);
	if (t)
		return 8.0 * t->bytes / t->block;
	return 0;
}

static bool seg_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

long mem_tensor_layer(const char *name, size_t len)
{
	const char *end = name + len, *prev = NULL;
	size_t prev_len = 0;
	for (const char *s = name; s < end;) {
		const char *dot = memchr(s, '.', (size_t)(end - s));
		size_t n = dot ? (size_t)(dot - s) : (size_t)(end - s);
		bool digits = n > 0 && n <= 9;
		for (size_t i = 0; i < n && digits; i++)
			digits = s[i] >= '0' && s[i] <= '9';
		if (digits && prev &&
		    (seg_is(prev, prev_len, "blk") || seg_is(prev, prev_len, "layers") ||
		     seg_is(prev, prev_len, "h") || seg_is(prev, prev_len, "blocks") ||
		     seg_is(prev, prev_len, "layer")))
			return strtol(s, NULL, 10);
		prev = s;
		prev_len = n;
		if (!dot)
			break;
		s = dot + 1;
	}
	return -1;
}

static bool has(const char *name, size_t len, const char *part)
{
	size_t n = strlen(part);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(name + i, part, n) == 0)
			return true;
	return false;
}

bool mem_tensor_is_embedding(const char *name, size_t len)
{
	return (len >= 10 && memcmp(name, "token_embd", 10) == 0) || has(name, len, "embed_tokens.") ||
	       has(name, len, "wte.") || has(name, len, "word_embeddings.");
}

bool mem_tensor_is_output(const char *name, size_t len)
{
	return seg_is(name, len, "output.weight") || (len >= 8 && memcmp(name, "lm_head.", 8) == 0) ||
	       has(name, len, ".lm_head.") || seg_is(name, len, "embed_out.weight");
}

int mem_model_from_params(uint64_t params, const char *dtype, double bits, struct mem_model *m, char *err)
{
	if (bits <= 0)
		bits = mem_dtype_bits(dtype);
	memset(m, 0, sizeof *m);
	if (!params || params > 1000000000000000ull)
		return cd_fail(err, CD_EUSAGE, "--params must be a positive count up to 1e15 (e.g. 8e9, 7B, 70B)");
	if (bits <= 0)
		return cd_fail(err, CD_EUSAGE, "unknown dtype '%.40s' (bf16, fp16, fp32, fp8, int8, int4, q8_0, q4_k_m, iq4_xs, ...)",
			       dtype ? dtype : "");
	strcpy(m->format, "params");
	snprintf(m->arch, sizeof m->arch, "unknown");
	snprintf(m->dtype, sizeof m->dtype, "%s", dtype);
	m->params = params;
	m->params_exact = true;
	m->weight_bytes = (uint64_t)((double)params * bits / 8.0 + 0.5);
	m->other_bytes = m->weight_bytes;
	snprintf(m->note, sizeof m->note,
		 "no architecture: KV cache and activations need a model file or config.json");
	return CD_OK;
}
