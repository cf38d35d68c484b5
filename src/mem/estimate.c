/* Inference and training memory from a mem_model: weights by where they land,
 * KV cache per layer (GQA, sliding window, MLA latent), activations, optimizer. */
#include "mem/estimate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t from_double(double v)
{
	return v >= 1.8e19 ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

int mem_kv_type_parse(const char *name, struct mem_kv_type *t, char *err)
{
	static const struct { const char *name; uint32_t block, bytes; } plain[] = {
		{"f16", 1, 2}, {"fp16", 1, 2}, {"float16", 1, 2}, {"bf16", 1, 2}, {"bfloat16", 1, 2},
		{"f32", 1, 4}, {"fp32", 1, 4}, {"float32", 1, 4}, {"fp8", 1, 1}, {"f8", 1, 1},
		{"fp8_e4m3", 1, 1}, {"fp8_e5m2", 1, 1}, {"int8", 1, 1},
	};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
		if (strcasecmp(name, plain[i].name) == 0) {
			snprintf(t->name, sizeof t->name, "%s", plain[i].name);
			t->block = plain[i].block;
			t->bytes = plain[i].bytes;
			return CD_OK;
		}
	const struct ggml_type_info *g = ggml_type_by_name(name);
	if (g) {
		snprintf(t->name, sizeof t->name, "%s", name);
		for (char *p = t->name; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		t->block = g->block;
		t->bytes = g->bytes;
		return CD_OK;
	}
	return cd_fail(err, CD_EUSAGE, "unknown --kv-dtype '%s' (f16, bf16, f32, fp8, q8_0, q4_0, ...)", name);
}

void mem_opts_default(struct mem_opts *o)
{
	memset(o, 0, sizeof *o);
	o->context = 0;
	o->batch = 1;
	mem_kv_type_parse("f16", &o->kv, NULL);
	o->optimizer = MEM_OPT_ADAMW;
	o->cuda_context = MEM_DEFAULT_CUDA_CONTEXT;
	o->weight_scale = 1.0;
}

const char *mem_optimizer_name(enum mem_optimizer o)
{
	switch (o) {
	case MEM_OPT_ADAM: return "adam";
	case MEM_OPT_SGD: return "sgd";
	case MEM_OPT_ADAFACTOR: return "adafactor";
	default: return "adamw";
	}
}

int mem_optimizer_parse(const char *s, enum mem_optimizer *o)
{
	for (int i = MEM_OPT_ADAMW; i <= MEM_OPT_ADAFACTOR; i++)
		if (strcasecmp(s, mem_optimizer_name((enum mem_optimizer)i)) == 0) {
			*o = (enum mem_optimizer)i;
			return CD_OK;
		}
	return CD_EUSAGE;
}

/* Bytes of a row of n elements in the KV type; partial blocks round up. */
static uint64_t kv_row(const struct mem_kv_type *t, uint64_t n)
{
	uint64_t blocks = (n + t->block - 1) / t->block;
	return sat_mul(blocks, t->bytes);
}

uint64_t mem_layer_kv(const struct mem_model *m, const struct mem_opts *o, uint32_t layer,
		      uint64_t context, uint64_t batch)
{
	if (!m->attn_known || layer >= m->n_layers || !m->layers[layer].kv_heads)
		return 0;
	const struct mem_layer *L = &m->layers[layer];
	uint64_t cells = context;
	if (L->swa && m->sliding_window && m->sliding_window < cells)
		cells = m->sliding_window;
	uint64_t per_cell;
	if (m->mla) /* the compressed latent plus the shared rope key, one "head" */
		per_cell = kv_row(&o->kv, (uint64_t)m->kv_lora_rank + m->rope_dim);
	else
		per_cell = sat_add(kv_row(&o->kv, (uint64_t)L->kv_heads * m->head_dim_k),
				   kv_row(&o->kv, (uint64_t)L->kv_heads * m->head_dim_v));
	return sat_mul(sat_mul(per_cell, cells), batch);
}

/* Per-token activation elements live at once in one decoder block during a
 * forward: residual + norm + q/k/v/o + the gated MLP's three intermediates. */
static uint64_t block_act_elems(const struct mem_model *m)
{
	uint64_t kvd = (uint64_t)m->n_kv_heads * (m->head_dim_k + m->head_dim_v);
	uint64_t ff = m->ff;
	if (m->n_experts && m->n_experts_used) /* each token goes through the experts it uses */
		ff = sat_mul(m->expert_ff ? m->expert_ff : m->ff, m->n_experts_used);
	return sat_add(sat_add(sat_mul(5, m->hidden), kvd), sat_mul(3, ff));
}

static void inference(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e)
{
	uint64_t layers = 0;
	for (uint32_t l = 0; l < m->n_layers; l++)
		layers = sat_add(layers, m->layers[l].weight_bytes);
	double s = o->weight_scale;
	uint64_t embed = from_double((double)m->embed_bytes * s);
	uint64_t output = from_double((double)m->output_bytes * s);
	uint64_t rest = from_double((double)sat_add(layers, m->other_bytes) * s);
	if (o->runtime == MEM_RT_LLAMACPP && m->embed_bytes) {
		e->weights_host = embed;
		/* without a separate output tensor llama.cpp puts a copy of the tied embedding on the GPU */
		e->weights = sat_add(rest, output ? output : embed);
	} else {
		e->weights = sat_add(sat_add(rest, output), embed);
	}
	e->act_known = m->hidden && m->n_layers;
	if (!e->act_known)
		return;
	uint64_t ctx_tokens = sat_mul(o->context, o->batch);
	if (o->runtime == MEM_RT_LLAMACPP) {
		/* compute buffer with flash attention: per-block activations of one ubatch in f32
		 * plus the ubatch's logits */
		uint64_t ub = o->context < MEM_LLAMACPP_UBATCH ? o->context : MEM_LLAMACPP_UBATCH;
		e->activations = sat_mul(sat_mul(ub, sat_add(block_act_elems(m), m->vocab)), 4);
	} else {
		/* the prompt in one forward (16-bit), the sampled token's logits in f32 twice
		 * (logits and softmax); attention through SDPA/flash (no s x s scores) */
		e->activations = sat_add(sat_mul(sat_mul(ctx_tokens, block_act_elems(m)), 2),
					 sat_mul(sat_mul(o->batch, m->vocab), 8));
		e->workspace = MEM_TORCH_WORKSPACE;
	}
}

static void training(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e)
{
	uint64_t P = m->params;
	double wbytes = P ? (double)m->weight_bytes / (double)P : 2.0;
	uint64_t state_bytes; /* bytes per optimizer state element */
	if (o->mixed_precision) {
		e->weights = sat_mul(P, 2);
		e->master_weights = sat_mul(P, 4);
		e->gradients = sat_mul(P, 2);
		state_bytes = 4;
	} else {
		e->weights = m->weight_bytes;
		e->gradients = from_double((double)P * wbytes);
		state_bytes = (uint64_t)(wbytes + 0.5);
	}
	switch (o->optimizer) {
	case MEM_OPT_SGD: e->optimizer = sat_mul(P, state_bytes); break;  /* momentum */
	case MEM_OPT_ADAFACTOR: /* factored second moment: rows + cols per matrix, kept in f32 */
		e->optimizer = sat_mul(m->shapes_known || m->factored_elems ? m->factored_elems : P / 100, 4);
		break;
	default: e->optimizer = sat_mul(sat_mul(P, state_bytes), 2); break; /* m and v */
	}
	e->rule_of_thumb = sat_mul(P, 16);
	e->workspace = MEM_TORCH_WORKSPACE;
	e->act_known = m->hidden && m->n_layers;
	if (!e->act_known)
		return;
	/* Korthikanti et al. 2022 with flash attention (no 5as/h term): 34 s b h L bytes in
	 * 16-bit; full recomputation keeps each block's input (2 s b h L) plus one block
	 * being recomputed. Logits in f32 and their gradient: 8 s b V. */
	uint64_t sbh = sat_mul(sat_mul(o->context, o->batch), m->hidden);
	uint64_t width = (o->mixed_precision || wbytes <= 2.0) ? 1 : 2;
	uint64_t logits = sat_mul(sat_mul(sat_mul(o->context, o->batch), m->vocab), 8);
	e->act_full = sat_add(sat_mul(sat_mul(sat_mul(sbh, m->n_layers), 34), width), logits);
	e->act_checkpointed = sat_add(sat_add(sat_mul(sat_mul(sat_mul(sbh, m->n_layers), 2), width),
					      sat_mul(sat_mul(sbh, 34), width)), logits);
	e->activations = o->checkpointing ? e->act_checkpointed : e->act_full;
}

void mem_estimate(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e)
{
	memset(e, 0, sizeof *e);
	e->cuda_context = o->cuda_context;
	e->kv_known = m->attn_known;
	if (o->train) {
		training(m, o, e);
	} else {
		inference(m, o, e);
		for (uint32_t l = 0; l < m->n_layers; l++) {
			e->kv = sat_add(e->kv, mem_layer_kv(m, o, l, o->context, o->batch));
			struct mem_layer L = m->layers[l];
			if (m->attn_known && L.kv_heads) {
				struct mem_model one = *m;
				one.sliding_window = 0; /* per token before window caps */
				e->kv_per_token = sat_add(e->kv_per_token, mem_layer_kv(&one, o, l, 1, 1));
			}
		}
	}
	uint64_t t = 0;
	uint64_t parts[] = {e->weights, e->kv, e->cuda_context, e->activations, e->workspace,
			    e->master_weights, e->gradients, e->optimizer};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		t = sat_add(t, parts[i]);
	e->total = t;
}
