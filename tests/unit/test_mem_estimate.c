/* The estimator on real model files: weights exact, KV cache equal to the formula
 * evaluated by the fixture script (GQA, sliding window, MLA, per-layer KV heads),
 * training bytes per parameter, and the fit search's boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "mem/estimate.h"
#include "mem/load.h"
#include "mem_fixtures.h"
#include "util/err.h"

static int setup(void **state)
{
	(void)state;
	return mem_fixtures() ? 0 : -1;
}

static void load(const char *name, struct mem_model *m)
{
	char path[4300], err[CD_ERRMSG] = "";
	snprintf(path, sizeof path, "%s/%s", mem_fx_dir, name);
	int rc = mem_load_path(path, NULL, m, err);
	if (rc)
		fail_msg("%s: %s", name, err);
}

static uint64_t kv_at(const struct mem_model *m, const char *kv_type, uint64_t ctx, uint64_t batch)
{
	struct mem_opts o;
	struct mem_estimate e;
	mem_opts_default(&o);
	assert_int_equal(mem_kv_type_parse(kv_type, &o.kv, NULL), CD_OK);
	o.context = ctx;
	o.batch = batch;
	mem_estimate(m, &o, &e);
	assert_true(e.kv_known);
	return e.kv;
}

static void llama_gqa_exact(void **state)
{
	struct mem_model m;
	(void)state;
	load("llama_gqa.gguf", &m);
	assert_string_equal(m.format, "gguf");
	assert_string_equal(m.arch, "llama");
	assert_int_equal(m.params, mem_exp_u("llama_gqa.gguf", "params"));
	assert_int_equal(m.weight_bytes, mem_exp_u("llama_gqa.gguf", "weight_bytes"));
	assert_int_equal(m.embed_bytes, mem_exp_u("llama_gqa.gguf", "embed_bytes"));
	assert_int_equal(m.output_bytes, mem_exp_u("llama_gqa.gguf", "output_bytes"));
	json_t *lb = json_object_get(mem_expected("llama_gqa.gguf"), "layer_bytes");
	assert_int_equal(m.n_layers, json_array_size(lb));
	for (uint32_t l = 0; l < m.n_layers; l++)
		assert_int_equal(m.layers[l].weight_bytes, json_integer_value(json_array_get(lb, l)));
	assert_int_equal(m.n_heads, 8);
	assert_int_equal(m.n_kv_heads, 2);
	assert_int_equal(m.head_dim_k, 32);
	assert_int_equal(kv_at(&m, "f16", 4096, 1), mem_exp_u("llama_gqa.gguf", "kv_4096x1"));
	assert_int_equal(kv_at(&m, "f16", 1000, 2), mem_exp_u("llama_gqa.gguf", "kv_1000x2"));
	assert_int_equal(kv_at(&m, "q8_0", 4096, 1), mem_exp_u("llama_gqa.gguf", "kv_q8_0_4096x1"));

	/* llama.cpp keeps token_embd on the CPU; PyTorch puts every tensor on the GPU */
	struct mem_opts o;
	struct mem_estimate e;
	mem_opts_default(&o);
	o.context = 4096;
	o.runtime = MEM_RT_LLAMACPP;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.weights_host, m.embed_bytes);
	assert_int_equal(e.weights, m.weight_bytes - m.embed_bytes);
	assert_int_equal(e.total, e.weights + e.kv + e.activations + e.cuda_context + e.workspace);
	o.runtime = MEM_RT_TORCH;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.weights, m.weight_bytes);
	assert_int_equal(e.weights_host, 0);
	mem_model_free(&m);
}

static void sliding_window_layers_capped(void **state)
{
	struct mem_model m;
	(void)state;
	load("gemma3_swa.gguf", &m);
	assert_int_equal(m.head_dim_k, 128); /* key_length, not embedding_length / head_count = 64 */
	assert_int_equal(m.sliding_window, 512);
	assert_int_equal(m.n_swa_layers, mem_exp_u("gemma3_swa.gguf", "swa_layers"));
	assert_false(m.layers[5].swa); /* every 6th layer is global */
	assert_true(m.layers[6].swa);
	assert_int_equal(kv_at(&m, "f16", 8192, 1), mem_exp_u("gemma3_swa.gguf", "kv_8192x1"));
	assert_int_equal(kv_at(&m, "f16", 100, 3), mem_exp_u("gemma3_swa.gguf", "kv_100x3"));
	/* tied output: llama.cpp needs a copy of token_embd on the GPU for the output layer */
	assert_int_equal(m.output_bytes, 0);
	struct mem_opts o;
	struct mem_estimate e;
	mem_opts_default(&o);
	o.context = 512;
	o.runtime = MEM_RT_LLAMACPP;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.weights, m.weight_bytes);
	mem_model_free(&m);
}

static void mla_caches_the_latent(void **state)
{
	struct mem_model m;
	(void)state;
	load("deepseek2_mla.gguf", &m);
	assert_true(m.mla);
	assert_int_equal(m.kv_lora_rank, 64);
	assert_int_equal(m.rope_dim, 32);
	uint64_t kv = kv_at(&m, "f16", 4096, 1);
	assert_int_equal(kv, mem_exp_u("deepseek2_mla.gguf", "kv_4096x1"));
	/* what the uniform per-head formula would claim */
	assert_true(kv * 4 < mem_exp_u("deepseek2_mla.gguf", "kv_standard_4096x1"));
	mem_model_free(&m);
}

static void per_layer_kv_heads(void **state)
{
	struct mem_model m;
	(void)state;
	load("hybrid_kv_array.gguf", &m);
	assert_int_equal(m.n_kv_heads, 4);
	assert_int_equal(m.layers[1].kv_heads, 0);
	assert_int_equal(kv_at(&m, "f16", 1024, 1), mem_exp_u("hybrid_kv_array.gguf", "kv_1024x1"));
	mem_model_free(&m);
}

/* gguf-py's split writer: any of the files names the whole model */
static void split_gguf_reads_every_file(void **state)
{
	json_t *files = json_object_get(mem_expected("split"), "files");
	(void)state;
	assert_int_equal(json_array_size(files), 3);
	for (size_t i = 0; i < 3; i++) {
		struct mem_model m;
		char name[256];
		snprintf(name, sizeof name, "split/%s", json_string_value(json_array_get(files, i)));
		load(name, &m);
		assert_int_equal(m.params, mem_exp_u("split", "params"));
		assert_int_equal(m.weight_bytes, mem_exp_u("split", "weight_bytes"));
		assert_int_equal(kv_at(&m, "f16", 4096, 1), mem_exp_u("split", "kv_4096x1"));
		mem_model_free(&m);
	}
}

static void safetensors_with_config(void **state)
{
	struct mem_model m;
	(void)state;
	load("st_single", &m); /* a directory: model.safetensors + config.json */
	assert_string_equal(m.format, "safetensors");
	assert_string_equal(m.arch, "llama");
	assert_string_equal(m.dtype, "F16");
	assert_int_equal(m.params, mem_exp_u("st_single", "params"));
	assert_int_equal(m.weight_bytes, mem_exp_u("st_single", "weight_bytes"));
	assert_int_equal(m.n_layers, 3);
	assert_int_equal(kv_at(&m, "f16", 2048, 4), mem_exp_u("st_single", "kv_2048x4"));
	mem_model_free(&m);

	/* sharded, Mistral-style window on every layer, tied embeddings */
	load("st_sharded", &m);
	assert_int_equal(m.params, mem_exp_u("st_sharded", "params"));
	assert_int_equal(m.weight_bytes, mem_exp_u("st_sharded", "weight_bytes"));
	assert_int_equal(m.n_swa_layers, 4);
	assert_int_equal(m.output_bytes, 0);
	assert_int_equal(kv_at(&m, "f16", 1000, 1), mem_exp_u("st_sharded", "kv_1000x1"));
	assert_int_equal(kv_at(&m, "f16", 100, 1), mem_exp_u("st_sharded", "kv_100x1"));
	mem_model_free(&m);
}

/* config.json alone: the decoder formula must give the same parameter count as the
 * tensors written from the same shapes. */
static void config_formula_matches_tensors(void **state)
{
	char path[4300], err[CD_ERRMSG] = "";
	struct mem_model m;
	(void)state;
	snprintf(path, sizeof path, "%s/st_single/config.json", mem_fx_dir);
	assert_int_equal(mem_load_path(path, "fp16", &m, err), CD_OK);
	assert_string_equal(m.format, "config.json");
	assert_int_equal(m.params, mem_exp_u("st_single", "params"));
	assert_int_equal(m.weight_bytes, mem_exp_u("st_single", "weight_bytes"));
	mem_model_free(&m);
	snprintf(path, sizeof path, "%s/st_sharded/config.json", mem_fx_dir);
	assert_int_equal(mem_load_path(path, NULL, &m, err), CD_OK);
	assert_int_equal(m.params, mem_exp_u("st_sharded", "params"));
	mem_model_free(&m);
}


/* Three public configs (config.json fields as published), 2 x 2048 tokens, bf16 weights,
 * AdamW (bf16 states, foreach), two cuBLAS workspaces: each phase by hand. */
struct train_case {
	const char *config;
	uint64_t params;
	uint64_t forward, loss, backward, optimizer; /* without checkpointing */
	uint64_t ck_forward, ck_loss, ck_backward;   /* with it (the optimizer step is the same) */
	enum mem_phase peak, ck_peak;
};

static void train_case(const struct train_case *c)
{
	struct mem_model m;
	struct mem_opts o;
	struct mem_estimate e, ck;
	char err[CD_ERRMSG] = "";
	json_error_t jerr;
	json_t *cfg = json_loads(c->config, 0, &jerr);

	assert_non_null(cfg);
	if (mem_model_from_config(cfg, "bf16", &m, err))
		fail_msg("%s", err);
	json_decref(cfg);
	assert_int_equal(m.params, c->params);
	mem_opts_default(&o);
	o.train = true;
	o.context = 2048;
	o.batch = 2;
	o.cuda_context = 0;
	mem_estimate(&m, &o, &e);
	assert_true(e.phases_known);
	assert_int_equal(e.phase_forward, c->forward);
	assert_int_equal(e.phase_loss, c->loss);
	assert_int_equal(e.phase_backward, c->backward);
	assert_int_equal(e.phase_optimizer, c->optimizer);
	assert_int_equal(e.peak_phase, c->peak);
	o.checkpointing = true;
	mem_estimate(&m, &o, &ck);
	assert_int_equal(ck.phase_forward, c->ck_forward);
	assert_int_equal(ck.phase_loss, c->ck_loss);
	assert_int_equal(ck.phase_backward, c->ck_backward);
	assert_int_equal(ck.phase_optimizer, c->optimizer);
	assert_int_equal(ck.peak_phase, c->ck_peak);
	/* the loss's tensors do not shrink with checkpointing: only the stored activations do */
	assert_int_equal(e.phase_loss - ck.phase_loss, e.act_full - e.act_checkpointed);
	/* the total is the peak phase (no sum of parts) */
	const uint64_t at[] = {0, ck.phase_forward, ck.phase_loss, ck.phase_backward, ck.phase_optimizer};
	assert_int_equal(ck.total, at[ck.peak_phase]);
	mem_model_free(&m);
}

/* https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json
 * P = V h (tied) + h + 16 x (2h + 2 h^2 + 2 h 512 + 3 h 8192) = 262668288 + 2048 + 16 x 60821504
 *   = 1235814400. Held all step: 2P weights + 4P states + 2 x 32 MiB = 7481995264.
 * Optimizer: held + 2P grads + 2P sqrt(v) = 12425252864.
 * Per token and block: norms 2 x (2048 x 8 + 4) = 32776, q k v o 2 x (2048 + 2048 + 512 + 512)
 * = 10240, log-sum-exp 4 x 32 = 128, MLP 8 x 8192 = 65536: 108680. T = 4096 tokens:
 * stored 16 x 4096 x 108680 + 4096 x (16388 + 16) = 7189643264 (with checkpointing
 * 16 x 4096 x 4096 + 67190784 = 335626240). Logits 2 T V = 1050673152; loss 12 T V = 6304038912.
 * Forward = held + stored + logits = 15722311680; loss = held + stored + 12 T V = 20975677440.
 * Backward, at lm_head: held + stored + 2 T V + 2 T h + 2 V h (its gradient) = 16264425472.
 * With checkpointing: forward 8868294656, loss 14121660416; backward peaks at the embedding:
 * held + all gradients (2P) + the embedding's own gradient, added into lm_head's (2 V h =
 * 525336576) + T (6 h + 40) = 10529456128. The loss is the peak either way. */
static const struct train_case tc_llama_3_2_1b = {
		"{\"model_type\": \"llama\", \"vocab_size\": 128256, \"hidden_size\": 2048, \"intermediate_size\": 8192,"
		" \"num_hidden_layers\": 16, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"head_dim\": 64,"
		" \"max_position_embeddings\": 131072, \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\"}",
		1235814400ull, 15722311680ull, 20975677440ull, 16264425472ull, 12425252864ull,
		8868294656ull, 14121660416ull, 10529456128ull, MEM_PHASE_LOSS, MEM_PHASE_LOSS,
};

/* https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json (q/k/v with bias)
 * P = V h (tied) + h + 24 x (2h + 2 h^2 + 2 h 128 + 3 h 4864 + 896 + 256) = 494032768 (the
 * published 0.49B). Per token and block: 2 x (896 x 8 + 4) + 2 x (896 + 896 + 128 + 128) + 4 x 14
 * + 8 x 4864 = 57408. The 151936-token vocabulary makes the loss (12 T V = 7467958272) the
 * peak, with checkpointing by far: held 3031305472 + stored 205602816 + 7467958272. */
static const struct train_case tc_qwen2_5_0_5b = {
		"{\"model_type\": \"qwen2\", \"vocab_size\": 151936, \"hidden_size\": 896, \"intermediate_size\": 4864,"
		" \"num_hidden_layers\": 24, \"num_attention_heads\": 14, \"num_key_value_heads\": 2,"
		" \"max_position_embeddings\": 32768, \"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\"}",
		494032768ull, 9948843264ull, 16172141824ull, 10228452608ull, 5007436544ull,
		4481568000ull, 10704866560ull, 4761177344ull, MEM_PHASE_LOSS, MEM_PHASE_LOSS,
};

/* https://huggingface.co/TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T/blob/main/config.json
 * Untied, 32000 tokens: P = 2 V h + h + 22 x 44044288 = 1100048384. Without checkpointing the
 * loss peaks (held 6667399168 + stored 22 x 4096 x 87176 + 67190784 + 12 T V 1572864000); with
 * it the optimizer step does: held + 2P gradients + 2P sqrt(v) = 11067592704, above the
 * backward's peak at the last block recomputed (9154371584). */
static const struct train_case tc_tinyllama_1_1b = {
		"{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": 2048, \"intermediate_size\": 5632,"
		" \"num_hidden_layers\": 22, \"num_attention_heads\": 32, \"num_key_value_heads\": 4,"
		" \"max_position_embeddings\": 2048, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}",
		1100048384ull, 14852337664ull, 16163057664ull, 15000186880ull, 11067592704ull,
		7365832704ull, 8676552704ull, 9154371584ull, MEM_PHASE_LOSS, MEM_PHASE_OPTIMIZER,
};

static void train_phases_by_hand(void **state)
{
	(void)state;
	train_case(&tc_llama_3_2_1b);
	train_case(&tc_qwen2_5_0_5b);
	train_case(&tc_tinyllama_1_1b);
}

static void training_bytes_per_parameter(void **state)
{
	struct mem_model m;
	struct mem_opts o;
	struct mem_estimate e;
	(void)state;
	assert_int_equal(mem_model_from_params(1000000000ull, "fp32", 0, &m, NULL), CD_OK);
	mem_opts_default(&o);
	o.train = true;
	o.context = 2048;
	mem_estimate(&m, &o, &e);
	/* fp32 Adam: 4 + 4 + 8 = 16 bytes per parameter = the seed's rule P x 4 x (2 + 2) */
	assert_int_equal(e.weights + e.gradients + e.optimizer, 16000000000ull);
	assert_int_equal(e.rule_of_thumb, 16000000000ull);
	assert_false(e.act_known); /* no architecture from --params */
	mem_model_free(&m);

	assert_int_equal(mem_model_from_params(1000000000ull, "bf16", 0, &m, NULL), CD_OK);
	o.mixed_precision = true;
	mem_estimate(&m, &o, &e);
	/* ZeRO's mixed precision: 2 + 2 + (4 master + 8 Adam) */
	assert_int_equal(e.weights + e.master_weights + e.gradients + e.optimizer, 16000000000ull);
	o.optimizer = MEM_OPT_SGD;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.optimizer, 4000000000ull);
	o.mixed_precision = false; /* pure bf16 AdamW keeps its states in bf16 */
	o.optimizer = MEM_OPT_ADAMW;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.weights + e.gradients + e.optimizer, 8000000000ull);
	mem_model_free(&m);
}

static void training_activations_and_checkpointing(void **state)
{
	struct mem_model m;
	struct mem_opts o;
	struct mem_estimate e;
	(void)state;
	load("st_single", &m);
	mem_opts_default(&o);
	o.train = true;
	o.context = 512;
	o.batch = 2;
	mem_estimate(&m, &o, &e);
	/* per token: two RMSNorms (fp32 copy + normalised + output + rstd: 128 x 8 + 4 each), q k v o
	 * and flash's log-sum-exp, the MLP's four tensors of ff */
	uint64_t T = 512ull * 2, qkvo = 2 * ((uint64_t)m.n_heads * m.head_dim_k * 2 + (uint64_t)m.n_kv_heads * m.head_dim_k * 2);
	uint64_t block = 2 * (128 * 8 + 4) + qkvo + 4 * m.n_heads + 8 * m.ff, rest = T * (128 * 8 + 4 + 16);
	assert_int_equal(e.act_full, T * block * 3 + rest);
	assert_int_equal(e.act_checkpointed, T * 2 * 128 * 3 + rest);
	assert_int_equal(e.logits, T * 640 * 12);
	assert_int_equal(e.activations, e.act_full);
	o.checkpointing = true;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.activations, e.act_checkpointed);
	/* Adafactor: rows + cols per matrix, n per vector, in f32 */
	o.optimizer = MEM_OPT_ADAFACTOR;
	mem_estimate(&m, &o, &e);
	assert_int_equal(e.optimizer, m.factored_elems * 4);
	assert_true(e.optimizer < m.params * 4 / 10);
	mem_model_free(&m);
}

static void fit_search_boundaries(void **state)
{
	struct mem_model m;
	struct mem_opts o;
	struct mem_estimate e;
	struct mem_fit f;
	(void)state;
	load("llama_gqa.gguf", &m);
	mem_opts_default(&o);
	o.context = 4096;
	o.cuda_context = 0;
	o.runtime = MEM_RT_LLAMACPP;
	uint64_t budget = 40ull << 20;
	mem_fit_search(&m, &o, budget, &f);
	assert_true(f.fits);
	assert_true(f.max_context > 4096);
	/* max_context is the boundary: it fits, one more token does not */
	o.context = f.max_context;
	mem_estimate(&m, &o, &e);
	assert_true(e.total <= budget);
	o.context = f.max_context + 1;
	mem_estimate(&m, &o, &e);
	assert_true(e.total > budget);
	/* max_batch at context 4096 likewise */
	o.context = 4096;
	o.batch = f.max_batch;
	mem_estimate(&m, &o, &e);
	assert_true(e.total <= budget);
	o.batch = f.max_batch + 1;
	mem_estimate(&m, &o, &e);
	assert_true(e.total > budget);
	/* too small for the whole model: some layers fit, and fewer bits would fit */
	o.batch = 1;
	o.context = 4096;
	mem_fit_search(&m, &o, 10ull << 20, &f);
	assert_false(f.fits);
	assert_true(f.layers_fit < m.n_layers);
	assert_true(f.gpus_needed >= 2);
	mem_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(llama_gqa_exact),
		cmocka_unit_test(sliding_window_layers_capped),
		cmocka_unit_test(mla_caches_the_latent),
		cmocka_unit_test(per_layer_kv_heads),
		cmocka_unit_test(split_gguf_reads_every_file),
		cmocka_unit_test(safetensors_with_config),
		cmocka_unit_test(config_formula_matches_tensors),
		cmocka_unit_test(training_bytes_per_parameter),
		cmocka_unit_test(training_activations_and_checkpointing),
		cmocka_unit_test(train_phases_by_hand),
		cmocka_unit_test(fit_search_boundaries),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
