/* The field tables of mem's structs (util/field.h): the JSON keys and text labels that
 * `cudoctor mem` reports them under, declared beside each struct. */
#include <stddef.h>

#include "mem/context_cost.h"
#include "mem/estimate.h"
#include "mem/model.h"
#include "mem/probe.h"

#define M(m) offsetof(struct mem_model, m)
static const struct field mem_model_fields[MEM_MODEL_FIELDS] = {
	[MEM_MODEL_FORMAT] = { "format", "source", FK_CHARS, .off = M(format), .views = FIELD_ALL,
			.flags = FIELD_EMPTY_KNOWN },
	[MEM_MODEL_ARCH] = { "architecture", "architecture", FK_CHARS, .off = M(arch), .views = FIELD_ALL,
			.flags = FIELD_EMPTY_KNOWN },
	[MEM_MODEL_DTYPE] = { "dtype", NULL, FK_CHARS, .off = M(dtype), .flags = FIELD_EMPTY_KNOWN },
	[MEM_MODEL_PARAMS] = { "parameters", "parameters", FK_ULLONG, .off = M(params), .views = FIELD_ALL },
	[MEM_MODEL_PARAMS_EXACT] = { "parameters_exact", NULL, FK_BOOL, .off = M(params_exact) },
	[MEM_MODEL_WEIGHT_BYTES] = { "weight_bytes", "weights", FK_ULLONG, .unit = FU_BYTES, .off = M(weight_bytes),
			.views = FIELD_ALL },
	[MEM_MODEL_LAYERS] = { "layers", "layers", FK_UINT, .off = M(n_layers), .views = FIELD_ALL },
	[MEM_MODEL_HEADS] = { "heads", "attention", FK_UINT, .off = M(n_heads), .views = FIELD_ALL },
	[MEM_MODEL_KV_HEADS] = { "kv_heads", NULL, FK_UINT, .off = M(n_kv_heads) },
	[MEM_MODEL_HEAD_DIM] = { "head_dim", NULL, FK_UINT, .off = M(head_dim_k) },
	[MEM_MODEL_HEAD_DIM_V] = { "head_dim_v", NULL, FK_UINT, .off = M(head_dim_v) },
	[MEM_MODEL_HIDDEN] = { "hidden", NULL, FK_ULLONG, .off = M(hidden) },
	[MEM_MODEL_VOCAB] = { "vocab", NULL, FK_ULLONG, .off = M(vocab) },
	[MEM_MODEL_CONTEXT_TRAIN] = { "context_train", NULL, FK_ULLONG, .off = M(ctx_train) },
	[MEM_MODEL_SLIDING_WINDOW] = { "sliding_window", "sliding window", FK_UINT, .off = M(sliding_window),
			.views = FIELD_ALL },
	[MEM_MODEL_SWA_LAYERS] = { "sliding_window_layers", NULL, FK_UINT, .off = M(n_swa_layers) },
	[MEM_MODEL_MLA] = { "mla", NULL, FK_BOOL, .off = M(mla) },
	[MEM_MODEL_KV_LORA_RANK] = { "kv_lora_rank", NULL, FK_UINT, .off = M(kv_lora_rank), .flag = M(mla),
			.flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_MODEL_ROPE_DIM] = { "rope_dim", NULL, FK_UINT, .off = M(rope_dim), .flag = M(mla),
			.flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_MODEL_NOTE] = { "note", "note", FK_CHARS, .off = M(note), .views = FIELD_ALL,
			.flags = FIELD_ZERO_UNKNOWN | FIELD_OMIT },
};
const struct field_table mem_model_field_table = {
	.name = "model", .fields = mem_model_fields, .n = MEM_MODEL_FIELDS, .valid_off = -1,
};
#undef M

static const char *opts_mode(const void *obj, char *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return ((const struct mem_opts *)obj)->train ? "training" : "inference";
}

static const char *opts_runtime(const void *obj, char *buf, size_t cap)
{
	(void)buf;
	(void)cap;
	return ((const struct mem_opts *)obj)->runtime == MEM_RT_LLAMACPP ? "llama.cpp" : "torch";
}

static const char *opts_optimizer(int o)
{
	return mem_optimizer_name((enum mem_optimizer)o);
}

/* inference only: training has no KV cache */
static const char *opts_kv_dtype(const void *obj, char *buf, size_t cap)
{
	const struct mem_opts *o = obj;

	(void)buf;
	(void)cap;
	return o->train ? NULL : o->kv.name;
}

#define O(m) offsetof(struct mem_opts, m)
static const struct field mem_opts_fields[MEM_OPTS_FIELDS] = {
	[MEM_OPTS_MODE] = { "mode", NULL, FK_TEXT, .string = opts_mode },
	[MEM_OPTS_CONTEXT] = { "context", NULL, FK_ULLONG, .off = O(context) },
	[MEM_OPTS_BATCH] = { "batch", NULL, FK_ULLONG, .off = O(batch) },
	[MEM_OPTS_RUNTIME] = { "runtime", NULL, FK_TEXT, .string = opts_runtime },
	[MEM_OPTS_OPTIMIZER] = { "optimizer", NULL, FK_NAMED, .off = O(optimizer), .flag = O(train),
			.flags = FIELD_IF_FLAG | FIELD_OMIT, .name = opts_optimizer },
	[MEM_OPTS_MIXED] = { "mixed_precision", NULL, FK_BOOL, .off = O(mixed_precision), .flag = O(train),
			.flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_OPTS_CHECKPOINTING] = { "checkpointing", NULL, FK_BOOL, .off = O(checkpointing), .flag = O(train),
			.flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_OPTS_KV_DTYPE] = { "kv_dtype", NULL, FK_TEXT, .flags = FIELD_OMIT, .string = opts_kv_dtype },
};
const struct field_table mem_opts_field_table = {
	.name = "inputs", .fields = mem_opts_fields, .n = MEM_OPTS_FIELDS, .valid_off = -1,
};
#undef O

static const char *est_phase(int p)
{
	return mem_phase_name((enum mem_phase)p);
}

/* a training phase's size: left out for inference and while the activations are unknown */
#define PH(key, label, m)                                                                               \
	{ key, label, FK_ULLONG, .unit = FU_BYTES, .off = offsetof(struct mem_estimate, m),             \
	  .flag = offsetof(struct mem_estimate, phases_known), .views = FIELD_ALL,                       \
	  .flags = FIELD_IF_FLAG | FIELD_OMIT }
#define E(key, label, m)                                                                                \
	{ key, label, FK_ULLONG, .unit = FU_BYTES, .off = offsetof(struct mem_estimate, m), .views = FIELD_ALL }
static const struct field mem_estimate_fields[MEM_EST_FIELDS] = {
	[MEM_EST_WEIGHTS] = E("weights_bytes", "weights", weights),
	[MEM_EST_WEIGHTS_HOST] = E("weights_host_bytes", NULL, weights_host),
	[MEM_EST_MASTER_WEIGHTS] = E("master_weights_bytes", "master weights", master_weights),
	[MEM_EST_GRADIENTS] = E("gradients_bytes", "gradients", gradients),
	[MEM_EST_OPTIMIZER] = E("optimizer_bytes", "optimizer states", optimizer),
	/* an unknown part reads "unknown", never "0 bytes" */
	[MEM_EST_KV] = { "kv_cache_bytes", "KV cache", FK_ULLONG, .unit = FU_BYTES,
			 .off = offsetof(struct mem_estimate, kv), .flag = offsetof(struct mem_estimate, kv_known),
			 .views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "unknown" },
	[MEM_EST_KV_PER_TOKEN] = E("kv_cache_per_token_bytes", NULL, kv_per_token),
	[MEM_EST_ACTIVATIONS] = { "activations_bytes", "activations", FK_ULLONG, .unit = FU_BYTES,
				  .off = offsetof(struct mem_estimate, activations),
				  .flag = offsetof(struct mem_estimate, act_known), .views = FIELD_ALL,
				  .flags = FIELD_IF_FLAG, .unknown = "unknown" },
	[MEM_EST_ACT_FULL] = E("activations_full_bytes", NULL, act_full),
	[MEM_EST_ACT_CHECKPOINTED] = E("activations_checkpointed_bytes", NULL, act_checkpointed),
	[MEM_EST_LOGITS] = PH("logits_bytes", "loss tensors", logits),
	[MEM_EST_WORKSPACE] = E("workspace_bytes", "workspace", workspace),
	[MEM_EST_PHASE_FORWARD] = PH("phase_forward_bytes", "end of forward", phase_forward),
	[MEM_EST_PHASE_LOSS] = PH("phase_loss_bytes", "loss", phase_loss),
	[MEM_EST_PHASE_BACKWARD] = PH("phase_backward_bytes", "backward", phase_backward),
	[MEM_EST_PHASE_OPTIMIZER] = PH("phase_optimizer_bytes", "optimizer step", phase_optimizer),
	[MEM_EST_PEAK_PHASE] = { "peak_phase", "peak phase", FK_NAMED, .off = offsetof(struct mem_estimate, peak_phase),
				 .views = FIELD_ALL, .flags = FIELD_OMIT, .name = est_phase },
	[MEM_EST_CUDA_CONTEXT] = E("cuda_context_bytes", "CUDA context", cuda_context),
	[MEM_EST_TOTAL] = E("total_bytes", "total", total),
	[MEM_EST_RULE_OF_THUMB] = E("rule_of_thumb_bytes", NULL, rule_of_thumb),
};
const struct field_table mem_estimate_field_table = {
	.name = "estimate", .fields = mem_estimate_fields, .n = MEM_EST_FIELDS, .valid_off = -1,
};
#undef E
#undef PH

#define F(m) offsetof(struct mem_fit, m)
static const struct field mem_fit_fields[MEM_FIT_FIELDS] = {
	[MEM_FIT_FITS] = { "fits", "fits", FK_BOOL, .off = F(fits), .flag = F(fits_known), .views = FIELD_ALL,
			.flags = FIELD_IF_FLAG, .unknown = "unknown" },
	[MEM_FIT_HEADROOM] = { "headroom_bytes", "headroom", FK_LLONG, .unit = FU_BYTES, .off = F(headroom),
			.views = FIELD_ALL },
	[MEM_FIT_MAX_CONTEXT] = { "max_context", "max context", FK_ULLONG, .off = F(max_context),
			.flag = F(context_matters), .views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "n/a" },
	[MEM_FIT_MAX_BATCH] = { "max_batch", "max batch", FK_ULLONG, .off = F(max_batch), .flag = F(context_matters),
			.views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "n/a" },
	[MEM_FIT_LAYERS] = { "layers_fit", "layers on GPU", FK_UINT, .off = F(layers_fit), .views = FIELD_ALL },
	[MEM_FIT_GPUS_NEEDED] = { "gpus_needed", NULL, FK_UINT, .off = F(gpus_needed) },
	[MEM_FIT_QUANT] = { "quant_that_fits", NULL, FK_CHARS, .off = F(quant_fit),
			.flags = FIELD_ZERO_UNKNOWN | FIELD_OMIT },
};
const struct field_table mem_fit_field_table = {
	.name = "gpus[]", .fields = mem_fit_fields, .n = MEM_FIT_FIELDS, .valid_off = -1,
};
#undef F

#define P(m) offsetof(struct mem_probe, m)
static const struct field mem_probe_fields[MEM_PROBE_FIELDS] = {
	[MEM_PROBE_FREE] = { "free_bytes", "free / total", FK_ULLONG, .unit = FU_BYTES, .off = P(free_before),
			.views = FIELD_ALL },
	[MEM_PROBE_TOTAL] = { "total_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = P(total) },
	[MEM_PROBE_LIMIT] = { "limit_bytes", "probe limit", FK_ULLONG, .unit = FU_BYTES, .off = P(limit),
			.views = FIELD_ALL },
	[MEM_PROBE_LARGEST] = { "largest_block_bytes", "largest block", FK_ULLONG, .unit = FU_BYTES,
			.off = P(largest), .views = FIELD_ALL },
	[MEM_PROBE_CAPPED] = { "largest_block_capped", NULL, FK_BOOL, .off = P(largest_capped) },
	[MEM_PROBE_SMALLEST_FAILED] = { "smallest_failed_bytes", NULL, FK_ULLONG, .unit = FU_BYTES,
			.off = P(smallest_failed) },
	[MEM_PROBE_IN_BLOCKS] = { "allocatable_in_blocks_bytes", "in blocks", FK_ULLONG, .unit = FU_BYTES,
			.off = P(in_blocks), .views = FIELD_ALL },
	[MEM_PROBE_BLOCKS] = { "blocks", NULL, FK_UINT, .off = P(n_blocks) },
	[MEM_PROBE_CALLS] = { "alloc_calls", NULL, FK_UINT, .off = P(n_calls) },
	[MEM_PROBE_ELAPSED] = { "elapsed_ms", "probe ran", FK_DOUBLE, .off = P(held_ms), .views = FIELD_ALL },
	[MEM_PROBE_FREE_AFTER] = { "free_after_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = P(free_after) },
};
const struct field_table mem_probe_field_table = {
	.name = "gpus[]", .fields = mem_probe_fields, .n = MEM_PROBE_FIELDS, .valid_off = -1,
};
#undef P

#define D(m) offsetof(struct mem_demo, m)
static const struct field mem_demo_fields[MEM_DEMO_FIELDS] = {
	[MEM_DEMO_BLOCK] = { "block_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = D(block) },
	[MEM_DEMO_FREED] = { "freed_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = D(freed) },
	[MEM_DEMO_LARGEST_HOLE] = { "largest_hole_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = D(largest_hole) },
	[MEM_DEMO_REQUEST] = { "request_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = D(request) },
	[MEM_DEMO_SEG_RESERVED_AFTER] = { "segments_reserved_after_bytes", "segments (cuMemAlloc each)", FK_ULLONG,
			.unit = FU_BYTES, .off = D(seg_reserved_after), .views = FIELD_ALL },
	[MEM_DEMO_SEG_DRIVER_USED] = { "segments_driver_used_bytes", NULL, FK_LLONG, .unit = FU_BYTES,
			.off = D(seg_driver_used_delta) },
	[MEM_DEMO_VMM] = { "vmm_supported", "one reservation (cuMemMap)", FK_BOOL, .off = D(vmm_supported),
			.views = FIELD_ALL },
	[MEM_DEMO_VMM_MAPPED_AFTER] = { "vmm_mapped_after_bytes", NULL, FK_ULLONG, .unit = FU_BYTES,
			.off = D(vmm_mapped_after), .flag = D(vmm_supported), .flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_DEMO_VMM_DRIVER_USED] = { "vmm_driver_used_bytes", NULL, FK_LLONG, .unit = FU_BYTES,
			.off = D(vmm_driver_used_delta), .flag = D(vmm_supported),
			.flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_DEMO_GRANULARITY] = { "vmm_granularity_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = D(granularity),
			.flag = D(vmm_supported), .flags = FIELD_IF_FLAG | FIELD_OMIT },
};
const struct field_table mem_demo_field_table = {
	.name = "demo", .fields = mem_demo_fields, .n = MEM_DEMO_FIELDS, .valid_off = -1,
};
#undef D

#define C(m) offsetof(struct mem_context_cost, m)
static const struct field mem_context_cost_fields[MEM_CTX_FIELDS] = {
	[MEM_CTX_CUDA_FREE] = { "cuda_free_bytes", "driver", FK_ULLONG, .unit = FU_BYTES, .off = C(cu_free),
			.flag = C(cu_valid), .views = FIELD_ALL, .flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_CTX_CUDA_TOTAL] = { "cuda_total_bytes", NULL, FK_ULLONG, .unit = FU_BYTES, .off = C(cu_total),
			.flag = C(cu_valid), .flags = FIELD_IF_FLAG | FIELD_OMIT },
	[MEM_CTX_BYTES] = { "cuda_context_bytes", "CUDA context", FK_ULLONG, .unit = FU_BYTES, .off = C(bytes),
			.flag = C(measured), .views = FIELD_ALL, .flags = FIELD_IF_FLAG, .unknown = "?" },
	[MEM_CTX_PID_NAMESPACE] = { "pid_namespace_differs", NULL, FK_BOOL, .off = C(pid_namespace_differs) },
};
const struct field_table mem_context_cost_field_table = {
	.name = "gpus[].context", .fields = mem_context_cost_fields, .n = MEM_CTX_FIELDS, .valid_off = -1,
};
#undef C
