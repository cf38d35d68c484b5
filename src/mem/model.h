/* What the memory estimator knows about a model: exact tensor bytes where a file
 * gave them, and the attention shape (GQA heads, head dims, sliding-window layers,
 * MLA) from the file's metadata or config.json. Filled by the loaders below. */
#ifndef CUDOCTOR_MEM_MODEL_H
#define CUDOCTOR_MEM_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "binfmt/gguf.h"
#include "binfmt/safetensors.h"
#include "util/field.h"

struct mem_layer {
	uint64_t weight_bytes; /* tensors of this block (exact when read from a file) */
	uint32_t kv_heads;     /* 0: this layer keeps no KV cache (recurrent / MLP-only) */
	bool swa;              /* attends over a sliding window only */
};

struct mem_model {
	char format[16];       /* "gguf", "safetensors", "config.json", "params" */
	char arch[64];         /* general.architecture or config model_type */
	char dtype[16];        /* the dtype holding most weight bytes ("BF16", "Q4_K") */
	uint64_t params;
	bool params_exact;     /* counted from tensor shapes (not a formula) */
	uint64_t weight_bytes; /* every tensor */
	bool bytes_exact;
	uint64_t embed_bytes;  /* token embedding table */
	uint64_t output_bytes; /* untied output projection (lm_head / output.weight); 0 if tied */
	uint64_t other_bytes;  /* outside the blocks: final norm, etc. */
	uint32_t n_layers;
	struct mem_layer *layers;
	bool attn_known;       /* heads and head dims are known: KV can be computed */
	uint32_t n_heads, n_kv_heads;       /* n_kv_heads: the largest per-layer value */
	uint32_t head_dim_k, head_dim_v;
	uint64_t hidden, ff, vocab, ctx_train;
	uint32_t sliding_window, n_swa_layers;
	bool mla;
	uint32_t kv_lora_rank, rope_dim;    /* MLA: per-token latent = kv_lora_rank + rope_dim */
	uint32_t n_experts, n_experts_used;
	uint64_t expert_ff;    /* one expert's intermediate size (MoE), 0 if not said */
	/* Adafactor's factored second moment: rows + cols per matrix, n per vector */
	uint64_t factored_elems;
	bool shapes_known;
	char note[256];        /* what the loader had to assume, "" if nothing */
};

/* What `mem estimate` reports of a model, described once (util/field.h; mem/fields.c):
 * its "model" object, the text labels of its Model section. */
enum mem_model_field {
	MEM_MODEL_FORMAT, MEM_MODEL_ARCH, MEM_MODEL_DTYPE, MEM_MODEL_PARAMS, MEM_MODEL_PARAMS_EXACT,
	MEM_MODEL_WEIGHT_BYTES, MEM_MODEL_LAYERS, MEM_MODEL_HEADS, MEM_MODEL_KV_HEADS, MEM_MODEL_HEAD_DIM,
	MEM_MODEL_HEAD_DIM_V, MEM_MODEL_HIDDEN, MEM_MODEL_VOCAB, MEM_MODEL_CONTEXT_TRAIN, MEM_MODEL_SLIDING_WINDOW,
	MEM_MODEL_SWA_LAYERS, MEM_MODEL_MLA, MEM_MODEL_KV_LORA_RANK, MEM_MODEL_ROPE_DIM, MEM_MODEL_NOTE,
	MEM_MODEL_FIELDS
};
extern const struct field_table mem_model_field_table;

void mem_model_free(struct mem_model *m);
/* Layers a model may have: more is a crafted or broken file (a tensor named
 * "model.layers.999999999.x" would otherwise ask for 16 GB). */
#define MEM_MAX_LAYERS 100000
/* n zeroed layers; CD_EFORMAT above MEM_MAX_LAYERS, CD_ENOMEM. */
int mem_model_alloc_layers(struct mem_model *m, uint64_t n, char *err);

/* From a parsed GGUF header (llama.cpp keys: <arch>.block_count, attention.*). */
int mem_model_from_gguf(const struct gguf_file *g, struct mem_model *m, char *err);
/* The tensors of a further split file (-0000N-of-0000M.gguf) into a model built from the first. */
void mem_model_add_gguf_tensors(const struct gguf_file *g, struct mem_model *m);
/* From safetensors headers (one or several shards) and, if not NULL, config.json. */
int mem_model_from_safetensors(const struct st_file *files, size_t n_files, json_t *config,
			       struct mem_model *m, char *err);
/* From config.json alone: parameters by the decoder formula (not exact). */
int mem_model_from_config(json_t *config, const char *dtype, struct mem_model *m, char *err);
/* Attention shape from config.json into m (used by the two above). */
int mem_model_apply_config(json_t *config, struct mem_model *m, char *err);
/* From a parameter count and a dtype name ("bf16", "q4_k", "fp8"); bits per weight when the
 * caller knows them (a GGUF quantisation's, from the kb), else 0 to go by the name. */
int mem_model_from_params(uint64_t params, const char *dtype, double bits, struct mem_model *m, char *err);

/* Bytes per element of a weight / KV dtype name, as bits (so 4.5 bits for Q4_0);
 * accepts torch, safetensors and ggml spellings. 0 if unknown. */
double mem_dtype_bits(const char *name);

/* Which block a tensor belongs to: "blk.3.attn_q.weight", "model.layers.3.mlp...",
 * "transformer.h.3....". -1 if none. */
long mem_tensor_layer(const char *name, size_t len);
bool mem_tensor_is_embedding(const char *name, size_t len);
bool mem_tensor_is_output(const char *name, size_t len);

#endif
