/* Hugging Face config.json -> the attention shape of mem_model, and (config-only)
 * parameter counts by the decoder formula. */
#include <stdio.h>
#include <string.h>

#include "mem/model.h"
#include "mem/shape.h"
#include "util/err.h"

static uint64_t jnum(json_t *o, const char *key, uint64_t dflt)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return (uint64_t)json_integer_value(v);
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1e15)
		return (uint64_t)json_real_value(v);
	return dflt;
}

static uint64_t jnum2(json_t *o, const char *a, const char *b, uint64_t dflt)
{
	return jnum(o, a, jnum(o, b, dflt));
}

static uint32_t c32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* params x bits / 8, saturating (a hostile config must not make the cast undefined) */
static uint64_t bytes_of(uint64_t params, double bits)
{
	double v = (double)params * bits / 8.0;
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

/* The language model's part: multimodal configs nest it under text_config. */
static json_t *text_part(json_t *config)
{
	json_t *t = json_object_get(config, "text_config");
	return json_is_object(t) ? t : config;
}

static void apply_swa(json_t *c, struct mem_model *m)
{
	uint64_t w = jnum(c, "sliding_window", 0);
	json_t *types = json_object_get(c, "layer_types");
	json_t *use = json_object_get(c, "use_sliding_window");
	if (json_is_array(types)) {
		for (uint32_t l = 0; l < m->n_layers && l < json_array_size(types); l++) {
			const char *t = json_string_value(json_array_get(types, l));
			if (!t)
				continue;
			if (strcmp(t, "sliding_attention") == 0 && w)
				m->layers[l].swa = true;
			else if (strcmp(t, "full_attention") != 0 && strcmp(t, "sliding_attention") != 0)
				m->layers[l].kv_heads = 0; /* linear / recurrent: no growing KV */
		}
	} else if (w && !json_is_false(use)) {
		const char *mt = json_string_value(json_object_get(c, "model_type"));
		uint64_t pattern = jnum(c, "sliding_window_pattern", 0);
		if (mt && strcmp(mt, "gemma2") == 0)
			pattern = 2;
		else if (mt && strncmp(mt, "gemma3", 6) == 0 && !pattern)
			pattern = 6;
		/* HF: layer l slides when (l + 1) % pattern != 0; no pattern: every layer (Mistral) */
		for (uint32_t l = 0; l < m->n_layers; l++)
			m->layers[l].swa = pattern ? (l + 1) % pattern != 0 : true;
	}
	if (!w)
		return;
	m->sliding_window = c32(w);
	for (uint32_t l = 0; l < m->n_layers; l++)
		if (m->layers[l].swa && m->layers[l].kv_heads)
			m->n_swa_layers++;
}

int mem_model_apply_config(json_t *config, struct mem_model *m, char *err)
{
	json_t *c = text_part(config);
	if (!json_is_object(c))
		return cd_fail(err, CD_EFORMAT, "config.json is not a JSON object");
	const char *mt = json_string_value(json_object_get(c, "model_type"));
	if (!mt)
		mt = json_string_value(json_object_get(config, "model_type"));
	if (mt)
		snprintf(m->arch, sizeof m->arch, "%s", mt);
	/* the shape fields through their one table (mem/shape.h), as the options give them */
	struct mem_shape shape;
	mem_shape_from_config(c, &shape);
	if (!shape.v[MEM_SHAPE_LAYERS] || shape.v[MEM_SHAPE_LAYERS] > MEM_MAX_LAYERS)
		return cd_fail(err, CD_EFORMAT, "config.json: num_hidden_layers missing or out of range");
	for (size_t f = 0; f < MEM_SHAPE_FIELDS; f++)
		if (shape.v[f] > mem_shape_descs[f].max)
			return cd_fail(err, CD_EFORMAT, "config.json: a size (hidden, vocab, heads, head_dim, experts) is out of range");
	if (!shape.v[MEM_SHAPE_KV_HEADS] && json_is_true(json_object_get(c, "multi_query")))
		shape.v[MEM_SHAPE_KV_HEADS] = 1;
	m->hidden = 0;
	m->ctx_train = 0;
	int rc = mem_model_apply_shape(m, &shape, err);
	if (rc)
		return rc;
	uint64_t hd = m->head_dim_k;
	m->ff = jnum2(c, "intermediate_size", "n_inner", 4 * m->hidden);
	m->n_experts = c32(jnum2(c, "num_local_experts", "num_experts", jnum(c, "n_routed_experts", 0)));
	m->n_experts_used = c32(jnum(c, "num_experts_per_tok", 0));
	m->expert_ff = jnum(c, "moe_intermediate_size", 0);
	if (jnum(c, "kv_lora_rank", 0)) {
		m->mla = true;
		m->kv_lora_rank = c32(jnum(c, "kv_lora_rank", 0));
		m->rope_dim = c32(jnum(c, "qk_rope_head_dim", 0));
		m->head_dim_k = c32(jnum(c, "qk_nope_head_dim", 0) + m->rope_dim);
		m->head_dim_v = c32(jnum(c, "v_head_dim", hd));
	}
	for (uint32_t l = 0; l < m->n_layers; l++)
		m->layers[l].kv_heads = m->n_kv_heads;
	apply_swa(c, m);
	m->attn_known = m->n_layers && m->n_kv_heads && (m->mla || m->head_dim_k);
	/* sizes far beyond any model are a broken or hostile file, not a model */
	if (m->hidden > (1u << 22) || m->vocab > (1u << 28) || m->ff > (1u << 26) || m->n_heads > (1u << 16) ||
	    m->n_kv_heads > (1u << 16) || m->head_dim_k > (1u << 16) || m->head_dim_v > (1u << 16) ||
	    m->n_experts > (1u << 16) || m->expert_ff > (1u << 26) || m->kv_lora_rank > (1u << 20) || m->rope_dim > (1u << 16))
		return cd_fail(err, CD_EFORMAT, "config.json: a size (hidden, vocab, heads, head_dim, experts) is out of range");
	return CD_OK;
}

/* Parameters of one block of a llama-style decoder (gated MLP), MLA and MoE aware. */
static uint64_t block_params(json_t *c, const struct mem_model *m, uint32_t layer)
{
	uint64_t h = m->hidden, H = m->n_heads, p = 2 * h; /* two norms */
	if (m->mla) {
		uint64_t qlr = jnum(c, "q_lora_rank", 0), nope = jnum(c, "qk_nope_head_dim", 0);
		uint64_t rope = m->rope_dim, v = m->head_dim_v, klr = m->kv_lora_rank;
		p += qlr ? h * qlr + qlr + qlr * H * (nope + rope) : h * H * (nope + rope);
		p += h * (klr + rope) + klr + klr * H * (nope + v) + H * v * h;
	} else {
		uint64_t qd = H * m->head_dim_k, kvd = (uint64_t)m->n_kv_heads * m->head_dim_k;
		p += h * qd + 2 * h * kvd + qd * h;
		if (json_is_true(json_object_get(c, "attention_bias")) ||
		    (m->arch[0] && strncmp(m->arch, "qwen2", 5) == 0))
			p += qd + 2 * kvd;
	}
	uint64_t dense_first = jnum(c, "first_k_dense_replace", 0);
	if (m->n_experts && layer >= dense_first) {
		uint64_t moe_i = jnum(c, "moe_intermediate_size", m->ff);
		uint64_t shared = jnum(c, "n_shared_experts", 0);
		p += (uint64_t)m->n_experts * 3 * h * moe_i + h * m->n_experts + shared * 3 * h * moe_i;
	} else {
		p += 3 * h * m->ff;
	}
	return p;
}

int mem_model_from_config(json_t *config, const char *dtype, struct mem_model *m, char *err)
{
	int rc;
	memset(m, 0, sizeof *m);
	strcpy(m->format, "config.json");
	if ((rc = mem_model_apply_config(config, m, err)))
		goto out;
	json_t *c = text_part(config);
	if (!dtype) {
		dtype = json_string_value(json_object_get(c, "dtype"));
		if (!dtype)
			dtype = json_string_value(json_object_get(c, "torch_dtype"));
		if (!dtype)
			dtype = json_string_value(json_object_get(config, "torch_dtype"));
		if (!dtype)
			dtype = "bf16";
	}
	double bits = mem_dtype_bits(dtype);
	if (bits <= 0) {
		rc = cd_fail(err, CD_EUSAGE, "unknown dtype '%s'", dtype);
		goto out;
	}
	snprintf(m->dtype, sizeof m->dtype, "%s", dtype);
	if (!m->hidden || !m->n_heads || !m->vocab) {
		rc = cd_fail(err, CD_EFORMAT, "config.json lacks hidden_size, num_attention_heads or vocab_size");
		goto out;
	}
	bool tied = json_is_true(json_object_get(c, "tie_word_embeddings")) ||
		    json_is_true(json_object_get(config, "tie_word_embeddings"));
	uint64_t embed = m->vocab * m->hidden;
	m->params = embed + (tied ? 0 : embed) + m->hidden;
	m->embed_bytes = bytes_of(embed, bits);
	m->output_bytes = tied ? 0 : m->embed_bytes;
	m->other_bytes = bytes_of(m->hidden, bits);
	m->factored_elems = 2 * (m->vocab + m->hidden);
	for (uint32_t l = 0; l < m->n_layers; l++) {
		uint64_t p = block_params(c, m, l);
		m->params += p;
		m->layers[l].weight_bytes = bytes_of(p, bits);
		m->factored_elems += 10 * m->hidden + 4 * m->ff; /* rows + cols of ~7 matrices */
	}
	m->weight_bytes = m->embed_bytes + m->output_bytes + m->other_bytes;
	for (uint32_t l = 0; l < m->n_layers; l++)
		m->weight_bytes += m->layers[l].weight_bytes;
	snprintf(m->note, sizeof m->note,
		 "parameters from config.json by the decoder formula (gated MLP%s), not from tensors",
		 m->n_experts ? ", MoE" : "");
	return CD_OK;
out:
	mem_model_free(m);
	return rc;
}
