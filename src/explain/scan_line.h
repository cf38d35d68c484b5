/* One line of the text as explain's matcher and extractors see it (internal to src/explain). */
#ifndef CUDOCTOR_EXPLAIN_SCAN_LINE_H
#define CUDOCTOR_EXPLAIN_SCAN_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"

/* A line longer than this is scanned in pieces of this size (a log without newlines). */
#define SCAN_CHUNK 4096

struct line {
	const char *s;          /* original text, len bytes, no newline */
	size_t len;
	char low[SCAN_CHUNK + 1]; /* ASCII-lowercased copy, NUL-terminated (NUL bytes as spaces) */
	size_t offset;          /* in the whole stream */
	size_t no;              /* 1-based line number */
	bool has_cuda;          /* "cuda" outside a path: short strings and numbers count only then */
	enum explain_region region; /* the log region the line is in (context.h) */
};

/* Offset of needle (compared ignoring ASCII case) in the line, or -1. */
long line_find(const struct line *l, const char *needle);

/* ---- extractors (extract.c): what a recognised line says beyond its finding ---- */
void ex_torch_cc(struct explain_match *m, const struct line *l);   /* "X with CUDA capability sm_86 ..." */
bool ex_supported(struct explain_match *m, const struct line *l);  /* "supports CUDA capabilities sm_50 ..." */
bool ex_cc_old(struct explain_match *m, const struct line *l);     /* "Found GPU0 X which is of cuda capability 2.1" */
void ex_xid(struct explain_match *m, const struct line *l);        /* "Xid (PCI:...): 79", "Xid 31" */
void ex_path(struct explain_match *m, const struct line *l);       /* the first absolute .so path */
void ex_driver_found(struct explain_match *m, const struct line *l); /* "(found version 11040)" */
void ex_lib_versions(struct explain_match *m, const struct line *l); /* "Loaded ... X but ... compiled with: Y" */
void ex_gpu_cc(struct explain_match *m, const struct line *l);     /* "Your Tesla T4 GPU has compute capability 7.5" */
void ex_block(struct explain_match *m, const struct line *l);      /* "Block [512x1x1]" */
int ex_block_threads(const struct line *l);                        /* the same, or 0 */
/* A loader error's library: fills lib (the soname) and returns the finding it implies for
 * base (the message row's), or NULL when the library is not CUDA's or is an optional plugin. */
const char *ex_loader(const struct line *l, const char *base, char *lib, size_t n);
/* Whether a loader error's DLL (lib) is PyTorch's own or lies in its torch\\lib folder. */
bool ex_torch_dll(const struct line *l, const char *lib);
/* vLLM's "model weights take 5.20GiB; non_torch_memory takes 0.03GiB; PyTorch activation peak
 * memory takes 1.42GiB; the rest of the memory reserved for KV Cache is -1.05GiB." */
void ex_vllm_budget(struct explain_match *m, const struct line *l);
/* Ollama's "gpu VRAM usage didn't recover within timeout" seconds=5.03 runner.vram="3.3 GiB" */
void ex_ollama_vram(struct explain_match *m, const struct line *l);
/* Ollama's "model requires more system memory (164.8 GiB) than is available (13.4 GiB)": the
 * two sizes, in bytes, into m->host_need and m->host_avail. */
void ex_host_mem(struct explain_match *m, const struct line *l);
bool ex_arch_at(const char *p, const char *end, struct kb_arch *a); /* "sm_86" / "compute_120a" / "8.6" */

#endif
