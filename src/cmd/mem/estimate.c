/* `cudoctor mem estimate`: loads a model description, estimates inference or
 * training memory, checks it against each GPU (or a named one) and renders. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "kb/gguf_quants.h"
#include "mem/estimate.h"
#include "mem/load.h"
#include "mem/shape.h"
#include "rules/catalogue.h"
#include "util/units.h"
#include "util/err.h"

#define MAX_GPU_SPECS 16

struct est_args {
	const char *path;
	uint64_t params;
	const char *dtype;
	bool context_given;
	struct mem_opts o;
	const char *gpu_specs[MAX_GPU_SPECS];
	size_t n_gpu_specs;
	uint64_t gpu_memory;
	bool runtime_given;
	struct mem_shape shape;       /* --layers, --kv-heads, --head-dim, --trained-context */
	bool shape_given;
};

enum { O_PARAMS = 1, O_DTYPE, O_CONTEXT, O_BATCH, O_KV, O_TRAIN, O_OPT, O_MIXED, O_CKPT,
       O_GPU, O_GPUMEM, O_RUNTIME, O_CUDACTX, O_SHAPE };
enum { GROUP_BUDGET = 1 };

const struct cli_opt mem_estimate_opts[] = {
	{ .id = O_PARAMS, .long_name = "params", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "the parameter count instead of a model file (8e9, 7B, 70b)" },
	{ .id = O_DTYPE, .long_name = "dtype", .arg = CLI_REQUIRED, .metavar = "T",
	  .help = "the weights' type with --params (default bf16), or a GGUF quantisation by "
		  "llama-quantize's name (q4_k_m, q4_k_s, q5_k_m, q6_k, q8_0, q4_0, iq4_xs...: bits per "
		  "weight of a whole file, from kb/gguf_quants.tsv)",
	  .complete = CLI_C_WORDS,
	  .words = "fp32 fp16 bf16 fp8 int8 int4 q8_0 q6_k q5_k_m q5_k_s q4_k_m q4_k_s q4_0 q3_k_m iq4_xs" },
	/* the shape fields that have an option in mem/shape.c's table, by the same names */
	{ .id = O_SHAPE, .long_name = "layers", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: transformer blocks (config.json's num_hidden_layers); with --kv-heads and "
		  "--head-dim the KV cache is counted" },
	{ .id = O_SHAPE, .long_name = "kv-heads", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: key/value heads per layer (num_key_value_heads; 8 for Llama 3 8B)" },
	{ .id = O_SHAPE, .long_name = "head-dim", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: one head's dimension (head_dim; 128 for most)" },
	{ .id = O_SHAPE, .long_name = "hidden", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: the hidden size (hidden_size); with --layers the activations are counted "
		  "(feed-forward taken as 4 x hidden)" },
	{ .id = O_SHAPE, .long_name = "vocab", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: the vocabulary size (vocab_size), for the logits" },
	{ .id = O_SHAPE, .long_name = "trained-context", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "with --params: the context the model was trained for (max_position_embeddings; 128k = "
		  "131072); a longer --context is warned of" },
	{ .id = O_CONTEXT, .long_name = "context", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "tokens of context (default 8192, or the model's if smaller; 2048 for training); "
		  "k is 1024 (128k = 131072), as model configs mean it" },
	{ .id = O_BATCH, .long_name = "batch", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "sequences at once (default 1)" },
	{ .id = O_KV, .long_name = "kv-dtype", .arg = CLI_REQUIRED, .metavar = "T",
	  .help = "the KV cache's type (default: the runtime's)",
	  .complete = CLI_C_WORDS, .words = "f32 f16 bf16 fp8 q8_0 q4_0" },
	{ .id = O_TRAIN, .long_name = "train",
	  .help = "training instead of inference: the total is the step's peak, in the phase named (forward, loss, "
		  "backward or optimizer step)" },
	{ .id = O_OPT, .long_name = "optimizer", .arg = CLI_REQUIRED, .metavar = "NAME",
	  .help = "with --train: adam, adamw (the default), sgd or adafactor",
	  .complete = CLI_C_WORDS, .words = "adam adamw sgd adafactor" },
	{ .id = O_MIXED, .long_name = "mixed-precision", .help = "with --train: fp32 master weights beside bf16" },
	{ .id = O_CKPT, .long_name = "checkpointing", .help = "with --train: activation checkpointing" },
	{ CMD_OPT_GPU(O_GPU, "check against this GPU's memory (\"RTX 4090\", H200, A100); repeatable. "
		  "Default: every GPU here, by its free memory now"), .group = GROUP_BUDGET },
	{ .id = O_GPUMEM, .long_name = "gpu-memory", .arg = CLI_REQUIRED, .metavar = "SIZE",
	  .help = "check against this much memory (80GiB, 24GB)", .group = GROUP_BUDGET },
	{ .id = O_RUNTIME, .long_name = "runtime", .arg = CLI_REQUIRED, .metavar = "RT",
	  .help = "torch or llama.cpp (default: llama.cpp for GGUF, else torch)",
	  .complete = CLI_C_WORDS, .words = "torch llama.cpp" },
	{ .id = O_CUDACTX, .long_name = "cuda-context", .arg = CLI_REQUIRED, .metavar = "SIZE",
	  .help = "the CUDA context's own memory (default: measured here, else an allowance)" },
	{ 0 },
};

static int parse_args(int argc, char **argv, const struct cli_args *args, struct est_args *a, char *err)
{
	memset(a, 0, sizeof *a);
	mem_opts_default(&a->o);
	for (size_t i = 0; i < args->n; i++) {
		const char *optarg = args->v[i].value;

		switch (args->v[i].opt->id) {
		case O_PARAMS:
			if (units_parse_count(optarg, &a->params) || !a->params)
				return cd_fail(err, CD_EUSAGE, "--params: '%.40s' is not a count (8e9, 7B, 70b)", optarg);
			break;
		case O_DTYPE: a->dtype = optarg; break;
		case O_CONTEXT:
			if (units_parse_tokens(optarg, &a->o.context) || !a->o.context)
				return cd_fail(err, CD_EUSAGE, "--context: '%.40s' is not a token count (8192, 128k)", optarg);
			a->context_given = true;
			break;
		case O_BATCH:
			if (units_parse_count(optarg, &a->o.batch) || !a->o.batch)
				return cd_fail(err, CD_EUSAGE, "--batch: '%.40s' is not a positive count", optarg);
			break;
		case O_KV:
			if (mem_kv_type_parse(optarg, &a->o.kv, err))
				return CD_EUSAGE;
			break;
		case O_TRAIN: a->o.train = true; break;
		case O_OPT:
			if (mem_optimizer_parse(optarg, &a->o.optimizer))
				return cd_fail(err, CD_EUSAGE, "--optimizer: '%.40s' is not adam, adamw, sgd or adafactor", optarg);
			break;
		case O_MIXED: a->o.mixed_precision = true; break;
		case O_CKPT: a->o.checkpointing = true; break;
		case O_GPU:
			if (a->n_gpu_specs == MAX_GPU_SPECS)
				return cd_fail(err, CD_EUSAGE, "at most %d --gpu", MAX_GPU_SPECS);
			a->gpu_specs[a->n_gpu_specs++] = optarg;
			break;
		case O_GPUMEM:
			if (units_parse_size(optarg, &a->gpu_memory) || !a->gpu_memory)
				return cd_fail(err, CD_EUSAGE, "--gpu-memory: '%.40s' is not a size (80GiB, 24GB)", optarg);
			break;
		case O_RUNTIME:
			if (strcmp(optarg, "torch") == 0 || strcmp(optarg, "pytorch") == 0)
				a->o.runtime = MEM_RT_TORCH;
			else if (strcmp(optarg, "llama.cpp") == 0 || strcmp(optarg, "llamacpp") == 0 ||
				 strcmp(optarg, "ollama") == 0)
				a->o.runtime = MEM_RT_LLAMACPP;
			else
				return cd_fail(err, CD_EUSAGE, "--runtime: '%.40s' is not torch or llama.cpp", optarg);
			a->runtime_given = true;
			break;
		case O_SHAPE: {
			size_t f = 0;

			while (f < MEM_SHAPE_FIELDS && (!mem_shape_descs[f].option ||
							 strcmp(mem_shape_descs[f].option, args->v[i].opt->long_name) != 0))
				f++;
			if (f == MEM_SHAPE_FIELDS)
				return cd_fail(err, CD_EINTERNAL, "--%s: not in the shape table", args->v[i].opt->long_name);
			if (mem_shape_parse(&a->shape, (enum mem_shape_field)f, optarg, err))
				return CD_EUSAGE;
			a->shape_given = true;
			break;
		}
		case O_CUDACTX:
			if (units_parse_size(optarg, &a->o.cuda_context))
				return cd_fail(err, CD_EUSAGE, "--cuda-context: '%.40s' is not a size", optarg);
			break;
		}
	}
	/* argv: "estimate", then the operands */
	if (argc > 1)
		a->path = argv[1];
	if (argc > 2)
		return cd_fail(err, CD_EUSAGE, "one model at a time ('%.60s' is extra)", argv[2]);
	if (!a->path == !a->params)
		return cd_fail(err, CD_EUSAGE, "name a model FILE|DIR or give --params N --dtype T");
	if (a->shape_given && !a->params)
		return cd_fail(err, CD_EUSAGE, "--layers, --kv-heads, --head-dim, --hidden, --vocab and --trained-context "
			       "go with --params (a model file or config.json gives its own shape)");
	if (a->params && !a->dtype)
		a->dtype = "bf16";
	return CD_OK;
}

/* The "model" object and the Model section. */
static void model_fields(struct report_rec *top, const struct mem_model *m, const char *path)
{
	const struct field_table *F = &mem_model_field_table;
	struct report_rec w;
	char a[UNITS_BUF], b[UNITS_BUF];

	report_rec_object(top, "model", &w);
	report_rec_section(&w, "Model");
	if (path)
		report_one_fieldf(&w, F, MEM_MODEL_FORMAT, m, "%s (%s)", path, m->format);
	else
		report_one_fieldf(&w, F, MEM_MODEL_FORMAT, m, "--params (%s)", m->dtype);
	if (path)
		report_field(&w, NULL, "path", rv_str(path));
	report_one_field(&w, F, MEM_MODEL_ARCH, m);
	report_one_json(&w, F, MEM_MODEL_DTYPE, m);
	report_one_fieldf(&w, F, MEM_MODEL_PARAMS, m, "%s (%.2f %s%s)", units_fmt_count(m->params, a, sizeof a),
			     m->params >= 1000000000ull ? m->params / 1e9 : m->params / 1e6,
			     m->params >= 1000000000ull ? "B" : "M",
			     m->params_exact ? (m->format[0] == 'p' ? ", given" : ", exact from tensor shapes")
					     : ", by formula");
	report_one_json(&w, F, MEM_MODEL_PARAMS_EXACT, m);
	if (m->params)
		report_one_fieldf(&w, F, MEM_MODEL_WEIGHT_BYTES, m, "%s, mostly %s, %.3f bits per parameter%s",
				     units_fmt_bytes(m->weight_bytes, b, sizeof b), m->dtype,
				     8.0 * (double)m->weight_bytes / (double)m->params,
				     m->bytes_exact ? " (exact: sum of tensor sizes)" : "");
	else
		report_one_json(&w, F, MEM_MODEL_WEIGHT_BYTES, m);
	if (m->n_layers && !m->hidden && m->ctx_train)
		/* --params --layers: only what the options gave */
		report_one_fieldf(&w, F, MEM_MODEL_LAYERS, m, "%u (trained context %" PRIu64 ")", m->n_layers, m->ctx_train);
	else if (m->n_layers && !m->hidden)
		report_one_fieldf(&w, F, MEM_MODEL_LAYERS, m, "%u", m->n_layers);
	else if (m->n_layers)
		report_one_fieldf(&w, F, MEM_MODEL_LAYERS, m,
				     "%u (hidden %" PRIu64 ", vocab %" PRIu64 ", trained context %" PRIu64 ")", m->n_layers,
				     m->hidden, m->vocab, m->ctx_train);
	else
		report_one_json(&w, F, MEM_MODEL_LAYERS, m);
	if (m->attn_known && m->mla)
		report_one_fieldf(&w, F, MEM_MODEL_HEADS, m,
				     "MLA: %u heads; cache holds the latent (%u) + rope key (%u) per token and layer",
				     m->n_heads, m->kv_lora_rank, m->rope_dim);
	else if (m->attn_known && !m->n_heads)
		report_one_fieldf(&w, F, MEM_MODEL_HEADS, m, "%u KV heads, head dim %u", m->n_kv_heads, m->head_dim_k);
	else if (m->attn_known)
		report_one_fieldf(&w, F, MEM_MODEL_HEADS, m, "%u heads, %u KV heads%s, head dim %u%s", m->n_heads,
				     m->n_kv_heads, m->n_kv_heads && m->n_kv_heads < m->n_heads ? " (grouped-query)" : "",
				     m->head_dim_k, m->head_dim_k != m->head_dim_v ? " (K) / other for V" : "");
	else
		report_one_json(&w, F, MEM_MODEL_HEADS, m);
	for (int i = MEM_MODEL_KV_HEADS; i <= MEM_MODEL_CONTEXT_TRAIN; i++)
		report_one_json(&w, F, i, m);
	if (m->sliding_window)
		report_one_fieldf(&w, F, MEM_MODEL_SLIDING_WINDOW, m, "%u tokens on %u of %u layers",
				     m->sliding_window, m->n_swa_layers, m->n_layers);
	else
		report_one_json(&w, F, MEM_MODEL_SLIDING_WINDOW, m);
	for (int i = MEM_MODEL_SWA_LAYERS; i <= MEM_MODEL_ROPE_DIM; i++)
		report_one_json(&w, F, i, m);
	report_one_field(&w, F, MEM_MODEL_NOTE, m);
	if (report_rec_end(&w) != CD_OK)
		return; /* the failure is top's now */
}

/* One part of the estimate: its key in "breakdown" and, with how, its row of the table. */
static void part(struct report_rec *bd, struct report_rec *tab, const struct mem_estimate *e,
		 enum mem_estimate_field i, const char *how)
{
	const struct field_table *t = &mem_estimate_field_table;
	struct report_rec row;

	report_one_json(bd, t, i, e);
	if (!how)
		return;
	report_rec_item(tab, &row);
	report_field(&row, "part", NULL, rv_str(t->fields[i].label));
	report_one_field_as(&row, "size", NULL, t, i, e);
	report_field(&row, "how it is counted", NULL, rv_str(how));
	if (report_rec_end(&row) != CD_OK)
		return; /* the failure is tab's now */
}

/* A phase's row, marked when the step peaks in it. */
static void phase_row(struct report_rec *bd, struct report_rec *tab, const struct mem_estimate *e,
		      enum mem_estimate_field i, enum mem_phase p, const char *how)
{
	char line[256];

	snprintf(line, sizeof line, "%s%s", how, e->peak_phase == p ? "  <- peak" : "");
	part(bd, tab, e, i, line);
}

static void training_parts(struct report_rec *bd, struct report_rec *tab, const struct mem_opts *o,
			   const struct mem_estimate *e)
{
	char how[512], s1[UNITS_BUF];

	part(bd, tab, e, MEM_EST_WEIGHTS, o->mixed_precision ? "16-bit copy used in forward/backward" : "as stored");
	part(bd, tab, e, MEM_EST_WEIGHTS_HOST, NULL);
	part(bd, tab, e, MEM_EST_MASTER_WEIGHTS,
	     o->mixed_precision ? "fp32 copy the optimizer updates (4 B/param)" : NULL);
	part(bd, tab, e, MEM_EST_GRADIENTS, o->mixed_precision ? "16-bit (2 B/param)" : "same dtype as the weights");
	part(bd, tab, e, MEM_EST_OPTIMIZER,
	     o->optimizer == MEM_OPT_SGD ? "momentum: 1 state per parameter"
	     : o->optimizer == MEM_OPT_ADAFACTOR ? "factored 2nd moment: rows + cols per matrix, fp32"
						  : "m and v: 2 states per parameter");
	if (e->act_known)
		snprintf(how, sizeof how, "kept for backward, %s; the other variant: %s",
			 o->checkpointing ? "with checkpointing: each block's input"
					  : "no checkpointing: every block's saved tensors (RMSNorm fp32, SDPA, SwiGLU)",
			 units_fmt_bytes(o->checkpointing ? e->act_full : e->act_checkpointed, s1, sizeof s1));
	else
		snprintf(how, sizeof how, "unknown without the architecture (give config.json or a model file)");
	part(bd, tab, e, MEM_EST_ACTIVATIONS, how);
	part(bd, tab, e, MEM_EST_ACT_FULL, NULL);
	part(bd, tab, e, MEM_EST_ACT_CHECKPOINTED, NULL);
	part(bd, tab, e, MEM_EST_LOGITS, "the loss in fp32: log-softmax, its gradient, the logits' gradient "
					  "(12 B x tokens x vocab)");
	part(bd, tab, e, MEM_EST_WORKSPACE, "two cuBLAS workspaces: the forward's thread and autograd's (PyTorch "
					     "default on sm90)");
	/* each phase's peak, as torch.cuda.max_memory_allocated sees it */
	if (e->phases_known) {
		bool adam = o->optimizer == MEM_OPT_ADAM || o->optimizer == MEM_OPT_ADAMW;

		phase_row(bd, tab, e, MEM_EST_PHASE_FORWARD, MEM_PHASE_FORWARD,
			  "phase: weights + states + activations + the logits");
		phase_row(bd, tab, e, MEM_EST_PHASE_LOSS, MEM_PHASE_LOSS,
			  "phase: weights + states + activations + the loss tensors");
		phase_row(bd, tab, e, MEM_EST_PHASE_BACKWARD, MEM_PHASE_BACKWARD,
			  o->checkpointing ? "phase: block inputs freed as the gradients fill, one block recomputed"
					   : "phase: activations freed block by block as the gradients fill");
		phase_row(bd, tab, e, MEM_EST_PHASE_OPTIMIZER, MEM_PHASE_OPTIMIZER,
			  adam ? "phase: weights + gradients + states + sqrt(v) (foreach AdamW, PyTorch's default)"
			       : "phase: weights + gradients + states");
	}
	part(bd, tab, e, MEM_EST_PEAK_PHASE, NULL);
}

static void inference_parts(struct report_rec *bd, struct report_rec *tab, const struct mem_model *m,
			    const struct mem_opts *o, const struct mem_estimate *e)
{
	char how[512], s1[UNITS_BUF];
	bool llama = o->runtime == MEM_RT_LLAMACPP;

	if (llama && e->weights_host)
		snprintf(how, sizeof how, "exact; token_embd (%s) stays on the CPU",
			 units_fmt_bytes(e->weights_host, s1, sizeof s1));
	else
		snprintf(how, sizeof how, "%s", m->bytes_exact ? "exact: every tensor" : "parameters x dtype size");
	if (o->weight_scale != 1.0)
		snprintf(how, sizeof how, "scaled to %.3f bits per parameter",
			 8.0 * (double)m->weight_bytes / (double)m->params * o->weight_scale);
	part(bd, tab, e, MEM_EST_WEIGHTS, how);
	part(bd, tab, e, MEM_EST_WEIGHTS_HOST, NULL);
	if (e->kv_known)
		snprintf(how, sizeof how, "formula: %s per token over all layers%s",
			 units_fmt_bytes(e->kv_per_token, s1, sizeof s1),
			 m->sliding_window ? ", windowed layers capped at the window" : "");
	else
		snprintf(how, sizeof how, "unknown: no attention shape (%.300s)", m->note[0] ? m->note : "no metadata");
	part(bd, tab, e, MEM_EST_KV, how);
	part(bd, tab, e, MEM_EST_KV_PER_TOKEN, NULL);
	part(bd, tab, e, MEM_EST_ACTIVATIONS,
	     !e->act_known ? "unknown without the architecture"
	     : llama       ? "allowance: compute buffer of one 512-token ubatch (f32, flash attention) + logits"
			   : "allowance: one block's tensors for the whole prompt (16-bit) + last-token logits");
	part(bd, tab, e, MEM_EST_WORKSPACE, e->workspace ? "cuBLAS workspace (PyTorch default on sm90)" : NULL);
}

/* The "inputs" object (the section's title in text), the "breakdown" object and the table of
 * its parts. */
static void breakdown_fields(struct report_rec *top, const struct mem_model *m, const struct mem_opts *o,
			     const struct mem_estimate *e)
{
	static const char *const hdr[] = { "part", "size", "how it is counted" };
	struct report_rec in, bd, tab;
	char s1[UNITS_BUF], total_how[128] = "";

	report_rec_object(top, "inputs", &in);
	if (o->train)
		report_rec_section(&in, "Training: context %" PRIu64 " x batch %" PRIu64 ", %s%s, %s", o->context,
				   o->batch, mem_optimizer_name(o->optimizer), o->mixed_precision ? ", mixed precision" : "",
				   o->checkpointing ? "activation checkpointing" : "no checkpointing");
	else
		report_rec_section(&in, "Inference: context %" PRIu64 " x batch %" PRIu64 ", KV %s, runtime %s",
				   o->context, o->batch, o->kv.name, o->runtime == MEM_RT_LLAMACPP ? "llama.cpp" : "PyTorch");
	report_fields(&in, &mem_opts_field_table, o, FIELD_FULL);
	if (report_rec_end(&in) != CD_OK)
		return; /* the failure is top's now */
	report_rec_object(top, "breakdown", &bd);
	report_rec_text(&bd, REPORT_TEXT_NONE); /* its text is the table */
	report_rec_table(top, NULL, 3, hdr, &tab);
	if (o->train)
		training_parts(&bd, &tab, o, e);
	else
		inference_parts(&bd, &tab, m, o, e);
	part(&bd, &tab, e, MEM_EST_CUDA_CONTEXT,
	     "allowance per GPU and process (--cuda-context; `cudoctor mem status` measures it)");
	if (o->train && e->peak_phase)
		snprintf(total_how, sizeof total_how, "the peak, in the %s phase, + CUDA context",
			 mem_phase_name(e->peak_phase));
	else if (o->train)
		snprintf(total_how, sizeof total_how, "the optimizer step + CUDA context; activations not counted");
	part(&bd, &tab, e, MEM_EST_TOTAL, total_how);
	if (o->train)
		part(&bd, &tab, e, MEM_EST_RULE_OF_THUMB, NULL);
	if (report_rec_end(&tab) != CD_OK || report_rec_end(&bd) != CD_OK)
		return; /* the failure is top's now */
	if (o->train)
		report_rec_line(top, "The common rule of thumb, parameters x 4 bytes x (2 + 2) = %s, is the fp32 Adam special "
				     "case: weights + gradients + m + v at 16 B/param. It leaves out activations, the CUDA "
				     "context and workspaces; mixed-precision Adam also lands at 16 B/param (2 + 2 + 4 "
				     "master + 8), SGD and Adafactor need less.",
				units_fmt_bytes(e->rule_of_thumb, s1, sizeof s1));
}

static void oom_finding(struct report *r, const struct mem_model *m, const struct mem_opts *o,
			const struct mem_estimate *e, const struct mem_target *t, const struct mem_fit *f)
{
	char s1[48], s2[48], s3[48];
	struct finding_vars v;

	finding_vars_init(&v);
	finding_var(&v, "need", "%s", units_fmt_bytes(e->total, s1, sizeof s1));
	finding_var(&v, "target", "%s", t->name);
	finding_var(&v, "budget", "%s", units_fmt_bytes(t->budget, s1, sizeof s1));
	finding_flag(&v, "train", o->train);
	finding_flag(&v, "adafactor", o->optimizer == MEM_OPT_ADAFACTOR);
	finding_flag(&v, "fixed", true);
	if (f->context_matters && f->max_context && f->max_context < o->context)
		finding_var(&v, "max_context", "%" PRIu64, f->max_context);
	if (!o->train && f->quant_fit[0]) {
		/* llama-quantize's names: the K-quants of 3-5 bits come as _M mixes */
		const char *mix = strcmp(f->quant_fit, "Q5_K") == 0 || strcmp(f->quant_fit, "Q4_K") == 0 ||
					  strcmp(f->quant_fit, "Q3_K") == 0 ? "_M" : "";
		finding_var(&v, "quant", "%s", f->quant_fit);
		finding_var(&v, "quant_name", "%s%s", f->quant_fit, mix);
	}
	if (!o->train && f->layers_fit < m->n_layers) {
		finding_var(&v, "layers_fit", "%u", f->layers_fit);
		finding_var(&v, "layers", "%u", m->n_layers);
	}
	if (f->gpus_needed > 1)
		finding_var(&v, "gpus_needed", "%u", f->gpus_needed);
	if (o->train && !o->checkpointing && e->act_known) {
		struct mem_opts ck = *o;
		struct mem_estimate with;

		ck.checkpointing = true;
		mem_estimate(m, &ck, &with);
		if (with.total < e->total) {
			finding_var(&v, "act_full", "%s", units_fmt_bytes(e->act_full, s1, sizeof s1));
			finding_var(&v, "act_checkpointed", "%s", units_fmt_bytes(e->act_checkpointed, s1, sizeof s1));
			finding_var(&v, "step", "%s", units_fmt_bytes(e->total, s1, sizeof s1));
			finding_var(&v, "step_checkpointed", "%s", units_fmt_bytes(with.total, s1, sizeof s1));
		}
	}
	if (o->train && e->peak_phase == MEM_PHASE_LOSS)
		finding_var(&v, "logits", "%s", units_fmt_bytes(e->logits, s1, sizeof s1));
	struct finding *fd = finding_make(r, SEV_ERROR, "oom-capacity/estimate", t->name, &v);
	if (!fd)
		return;
	cmd_note(r, finding_evidence(fd, "estimate total %" PRIu64 " bytes > %s %" PRIu64 " bytes", e->total, t->basis, t->budget));
	if (o->train)
		cmd_note(r, finding_evidence(fd, "weights %s, gradients + optimizer states %s, activations %s",
				 units_fmt_bytes(e->weights + e->master_weights, s1, sizeof s1),
				 units_fmt_bytes(e->gradients + e->optimizer, s2, sizeof s2),
				 units_fmt_bytes(e->activations, s3, sizeof s3)));
	else
		cmd_note(r, finding_evidence(fd, "weights %s, KV cache %s, activations %s", units_fmt_bytes(e->weights, s1, sizeof s1),
				 units_fmt_bytes(e->kv, s2, sizeof s2), units_fmt_bytes(e->activations, s3, sizeof s3)));
	if (o->train && e->peak_phase)
		cmd_note(r, finding_evidence(fd, "the step peaks in its %s phase", mem_phase_name(e->peak_phase)));
}

/* A fit that would be claimed without the KV cache or the activations: say what is missing
 * and how to give it, never "fits". */
static void unknown_parts_finding(struct report *r, const struct mem_model *m, const struct mem_opts *o,
				  const struct mem_estimate *e, const struct mem_target *t)
{
	char s1[UNITS_BUF], s2[UNITS_BUF];
	bool kv = !o->train && !e->kv_known;
	struct finding_vars v;
	struct finding *fd;

	finding_vars_init(&v);
	finding_flag(&v, "kv", kv);
	finding_flag(&v, "by_params", strcmp(m->format, "params") == 0);
	finding_var(&v, "context", "%llu", (unsigned long long)o->context);
	finding_var(&v, "gpu", "%s", t->name);
	finding_var(&v, "params", "%llu", (unsigned long long)m->params);
	if (!(fd = finding_make(r, SEV_CATALOGUE, "mem-shape-unknown", t->name, &v)))
		return;
	cmd_note(r, finding_evidence(fd, "counted: %s of %s; %s", units_fmt_bytes(e->total, s1, sizeof s1),
				     units_fmt_bytes(t->budget, s2, sizeof s2),
				     m->note[0] ? m->note : "the model's shape is unknown"));
	cmd_note(r, finding_evidence(fd, "missing: %s", kv ? "the number of layers, attention heads, KV heads and "
				     "head dim (the KV cache is layers x 2 x KV heads x head dim x context)"
							   : "the number of layers and the hidden size"));
}

/* The context asked for is past what the model was trained on: quality falls off (or the
 * runtime refuses) beyond it, whatever the memory says. */
static void past_trained_context(struct report *r, const struct mem_model *m, const struct mem_opts *o)
{
	struct finding_vars v;
	struct finding *fd;

	finding_vars_init(&v);
	finding_var(&v, "context", "%llu", (unsigned long long)o->context);
	finding_var(&v, "trained", "%llu", (unsigned long long)m->ctx_train);
	if (!(fd = finding_make(r, SEV_CATALOGUE, "context-past-training", NULL, &v)))
		return;
	cmd_note(r, finding_evidence(fd, "trained context %llu (%s)", (unsigned long long)m->ctx_train,
				     strcmp(m->format, "params") == 0 ? "--trained-context"
				     : strcmp(m->format, "gguf") == 0 ? "GGUF <arch>.context_length"
								    : "config.json max_position_embeddings"));
}

/* The Fit table and "per_gpu": each target's fit, its -q line and, when it does not fit,
 * its finding. */
static void fit_fields(struct report_rec *top, const struct mem_model *m, const struct mem_opts *o,
		       const struct mem_estimate *e, const struct mem_target *targets, size_t n)
{
	static const char *const hdr[] = { "GPU", "memory", "fits", "headroom", "max context", "max batch",
					   "layers on GPU" };
	const struct field_table *F = &mem_fit_field_table;
	struct report_rec tab, row;

	report_rec_section(top, "Fit");
	report_rec_table(top, "per_gpu", 7, hdr, &tab);
	for (size_t i = 0; i < n; i++) {
		const struct mem_target *t = &targets[i];
		struct mem_fit f;
		char mem[64], hr[UNITS_BUF + 1], s[UNITS_BUF];

		mem_fit_search(m, o, t->budget, &f);
		snprintf(mem, sizeof mem, "%s %s", units_fmt_bytes(t->budget, s, sizeof s), t->basis);
		report_rec_item(&tab, &row);
		report_field(&row, "GPU", "gpu", rv_str(t->name));
		report_fieldf(&row, "memory", "memory_bytes", rv_int((long long)t->budget), "%s", mem);
		report_field(&row, NULL, "memory_basis", rv_str(t->basis));
		report_one_fieldf(&row, F, MEM_FIT_FITS, &f, "%s", f.fits ? "yes" : "NO");
		report_one_field(&row, F, MEM_FIT_HEADROOM, &f);
		report_one_field(&row, F, MEM_FIT_MAX_CONTEXT, &f);
		report_one_field(&row, F, MEM_FIT_MAX_BATCH, &f);
		if (o->train) /* training keeps every layer on the GPU */
			report_fieldf(&row, F->fields[MEM_FIT_LAYERS].label, NULL, rv_null(), "n/a");
		else if (!m->n_layers)
			report_one_fieldf(&row, F, MEM_FIT_LAYERS, &f, "n/a");
		else
			report_one_fieldf(&row, F, MEM_FIT_LAYERS, &f, "%u of %u", f.layers_fit, m->n_layers);
		report_one_json(&row, F, MEM_FIT_GPUS_NEEDED, &f);
		report_one_json(&row, F, MEM_FIT_QUANT, &f);
		if (report_rec_end(&row) != CD_OK)
			break;
		/* -q: one line per GPU, the answer a script wants */
		if (f.headroom >= 0)
			units_fmt_bytes((uint64_t)f.headroom, hr, sizeof hr);
		else
			snprintf(hr, sizeof hr, "-%s", units_fmt_bytes((uint64_t)-f.headroom, s, sizeof s));
		if (!f.fits_known)
			cmd_note(top->r, report_answer(top->r, "%s: unknown: %s counted without the %s (needs at "
						       "least %s of %s)", t->name, o->train ? "training" : "inference",
						       !e->kv_known && !o->train ? "KV cache" : "activations",
						       units_fmt_bytes(e->total, s, sizeof s), mem));
		else
			cmd_note(top->r, report_answer(top->r, "%s: %s (needs %s of %s, headroom %s)", t->name,
						       f.fits ? "fits" : "does not fit",
						       units_fmt_bytes(e->total, s, sizeof s), mem, hr));
		if (!f.fits)
			oom_finding(top->r, m, o, e, t, &f);
		else if (!f.fits_known)
			unknown_parts_finding(top->r, m, o, e, t);
	}
	if (report_rec_end(&tab) != CD_OK)
		return; /* the failure is top's now */
}

/* --params with shape options: the KV cache is counted when layers, KV heads and head dim are
 * all given; the note says what is still missing. */
static int mem_params_shape(struct mem_model *m, const struct mem_shape *s, char *err)
{
	int rc = mem_model_apply_shape(m, s, err);

	if (rc)
		return rc == CD_EFORMAT ? CD_EUSAGE : rc;
	snprintf(m->note, sizeof m->note, "shape from the options%s%s", m->attn_known ? "" :
		 "; no KV cache without --layers, --kv-heads and --head-dim",
		 m->hidden && m->n_layers ? "; feed-forward taken as 4 x hidden" : "; no activations without --layers and --hidden");
	return CD_OK;
}

int mem_estimate_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct est_args a;
	struct mem_model m = {0};
	struct mem_estimate e;
	struct mem_target *targets = NULL;
	struct report_rec top;
	size_t n_targets = 0;
	int rc = parse_args(argc, argv, g->args, &a, err);
	if (rc)
		return rc;
	if (a.path) {
		rc = mem_load_path(a.path, a.dtype, &m, err);
	} else {
		/* a GGUF quantisation's name means a whole llama-quantize file, its mixes included */
		struct kb_gguf_quant q;
		char qerr[CD_ERRMSG];
		int qrc = kb_gguf_quant_find(a.dtype, &q, qerr);

		if (qrc != CD_OK && qrc != CD_ENOTFOUND) {
			rc = cd_fail(err, qrc, "%s", qerr);
			goto out;
		}
		rc = mem_model_from_params(a.params, qrc == CD_OK ? q.name : a.dtype,
					   qrc == CD_OK ? q.bits_per_weight : 0, &m, err);
		if (rc == CD_OK && a.shape_given)
			rc = mem_params_shape(&m, &a.shape, err);
	}
	if (rc)
		goto out;
	if (!a.runtime_given)
		a.o.runtime = strcmp(m.format, "gguf") == 0 ? MEM_RT_LLAMACPP : MEM_RT_TORCH;
	if (!a.context_given)
		a.o.context = a.o.train ? 2048 : (m.ctx_train && m.ctx_train < 8192 ? m.ctx_train : 8192);
	mem_estimate(&m, &a.o, &e);

	report_rec_top(&top, r);
	if (m.ctx_train && a.o.context > m.ctx_train)
		past_trained_context(r, &m, &a.o);
	model_fields(&top, &m, a.path);
	breakdown_fields(&top, &m, &a.o, &e);
	if ((rc = mem_targets(g->run, a.gpu_specs, a.n_gpu_specs, a.gpu_memory, &targets, &n_targets, r, err)))
		goto out;
	if (n_targets)
		fit_fields(&top, &m, &a.o, &e, targets, n_targets);
	if ((rc = report_rec_end(&top)) != CD_OK)
		rc = cd_fail(err, rc, rc == CD_ENOMEM ? "out of memory" : "mem estimate: a field names no column");
	(void)g;
out:
	free(targets);
	mem_model_free(&m);
	return rc;
}
