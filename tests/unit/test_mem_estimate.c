/* The estimator on real model files: weights exact, KV cache equal to the formula
 * evaluated by the fixture script (GQA, sliding window, MLA, per-layer KV heads),
 * training bytes per parameter, and the fit search's boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <string.h>

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
	uint64_t sbh = 512ull * 2 * 128, logits = 512ull * 2 * 640 * 8;
	assert_int_equal(e.act_full, sbh * 3 * 34 + logits);
	assert_int_equal(e.act_checkpointed, sbh * 3 * 2 + sbh * 34 + logits);
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
		cmocka_unit_test(fit_search_boundaries),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
