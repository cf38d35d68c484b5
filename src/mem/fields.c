/* The field tables of mem's structs (util/rec_field.h): the JSON keys and text labels that
 * `cudoctor mem` reports them under, declared beside each struct. */
#include <stddef.h>

#include "mem/context_cost.h"
#include "mem/estimate.h"
#include "mem/model.h"
#include "mem/probe.h"

#define M(m) offsetof(struct mem_model, m)
const struct rec_field mem_model_fields[MEM_MODEL_FIELDS] = {
	[MEM_MODEL_FORMAT] = { "format", "source", RF_CHARS, .offset = M(format) },
	[MEM_MODEL_ARCH] = { "architecture", "architecture", RF_CHARS, .offset = M(arch) },
	[MEM_MODEL_DTYPE] = { "dtype", NULL, RF_CHARS, .offset = M(dtype) },
	[MEM_MODEL_PARAMS] = { "parameters", "parameters", RF_U64, .offset = M(params) },
	[MEM_MODEL_PARAMS_EXACT] = { "parameters_exact", NULL, RF_BOOL, .offset = M(params_exact) },
	[MEM_MODEL_WEIGHT_BYTES] = { "weight_bytes", "weights", RF_U64, .unit = RU_BYTES, .offset = M(weight_bytes) },
	[MEM_MODEL_LAYERS] = { "layers", "layers", RF_UINT, .offset = M(n_layers) },
	[MEM_MODEL_HEADS] = { "heads", "attention", RF_UINT, .offset = M(n_heads) },
	[MEM_MODEL_KV_HEADS] = { "kv_heads", NULL, RF_UINT, .offset = M(n_kv_heads) },
	[MEM_MODEL_HEAD_DIM] = { "head_dim", NULL, RF_UINT, .offset = M(head_dim_k) },
	[MEM_MODEL_HEAD_DIM_V] = { "head_dim_v", NULL, RF_UINT, .offset = M(head_dim_v) },
	[MEM_MODEL_HIDDEN] = { "hidden", NULL, RF_U64, .offset = M(hidden) },
	[MEM_MODEL_VOCAB] = { "vocab", NULL, RF_U64, .offset = M(vocab) },
	[MEM_MODEL_CONTEXT_TRAIN] = { "context_train", NULL, RF_U64, .offset = M(ctx_train) },
	[MEM_MODEL_SLIDING_WINDOW] = { "sliding_window", "sliding window", RF_UINT, .offset = M(sliding_window) },
	[MEM_MODEL_SWA_LAYERS] = { "sliding_window_layers", NULL, RF_UINT, .offset = M(n_swa_layers) },
	[MEM_MODEL_MLA] = { "mla", NULL, RF_BOOL, .offset = M(mla) },
	[MEM_MODEL_KV_LORA_RANK] = { "kv_lora_rank", NULL, RF_UINT, .offset = M(kv_lora_rank), .valid = RFV_FLAG,
				     .flag = M(mla), .absent = RFA_OMIT },
	[MEM_MODEL_ROPE_DIM] = { "rope_dim", NULL, RF_UINT, .offset = M(rope_dim), .valid = RFV_FLAG, .flag = M(mla),
				 .absent = RFA_OMIT },
	[MEM_MODEL_NOTE] = { "note", "note", RF_CHARS, .offset = M(note), .valid = RFV_NONZERO, .absent = RFA_OMIT },
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
const struct rec_field mem_opts_fields[MEM_OPTS_FIELDS] = {
	[MEM_OPTS_MODE] = { "mode", NULL, RF_TEXT, .text = opts_mode },
	[MEM_OPTS_CONTEXT] = { "context", NULL, RF_U64, .offset = O(context) },
	[MEM_OPTS_BATCH] = { "batch", NULL, RF_U64, .offset = O(batch) },
	[MEM_OPTS_RUNTIME] = { "runtime", NULL, RF_TEXT, .text = opts_runtime },
	[MEM_OPTS_OPTIMIZER] = { "optimizer", NULL, RF_NAMED, .offset = O(optimizer), .valid = RFV_FLAG,
				 .flag = O(train), .absent = RFA_OMIT, .name = opts_optimizer },
	[MEM_OPTS_MIXED] = { "mixed_precision", NULL, RF_BOOL, .offset = O(mixed_precision), .valid = RFV_FLAG,
			     .flag = O(train), .absent = RFA_OMIT },
	[MEM_OPTS_CHECKPOINTING] = { "checkpointing", NULL, RF_BOOL, .offset = O(checkpointing), .valid = RFV_FLAG,
				     .flag = O(train), .absent = RFA_OMIT },
	[MEM_OPTS_KV_DTYPE] = { "kv_dtype", NULL, RF_TEXT, .text = opts_kv_dtype, .absent = RFA_OMIT },
};
#undef O

static const char *est_phase(int p)
{
	return mem_phase_name((enum mem_phase)p);
}

/* a training phase's size: left out for inference and while the activations are unknown */
#define PH(key, label, m) { key, label, RF_U64, .unit = RU_BYTES, .offset = offsetof(struct mem_estimate, m), \
			    .valid = RFV_FLAG, .flag = offsetof(struct mem_estimate, phases_known), .absent = RFA_OMIT }
#define E(key, label, m) { key, label, RF_U64, .unit = RU_BYTES, .offset = offsetof(struct mem_estimate, m) }
const struct rec_field mem_estimate_fields[MEM_EST_FIELDS] = {
	[MEM_EST_WEIGHTS] = E("weights_bytes", "weights", weights),
	[MEM_EST_WEIGHTS_HOST] = E("weights_host_bytes", NULL, weights_host),
	[MEM_EST_MASTER_WEIGHTS] = E("master_weights_bytes", "master weights", master_weights),
	[MEM_EST_GRADIENTS] = E("gradients_bytes", "gradients", gradients),
	[MEM_EST_OPTIMIZER] = E("optimizer_bytes", "optimizer states", optimizer),
	/* an unknown part reads "unknown", never "0 bytes" */
	[MEM_EST_KV] = { "kv_cache_bytes", "KV cache", RF_U64, .unit = RU_BYTES,
			 .offset = offsetof(struct mem_estimate, kv), .valid = RFV_FLAG,
			 .flag = offsetof(struct mem_estimate, kv_known), .absent = RFA_NULL, .unknown = "unknown" },
	[MEM_EST_KV_PER_TOKEN] = E("kv_cache_per_token_bytes", NULL, kv_per_token),
	[MEM_EST_ACTIVATIONS] = { "activations_bytes", "activations", RF_U64, .unit = RU_BYTES,
				  .offset = offsetof(struct mem_estimate, activations), .valid = RFV_FLAG,
				  .flag = offsetof(struct mem_estimate, act_known), .absent = RFA_NULL,
				  .unknown = "unknown" },
	[MEM_EST_ACT_FULL] = E("activations_full_bytes", NULL, act_full),
	[MEM_EST_ACT_CHECKPOINTED] = E("activations_checkpointed_bytes", NULL, act_checkpointed),
	[MEM_EST_LOGITS] = PH("logits_bytes", "loss tensors", logits),
	[MEM_EST_WORKSPACE] = E("workspace_bytes", "workspace", workspace),
	[MEM_EST_PHASE_FORWARD] = PH("phase_forward_bytes", "end of forward", phase_forward),
	[MEM_EST_PHASE_LOSS] = PH("phase_loss_bytes", "loss", phase_loss),
	[MEM_EST_PHASE_BACKWARD] = PH("phase_backward_bytes", "backward", phase_backward),
	[MEM_EST_PHASE_OPTIMIZER] = PH("phase_optimizer_bytes", "optimizer step", phase_optimizer),
	[MEM_EST_PEAK_PHASE] = { "peak_phase", "peak phase", RF_NAMED, .offset = offsetof(struct mem_estimate, peak_phase),
				 .absent = RFA_OMIT, .name = est_phase },
	[MEM_EST_CUDA_CONTEXT] = E("cuda_context_bytes", "CUDA context", cuda_context),
	[MEM_EST_TOTAL] = E("total_bytes", "total", total),
	[MEM_EST_RULE_OF_THUMB] = E("rule_of_thumb_bytes", NULL, rule_of_thumb),
};
#undef E
#undef PH

#define F(m) offsetof(struct mem_fit, m)
const struct rec_field mem_fit_fields[MEM_FIT_FIELDS] = {
	[MEM_FIT_FITS] = { "fits", "fits", RF_BOOL, .offset = F(fits), .valid = RFV_FLAG, .flag = F(fits_known),
			   .absent = RFA_NULL, .unknown = "unknown" },
	[MEM_FIT_HEADROOM] = { "headroom_bytes", "headroom", RF_I64, .unit = RU_BYTES, .offset = F(headroom) },
	[MEM_FIT_MAX_CONTEXT] = { "max_context", "max context", RF_U64, .offset = F(max_context), .valid = RFV_FLAG,
				  .flag = F(context_matters), .unknown = "n/a" },
	[MEM_FIT_MAX_BATCH] = { "max_batch", "max batch", RF_U64, .offset = F(max_batch), .valid = RFV_FLAG,
				.flag = F(context_matters), .unknown = "n/a" },
	[MEM_FIT_LAYERS] = { "layers_fit", "layers on GPU", RF_UINT, .offset = F(layers_fit) },
	[MEM_FIT_GPUS_NEEDED] = { "gpus_needed", NULL, RF_UINT, .offset = F(gpus_needed) },
	[MEM_FIT_QUANT] = { "quant_that_fits", NULL, RF_CHARS, .offset = F(quant_fit), .valid = RFV_NONZERO,
			    .absent = RFA_OMIT },
};
#undef F

#define P(m) offsetof(struct mem_probe, m)
const struct rec_field mem_probe_fields[MEM_PROBE_FIELDS] = {
	[MEM_PROBE_FREE] = { "free_bytes", "free / total", RF_U64, .unit = RU_BYTES, .offset = P(free_before) },
	[MEM_PROBE_TOTAL] = { "total_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = P(total) },
	[MEM_PROBE_LIMIT] = { "limit_bytes", "probe limit", RF_U64, .unit = RU_BYTES, .offset = P(limit) },
	[MEM_PROBE_LARGEST] = { "largest_block_bytes", "largest block", RF_U64, .unit = RU_BYTES, .offset = P(largest) },
	[MEM_PROBE_CAPPED] = { "largest_block_capped", NULL, RF_BOOL, .offset = P(largest_capped) },
	[MEM_PROBE_SMALLEST_FAILED] = { "smallest_failed_bytes", NULL, RF_U64, .unit = RU_BYTES,
					.offset = P(smallest_failed) },
	[MEM_PROBE_IN_BLOCKS] = { "allocatable_in_blocks_bytes", "in blocks", RF_U64, .unit = RU_BYTES,
				  .offset = P(in_blocks) },
	[MEM_PROBE_BLOCKS] = { "blocks", NULL, RF_UINT, .offset = P(n_blocks) },
	[MEM_PROBE_CALLS] = { "alloc_calls", NULL, RF_UINT, .offset = P(n_calls) },
	[MEM_PROBE_ELAPSED] = { "elapsed_ms", "probe ran", RF_DOUBLE, .offset = P(held_ms) },
	[MEM_PROBE_FREE_AFTER] = { "free_after_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = P(free_after) },
};
#undef P

#define D(m) offsetof(struct mem_demo, m)
const struct rec_field mem_demo_fields[MEM_DEMO_FIELDS] = {
	[MEM_DEMO_BLOCK] = { "block_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = D(block) },
	[MEM_DEMO_FREED] = { "freed_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = D(freed) },
	[MEM_DEMO_LARGEST_HOLE] = { "largest_hole_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = D(largest_hole) },
	[MEM_DEMO_REQUEST] = { "request_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = D(request) },
	[MEM_DEMO_SEG_RESERVED_AFTER] = { "segments_reserved_after_bytes", "segments (cuMemAlloc each)", RF_U64,
					  .unit = RU_BYTES, .offset = D(seg_reserved_after) },
	[MEM_DEMO_SEG_DRIVER_USED] = { "segments_driver_used_bytes", NULL, RF_I64, .unit = RU_BYTES,
				       .offset = D(seg_driver_used_delta) },
	[MEM_DEMO_VMM] = { "vmm_supported", "one reservation (cuMemMap)", RF_BOOL, .offset = D(vmm_supported) },
	[MEM_DEMO_VMM_MAPPED_AFTER] = { "vmm_mapped_after_bytes", NULL, RF_U64, .unit = RU_BYTES,
					.offset = D(vmm_mapped_after), .valid = RFV_FLAG, .flag = D(vmm_supported),
					.absent = RFA_OMIT },
	[MEM_DEMO_VMM_DRIVER_USED] = { "vmm_driver_used_bytes", NULL, RF_I64, .unit = RU_BYTES,
				       .offset = D(vmm_driver_used_delta), .valid = RFV_FLAG, .flag = D(vmm_supported),
				       .absent = RFA_OMIT },
	[MEM_DEMO_GRANULARITY] = { "vmm_granularity_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = D(granularity),
				   .valid = RFV_FLAG, .flag = D(vmm_supported), .absent = RFA_OMIT },
};
#undef D

#define C(m) offsetof(struct mem_context_cost, m)
const struct rec_field mem_context_cost_fields[MEM_CTX_FIELDS] = {
	[MEM_CTX_CUDA_FREE] = { "cuda_free_bytes", "driver", RF_U64, .unit = RU_BYTES, .offset = C(cu_free),
				.valid = RFV_FLAG, .flag = C(cu_valid), .absent = RFA_OMIT },
	[MEM_CTX_CUDA_TOTAL] = { "cuda_total_bytes", NULL, RF_U64, .unit = RU_BYTES, .offset = C(cu_total),
				 .valid = RFV_FLAG, .flag = C(cu_valid), .absent = RFA_OMIT },
	[MEM_CTX_BYTES] = { "cuda_context_bytes", "CUDA context", RF_U64, .unit = RU_BYTES, .offset = C(bytes),
			    .valid = RFV_FLAG, .flag = C(measured) },
	[MEM_CTX_PID_NAMESPACE] = { "pid_namespace_differs", NULL, RF_BOOL, .offset = C(pid_namespace_differs) },
};
#undef C
