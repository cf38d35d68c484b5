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

const char *mem_phase_name(enum mem_phase p)
{
	switch (p) {
	case MEM_PHASE_FORWARD: return "forward";
	case MEM_PHASE_LOSS: return "loss";
	case MEM_PHASE_BACKWARD: return "backward";
	case MEM_PHASE_OPTIMIZER: return "optimizer";
	default: return NULL;
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

/* The MLP width one token passes through: MoE tokens go through the experts they use. */
static uint64_t token_ff(const struct mem_model *m)
{
	if (m->n_experts && m->n_experts_used)
		return sat_mul(m->expert_ff ? m->expert_ff : m->ff, m->n_experts_used);
	return m->ff;
}

/* Per-token activation elements live at once in one decoder block during a
 * forward: residual + norm + q/k/v/o + the gated MLP's three intermediates. */
static uint64_t block_act_elems(const struct mem_model *m)
{
	uint64_t kvd = (uint64_t)m->n_kv_heads * (m->head_dim_k + m->head_dim_v);
	return sat_add(sat_add(sat_mul(5, m->hidden), kvd), sat_mul(3, token_ff(m)));
}

/* Bytes per token an RMSNorm computed in fp32 (as Hugging Face's) keeps for backward: the
 * fp32 copy of its input, the normalised value and the output in the activation dtype, rstd. */
static uint64_t norm_saved_per_token(uint64_t h, uint64_t a)
{
	return sat_add(sat_mul(h, sat_add(4, sat_mul(2, a))), 4);
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

/* Bytes per token one decoder block keeps for backward in PyTorch (a Llama-style block as
 * Hugging Face writes it, in the activation dtype of a bytes): each RMSNorm its fp32 copy of
 * the input, the normalised value and the output, and rstd (fp32); q, k, v and the attention
 * output as SDPA/flash attention saves them (K and V at the KV heads' width) with its fp32
 * log-sum-exp per head; the gated MLP's gate, silu(gate), up and their product. */
static uint64_t block_saved_per_token(const struct mem_model *m, uint64_t a)
{
	uint64_t h = m->hidden, ff = token_ff(m);
	uint64_t qd = (uint64_t)m->n_heads * m->head_dim_k, od = (uint64_t)m->n_heads * m->head_dim_v;
	uint64_t kd = (uint64_t)m->n_kv_heads * m->head_dim_k, vd = (uint64_t)m->n_kv_heads * m->head_dim_v;
	if (!qd || !od) /* attention shape unknown: square projections */
		qd = od = kd = vd = h;
	uint64_t norms = sat_mul(2, norm_saved_per_token(h, a));
	uint64_t attn = sat_add(sat_mul(a, sat_add(sat_add(qd, od), sat_add(kd, vd))), sat_mul(4, m->n_heads));
	return sat_add(sat_add(norms, attn), sat_mul(sat_mul(4, a), ff));
}

/* Gradient bytes of a tensor held in weight_bytes: grads have dtype gb, weights wb per param. */
static uint64_t grad_of(uint64_t weight_bytes, double wb, double gb)
{
	return from_double((double)weight_bytes * gb / wb);
}

/* The backward phase's peak: the lm_head's backward with every activation still stored, then
 * block by block from the top (the block's activations, recomputed with checkpointing, while
 * the gradients above it are done), then the embedding's backward with every other gradient
 * done. In a block the peak is the MLP's product backward: the residual gradient, the
 * product's gradient and both of its inputs' gradients. */
static uint64_t backward_peak(const struct mem_model *m, const struct mem_opts *o, const struct mem_estimate *e,
			      uint64_t held, uint64_t a, double wb, double gb)
{
	uint64_t T = sat_mul(o->context, o->batch), h = m->hidden, ff = token_ff(m);
	uint64_t block = sat_mul(T, block_saved_per_token(m, a));
	uint64_t kept = o->checkpointing ? sat_mul(sat_mul(T, a), h) : block; /* per block until its backward */
	uint64_t inputs = sat_mul(T, 16);
	uint64_t out_grad = grad_of(m->output_bytes ? m->output_bytes : m->embed_bytes, wb, gb);
	uint64_t done = sat_add(out_grad, grad_of(m->other_bytes, wb, gb));
	/* lm_head: the logits' gradient in, the final hidden's gradient and its own out (the
	 * final norm's saved tensors go with its backward, before the blocks') */
	uint64_t peak = sat_add(sat_add(held, e->activations),
				sat_add(sat_mul(sat_mul(T, m->vocab), a), sat_add(sat_mul(sat_mul(T, h), a), out_grad)));
	uint64_t down = m->n_experts ? 0 : grad_of(sat_mul(h, m->ff), 1, gb); /* done before the product */
	uint64_t transient = sat_mul(T, sat_mul(a, sat_add(h, sat_mul(2, ff))));
	for (uint32_t l = m->n_layers; l-- > 0;) {
		uint64_t below = sat_add(sat_mul(kept, (uint64_t)l + 1), inputs);
		uint64_t at = sat_add(sat_add(held, done), sat_add(below, sat_add(down, transient)));
		if (o->checkpointing)
			at = sat_add(at, block);
		if (at > peak)
			peak = at;
		done = sat_add(done, grad_of(m->layers[l].weight_bytes, wb, gb));
	}
	/* embedding: its own gradient (for tied weights a second one, added into the lm_head's),
	 * the gradient of its output, fp32 partial sums per token and the sorted indices */
	uint64_t emb = sat_add(sat_add(held, done), sat_add(grad_of(m->embed_bytes, wb, gb),
							   sat_mul(T, sat_add(sat_mul(a + 4, h), 24 + 16))));
	return emb > peak ? emb : peak;
}

static void training(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e)
{
	uint64_t P = m->params;
	double wbytes = P ? (double)m->weight_bytes / (double)P : 2.0;
	double gbytes = o->mixed_precision ? 2.0 : wbytes;
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
	uint64_t temp = 0; /* the optimizer step's own temporaries */
	switch (o->optimizer) {
	case MEM_OPT_SGD: e->optimizer = sat_mul(P, state_bytes); break;  /* momentum */
	case MEM_OPT_ADAFACTOR: /* factored second moment: rows + cols per matrix, kept in f32 */
		e->optimizer = sat_mul(m->shapes_known || m->factored_elems ? m->factored_elems : P / 100, 4);
		break;
	default: /* m and v; foreach Adam(W), PyTorch's default on CUDA, makes sqrt(v) whole */
		e->optimizer = sat_mul(sat_mul(P, state_bytes), 2);
		temp = sat_mul(P, state_bytes);
		break;
	}
	e->rule_of_thumb = sat_mul(P, 16);
	/* cuBLAS keeps one workspace per thread's handle: the forward's, and autograd's device
	 * thread's for the backward */
	e->workspace = sat_mul(MEM_TORCH_WORKSPACE, 2);
	/* held through the whole step once the states exist */
	uint64_t held = sat_add(sat_add(e->weights, e->master_weights), sat_add(e->optimizer, e->workspace));
	e->phase_optimizer = sat_add(sat_add(held, e->gradients), temp);
	e->act_known = m->hidden && m->n_layers;
	if (!e->act_known)
		return;
	/* activations in 16-bit unless the model trains in fp32 */
	uint64_t a = (o->mixed_precision || wbytes <= 2.0) ? 2 : 4;
	uint64_t T = sat_mul(o->context, o->batch), h = m->hidden, L = m->n_layers;
	uint64_t rest = sat_add(sat_mul(T, norm_saved_per_token(h, a)), sat_mul(T, 16)); /* final norm, ids, labels */
	e->act_full = sat_add(sat_mul(sat_mul(T, block_saved_per_token(m, a)), L), rest);
	e->act_checkpointed = sat_add(sat_mul(sat_mul(sat_mul(T, a), h), L), rest); /* each block's input */
	e->activations = o->checkpointing ? e->act_checkpointed : e->act_full;
	/* the loss upcasts the logits: its log-softmax (kept), the loss's gradient of it and the
	 * gradient of the upcast logits, all fp32 and alive at once in its backward */
	e->logits = sat_mul(sat_mul(T, m->vocab), 12);
	e->phase_forward = sat_add(sat_add(held, e->activations), sat_mul(sat_mul(T, m->vocab), a));
	e->phase_loss = sat_add(sat_add(held, e->activations), e->logits);
	e->phase_backward = backward_peak(m, o, e, held, a, wbytes, gbytes);
	e->phases_known = true;
}

/* The step's peak and its phase (the first of equal ones); without the activations only the
 * optimizer step is counted, and no phase is named. */
static uint64_t peak_of_step(struct mem_estimate *e)
{
	const uint64_t at[] = {e->phase_forward, e->phase_loss, e->phase_backward, e->phase_optimizer};
	uint64_t peak = e->phase_optimizer;
	if (!e->phases_known)
		return peak;
	peak = 0;
	for (int i = 0; i < 4; i++)
		if (at[i] > peak || i == 0) {
			peak = at[i];
			e->peak_phase = (enum mem_phase)(MEM_PHASE_FORWARD + i);
		}
	return peak;
}

void mem_estimate(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e)
{
	memset(e, 0, sizeof *e);
	e->cuda_context = o->cuda_context;
	e->kv_known = m->attn_known;
	if (o->train) {
		training(m, o, e);
		e->total = sat_add(peak_of_step(e), e->cuda_context);
		return;
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
