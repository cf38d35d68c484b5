/* `cudoctor mem estimate` as a user runs it: JSON contract, exit codes, the
 * oom-capacity finding and its fixes, one-line errors for bad files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem_fixtures.h"
#include "testlib.h"

static int setup(void **state)
{
	(void)state;
	return mem_fixtures() ? 0 : -1;
}

static const char *const no_gpu_env[] = {"CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1",
					 "CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1", NULL};

static json_t *run_json(const char *const argv[], int want_status)
{
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	if (r.status != want_status)
		fail_msg("exit %d (want %d): %s", r.status, want_status, r.err);
	json_t *j = json_loads(r.out, 0, NULL);
	if (!j)
		fail_msg("not JSON: %.300s", r.out);
	run_result_free(&r);
	return j;
}

static void estimate_json_contract(void **state)
{
	char path[4300];
	(void)state;
	snprintf(path, sizeof path, "%s/llama_gqa.gguf", mem_fx_dir);
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", path, "--context", "4096",
			      "--gpu-memory", "1GiB", NULL};
	json_t *j = run_json(argv, 0);
	assert_string_equal(json_string_value(json_object_get(j, "tool")), "cudoctor");
	assert_string_equal(json_string_value(json_object_get(j, "command")), "mem");
	json_t *m = json_object_get(j, "model");
	assert_string_equal(json_string_value(json_object_get(m, "format")), "gguf");
	assert_string_equal(json_string_value(json_object_get(m, "architecture")), "llama");
	assert_int_equal(json_integer_value(json_object_get(m, "parameters")), mem_exp_u("llama_gqa.gguf", "params"));
	assert_int_equal(json_integer_value(json_object_get(m, "layers")), 4);
	assert_int_equal(json_integer_value(json_object_get(m, "heads")), 8);
	assert_int_equal(json_integer_value(json_object_get(m, "kv_heads")), 2);
	assert_int_equal(json_integer_value(json_object_get(m, "head_dim")), 32);
	json_t *b = json_object_get(j, "breakdown");
	assert_int_equal(json_integer_value(json_object_get(b, "kv_cache_bytes")), mem_exp_u("llama_gqa.gguf", "kv_4096x1"));
	/* the parts add up to the total */
	long long sum = 0;
	const char *parts[] = {"weights_bytes", "kv_cache_bytes", "activations_bytes", "workspace_bytes",
			       "cuda_context_bytes"};
	for (size_t i = 0; i < 5; i++)
		sum += json_integer_value(json_object_get(b, parts[i]));
	assert_int_equal(sum, json_integer_value(json_object_get(b, "total_bytes")));
	json_t *g = json_array_get(json_object_get(j, "per_gpu"), 0);
	assert_true(json_is_true(json_object_get(g, "fits")));
	assert_true(json_integer_value(json_object_get(g, "max_context")) > 4096);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
	json_decref(j);
}

static void does_not_fit_names_fixes(void **state)
{
	(void)state;
	/* Llama-3-8B-sized by parameter count: 16 GB of bf16 weights on a 12 GiB card */
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "8.03e9", "--dtype",
			      "bf16", "--gpu-memory", "12GiB", NULL};
	json_t *j = run_json(argv, 1);
	json_t *f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "oom-capacity");
	assert_string_equal(json_string_value(json_object_get(f, "severity")), "error");
	json_t *fix = json_object_get(f, "fix");
	bool quant = false, gpus = false;
	for (size_t i = 0; i < json_array_size(fix); i++) {
		const char *s = json_string_value(json_array_get(fix, i));
		quant |= strstr(s, "Q8_0") != NULL; /* 8.5 bits: 8.5 GB fits in 12 GiB */
		gpus |= strstr(s, "2 such GPUs") != NULL;
	}
	assert_true(quant);
	assert_true(gpus);
	json_t *g = json_array_get(json_object_get(j, "per_gpu"), 0);
	assert_false(json_is_true(json_object_get(g, "fits")));
	assert_true(json_integer_value(json_object_get(g, "headroom_bytes")) < 0);
	json_decref(j);
}

/* --gpu SPEC: each memory variant of the product from kb/gpus.tsv; a bare arch is refused */
static void gpu_spec_and_gpus_here(void **state)
{
	(void)state;
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "7e9", "--dtype", "bf16",
			      "--gpu", "RTX 4060 Ti", NULL};
	json_t *j = run_json(argv, 1);
	json_t *per = json_object_get(j, "per_gpu");
	assert_int_equal(json_array_size(per), 2);
	assert_false(json_is_true(json_object_get(json_array_get(per, 0), "fits")));  /* 8 GB */
	/* 16 GB: the weights fit, the KV cache of a bare parameter count is unknown */
	assert_true(json_is_null(json_object_get(json_array_get(per, 1), "fits")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(per, 1), "memory_basis")), "total");
	json_decref(j);
	const char *arch[] = {CUDOCTOR_BINARY, "mem", "estimate", "--params", "7e9", "--gpu", "sm_89", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(arch, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	run_result_free(&r);

	/* no --gpu: the GPUs here, against their free memory (fake H200 with a 100 GiB co-tenant) */
	const char *env[] = {"CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1",
			     "CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1",
			     "FAKE_GPUS=NVIDIA H200:9.0:141GiB", "FAKE_NVML_PROCS=0:4242:100GiB", NULL};
	const char *here[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "30e9", "--dtype", "bf16", NULL};
	assert_int_equal(testlib_run(here, env, NULL, &r), 0);
	assert_int_equal(r.status, 1); /* 60 GB of weights, ~40 GiB free */
	j = json_loads(r.out, 0, NULL);
	json_t *g = json_array_get(json_object_get(j, "per_gpu"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "memory_basis")), "free now");
	assert_true(json_integer_value(json_object_get(g, "memory_bytes")) < (41ll << 30));
	json_decref(j);
	run_result_free(&r);
}

/* the rule of thumb is named as users know it, in text and JSON */
static void training_shows_the_rule_of_thumb(void **state)
{
	(void)state;
	const char *argv[] = {CUDOCTOR_BINARY, "mem", "estimate", "--params", "1e9", "--dtype", "fp32",
			      "--train", "--optimizer", "adam", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "The common rule of thumb, parameters x 4 bytes x (2 + 2) = 14.9 GiB"));
	assert_non_null(strstr(r.out, "optimizer states"));
	assert_null(strstr(r.out, "seed"));
	run_result_free(&r);
	const char *js[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "1e9", "--dtype", "fp32",
			    "--train", "--optimizer", "adam", NULL};
	assert_int_equal(testlib_run(js, no_gpu_env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "\"rule_of_thumb_bytes\": 16000000000"));
	assert_null(strstr(r.out, "seed"));
	run_result_free(&r);
}

/* -q: one answer line per GPU, every --gpu counted, and the exit code from the fit */
static void quiet_answers_per_gpu(void **state)
{
	(void)state;
	const char *argv[] = {CUDOCTOR_BINARY, "-q", "mem", "estimate", "--params", "7e9", "--dtype", "bf16",
			      "--gpu", "RTX 4060 Ti", "--gpu", "H200", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 1); /* the 8 GB RTX 4060 Ti does not fit */
	/* the weights alone do not fit: that is known without the model's shape */
	assert_non_null(strstr(r.out, "NVIDIA GeForce RTX 4060 Ti 8GB: does not fit (needs "));
	/* they fit, but the KV cache is not counted: no "fits" */
	assert_non_null(strstr(r.out, "NVIDIA GeForce RTX 4060 Ti 16GB: unknown: inference counted without the KV cache"));
	assert_non_null(strstr(r.out, "NVIDIA H200 141GB: unknown: "));
	assert_null(strstr(r.out, ": fits"));
	assert_null(strstr(r.out, "Fit\n"));     /* only the answers */
	assert_null(strstr(r.out, "evidence")); /* not the finding's details */
	/* the findings on stderr, a line each */
	assert_non_null(strstr(r.err, "error oom-capacity: "));
	assert_non_null(strstr(r.err, "warn mem-shape-unknown: cannot say whether it fits: the KV cache is not counted"));
	run_result_free(&r);
}

/* --params alone never claims a fit it cannot count: it says what is missing and how to
 * give it; with the model's config.json the same GPU gets its answer */
static void unknown_kv_is_not_a_fit(void **state)
{
	(void)state;
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "7e9", "--context", "32768",
			      "--gpu", "RTX 4090", NULL};
	json_t *j = run_json(argv, 0);
	json_t *g = json_array_get(json_object_get(j, "per_gpu"), 0);
	assert_true(json_is_null(json_object_get(g, "fits")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "breakdown"), "kv_cache_bytes")));
	json_t *f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "id")), "mem-shape-unknown");
	const char *ev = json_string_value(json_array_get(json_object_get(f, "evidence"), 1));
	assert_non_null(strstr(ev, "layers, attention heads, KV heads and head dim"));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(f, "fix"), 0)), "config.json --context 32768"));
	json_decref(j);

	struct run_result r;
	const char *text[] = {CUDOCTOR_BINARY, "mem", "estimate", "--params", "7e9", "--context", "32768", "--gpu",
			      "RTX 4090", NULL};
	assert_int_equal(testlib_run(text, no_gpu_env, NULL, &r), 0);
	assert_non_null(strstr(r.out, "KV cache      unknown"));
	assert_null(strstr(r.out, "0 bytes"));
	run_result_free(&r);
}

/* Qwen2.5-0.5B's public config.json, https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json
 * (the fields the estimate reads) */
static const char qwen05_config[] =
	"{\"architectures\": [\"Qwen2ForCausalLM\"], \"model_type\": \"qwen2\", \"hidden_size\": 896, "
	"\"intermediate_size\": 4864, \"max_position_embeddings\": 32768, \"num_attention_heads\": 14, "
	"\"num_hidden_layers\": 24, \"num_key_value_heads\": 2, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0, "
	"\"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\", \"vocab_size\": 151936}\n";

/* Qwen2.5-0.5B's config.json into a new directory dir (a mkdtemp template); path: the file. */
static void write_qwen05_config(char *dir, char *path, size_t cap)
{
	assert_non_null(mkdtemp(dir));
	snprintf(path, cap, "%s/config.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(qwen05_config, f);
	fclose(f);
}

/* 128k is 131072 tokens; past the trained context (max_position_embeddings) a warning */
static void context_k_and_trained_length(void **state)
{
	char dir[] = "/tmp/cudoctor-memcli-XXXXXX", path[64];
	(void)state;
	write_qwen05_config(dir, path, sizeof path);

	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", path, "--context", "128k", "--gpu",
			      "H200", NULL};
	json_t *j = run_json(argv, 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "inputs"), "context")), 131072);
	/* 24 layers x 2 (K, V) x 2 KV heads x 64 head dim x 2 bytes x 131072 tokens */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "breakdown"), "kv_cache_bytes")),
			 24ll * 2 * 2 * 64 * 2 * 131072);
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(j, "per_gpu"), 0), "fits")));
	json_t *fd = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(fd, "id")), "context-past-training");
	assert_string_equal(json_string_value(json_object_get(fd, "title")),
			    "context 131072 is past the model's trained context 32768");
	json_decref(j);

	argv[6] = "32k"; /* the trained length itself: no warning */
	j = run_json(argv, 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "inputs"), "context")), 32768);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
	json_decref(j);
	unlink(path);
	rmdir(dir);
}

/* The shape by options: Qwen2.5-0.5B's numbers given to --params make the same KV cache, the
 * same model fields and the same context-past-training as its config.json; with --hidden and
 * --vocab the activations are counted too, so the fit is answered. */
static void shape_options_match_config(void **state)
{
	char dir[] = "/tmp/cudoctor-memcli-XXXXXX", path[64];
	static const char *const keys[] = {"layers", "kv_heads", "head_dim", "context_train"};
	(void)state;
	write_qwen05_config(dir, path, sizeof path);

	const char *cfg[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", path, "--context", "128k", "--gpu", "H200", NULL};
	const char *opt[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "494e6", "--layers", "24",
			     "--kv-heads", "2", "--head-dim", "64", "--trained-context", "32k", "--context", "128k",
			     "--gpu", "H200", NULL};
	json_t *c = run_json(cfg, 0), *o = run_json(opt, 0);
	json_t *cm = json_object_get(c, "model"), *om = json_object_get(o, "model");
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_equal(json_object_get(cm, keys[i]), json_object_get(om, keys[i])))
			fail_msg("model.%s: config.json %lld, options %lld", keys[i],
				 json_integer_value(json_object_get(cm, keys[i])), json_integer_value(json_object_get(om, keys[i])));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "breakdown"), "kv_cache_bytes")),
			 24ll * 2 * 2 * 64 * 2 * 131072);
	assert_true(json_equal(json_object_get(json_object_get(c, "breakdown"), "kv_cache_bytes"),
			       json_object_get(json_object_get(o, "breakdown"), "kv_cache_bytes")));
	json_t *fd = json_array_get(json_object_get(o, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(fd, "id")), "context-past-training");
	assert_string_equal(json_string_value(json_object_get(fd, "title")),
			    json_string_value(json_object_get(json_array_get(json_object_get(c, "findings"), 0), "title")));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(fd, "evidence"), 0)), "--trained-context"));
	/* no hidden size: the activations are not counted, so no fit is claimed (and the title
	 * says so in English: it said "the activations is not counted") */
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(o, "per_gpu"), 0), "fits")));
	fd = json_array_get(json_object_get(o, "findings"), 1);
	assert_string_equal(json_string_value(json_object_get(fd, "id")), "mem-shape-unknown");
	assert_string_equal(json_string_value(json_object_get(fd, "title")),
			    "cannot say whether it fits: the activations are not counted");
	json_decref(o);

	const char *full[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "494e6", "--layers", "24",
			      "--kv-heads", "2", "--head-dim", "64", "--hidden", "896", "--vocab", "151936",
			      "--context", "32k", "--gpu", "H200", NULL};
	o = run_json(full, 0);
	assert_false(json_is_null(json_object_get(json_object_get(o, "breakdown"), "activations_bytes")));
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(o, "per_gpu"), 0), "fits")));
	assert_int_equal(json_array_size(json_object_get(o, "findings")), 0);
	json_decref(o);
	json_decref(c);
	unlink(path);
	rmdir(dir);
}

/* --train names the phase where the step peaks, in JSON and text: Qwen2.5-0.5B's 151936-token
 * vocabulary puts it in the loss even with checkpointing (test_mem_estimate.c has the sum) */
static void training_names_the_peak_phase(void **state)
{
	char dir[] = "/tmp/cudoctor-memcli-XXXXXX", path[64];
	(void)state;
	write_qwen05_config(dir, path, sizeof path);

	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", path, "--train", "--context", "2048",
			      "--batch", "2", "--checkpointing", "--cuda-context", "0", "--gpu-memory", "10GB", NULL};
	json_t *j = run_json(argv, 1);
	json_t *bd = json_object_get(j, "breakdown");
	assert_string_equal(json_string_value(json_object_get(bd, "peak_phase")), "loss");
	assert_int_equal(json_integer_value(json_object_get(bd, "phase_loss_bytes")), 10704866560ll);
	assert_int_equal(json_integer_value(json_object_get(bd, "total_bytes")), 10704866560ll);
	assert_int_equal(json_integer_value(json_object_get(bd, "logits_bytes")), 12ll * 4096 * 151936);
	assert_true(json_integer_value(json_object_get(bd, "phase_optimizer_bytes")) < 10704866560ll);
	json_t *fd = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(fd, "id")), "oom-capacity");
	char *dump = json_dumps(fd, 0);
	assert_non_null(strstr(dump, "the step peaks in its loss phase"));
	assert_non_null(strstr(dump, "compute the loss in chunks"));
	assert_null(strstr(dump, "turn on activation checkpointing"));
	free(dump);
	json_decref(j);

	struct run_result r;
	assert_int_equal(testlib_run((const char *const[]){CUDOCTOR_BINARY, "mem", "estimate", path, "--train",
							   "--context", "2048", "--batch", "2", "--checkpointing",
							   "--gpu-memory", "80GB", NULL}, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "loss tensors"));
	assert_non_null(strstr(r.out, "the loss tensors  <- peak"));
	assert_non_null(strstr(r.out, "the peak, in the loss phase, + CUDA context"));
	run_result_free(&r);
	unlink(path);
	rmdir(dir);
}

/* llama-quantize's names with the bits per weight of a whole file (kb/gguf_quants.tsv) */
static void gguf_quant_names(void **state)
{
	static const struct { const char *name; double bits; } q[] = {
		{"q4_k_m", 4.8944}, {"Q4_K_S", 4.6672}, {"q5_k_m", 5.7036}, {"q6_k", 6.5633}, {"q8_0", 8.5008},
		{"iq4_xs", 4.4597}, {"q4_0", 4.64}, {"q3_k_m", 4.00}, {"q4_k", 4.8944}, {"bf16", 16},
	};
	(void)state;
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", "--params", "8e9", "--dtype",
				      q[i].name, "--gpu-memory", "80GiB", NULL};
		json_t *j = run_json(argv, 0);
		double w = (double)json_integer_value(json_object_get(json_object_get(j, "breakdown"), "weights_bytes"));
		if (w < 8e9 * q[i].bits / 8 - 1 || w > 8e9 * q[i].bits / 8 + 1)
			fail_msg("%s: %.0f weight bytes, want %.4f bits per weight", q[i].name, w, q[i].bits);
		json_decref(j);
	}
	const char *bad[] = {CUDOCTOR_BINARY, "mem", "estimate", "--params", "8e9", "--dtype", "q4_k_z", NULL};
	struct run_result r;
	assert_int_equal(testlib_run(bad, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unknown dtype 'q4_k_z'"));
	run_result_free(&r);
}

static void bad_files_give_one_line(void **state)
{
	char path[4400], dir[4300];
	(void)state;
	/* a truncated copy of a real GGUF file */
	snprintf(dir, sizeof dir, "%s/bad", mem_fx_dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/truncated.gguf", dir);
	char src[4300];
	snprintf(src, sizeof src, "%s/llama_gqa.gguf", mem_fx_dir);
	FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
	char buf[3000];
	size_t n = fread(buf, 1, sizeof buf, in);
	fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
	const char *argv[] = {CUDOCTOR_BINARY, "mem", "estimate", path, NULL};
	struct run_result r;
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "truncated.gguf"));
	assert_non_null(strstr(r.err, "offset"));
	assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err)); /* one line */
	run_result_free(&r);

	snprintf(path, sizeof path, "%s/garbage.safetensors", dir);
	out = fopen(path, "wb");
	fputs("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": [1, 2, 3]}", out);
	fclose(out);
	argv[3] = path;
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "garbage.safetensors"));
	run_result_free(&r);

	/* a file that is no model at all (a log named by mistake), beside a config.json that is
	 * broken: what the file is not, not a safetensors header length nor the config's fault */
	snprintf(dir, sizeof dir, "%s/notmodel-%ld", mem_fx_dir, (long)getpid()); /* its own: the
	 * fixtures are shared by build/ and build-asan/ */
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/config.json", dir);
	out = fopen(path, "wb");
	fputs("[[[", out);
	fclose(out);
	snprintf(path, sizeof path, "%s/train.log", dir);
	out = fopen(path, "wb");
	fputs("RuntimeError: CUDA error: out of memory\n", out);
	fclose(out);
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "train.log: not a model file mem reads: a GGUF, a safetensors file"));
	run_result_free(&r);
	out = fopen(path, "wb");
	fclose(out);
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "train.log: an empty file, not a model file mem reads"));
	run_result_free(&r);
	unlink(path);
	snprintf(path, sizeof path, "%s/config.json", dir);
	unlink(path);
	rmdir(dir);
}

/* A config.json a Windows editor saved behind a UTF-8 byte order mark, or as UTF-16: read as
 * the config (it was "'[' or '{' expected") */
static void config_with_byte_order_mark(void **state)
{
	char src[4300], dir[4300], path[4400];
	struct run_result r;
	FILE *in, *out;
	int c;
	(void)state;
	snprintf(src, sizeof src, "%s/st_single/config.json", mem_fx_dir);
	snprintf(dir, sizeof dir, "%s/bom-%ld", mem_fx_dir, (long)getpid());
	mkdir(dir, 0755);
	for (int wide = 0; wide < 2; wide++) {
		snprintf(path, sizeof path, "%s/config.json", dir);
		assert_non_null(in = fopen(src, "rb"));
		assert_non_null(out = fopen(path, "wb"));
		fputs(wide ? "\xff\xfe" : "\xef\xbb\xbf", out);
		while ((c = fgetc(in)) != EOF) { /* the config is ASCII: a UTF-16 unit per byte */
			fputc(c, out);
			if (wide)
				fputc(0, out);
		}
		fclose(in);
		fclose(out);
		const char *argv[] = {CUDOCTOR_BINARY, "-q", "mem", "estimate", path, "--gpu", "H200", NULL};
		assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
		if (r.status != 0 || !strstr(r.out, ": fits"))
			fail_msg("%s: exit %d: %s%s", wide ? "UTF-16" : "UTF-8 mark", r.status, r.out, r.err);
		run_result_free(&r);
		unlink(path);
	}
	rmdir(dir);
}

static void usage_errors(void **state)
{
	(void)state;
	const char *const cases[][8] = {
		{CUDOCTOR_BINARY, "mem", "estimate", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "--params", "lots", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "--params", "7B", "--kv-dtype", "q9", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "--params", "7B", "--optimizer", "lion", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "--params", "7B", "--kv-heads", "0", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "--params", "7B", "--layers", "1e9", NULL},
		{CUDOCTOR_BINARY, "mem", "estimate", "model.gguf", "--layers", "32", NULL},
		{CUDOCTOR_BINARY, "mem", "frobnicate", NULL},
		{CUDOCTOR_BINARY, "mem", "probe", "--max", "1.5", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct run_result r;
		assert_int_equal(testlib_run(cases[i], no_gpu_env, NULL, &r), 0);
		if (r.status != 2)
			fail_msg("case %zu: exit %d, %s", i, r.status, r.err);
		run_result_free(&r);
	}
}

/* Why: "`mem estimate llama3:8b` (Ollama's name) -> No such file or directory". An Ollama
 * models folder laid out as `ollama pull` leaves it (manifests/registry.ollama.ai/library/
 * llama3/8b, a Docker v2 manifest whose model layer names blobs/sha256-<digest>; the layer
 * types of Ollama's server/internal/manifest), the GGUF fixture as the blob: the name reads
 * the blob, under OLLAMA_MODELS or ~/.ollama/models; a name Ollama does not have, or whose
 * blob is gone, says how to get it. */
static void mem_estimate_llama3_8b_says_no_such_file(void **state)
{
	char dir[] = "/tmp/cudoctor-ollama-XXXXXX", cmd[16384], models[128], home[128];
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "mem", "estimate", "llama3:8b", NULL };
	struct run_result r;
	json_t *j, *m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd,
		 "set -e; d='%s/.ollama/models'; g='%s/llama_gqa.gguf'; h=$(sha256sum \"$g\" | cut -d' ' -f1); "
		 "mkdir -p \"$d/blobs\" \"$d/manifests/registry.ollama.ai/library/llama3\"; cp \"$g\" \"$d/blobs/sha256-$h\"; "
		 "printf '{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
		 "\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\",\"digest\":\"sha256:%s\",\"size\":485},"
		 "\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"sha256:%%s\",\"size\":%%s},"
		 "{\"mediaType\":\"application/vnd.ollama.image.license\",\"digest\":\"sha256:%s\",\"size\":8433},"
		 "{\"mediaType\":\"application/vnd.ollama.image.template\",\"digest\":\"sha256:%s\",\"size\":254}]}' "
		 "\"$h\" $(stat -c %%s \"$g\") > \"$d/manifests/registry.ollama.ai/library/llama3/8b\"",
		 dir, mem_fx_dir, "3f8eb4da87fa7a3c9da615036b0dc418d31fef2a30b115ff33562588b32c691d",
		 "4fa551d4f938f68b8c1e6afa9d28befb70e3f33f75d0753248d530364aeea40f",
		 "8ab4849b038cf0abc5b1c9b8ee1443dca6b93a045c2272180d985126eb40bf6f");
	assert_int_equal(system(cmd), 0);

	/* under HOME, Ollama's default */
	snprintf(home, sizeof home, "HOME=%s", dir);
	{
		const char *env[] = { home, "OLLAMA_MODELS=", no_gpu_env[0], no_gpu_env[1], NULL };
		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	}
	if (r.status != 0)
		fail_msg("exit %d: %s", r.status, r.err);
	assert_non_null(j = json_loads(r.out, 0, NULL));
	m = json_object_get(j, "model");
	assert_string_equal(json_string_value(json_object_get(m, "format")), "gguf");
	assert_string_equal(json_string_value(json_object_get(m, "architecture")), "llama");
	assert_int_equal(json_integer_value(json_object_get(m, "parameters")), mem_exp_u("llama_gqa.gguf", "params"));
	assert_non_null(strstr(json_string_value(json_object_get(m, "note")), "Ollama's llama3:8b: "));
	json_decref(j);
	run_result_free(&r);

	/* OLLAMA_MODELS names the folder; a tag it lacks says how to get it */
	snprintf(models, sizeof models, "OLLAMA_MODELS=%s/.ollama/models", dir);
	{
		const char *env[] = { models, "HOME=/nonexistent", no_gpu_env[0], no_gpu_env[1], NULL };
		const char *argv70[] = { CUDOCTOR_BINARY, "mem", "estimate", "llama3:70b", NULL };
		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
		assert_int_equal(r.status, 0);
		run_result_free(&r);
		assert_int_equal(testlib_run(argv70, env, NULL, &r), 0);
		assert_int_equal(r.status, 3);
		assert_non_null(strstr(r.err, "Ollama has no model llama3:70b in"));
		assert_non_null(strstr(r.err, "`ollama pull llama3:70b` downloads it"));
		assert_int_equal(strchr(r.err, '\n') - r.err, (long)strlen(r.err) - 1); /* one line */
		run_result_free(&r);
	}
	/* the blob gone (an interrupted pull) */
	snprintf(cmd, sizeof cmd, "rm -f '%s'/.ollama/models/blobs/sha256-*", dir);
	assert_int_equal(system(cmd), 0);
	{
		const char *env[] = { models, no_gpu_env[0], no_gpu_env[1], NULL };
		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
		assert_int_equal(r.status, 3);
		assert_non_null(strstr(r.err, "which is not in"));
		assert_non_null(strstr(r.err, "ollama pull llama3:8b"));
		run_result_free(&r);
	}
	/* a file name that is no file stays the file's error */
	{
		const char *bad[] = { CUDOCTOR_BINARY, "mem", "estimate", "nosuch.gguf", NULL };
		const char *env[] = { models, no_gpu_env[0], no_gpu_env[1], NULL };
		assert_int_equal(testlib_run(bad, env, NULL, &r), 0);
		assert_int_equal(r.status, 3);
		assert_non_null(strstr(r.err, "nosuch.gguf: No such file or directory"));
		run_result_free(&r);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A config.json over the 16 MiB limit is named as too large, not as JSON cut short. */
static void config_over_the_limit_named(void **state)
{
	char dir[4300], path[4400];
	const char *argv[] = {CUDOCTOR_BINARY, "mem", "estimate", path, NULL};
	struct run_result r;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof dir, "%s/bigconfig-%ld", mem_fx_dir, (long)getpid());
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/config.json", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"hidden_size\": 4096, \"pad\": \"", f);
	for (int i = 0; i < 17 * 1024; i++)
		fprintf(f, "%01024d", 0);
	fputs("\"}\n", f);
	fclose(f);
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	assert_int_equal(r.status, 3);
	if (!strstr(r.err, "larger than 16 MiB"))
		fail_msg("not named as too large: %s", r.err);
	assert_null(strstr(r.err, "premature"));
	run_result_free(&r);
	unlink(path);
	rmdir(dir);
}

/* A tensor of a ggml type cudoctor does not know is named in the model's note, with the size
 * taken for it, rather than summed in silently (a gap of 0 bytes vanished). A GGUF v3 file
 * written here: an F32 tensor of 32 elements, then one of type 99. */
static void gguf_unknown_type_named(void **state)
{
	char path[4400];
	const char *argv[] = {CUDOCTOR_BINARY, "--json", "mem", "estimate", path, NULL};
	static const char *const names[] = { "blk.0.attn_q.weight", "blk.0.mystery.weight" };
	const uint32_t types[] = { 0, 99 };
	const uint64_t offsets[] = { 0, 128 };
	struct run_result r;
	FILE *f;
	long at;

	(void)state;
	snprintf(path, sizeof path, "%s/unknown-type-%ld.gguf", mem_fx_dir, (long)getpid());
	assert_non_null(f = fopen(path, "wb"));
	fwrite("GGUF", 1, 4, f);
	fwrite(&(uint32_t){ 3 }, 4, 1, f);
	fwrite(&(uint64_t){ 2 }, 8, 1, f); /* tensors */
	fwrite(&(uint64_t){ 0 }, 8, 1, f); /* metadata */
	for (int i = 0; i < 2; i++) {
		fwrite(&(uint64_t){ strlen(names[i]) }, 8, 1, f);
		fwrite(names[i], 1, strlen(names[i]), f);
		fwrite(&(uint32_t){ 1 }, 4, 1, f);
		fwrite(&(uint64_t){ 32 }, 8, 1, f);
		fwrite(&types[i], 4, 1, f);
		fwrite(&offsets[i], 8, 1, f);
	}
	at = ftell(f);
	for (long pad = (32 - at % 32) % 32 + 256; pad > 0; pad--)
		fputc(0, f);
	fclose(f);
	assert_int_equal(testlib_run(argv, no_gpu_env, NULL, &r), 0);
	if (!strstr(r.out, "blk.0.mystery.weight' has ggml type 99"))
		fail_msg("the unknown type is not named:\n%s\n%s", r.out, r.err);
	run_result_free(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(estimate_json_contract),
		cmocka_unit_test(does_not_fit_names_fixes),
		cmocka_unit_test(gpu_spec_and_gpus_here),
		cmocka_unit_test(training_shows_the_rule_of_thumb),
		cmocka_unit_test(bad_files_give_one_line),
		cmocka_unit_test(quiet_answers_per_gpu),
		cmocka_unit_test(unknown_kv_is_not_a_fit),
		cmocka_unit_test(context_k_and_trained_length),
		cmocka_unit_test(shape_options_match_config),
		cmocka_unit_test(training_names_the_peak_phase),
		cmocka_unit_test(gguf_quant_names),
		cmocka_unit_test(config_with_byte_order_mark),
		cmocka_unit_test(config_over_the_limit_named),
		cmocka_unit_test(gguf_unknown_type_named),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(mem_estimate_llama3_8b_says_no_such_file),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
