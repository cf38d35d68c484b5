/* GGUF header -> mem_model: exact bytes per tensor and per block, and the attention
 * shape from llama.cpp's <arch>.* metadata keys (scalars or per-layer arrays). */
#include <stdio.h>
#include <string.h>

#include "mem/model.h"
#include "util/err.h"
#include "util/safetext.h"

struct akey {
	char buf[160];
};

static const char *k(struct akey *b, const char *arch, const char *suffix)
{
	snprintf(b->buf, sizeof b->buf, "%s.%s", arch, suffix);
	return b->buf;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Largest value of a scalar-or-array key over the layers (0 if absent). The key is found
 * once: a look-up per layer cost the whole metadata each time before gguf_find hashed. */
static uint64_t max_over_layers(const struct gguf_file *g, const char *key, uint32_t n_layers)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	uint64_t best = 0, v;
	if (!kv)
		return 0;
	for (uint32_t l = 0; l < (n_layers ? n_layers : 1); l++)
		if (gguf_kv_uint_at(g, kv, l, &v) && v > best)
			best = v;
	return best;
}

/* llama.cpp's set_swa_pattern(n): in each group of n layers the last is global. */
static bool swa_by_pattern(uint32_t layer, uint64_t n)
{
	return n == 0 || layer % n < n - 1;
}

static uint64_t default_swa_pattern(const char *arch)
{
	if (strcmp(arch, "gemma2") == 0)
		return 2;
	if (strcmp(arch, "gemma3") == 0)
		return 6;
	if (strcmp(arch, "cohere2") == 0)
		return 4;
	return 0; /* every layer slides (mistral-style) */
}

static void apply_swa(const struct gguf_file *g, const char *arch, struct mem_model *m)
{
	struct akey kb;
	uint64_t w;
	if (!gguf_get_uint(g, k(&kb, arch, "attention.sliding_window"), &w) || w == 0)
		return;
	m->sliding_window = clamp32(w);
	const struct gguf_kv *pat = gguf_find(g, k(&kb, arch, "attention.sliding_window_pattern"));
	uint64_t n = default_swa_pattern(arch), v;
	if (pat && pat->type != GGUF_T_ARRAY && gguf_get_uint(g, kb.buf, &v))
		n = v;
	for (uint32_t l = 0; l < m->n_layers; l++) {
		if (pat && pat->type == GGUF_T_ARRAY)
			m->layers[l].swa = gguf_array_uint(g, pat, l, &v) && v;
		else
			m->layers[l].swa = swa_by_pattern(l, n);
		if (m->layers[l].swa && m->layers[l].kv_heads)
			m->n_swa_layers++;
	}
}

static void count_tensors(const struct gguf_file *g, struct mem_model *m, uint64_t *by_type, size_t n_types)
{
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		long l = mem_tensor_layer(t->name, t->name_len);
		m->params += t->n_elements;
		m->weight_bytes += t->n_bytes;
		if (by_type && t->type < n_types)
			by_type[t->type] += t->n_bytes;
		if (t->n_dims >= 2 && t->dims[0])
			m->factored_elems += t->dims[0] + t->n_elements / t->dims[0];
		else
			m->factored_elems += t->n_elements;
		if (l >= 0 && (uint64_t)l < m->n_layers)
			m->layers[l].weight_bytes += t->n_bytes;
		else if (mem_tensor_is_embedding(t->name, t->name_len))
			m->embed_bytes += t->n_bytes;
		else if (mem_tensor_is_output(t->name, t->name_len))
			m->output_bytes += t->n_bytes;
		else
			m->other_bytes += t->n_bytes;
		if (mem_tensor_is_embedding(t->name, t->name_len) && t->n_dims >= 2 && !m->vocab)
			m->vocab = t->dims[1];
		if (t->size_from_offsets) {
			m->bytes_exact = false;
			/* named, whatever it came to: a gap of 0 would otherwise vanish from the sum */
			if (!m->note[0])
				snprintf(m->note, sizeof m->note,
					 "tensor '%.*s' has ggml type %u, which cudoctor does not know: its size is "
					 "taken from the gap to the next tensor's data (%llu bytes)",
					 (int)(t->name_len > 96 ? 96 : t->name_len), t->name, (unsigned)t->type,
					 (unsigned long long)t->n_bytes);
		}
	}
}

int mem_model_from_gguf(const struct gguf_file *g, struct mem_model *m, char *err)
{
	struct akey kb;
	uint64_t v, by_type[64] = {0};
	int rc;
	memset(m, 0, sizeof *m);
	strcpy(m->format, "gguf");
	if (gguf_get_str(g, "general.architecture", m->arch, sizeof m->arch)) {
		/* bytes from the file: printed, put in JSON and in the <arch>.* keys looked up */
		char raw[sizeof m->arch];
		memcpy(raw, m->arch, sizeof raw);
		safe_text(m->arch, sizeof m->arch, raw, strlen(raw), 0);
	} else {
		strcpy(m->arch, "unknown");
	}
	const char *arch = m->arch;
	uint64_t n_layers = 0;
	if (!gguf_get_uint(g, k(&kb, arch, "block_count"), &n_layers))
		for (uint64_t i = 0; i < g->n_tensors; i++) {
			long l = mem_tensor_layer(g->tensors[i].name, g->tensors[i].name_len);
			if (l >= 0 && (uint64_t)l + 1 > n_layers)
				n_layers = (uint64_t)l + 1;
		}
	if (n_layers > MEM_MAX_LAYERS)
		return cd_fail(err, CD_EFORMAT, "%s.block_count is %llu", arch, (unsigned long long)n_layers);
	if ((rc = mem_model_alloc_layers(m, n_layers, err)))
		return rc;
	m->bytes_exact = m->params_exact = m->shapes_known = true;
	count_tensors(g, m, by_type, 64);
	size_t best = 0;
	for (size_t t = 1; t < 64; t++)
		if (by_type[t] > by_type[best])
			best = t;
	const struct ggml_type_info *ti = ggml_type_get((uint32_t)best);
	snprintf(m->dtype, sizeof m->dtype, "%s", ti ? ti->name : "?");

	gguf_get_uint(g, k(&kb, arch, "embedding_length"), &m->hidden);
	gguf_get_uint(g, k(&kb, arch, "context_length"), &m->ctx_train);
	m->ff = max_over_layers(g, k(&kb, arch, "feed_forward_length"), m->n_layers);
	if (gguf_get_uint(g, k(&kb, arch, "vocab_size"), &v))
		m->vocab = v;
	if (gguf_get_uint(g, k(&kb, arch, "expert_count"), &v))
		m->n_experts = clamp32(v);
	if (gguf_get_uint(g, k(&kb, arch, "expert_used_count"), &v))
		m->n_experts_used = clamp32(v);
	if (gguf_get_uint(g, k(&kb, arch, "expert_feed_forward_length"), &v))
		m->expert_ff = v;

	struct akey hk, kvk;
	k(&hk, arch, "attention.head_count");
	k(&kvk, arch, "attention.head_count_kv");
	m->n_heads = clamp32(max_over_layers(g, hk.buf, m->n_layers));
	const struct gguf_kv *heads_kv = gguf_find(g, kvk.buf);
	if (!heads_kv)
		heads_kv = gguf_find(g, hk.buf);
	for (uint32_t l = 0; l < m->n_layers; l++) {
		uint64_t h = 0;
		if (!gguf_kv_uint_at(g, heads_kv, l, &h))
			h = 0;
		m->layers[l].kv_heads = clamp32(h);
		if (m->layers[l].kv_heads > m->n_kv_heads)
			m->n_kv_heads = m->layers[l].kv_heads;
	}
	uint64_t dflt = m->n_heads ? m->hidden / m->n_heads : 0;
	m->head_dim_k = clamp32(gguf_get_uint(g, k(&kb, arch, "attention.key_length"), &v) ? v : dflt);
	m->head_dim_v = clamp32(gguf_get_uint(g, k(&kb, arch, "attention.value_length"), &v) ? v : dflt);
	if (gguf_get_uint(g, k(&kb, arch, "attention.kv_lora_rank"), &v) && v) {
		m->mla = true;
		m->kv_lora_rank = clamp32(v);
		if (gguf_get_uint(g, k(&kb, arch, "rope.dimension_count"), &v))
			m->rope_dim = clamp32(v);
	}
	m->attn_known = m->n_layers && m->n_kv_heads && (m->mla || (m->head_dim_k && m->head_dim_v));
	apply_swa(g, arch, m);
	if (!m->attn_known) {
		size_t used = strlen(m->note);

		snprintf(m->note + used, sizeof m->note - used, "%sno attention metadata (%s.attention.*): KV cache not computed",
			 used ? "; " : "", arch);
	}
	return CD_OK;
}

void mem_model_add_gguf_tensors(const struct gguf_file *g, struct mem_model *m)
{
	count_tensors(g, m, NULL, 0);
}
