/* The regions of a log and the Windows decision (src/explain/context.c), and what explain
 * makes of them: numbers read only where the region gives them meaning, fixes in Windows'
 * form, a cause folding its consequence. The corpus (tests/explain/778-839) holds the real
 * texts; these are the edges of each rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "explain/context.h"
#include "explain/evidence.h"
#include "explain/explain.h"
#include "explain/ggml_mem.h"
#include "explain/tgi_mem.h"
#include "util/err.h"

static void region_lasts_then_ends(void **state)
{
	(void)state;
	assert_int_equal(explain_region_at(REGION_BUILD, 0, 5), REGION_RUN); /* no marker yet */
	assert_int_equal(explain_region_at(REGION_BUILD, 10, 10), REGION_BUILD);
	assert_int_equal(explain_region_at(REGION_BUILD, 10, 10 + REGION_LINES), REGION_BUILD);
	assert_int_equal(explain_region_at(REGION_BUILD, 10, 11 + REGION_LINES), REGION_RUN);
	assert_string_equal(explain_region_name(REGION_CONTAINER), "container");
	assert_string_equal(explain_region_name(REGION_COUNT), "run");
}

static void numbers_only_in_a_run(void **state)
{
	(void)state;
	assert_true(explain_numbers_readable(REGION_RUN, "cuda error 2 at main.cu:10"));
	assert_true(explain_numbers_readable(REGION_KERNEL, "cuda error 2"));
	assert_false(explain_numbers_readable(REGION_BUILD, "cuda error 2"));
	assert_false(explain_numbers_readable(REGION_INSTALL, "cuda error 2"));
	assert_false(explain_numbers_readable(REGION_CONTAINER, "cuda error 2"));
	/* a build tool's own failure line, in any region */
	assert_false(explain_numbers_readable(REGION_RUN, "failed: build/temp/ops.cuda.o"));
	assert_false(explain_numbers_readable(REGION_RUN, "make[2]: *** [cuda/k.cu.o] error 1"));
	assert_false(explain_numbers_readable(REGION_RUN, "nvcc.exe' failed with exit code 1"));
}

/* every marker is lower-case: the automaton matches lower-cased lines */
static void markers_are_lower_case(void **state)
{
	size_t n, nw;
	const struct region_marker *m = explain_region_markers(&n);
	const char *const *w = explain_windows_markers(&nw);

	(void)state;
	assert_true(n > 10 && nw > 3);
	for (size_t i = 0; i < n; i++) {
		for (const char *p = m[i].text; *p; p++)
			assert_false(*p >= 'A' && *p <= 'Z');
		assert_true(m[i].region < REGION_COUNT);
	}
	for (size_t i = 0; i < nw; i++)
		for (const char *p = w[i]; *p; p++)
			assert_false(*p >= 'A' && *p <= 'Z');
}

static size_t findings(const char *text, struct explain_result *r)
{
	char err[CD_ERRMSG];

	assert_int_equal(explain_text(text, strlen(text), r, err), CD_OK);
	return r->n;
}

static void build_log_numbers_are_not_errors(void **state)
{
	struct explain_result r;
	/* the same "CUDA error 2" after a build's failure and in a program's run */
	const char *build = "[1/2] /usr/local/cuda/bin/nvcc -c ops.cu -o build/ops.cuda.o\n"
			    "FAILED: build/ops.cuda.o\n"
			    "CUDA error 2 in ops.cu\n"
			    "ninja: build stopped: subcommand failed.\n";
	const char *run = "CUDA error 2 in ops.cu\n";
	char late[4096];
	size_t used = (size_t)snprintf(late, sizeof(late), "ninja: build stopped: subcommand failed.\n");

	(void)state;
	assert_int_equal(findings(build, &r), 0);
	explain_result_free(&r);
	assert_int_equal(findings(run, &r), 1);
	assert_string_equal(r.m[0].finding, "out-of-memory");
	assert_int_equal(r.m[0].region, REGION_RUN);
	explain_result_free(&r);
	/* past the build region's lines, the program's run is read again */
	for (int i = 0; i < REGION_LINES + 1; i++)
		used += (size_t)snprintf(late + used, sizeof(late) - used, "python train.py\n");
	snprintf(late + used, sizeof(late) - used, "CUDA error 2 in ops.cu\n");
	assert_int_equal(findings(late, &r), 1);
	explain_result_free(&r);
}

static void build_findings_keep_their_region(void **state)
{
	struct explain_result r;

	(void)state;
	assert_int_equal(findings("  File \"setup.py\", line 24, in <module>\n"
				  "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA "
				  "install root.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "toolkit-not-found");
	assert_int_equal(r.m[0].region, REGION_BUILD);
	explain_result_free(&r);
}

static void windows_is_decided_once(void **state)
{
	struct explain_result r;

	(void)state;
	assert_int_equal(findings("OSError: [WinError 1455] The paging file is too small for this operation to "
				  "complete. Error loading \"C:\\Users\\a\\torch\\lib\\cudnn_adv_infer64_8.dll\"\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "windows-pagefile-too-small");
	assert_true(r.m[0].windows);
	explain_result_free(&r);
	assert_int_equal(findings("OSError: libcudart.so.12: cannot open shared object file\n", &r), 1);
	assert_false(r.m[0].windows);
	explain_result_free(&r);
	/* a Windows marker anywhere in the text makes every finding's fix Windows' */
	assert_int_equal(findings("  File \"C:\\Program Files\\app\\run.py\", line 3\n"
				  "OSError: libcudart.so.12: cannot open shared object file\n",
				  &r),
			 1);
	assert_true(r.m[0].windows);
	explain_result_free(&r);
}

/* the one decision: a Windows marker unless WSL2 says Linux; a Linux marker alone; else here */
static void windows_from_the_text_then_here(void **state)
{
	struct explain_result r;

	(void)state;
	assert_true(explain_text_is_windows(true, false, false));
	assert_true(explain_text_is_windows(true, true, false));
	assert_false(explain_text_is_windows(true, false, true));
	assert_false(explain_text_is_windows(false, true, false));
#ifdef _WIN32
	assert_true(explain_text_is_windows(false, false, false));
#else
	assert_false(explain_text_is_windows(false, false, false));
#endif
	assert_int_equal(findings("PS C:\\> python -c \"import torch\"\nAssertionError: Torch not compiled with CUDA enabled\n",
				  &r),
			 1);
	assert_true(r.m[0].windows);
	assert_false(r.m[0].embedded_python);
	explain_result_free(&r);
	/* WSL2's texts show Windows paths and run Linux's tools */
	assert_int_equal(findings("/mnt/c/Users/a$ python t.py  (WSL2, C:\\Users\\a)\n"
				  "OSError: libcudart.so.12: cannot open shared object file\n",
				  &r),
			 1);
	assert_false(r.m[0].windows);
	explain_result_free(&r);
	/* ComfyUI portable: Windows, and its own Python */
	assert_int_equal(findings("I:\\ComfyUI>.\\python_embeded\\python.exe -s ComfyUI\\main.py\n"
				  "AssertionError: Torch not compiled with CUDA enabled\n",
				  &r),
			 1);
	assert_true(r.m[0].windows);
	assert_true(r.m[0].embedded_python);
	assert_string_equal(explain_pip_command(r.m[0].windows, r.m[0].embedded_python),
			    "python_embeded\\python.exe -m pip");
	explain_result_free(&r);
	assert_string_equal(explain_pip_command(true, false), "python -m pip");
	assert_string_equal(explain_pip_command(false, false), "pip");
}

/* a WinError's number, in any language, names the DLL; a DLL that is not CUDA's gives nothing */
static void windows_dll_loading(void **state)
{
	struct explain_result r;

	(void)state;
	assert_int_equal(findings("OSError: [WinError 126] 找不到指定的模块。 Error loading \"D:\\py\\lib\\site-packages\\torch"
				  "\\lib\\cudnn_cnn_infer64_8.dll\" or one of its dependencies.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "library-missing");
	assert_string_equal(r.m[0].library, "cudnn_cnn_infer64_8.dll");
	assert_true(r.m[0].torch_dll);
	explain_result_free(&r);
	assert_int_equal(findings("OSError: [WinError 127] La procédure spécifiée est introuvable. Error loading "
				  "\"E:\\v\\nvidia\\cudnn\\bin\\cudnn_cnn64_9.dll\" or one of its dependencies.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "library-version-mismatch");
	assert_false(r.m[0].torch_dll);
	explain_result_free(&r);
	assert_int_equal(findings("OSError: [WinError 127] The specified procedure could not be found. Error loading "
				  "\"C:\\x\\nvcuda.dll\"\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "runtime-newer-than-driver");
	explain_result_free(&r);
	assert_int_equal(findings("OSError: [WinError 126] The specified module could not be found. Error loading "
				  "\"C:\\x\\torch\\lib\\c10.dll\" or one of its dependencies.\n",
				  &r),
			 0);
	explain_result_free(&r);
	assert_int_equal(findings("ImportError: DLL load failed while importing _C: Die angegebene Prozedur wurde nicht "
				  "gefunden.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "library-version-mismatch");
	explain_result_free(&r);
	/* TensorFlow's pinned host pool is not the GPU's */
	assert_int_equal(findings("W bfc_allocator.cc:273] Allocator (gpu_host_bfc) ran out of memory trying to "
				  "allocate 3.72GiB.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "host-pinned-memory-exhausted");
	explain_result_free(&r);
}

/* vLLM's profile line: the budget is the sum of what it lists, the KV cache what is left */
static void vllm_budget_arithmetic(void **state)
{
	struct explain_result r;
	char ev[8][EXPLAIN_EVIDENCE_LINE];
	size_t n;

	(void)state;
	assert_int_equal(findings("INFO worker.py:267] model weights take 5.20GiB; non_torch_memory takes 0.03GiB; "
				  "PyTorch activation peak memory takes 1.42GiB; the rest of the memory reserved for KV "
				  "Cache is -1.05GiB.\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "oom-capacity");
	assert_true(r.m[0].has_vllm);
	n = explain_offline_evidence(&r.m[0], ev, 8);
	assert_int_equal(n, 1);
	assert_non_null(strstr(ev[0], "is 5.60 GiB: model weights 5.20 + non-torch 0.03 + activation peak 1.42 = 6.65 GiB, "
				      "leaving -1.05 GiB"));
	assert_non_null(strstr(ev[0], "alone exceed the budget"));
	explain_result_free(&r);
	/* a line that lacks one of the four numbers gives the finding without the sum */
	assert_int_equal(findings("model weights take 5.20GiB; the rest of the memory reserved for KV Cache is -1.05GiB.\n",
				  &r),
			 1);
	assert_false(r.m[0].has_vllm);
	explain_result_free(&r);
	assert_int_equal(findings("INFO gpu_worker.py] Available KV cache memory: -2.31 GiB\n", &r), 1);
	assert_string_equal(r.m[0].finding, "oom-capacity");
	explain_result_free(&r);
}

/* Ollama's host-memory check (https://github.com/ollama/ollama/issues/10920 and
 * https://github.com/continuedev/continue/issues/11715): the two sizes and the shortfall */
static void host_memory_arithmetic(void **state)
{
	struct explain_result r;
	char ev[8][EXPLAIN_EVIDENCE_LINE];
	size_t n;

	(void)state;
	assert_int_equal(findings("Error: model requires more system memory (164.8 GiB) than is available (13.4 GiB)\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "host-memory-insufficient");
	assert_true(r.m[0].has_host_mem);
	n = explain_offline_evidence(&r.m[0], ev, 8);
	assert_int_equal(n, 1);
	assert_non_null(strstr(ev[0], "needs 164.8 GiB of system memory"));
	assert_non_null(strstr(ev[0], "13.4 GiB is available: 151.4 GiB short (12.3x what is available)"));
	explain_result_free(&r);
	/* MiB, inside a JSON error of a client */
	assert_int_equal(findings("\"model requires more system memory (5.0 GiB) than is available (3.9 GiB)\"\n", &r), 1);
	assert_true(r.m[0].has_host_mem);
	n = explain_offline_evidence(&r.m[0], ev, 8);
	assert_non_null(strstr(ev[0], "5.0 GiB of system memory"));
	assert_non_null(strstr(ev[0], "1.1 GiB short"));
	explain_result_free(&r);
	/* a line without the numbers gives the finding without the arithmetic */
	assert_int_equal(findings("Error: model requires more system memory than is available\n", &r), 1);
	assert_string_equal(r.m[0].finding, "host-memory-insufficient");
	assert_false(r.m[0].has_host_mem);
	explain_result_free(&r);
}

/* llama.cpp's memory lines, each in the form a public report printed it */
static void ggml_memory_lines(void **state)
{
	struct ggml_mem g;
	struct explain_result r;
	char ev[8][EXPLAIN_EVIDENCE_LINE];
	static const char *const lines[] = {
		/* https://github.com/ggml-org/llama.cpp/pull/20184 */
		"  CUDA0: NVIDIA GeForce RTX 4070 Laptop GPU (7805 MiB, 7546 MiB free)",
		"llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4070 Laptop GPU) "
		"(0000:01:00.0) - 7546 MiB free",
		/* https://github.com/canonical/inference-snaps/issues/255 */
		"  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes, VRAM: 11172 MiB",
		/* https://github.com/canonical/inference-snaps/issues/107 */
		"2025-10-10T15:56:09+02:00 deepseek-r1.server[213782]: load_tensors:        CUDA0 model buffer "
		"size =  4168.09 MiB",
		"2025-10-10T15:56:09+02:00 deepseek-r1.server[213782]: load_tensors:   CPU_Mapped model buffer "
		"size =   292.36 MiB",
		"2025-10-10T15:56:10+02:00 deepseek-r1.server[213782]: llama_context: n_ctx         = 4096",
		/* https://github.com/ollama/ollama/issues/6860: the host's buffer is not the GPU's */
		"llama_new_context_with_model:  CUDA_Host  output buffer size =     0.49 MiB",
	};

	(void)state;
	ggml_mem_init(&g);
	for (size_t i = 0; i < 2; i++)
		ggml_mem_line(&g, lines[i], strlen(lines[i]));
	assert_true(g.vram[0] == 7805 && g.free_load[0] == 7546);
	ggml_mem_line(&g, lines[2], strlen(lines[2]));
	assert_true(g.vram[0] == 11172);
	for (size_t i = 3; i < sizeof(lines) / sizeof(lines[0]); i++)
		ggml_mem_line(&g, lines[i], strlen(lines[i]));
	assert_true(g.buffers[0] > 4168.08 && g.buffers[0] < 4168.10);
	assert_int_equal(g.n_ctx, 4096);
	/* Ollama's plan (https://github.com/ollama/ollama/issues/5573) */
	static const char plan[] = "time=2024-07-09T13:56:46.484Z level=INFO source=memory.go:309 msg=\"offload to cuda\" "
				   "layers.requested=-1 layers.model=33 layers.offload=33 layers.split=\"\" "
				   "memory.available=\"[23.0 GiB]\" memory.required.full=\"6.2 GiB\" "
				   "memory.required.partial=\"6.2 GiB\" memory.required.kv=\"1.0 GiB\"";
	char words[320];

	assert_false(ggml_mem_plan(&g, words, sizeof(words)));
	ggml_mem_line(&g, plan, strlen(plan));
	assert_int_equal(g.layers_model, 33);
	assert_int_equal(g.layers_offload, 33);
	assert_true(g.avail_gib[0] == 23.0 && g.avail_gib[1] == 0 && g.required_full_gib == 6.2);
	assert_true(ggml_mem_plan(&g, words, sizeof(words)));
	assert_non_null(strstr(words, "Ollama planned 33 of 33 layers on the GPU: it estimated 6.2 GiB for all of them, "
				      "23.0 GiB available on the first GPU: by its estimate the model fit"));

	/* https://github.com/ollama/ollama/issues/4225: a 65536-token context's compute buffer */
	assert_int_equal(findings("llama_new_context_with_model: n_ctx      = 65536\n"
				  "llama_kv_cache_init:  CUDA_Host KV buffer size =  8192.00 MiB\n"
				  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4507.00 MiB on device 0: "
				  "cudaMalloc failed: out of memory\n"
				  "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 4725934080\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "out-of-memory");
	assert_true(r.m[0].has_oom);
	assert_int_equal(r.m[0].oom.gpu, 0);
	assert_true(r.m[0].oom.n.requested == 4507.0 * 1024 * 1024);
	assert_false(r.m[0].oom.n.have & OOM_HAVE_THIS_PROCESS); /* the KV cache is on the host */
	assert_int_equal(r.m[0].ggml_ctx, 65536);
	assert_int_equal(explain_offline_evidence(&r.m[0], ev, 8), 1);
	assert_non_null(strstr(ev[0], "the context is 65536 tokens (n_ctx)"));
	explain_result_free(&r);
	/* https://github.com/ikawrakow/ik_llama.cpp/issues/749: the KV cache on CUDA0 before the request */
	assert_int_equal(findings("llama_kv_cache_init:      CUDA0 KV buffer size =   379.23 MiB\n"
				  "llama_kv_cache_init:      CUDA1 KV buffer size =    82.44 MiB\n"
				  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 279356.51 MiB on device 0: "
				  "cudaMalloc failed: out of memory\n",
				  &r),
			 1);
	assert_true(r.m[0].oom.n.have & OOM_HAVE_THIS_PROCESS);
	assert_true(r.m[0].oom.n.this_process == 379.23 * 1024 * 1024);
	explain_result_free(&r);
}

/* TGI's budgets and its warmup failure, each line as a public report printed it */
static void tgi_budget_arithmetic(void **state)
{
	struct tgi_mem t;
	struct tgi_oom o;
	struct explain_result r;
	char ev[8][EXPLAIN_EVIDENCE_LINE];
	/* https://github.com/huggingface/text-generation-inference/issues/710 */
	static const char args[] = "{ model_id: \"/opt/ml/model\", num_shard: Some(8), max_input_length: 3072, "
				   "max_total_tokens: 4096, waiting_served_ratio: 1.2, max_batch_prefill_tokens: 4096, "
				   "max_batch_total_tokens: 16000, max_waiting_tokens: 20 }";
	static const char total[] = "Not enough memory to handle 16000 total tokens with 2 prefill tokens. You need "
				    "to decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`";
	/* https://github.com/huggingface/text-generation-inference/issues/755 */
	static const char prefill[] = "Error: Warmup(Generation(\"Not enough memory to handle 4096 prefill tokens. You "
				      "need to decrease `--max-batch-prefill-tokens`\"))";

	(void)state;
	tgi_mem_init(&t);
	tgi_mem_line(&t, args, strlen(args));
	assert_int_equal(t.max_input, 3072);
	assert_int_equal(t.max_total, 4096);
	assert_int_equal(t.max_prefill, 4096);
	assert_int_equal(t.max_batch_total, 16000);
	/* the KV cache's budget: halved, 16000 / 4096 requests at once */
	assert_true(tgi_mem_oom(&t, total, strlen(total), &o));
	assert_int_equal(o.total, 16000);
	assert_int_equal(o.prefill, 2);
	assert_int_equal(o.total_next, 8000);
	assert_int_equal(o.prefill_next, 0);
	assert_int_equal(tgi_mem_evidence(&o, ev[0], EXPLAIN_EVIDENCE_LINE, 8), 2);
	assert_non_null(strstr(ev[1], "16000 / 4096 (--max-total-tokens, one request) = room for 3.9 full requests"));
	/* the prefill's budget: halved, but one prompt (3072) must still fit one prefill */
	assert_true(tgi_mem_oom(&t, prefill, strlen(prefill), &o));
	assert_int_equal(o.prefill, 4096);
	assert_int_equal(o.total, 0);
	assert_int_equal(o.prefill_next, 3072);
	assert_int_equal(tgi_mem_evidence(&o, ev[0], EXPLAIN_EVIDENCE_LINE, 8), 2);
	assert_non_null(strstr(ev[1], "at most 3072 tokens (--max-input-tokens)"));
	assert_non_null(strstr(ev[1], "can go down to that"));
	/* at the floor already: nothing left to halve */
	t.max_input = 4096;
	assert_true(tgi_mem_oom(&t, prefill, strlen(prefill), &o));
	assert_int_equal(o.prefill_next, 0);
	/* without the Args line, half of what failed */
	tgi_mem_init(&t);
	assert_true(tgi_mem_oom(&t, prefill, strlen(prefill), &o));
	assert_int_equal(o.prefill_next, 2048);
	/* newer Args ("Some(N)", "None"), a key inside a longer one, the warmup span, the fraction */
	tgi_mem_init(&t);
	static const char newer[] = "max_input_tokens: Some(6800), max_total_tokens: None, max_batch_prefill_tokens: "
				    "Some(7000), max_batch_total_tokens: None, cuda_memory_fraction: 0.9";
	tgi_mem_line(&t, newer, strlen(newer));
	assert_int_equal(t.max_input, 6800);
	assert_int_equal(t.max_total, 0);
	assert_int_equal(t.max_prefill, 7000);
	assert_true(t.mem_fraction > 0.89 && t.mem_fraction < 0.91);
	/* https://github.com/huggingface/text-generation-inference/issues/1164 */
	static const char span[] = "ERROR warmup{max_input_length=64 max_prefill_tokens=256}:warmup: text_generation_client";
	tgi_mem_line(&t, span, strlen(span));
	assert_int_equal(t.max_input, 64);
	assert_int_equal(t.max_prefill, 256);
	/* no numbers: no budget, no failure */
	assert_false(tgi_mem_oom(&t, "Not enough memory to handle", 27, &o));
	assert_false(tgi_mem_oom(&t, "prefill tokens", 14, &o));

	/* through explain: the message is oom-capacity, the budgets before it are its evidence */
	static const char log[] = "{ max_input_length: 3072, max_total_tokens: 4096, max_batch_prefill_tokens: 4096, "
				  "max_batch_total_tokens: 16000 }\n"
				  "Not enough memory to handle 16000 total tokens with 2 prefill tokens. You need to "
				  "decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`\n";
	assert_int_equal(findings(log, &r), 1);
	assert_string_equal(r.m[0].finding, "oom-capacity");
	assert_true(r.m[0].has_tgi);
	assert_int_equal(r.m[0].tgi.total_next, 8000);
	assert_int_equal(explain_offline_evidence(&r.m[0], ev, 8), 2);
	explain_result_free(&r);
}

/* Ollama's scheduler warning: the seconds it waited and the runner's memory */
static void ollama_vram_recovery(void **state)
{
	struct explain_result r;
	char ev[8][EXPLAIN_EVIDENCE_LINE];

	(void)state;
	/* https://github.com/ollama/ollama/issues/7941 */
	assert_int_equal(findings("Dec  5 10:34:30 localhost ollama: time=2024-12-05T10:34:30.066+08:00 level=WARN "
				  "source=sched.go:646 msg=\"gpu VRAM usage didn't recover within timeout\" "
				  "seconds=5.032960268 model=/data/ollama/models/blobs/sha256-667b\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "ollama-vram-not-recovered");
	assert_true(r.m[0].has_vram_wait);
	assert_true(r.m[0].vram_wait_s > 5.03 && r.m[0].vram_wait_s < 5.04);
	assert_true(r.m[0].vram_gib == 0);
	assert_int_equal(explain_offline_evidence(&r.m[0], ev, 8), 1);
	assert_non_null(strstr(ev[0], "Ollama waited 5.0 s after a runner exited"));
	explain_result_free(&r);
	/* the runner's memory, where the line names it */
	assert_int_equal(findings("level=WARN source=sched.go:647 msg=\"gpu VRAM usage didn't recover within timeout\" "
				  "seconds=5.26432203 runner.size=\"3.3 GiB\" runner.vram=\"3.1 GiB\"\n",
				  &r),
			 1);
	assert_true(r.m[0].vram_gib > 3.09 && r.m[0].vram_gib < 3.11);
	assert_int_equal(explain_offline_evidence(&r.m[0], ev, 8), 1);
	assert_non_null(strstr(ev[0], "(the 3.1 GiB its runner held)"));
	explain_result_free(&r);
	/* the words alone (https://github.com/ollama/ollama/issues/4427): the finding, no numbers */
	assert_int_equal(findings("in the server.log have this msg `gpu VRAM usage didn't recover within timeout`\n", &r), 1);
	assert_false(r.m[0].has_vram_wait);
	explain_result_free(&r);
}

static void cause_folds_its_consequence(void **state)
{
	struct explain_result r;

	(void)state;
	assert_int_equal(findings("Display driver stopped responding and has recovered\n"
				  "CUDA error: unknown error\n",
				  &r),
			 1);
	assert_string_equal(r.m[0].finding, "launch-timeout");
	assert_int_equal(r.m[0].n_lines, 2); /* the 999 line is the timeout's evidence */
	explain_result_free(&r);
	assert_int_equal(findings("CUDA error: unknown error\n", &r), 1);
	assert_string_equal(r.m[0].finding, "unknown-error");
	explain_result_free(&r);
}

/* the OOM wordings of each framework: classified where the numbers decide, generic where none */
static void oom_wordings(void **state)
{
	static const struct {
		const char *text, *finding;
	} cases[] = {
		{ "ResourceExhaustedError: OOM when allocating tensor with shape[128,128,109,109] and type float on "
		  "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc\n",
		  "out-of-memory" },
		/* TF's OOM on the CPU is host memory */
		{ "ResourceExhaustedError: OOM when allocating tensor with shape[100,4096,32] on "
		  "/job:localhost/replica:0/task:0/device:CPU:0\n",
		  NULL },
		{ "W external/xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory "
		  "trying to allocate 1.25TiB (rounded to 1374521760000)requested by op\n",
		  "out-of-memory" },
		{ "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
		  "allocate 7406166528 bytes.\n",
		  "oom-capacity" },
		{ "- **Exception Type:** torch.OutOfMemoryError\n- **Exception Message:** Allocation on device\n",
		  "out-of-memory" },
		{ "!!! Exception during processing !!! Allocation on device\n", "out-of-memory" },
		/* Java's heap is not a GPU's */
		{ "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n", NULL },
	};
	struct explain_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = findings(cases[i].text, &r);

		if (!cases[i].finding) {
			assert_int_equal(n, 0);
		} else {
			assert_int_equal(n, 1);
			assert_string_equal(r.m[0].finding, cases[i].finding);
		}
		explain_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(region_lasts_then_ends),
		cmocka_unit_test(numbers_only_in_a_run),
		cmocka_unit_test(markers_are_lower_case),
		cmocka_unit_test(build_log_numbers_are_not_errors),
		cmocka_unit_test(build_findings_keep_their_region),
		cmocka_unit_test(windows_is_decided_once),
		cmocka_unit_test(windows_from_the_text_then_here),
		cmocka_unit_test(windows_dll_loading),
		cmocka_unit_test(vllm_budget_arithmetic),
		cmocka_unit_test(host_memory_arithmetic),
		cmocka_unit_test(ggml_memory_lines),
		cmocka_unit_test(tgi_budget_arithmetic),
		cmocka_unit_test(ollama_vram_recovery),
		cmocka_unit_test(cause_folds_its_consequence),
		cmocka_unit_test(oom_wordings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
