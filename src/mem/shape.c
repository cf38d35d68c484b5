/* The shape table (shape.h) and its reading from config.json, from options, into a model. */
#include "mem/shape.h"

#include <stdio.h>
#include <string.h>

#include "util/err.h"
#include "util/units.h"

const struct mem_shape_desc mem_shape_descs[MEM_SHAPE_FIELDS] = {
	[MEM_SHAPE_LAYERS] = { "layers", { "num_hidden_layers", "n_layer", "num_layers" }, MEM_MAX_LAYERS,
			       "transformer blocks" },
	[MEM_SHAPE_HEADS] = { NULL, { "num_attention_heads", "n_head" }, 1u << 16, "attention (query) heads" },
	[MEM_SHAPE_KV_HEADS] = { "kv-heads", { "num_key_value_heads" }, 1u << 16, "key/value heads" },
	[MEM_SHAPE_HEAD_DIM] = { "head-dim", { "head_dim" }, 1u << 16, "one head's dimension" },
	[MEM_SHAPE_HIDDEN] = { "hidden", { "hidden_size", "n_embd", "d_model" }, 1u << 22, "hidden size" },
	[MEM_SHAPE_VOCAB] = { "vocab", { "vocab_size" }, 1u << 28, "vocabulary size" },
	[MEM_SHAPE_CONTEXT_TRAIN] = { "trained-context", { "max_position_embeddings", "n_positions" },
				      1000000000000000ull, "context the model was trained for" },
};

static uint64_t jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return (uint64_t)json_integer_value(v);
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1e15)
		return (uint64_t)json_real_value(v);
	return 0;
}

void mem_shape_from_config(json_t *c, struct mem_shape *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t f = 0; f < MEM_SHAPE_FIELDS; f++)
		for (size_t k = 0; k < 3 && mem_shape_descs[f].keys[k] && !s->v[f]; k++)
			s->v[f] = jnum(c, mem_shape_descs[f].keys[k]);
}

int mem_shape_parse(struct mem_shape *s, enum mem_shape_field field, const char *text, char *err)
{
	const struct mem_shape_desc *d = &mem_shape_descs[field];
	uint64_t v;
	int rc = field == MEM_SHAPE_CONTEXT_TRAIN ? units_parse_tokens(text, &v) : units_parse_count(text, &v);

	if (rc || !v || v > d->max)
		return cd_fail(err, CD_EUSAGE, "--%s: '%.40s' is not a count of %s from 1 to %llu", d->option, text,
			       d->what, (unsigned long long)d->max);
	s->v[field] = v;
	return CD_OK;
}

static uint32_t c32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int mem_model_apply_shape(struct mem_model *m, const struct mem_shape *s, char *err)
{
	const uint64_t *v = s->v;
	uint64_t heads = v[MEM_SHAPE_HEADS];
	uint64_t kv = v[MEM_SHAPE_KV_HEADS] ? v[MEM_SHAPE_KV_HEADS] : heads;
	uint64_t hd = v[MEM_SHAPE_HEAD_DIM] ? v[MEM_SHAPE_HEAD_DIM]
					    : heads && v[MEM_SHAPE_HIDDEN] ? v[MEM_SHAPE_HIDDEN] / heads : 0;

	for (size_t f = 0; f < MEM_SHAPE_FIELDS; f++)
		if (v[f] > mem_shape_descs[f].max)
			return cd_fail(err, CD_EFORMAT, "%s %llu is out of range (at most %llu)", mem_shape_descs[f].what,
				       (unsigned long long)v[f], (unsigned long long)mem_shape_descs[f].max);
	if (v[MEM_SHAPE_LAYERS] && m->n_layers != v[MEM_SHAPE_LAYERS]) {
		int rc = mem_model_alloc_layers(m, v[MEM_SHAPE_LAYERS], err);

		if (rc)
			return rc;
	}
	if (v[MEM_SHAPE_HIDDEN]) {
		m->hidden = v[MEM_SHAPE_HIDDEN];
		if (!m->ff)
			m->ff = 4 * m->hidden; /* config.json's default when intermediate_size is not said */
	}
	m->n_heads = c32(heads);
	m->n_kv_heads = c32(kv);
	m->head_dim_k = m->head_dim_v = c32(hd);
	if (v[MEM_SHAPE_VOCAB])
		m->vocab = v[MEM_SHAPE_VOCAB];
	if (v[MEM_SHAPE_CONTEXT_TRAIN])
		m->ctx_train = v[MEM_SHAPE_CONTEXT_TRAIN];
	for (uint32_t l = 0; l < m->n_layers; l++)
		m->layers[l].kv_heads = m->n_kv_heads;
	m->attn_known = m->n_layers && m->n_kv_heads && m->head_dim_k;
	return CD_OK;
}
