/* `cudoctor mem estimate`: loads a model description, estimates inference or
 * training memory, checks it against each GPU (or a named one) and renders. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mem/internal.h"
#include "mem/estimate.h"
#include "mem/load.h"
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
};

enum { O_PARAMS = 1, O_DTYPE, O_CONTEXT, O_BATCH, O_KV, O_TRAIN, O_OPT, O_MIXED, O_CKPT,
       O_GPU, O_GPUMEM, O_RUNTIME, O_CUDACTX };
enum { GROUP_BUDGET = 1 };

const struct cli_opt mem_estimate_opts[] = {
	{ .id = O_PARAMS, .long_name = "params", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "the parameter count instead of a model file (8e9, 7B, 70b)" },
	{ .id = O_DTYPE, .long_name = "dtype", .arg = CLI_REQUIRED, .metavar = "T",
	  .help = "the weights' type with --params (default bf16), or a GGUF quantisation",
	  .complete = CLI_C_WORDS, .words = "fp32 fp16 bf16 fp8 int8 int4 q8_0 q6_k q5_k_m q4_k_m q4_0" },
	{ .id = O_CONTEXT, .long_name = "context", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "tokens of context (default 8192, or the model's if smaller; 2048 for training)" },
	{ .id = O_BATCH, .long_name = "batch", .arg = CLI_REQUIRED, .metavar = "N",
	  .help = "sequences at once (default 1)" },
	{ .id = O_KV, .long_name = "kv-dtype", .arg = CLI_REQUIRED, .metavar = "T",
	  .help = "the KV cache's type (default: the runtime's)",
	  .complete = CLI_C_WORDS, .words = "f32 f16 bf16 fp8 q8_0 q4_0" },
	{ .id = O_TRAIN, .long_name = "train", .help = "training instead of inference" },
	{ .id = O_OPT, .long_name = "optimizer", .arg = CLI_REQUIRED, .metavar = "NAME",
	  .help = "with --train: adam, adamw (the default), sgd or adafactor",
	  .complete = CLI_C_WORDS, .words = "adam adamw sgd adafactor" },
	{ .id = O_MIXED, .long_name = "mixed-precision", .help = "with --train: fp32 master weights beside bf16" },
	{ .id = O_CKPT, .long_name = "checkpointing", .help = "with --train: activation checkpointing" },
	{ .id = O_GPU, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",
	  .help = "check against this GPU's memory (\"RTX 4090\", H200, A100); repeatable. "
		  "Default: every GPU here, by its free memory now",
	  .complete = CLI_C_GPU, .flags = CLI_REPEAT, .group = GROUP_BUDGET },
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
			if (units_parse_count(optarg, &a->o.context) || !a->o.context)
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
	if (a->params && !a->dtype)
		a->dtype = "bf16";
	return CD_OK;
}

static json_t *model_json(const struct mem_model *m, const char *path)
{
	json_t *j = json_object();
	json_object_set_new(j, "format", json_string(m->format));
	if (path)
		json_object_set_new(j, "path", json_string(path));
	json_object_set_new(j, "architecture", json_string(m->arch));
	json_object_set_new(j, "dtype", json_string(m->dtype));
	json_object_set_new(j, "parameters", json_integer((json_int_t)m->params));
	json_object_set_new(j, "parameters_exact", json_boolean(m->params_exact));
	json_object_set_new(j, "weight_bytes", json_integer((json_int_t)m->weight_bytes));
	json_object_set_new(j, "layers", json_integer(m->n_layers));
	json_object_set_new(j, "heads", json_integer(m->n_heads));
	json_object_set_new(j, "kv_heads", json_integer(m->n_kv_heads));
	json_object_set_new(j, "head_dim", json_integer(m->head_dim_k));
	json_object_set_new(j, "head_dim_v", json_integer(m->head_dim_v));
	json_object_set_new(j, "hidden", json_integer((json_int_t)m->hidden));
	json_object_set_new(j, "vocab", json_integer((json_int_t)m->vocab));
	json_object_set_new(j, "context_train", json_integer((json_int_t)m->ctx_train));
	json_object_set_new(j, "sliding_window", json_integer(m->sliding_window));
	json_object_set_new(j, "sliding_window_layers", json_integer(m->n_swa_layers));
	json_object_set_new(j, "mla", json_boolean(m->mla));
	if (m->mla) {
		json_object_set_new(j, "kv_lora_rank", json_integer(m->kv_lora_rank));
		json_object_set_new(j, "rope_dim", json_integer(m->rope_dim));
	}
	if (m->note[0])
		json_object_set_new(j, "note", json_string(m->note));
	return j;
}

static json_t *breakdown_json(const struct mem_estimate *e, bool train)
{
	json_t *j = json_object();
#define PUT(k, v) json_object_set_new(j, k, json_integer((json_int_t)(v)))
	PUT("weights_bytes", e->weights);
	PUT("weights_host_bytes", e->weights_host);
	PUT("cuda_context_bytes", e->cuda_context);
	PUT("activations_bytes", e->activations);
	PUT("workspace_bytes", e->workspace);
	if (train) {
		PUT("master_weights_bytes", e->master_weights);
		PUT("gradients_bytes", e->gradients);
		PUT("optimizer_bytes", e->optimizer);
		PUT("activations_full_bytes", e->act_full);
		PUT("activations_checkpointed_bytes", e->act_checkpointed);
		PUT("rule_of_thumb_bytes", e->rule_of_thumb);
	} else {
		PUT("kv_cache_bytes", e->kv);
		PUT("kv_cache_per_token_bytes", e->kv_per_token);
	}
	PUT("total_bytes", e->total);
#undef PUT
	return j;
}

static void show_model(struct report *r, const struct mem_model *m, const char *path)
{
	char a[48], b[48];
	report_section(r, "Model");
	if (path)
		report_kv(r, "source", "%s (%s)", path, m->format);
	else
		report_kv(r, "source", "--params (%s)", m->dtype);
	report_kv(r, "architecture", "%s", m->arch);
	report_kv(r, "parameters", "%s (%.2f %s%s)", units_fmt_count(m->params, a, sizeof a),
		  m->params >= 1000000000ull ? m->params / 1e9 : m->params / 1e6,
		  m->params >= 1000000000ull ? "B" : "M",
		  m->params_exact ? (m->format[0] == 'p' ? ", given" : ", exact from tensor shapes")
				  : ", by formula");
	if (m->params)
		report_kv(r, "weights", "%s, mostly %s, %.3f bits per parameter%s",
			  units_fmt_bytes(m->weight_bytes, b, sizeof b), m->dtype,
			  8.0 * (double)m->weight_bytes / (double)m->params,
			  m->bytes_exact ? " (exact: sum of tensor sizes)" : "");
	if (m->n_layers)
		report_kv(r, "layers", "%u (hidden %" PRIu64 ", vocab %" PRIu64 ", trained context %" PRIu64 ")",
			  m->n_layers, m->hidden, m->vocab, m->ctx_train);
	if (m->attn_known && m->mla)
		report_kv(r, "attention", "MLA: %u heads; cache holds the latent (%u) + rope key (%u) per token and layer",
			  m->n_heads, m->kv_lora_rank, m->rope_dim);
	else if (m->attn_known)
		report_kv(r, "attention", "%u heads, %u KV heads%s, head dim %u%s", m->n_heads, m->n_kv_heads,
			  m->n_kv_heads && m->n_kv_heads < m->n_heads ? " (grouped-query)" : "",
			  m->head_dim_k, m->head_dim_k != m->head_dim_v ? " (K) / other for V" : "");
	if (m->sliding_window)
		report_kv(r, "sliding window", "%u tokens on %u of %u layers", m->sliding_window, m->n_swa_layers,
			  m->n_layers);
	if (m->note[0])
		report_kv(r, "note", "%s", m->note);
}

static void row(struct report *r, const char *part, uint64_t bytes, const char *how)
{
	char b[48];
	const char *cells[] = {part, units_fmt_bytes(bytes, b, sizeof b), how};
	report_table_row(r, cells);
}

static void show_breakdown(struct report *r, const struct mem_model *m, const struct mem_opts *o,
			   const struct mem_estimate *e)
{
	static const char *const hdr[] = {"part", "size", "how it is counted"};
	char how[512], s1[48], s2[48];
	bool llama = o->runtime == MEM_RT_LLAMACPP;
	if (o->train)
		report_section(r, "Training: context %" PRIu64 " x batch %" PRIu64 ", %s%s, %s", o->context, o->batch,
			       mem_optimizer_name(o->optimizer), o->mixed_precision ? ", mixed precision" : "",
			       o->checkpointing ? "activation checkpointing" : "no checkpointing");
	else
		report_section(r, "Inference: context %" PRIu64 " x batch %" PRIu64 ", KV %s, runtime %s", o->context,
			       o->batch, o->kv.name, llama ? "llama.cpp" : "PyTorch");
	report_table(r, 3, hdr);
	if (o->train) {
		row(r, "weights", e->weights, o->mixed_precision ? "16-bit copy used in forward/backward" : "as stored");
		if (o->mixed_precision)
			row(r, "master weights", e->master_weights, "fp32 copy the optimizer updates (4 B/param)");
		row(r, "gradients", e->gradients, o->mixed_precision ? "16-bit (2 B/param)" : "same dtype as the weights");
		snprintf(how, sizeof how, "%s",
			 o->optimizer == MEM_OPT_SGD ? "momentum: 1 state per parameter"
			 : o->optimizer == MEM_OPT_ADAFACTOR ? "factored 2nd moment: rows + cols per matrix, fp32"
							      : "m and v: 2 states per parameter");
		row(r, "optimizer states", e->optimizer, how);
		if (e->act_known) {
			snprintf(how, sizeof how, "%s; the other variant: %s",
				 o->checkpointing ? "with checkpointing: block inputs + one block recomputed"
						  : "no checkpointing: 34 s b h L bytes (Korthikanti, flash attention) + logits",
				 units_fmt_bytes(o->checkpointing ? e->act_full : e->act_checkpointed, s1, sizeof s1));
			row(r, "activations", e->activations, how);
		} else {
			row(r, "activations", 0, "unknown without the architecture (give config.json or a model file)");
		}
		row(r, "workspace", e->workspace, "cuBLAS workspace (PyTorch default on sm90)");
	} else {
		if (llama && e->weights_host)
			snprintf(how, sizeof how, "exact; token_embd (%s) stays on the CPU",
				 units_fmt_bytes(e->weights_host, s1, sizeof s1));
		else
			snprintf(how, sizeof how, "%s", m->bytes_exact ? "exact: every tensor" : "parameters x dtype size");
		if (o->weight_scale != 1.0)
			snprintf(how, sizeof how, "scaled to %.3f bits per parameter", 8.0 * (double)m->weight_bytes / (double)m->params * o->weight_scale);
		row(r, "weights", e->weights, how);
		if (e->kv_known)
			snprintf(how, sizeof how, "formula: %s per token over all layers%s",
				 units_fmt_bytes(e->kv_per_token, s2, sizeof s2),
				 m->sliding_window ? ", windowed layers capped at the window" : "");
		else
			snprintf(how, sizeof how, "unknown: no attention shape (%.300s)", m->note[0] ? m->note : "no metadata");
		row(r, "KV cache", e->kv, how);
		if (e->act_known)
			row(r, "activations", e->activations,
			    llama ? "allowance: compute buffer of one 512-token ubatch (f32, flash attention) + logits"
				  : "allowance: one block's tensors for the whole prompt (16-bit) + last-token logits");
		else
			row(r, "activations", 0, "unknown without the architecture");
		if (e->workspace)
			row(r, "workspace", e->workspace, "cuBLAS workspace (PyTorch default on sm90)");
	}
	snprintf(how, sizeof how, "allowance per GPU and process (--cuda-context; `cudoctor mem status` measures it)");
	row(r, "CUDA context", e->cuda_context, how);
	row(r, "total", e->total, "");
	if (o->train)
		report_line(r, "The common rule of thumb, parameters x 4 bytes x (2 + 2) = %s, is the fp32 Adam special case: "
			       "weights + gradients + m + v at 16 B/param. It leaves out activations, the CUDA context "
			       "and workspaces; mixed-precision Adam also lands at 16 B/param (2 + 2 + 4 master + 8), "
			       "SGD and Adafactor need less.",
			    units_fmt_bytes(e->rule_of_thumb, s1, sizeof s1));
}

static void oom_finding(struct report *r, const struct mem_model *m, const struct mem_opts *o,
			const struct mem_estimate *e, const struct mem_target *t, const struct mem_fit *f)
{
	char s1[48], s2[48], s3[48];
	struct finding *fd = report_add_finding(r, SEV_ERROR, "oom-capacity", t->name,
						"needs %s, %s has %s", units_fmt_bytes(e->total, s1, sizeof s1),
						t->name, units_fmt_bytes(t->budget, s2, sizeof s2));
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
	cmd_note(r, finding_why(fd, "Device memory is one fixed pool per GPU: weights, KV cache, activations and the CUDA "
			"context must all be resident at once, so no allocator setting can make this fit."));
	if (f->context_matters && f->max_context && f->max_context < o->context)
		cmd_note(r, finding_fix(fd, "use a shorter context: --context %" PRIu64 " fits (llama.cpp -c %" PRIu64
				", vLLM --max-model-len %" PRIu64 ")", f->max_context, f->max_context, f->max_context));
	if (!o->train && f->quant_fit[0]) {
		/* llama-quantize's names: the K-quants of 3-5 bits come as _M mixes */
		const char *mix = strcmp(f->quant_fit, "Q5_K") == 0 || strcmp(f->quant_fit, "Q4_K") == 0 ||
					  strcmp(f->quant_fit, "Q3_K") == 0 ? "_M" : "";
		cmd_note(r, finding_fix(fd, "quantise the weights to %s: llama-quantize model-f16.gguf model-%s%s.gguf %s%s",
			    f->quant_fit, f->quant_fit, mix, f->quant_fit, mix));
	}
	if (!o->train && f->layers_fit < m->n_layers)
		cmd_note(r, finding_fix(fd, "offload part: %u of %u layers fit on this GPU (llama.cpp -ngl %u; the rest runs on the CPU)",
			    f->layers_fit, m->n_layers, f->layers_fit));
	if (f->gpus_needed > 1)
		cmd_note(r, finding_fix(fd, "split across %u such GPUs (llama.cpp --split-mode layer; tensor or pipeline parallelism in vLLM%s)",
			    f->gpus_needed, o->train ? "; FSDP or ZeRO-3 for training" : ""));
	if (o->train && !o->checkpointing && e->act_known)
		cmd_note(r, finding_fix(fd, "turn on activation checkpointing (model.gradient_checkpointing_enable()): activations %s -> %s",
			    units_fmt_bytes(e->act_full, s1, sizeof s1), units_fmt_bytes(e->act_checkpointed, s2, sizeof s2)));
	if (o->train && o->optimizer != MEM_OPT_ADAFACTOR)
		cmd_note(r, finding_fix(fd, "a lighter optimizer: --optimizer adafactor or 8-bit Adam (bitsandbytes), or LoRA"));
}

static void show_fit(struct report *r, const struct mem_model *m, const struct mem_opts *o,
		     const struct mem_estimate *e, struct mem_target *targets, size_t n)
{
	static const char *const hdr[] = {"GPU", "memory", "fits", "headroom", "max context", "max batch", "layers on GPU"};
	json_t *per = json_array();
	report_section(r, "Fit");
	report_table(r, 7, hdr);
	for (size_t i = 0; i < n; i++) {
		struct mem_fit f;
		char mem[64], hr[48], ctx[32], bat[32], lay[32], s[48];
		mem_fit_search(m, o, targets[i].budget, &f);
		snprintf(mem, sizeof mem, "%s %s", units_fmt_bytes(targets[i].budget, s, sizeof s), targets[i].basis);
		if (f.headroom >= 0)
			units_fmt_bytes((uint64_t)f.headroom, hr, sizeof hr);
		else
			snprintf(hr, sizeof hr, "-%s", units_fmt_bytes((uint64_t)-f.headroom, s, sizeof s));
		snprintf(ctx, sizeof ctx, f.context_matters ? "%" PRIu64 : "n/a", f.max_context);
		snprintf(bat, sizeof bat, f.context_matters ? "%" PRIu64 : "n/a", f.max_batch);
		snprintf(lay, sizeof lay, o->train || !m->n_layers ? "n/a" : "%u of %u", f.layers_fit, m->n_layers);
		const char *cells[] = {targets[i].name, mem, f.fits ? "yes" : "NO", hr, ctx, bat, lay};
		report_table_row(r, cells);
		/* -q: one line per GPU, the answer a script wants */
		cmd_note(r, report_answer(r, "%s: %s (needs %s of %s, headroom %s)", targets[i].name,
					  f.fits ? "fits" : "does not fit", units_fmt_bytes(e->total, s, sizeof s), mem, hr));
		if (!f.fits)
			oom_finding(r, m, o, e, &targets[i], &f);
		json_t *j = json_object();
		json_object_set_new(j, "gpu", json_string(targets[i].name));
		json_object_set_new(j, "memory_bytes", json_integer((json_int_t)targets[i].budget));
		json_object_set_new(j, "memory_basis", json_string(targets[i].basis));
		json_object_set_new(j, "fits", json_boolean(f.fits));
		json_object_set_new(j, "headroom_bytes", json_integer(f.headroom));
		json_object_set_new(j, "max_context", f.context_matters ? json_integer((json_int_t)f.max_context) : json_null());
		json_object_set_new(j, "max_batch", f.context_matters ? json_integer((json_int_t)f.max_batch) : json_null());
		if (!o->train)
			json_object_set_new(j, "layers_fit", json_integer(f.layers_fit));
		json_object_set_new(j, "gpus_needed", json_integer(f.gpus_needed));
		if (f.quant_fit[0])
			json_object_set_new(j, "quant_that_fits", json_string(f.quant_fit));
		json_array_append_new(per, j);
	}
	report_json_set(r, "per_gpu", per);
}

int mem_estimate_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	struct est_args a;
	struct mem_model m = {0};
	struct mem_estimate e;
	struct mem_target *targets = NULL;
	size_t n_targets = 0;
	int rc = parse_args(argc, argv, g->args, &a, err);
	if (rc)
		return rc;
	rc = a.path ? mem_load_path(a.path, a.dtype, &m, err) : mem_model_from_params(a.params, a.dtype, &m, err);
	if (rc)
		goto out;
	if (!a.runtime_given)
		a.o.runtime = strcmp(m.format, "gguf") == 0 ? MEM_RT_LLAMACPP : MEM_RT_TORCH;
	if (!a.context_given)
		a.o.context = a.o.train ? 2048 : (m.ctx_train && m.ctx_train < 8192 ? m.ctx_train : 8192);
	mem_estimate(&m, &a.o, &e);

	show_model(r, &m, a.path);
	show_breakdown(r, &m, &a.o, &e);
	if ((rc = mem_targets(a.gpu_specs, a.n_gpu_specs, a.gpu_memory, &targets, &n_targets, r, err)))
		goto out;
	if (n_targets)
		show_fit(r, &m, &a.o, &e, targets, n_targets);

	report_json_set(r, "model", model_json(&m, a.path));
	json_t *in = json_object();
	json_object_set_new(in, "mode", json_string(a.o.train ? "training" : "inference"));
	json_object_set_new(in, "context", json_integer((json_int_t)a.o.context));
	json_object_set_new(in, "batch", json_integer((json_int_t)a.o.batch));
	json_object_set_new(in, "runtime", json_string(a.o.runtime == MEM_RT_LLAMACPP ? "llama.cpp" : "torch"));
	if (a.o.train) {
		json_object_set_new(in, "optimizer", json_string(mem_optimizer_name(a.o.optimizer)));
		json_object_set_new(in, "mixed_precision", json_boolean(a.o.mixed_precision));
		json_object_set_new(in, "checkpointing", json_boolean(a.o.checkpointing));
	} else {
		json_object_set_new(in, "kv_dtype", json_string(a.o.kv.name));
	}
	report_json_set(r, "inputs", in);
	report_json_set(r, "breakdown", breakdown_json(&e, a.o.train));
	(void)g;
out:
	free(targets);
	mem_model_free(&m);
	return rc;
}
