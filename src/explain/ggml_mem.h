/* llama.cpp's (ggml's) memory lines, as Ollama and llama.cpp print them while a model loads: per
 * CUDA device the VRAM and what was free, the buffers allocated on it, the context size; and
 * the cudaMalloc that failed, into the numbers of facts/oom.h (rules/oom.h judges them). */
#ifndef CUDOCTOR_EXPLAIN_GGML_MEM_H
#define CUDOCTOR_EXPLAIN_GGML_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/oom_text.h"

#define GGML_MEM_DEVICES 16

/* What the log said so far, per device (MiB; 0 where it said nothing). */
struct ggml_mem {
	double vram[GGML_MEM_DEVICES];      /* "Device 0: ..., VRAM: 11172 MiB", "CUDA0: NAME (7805 MiB, ..." */
	double free_load[GGML_MEM_DEVICES]; /* "using device CUDA0 (...) - 7546 MiB free" */
	double buffers[GGML_MEM_DEVICES];   /* "CUDA0 model buffer size = 4168.09 MiB", KV and compute
					     * buffers: allocated since the last load began */
	long n_ctx;                         /* "n_ctx = 65536", "--ctx-size 8192"; 0 unknown */
	/* Ollama's plan: msg="offload to cuda" layers.model=33 layers.offload=33
	 * memory.available="[23.0 GiB]" memory.required.full="6.2 GiB" */
	int layers_model, layers_offload;   /* 0 unknown */
	double avail_gib[GGML_MEM_DEVICES]; /* memory.available, per GPU in order */
	double required_full_gib;           /* all layers on the GPU */
};

void ggml_mem_init(struct ggml_mem *g);
/* One line that holds one of the anchors (len bytes, no newline). */
void ggml_mem_line(struct ggml_mem *g, const char *s, size_t len);
size_t ggml_mem_anchor_count(void);
const char *ggml_mem_anchor(size_t i); /* compared ignoring ASCII case */
/* Ollama's plan as evidence ("Ollama planned 33 of 33 layers on the GPU: ..."); false when the
 * log had none. */
bool ggml_mem_plan(const struct ggml_mem *g, char *out, size_t n);
/* The failing line "allocating 4507.00 MiB on device 0: cudaMalloc failed": the request and
 * what g knows of that device, as an OOM of form OOM_FORM_GGML. false when the line has no
 * request. */
bool ggml_mem_oom(const struct ggml_mem *g, const char *s, size_t len, struct oom_message *out);

#endif
