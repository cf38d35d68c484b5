/* The memory estimate: exact parts (weights, KV cache by formula) kept apart from
 * stated allowances (CUDA context, activations, workspaces), for inference or
 * training, and the search for what fits in a budget. Pure arithmetic, no I/O. */
#ifndef CUDOCTOR_MEM_ESTIMATE_H
#define CUDOCTOR_MEM_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/model.h"
#include "util/field.h"

enum mem_optimizer { MEM_OPT_ADAMW, MEM_OPT_ADAM, MEM_OPT_SGD, MEM_OPT_ADAFACTOR };
/* The phases of a training step, in order; the step's peak is in one of them. */
enum mem_phase { MEM_PHASE_NONE, MEM_PHASE_FORWARD, MEM_PHASE_LOSS, MEM_PHASE_BACKWARD, MEM_PHASE_OPTIMIZER };
/* Who runs the model decides which tensors land on the GPU and how activations grow:
 * llama.cpp keeps token_embd on the CPU and works in n_ubatch steps; PyTorch puts
 * every tensor on the GPU and runs the prompt in one forward. */
enum mem_runtime { MEM_RT_TORCH, MEM_RT_LLAMACPP };

#define MEM_DEFAULT_CUDA_CONTEXT (512ull << 20) /* see docs/mem.md: 287-723 MB published */
#define MEM_TORCH_WORKSPACE (32ull << 20)       /* cuBLAS workspace, PyTorch default on sm90 */
#define MEM_LLAMACPP_UBATCH 512

struct mem_kv_type {
	char name[16];   /* "f16", "q8_0", "fp8" */
	uint32_t block;  /* elements per block */
	uint32_t bytes;  /* bytes per block */
};

struct mem_opts {
	uint64_t context;        /* tokens per sequence */
	uint64_t batch;          /* sequences */
	struct mem_kv_type kv;
	enum mem_runtime runtime;
	bool train;
	enum mem_optimizer optimizer;
	bool mixed_precision;
	bool checkpointing;      /* training total uses activations with checkpointing */
	uint64_t cuda_context;   /* bytes per GPU */
	double weight_scale;     /* 1.0; < 1 to ask "what if quantised to fewer bits" */
};

struct mem_estimate {
	uint64_t weights;        /* on the GPU */
	uint64_t weights_host;   /* kept on the CPU by the runtime */
	uint64_t kv;             /* all layers, context x batch */
	uint64_t kv_per_token;   /* one token of one sequence over all layers, before window caps */
	uint64_t cuda_context;
	uint64_t activations;    /* inference: allowance; training: the variant chosen */
	uint64_t workspace;      /* cuBLAS workspace (PyTorch) */
	uint64_t master_weights; /* training, mixed precision: fp32 copy */
	uint64_t gradients;
	uint64_t optimizer;
	uint64_t act_full, act_checkpointed; /* training: stored for backward, both variants */
	uint64_t logits;         /* training: the loss's fp32 tensors, 12 x tokens x vocab bytes */
	/* training: PyTorch's allocated bytes (workspace in, CUDA context out) at the peak of
	 * each phase of a step after the first (the optimizer states exist, the gradients were
	 * set to None), and the phase where the step peaks; the total is that peak */
	uint64_t phase_forward, phase_loss, phase_backward, phase_optimizer;
	enum mem_phase peak_phase;
	bool phases_known;
	uint64_t rule_of_thumb;      /* parameters x 4 x (2 + 2): fp32 Adam model states */
	uint64_t total;
	bool kv_known, act_known;
};

/* Described once (util/field.h; mem/fields.c): the "inputs" object (every entry JSON
 * only: the text says them in the breakdown's title), the "breakdown" object with the label
 * of each part's row, and each GPU's fit with the columns of the Fit table. */
enum mem_opts_field {
	MEM_OPTS_MODE, MEM_OPTS_CONTEXT, MEM_OPTS_BATCH, MEM_OPTS_RUNTIME, MEM_OPTS_OPTIMIZER, MEM_OPTS_MIXED,
	MEM_OPTS_CHECKPOINTING, MEM_OPTS_KV_DTYPE, MEM_OPTS_FIELDS
};
extern const struct field_table mem_opts_field_table;
enum mem_estimate_field {
	MEM_EST_WEIGHTS, MEM_EST_WEIGHTS_HOST, MEM_EST_MASTER_WEIGHTS, MEM_EST_GRADIENTS, MEM_EST_OPTIMIZER,
	MEM_EST_KV, MEM_EST_KV_PER_TOKEN, MEM_EST_ACTIVATIONS, MEM_EST_ACT_FULL, MEM_EST_ACT_CHECKPOINTED,
	MEM_EST_LOGITS, MEM_EST_WORKSPACE, MEM_EST_PHASE_FORWARD, MEM_EST_PHASE_LOSS, MEM_EST_PHASE_BACKWARD,
	MEM_EST_PHASE_OPTIMIZER, MEM_EST_PEAK_PHASE, MEM_EST_CUDA_CONTEXT, MEM_EST_TOTAL, MEM_EST_RULE_OF_THUMB,
	MEM_EST_FIELDS
};
extern const struct field_table mem_estimate_field_table;

/* "f16" "bf16" "f32" "fp8" "q8_0" "q4_0" ...; CD_EUSAGE if unknown. */
int mem_kv_type_parse(const char *name, struct mem_kv_type *t, char *err);
void mem_opts_default(struct mem_opts *o);
const char *mem_optimizer_name(enum mem_optimizer o);
/* "forward", "loss", "backward", "optimizer"; NULL for MEM_PHASE_NONE */
const char *mem_phase_name(enum mem_phase p);
int mem_optimizer_parse(const char *s, enum mem_optimizer *o);

/* KV cache bytes of one layer for context x batch (0 for a layer without KV). */
uint64_t mem_layer_kv(const struct mem_model *m, const struct mem_opts *o, uint32_t layer,
		      uint64_t context, uint64_t batch);
void mem_estimate(const struct mem_model *m, const struct mem_opts *o, struct mem_estimate *e);

struct mem_fit {
	uint64_t budget;
	bool fits;               /* the total counted is within the budget */
	bool fits_known;         /* fits is the answer: it does not fit, or every part is counted
				  * (inference needs the KV cache's shape, both the activations') */
	int64_t headroom;        /* budget - total (negative when it does not fit) */
	uint64_t max_context;    /* at o->batch; 0 when not even one token fits */
	uint64_t max_batch;      /* at o->context */
	bool context_matters;    /* the total grows with context (KV or activations known) */
	uint32_t layers_fit;     /* inference: blocks that fit with the rest on the CPU */
	unsigned gpus_needed;    /* such GPUs to hold it split by layers; 0 if unknown */
	char quant_fit[16];      /* highest-precision GGUF quant whose weights fit, "" if none */
};

enum mem_fit_field {
	MEM_FIT_FITS, MEM_FIT_HEADROOM, MEM_FIT_MAX_CONTEXT, MEM_FIT_MAX_BATCH, MEM_FIT_LAYERS, MEM_FIT_GPUS_NEEDED,
	MEM_FIT_QUANT, MEM_FIT_FIELDS
};
extern const struct field_table mem_fit_field_table;

void mem_fit_search(const struct mem_model *m, const struct mem_opts *o, uint64_t budget,
		    struct mem_fit *f);

#endif
