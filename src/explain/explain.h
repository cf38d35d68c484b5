/* Recognising CUDA errors in pasted text or a whole log: catalogue strings (of every release),
 * names of every CUDA library's status codes and numbers in a CUDA context, loader errors, and
 * the framework/tool messages of kb/messages.tsv. One pass, fed in pieces of any size. Pure:
 * text in, matches out; no I/O. */
#ifndef CUDOCTOR_EXPLAIN_H
#define CUDOCTOR_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/textfacts.h"
#include "kb/kb.h"
#include "explain/context.h"
#include "explain/eras.h"
#include "explain/nccl_log.h"
#include "explain/oom_text.h"
#include "explain/text_platform.h"
#include "explain/tgi_mem.h"

#define EXPLAIN_LINE_MAX 320   /* characters of a matched line kept as evidence */
#define EXPLAIN_MAX_LINES 4    /* distinct matched lines kept per finding */

enum explain_via { VIA_STRING, VIA_NAME, VIA_NUMBER, VIA_MESSAGE, VIA_PHRASE /* a short phrase named it */ };

struct explain_match {
	const char *finding;                 /* finding id (kb/findings.tsv) */
	enum explain_via via;                /* how the first hit was recognised */
	char lines[EXPLAIN_MAX_LINES][EXPLAIN_LINE_MAX]; /* matched lines, trimmed */
	size_t n_lines;
	size_t offset;                       /* of the first matched line in the text */
	size_t count;                        /* lines with a hit folded into this match */
	size_t last_offset;                  /* of the last line counted */
	size_t line, last_line;              /* 1-based numbers of the first and the last */
	char last[EXPLAIN_LINE_MAX];         /* the last matched line, trimmed */
	const struct kb_error *error;        /* catalogue entry, when a code was recognised */
	const struct kb_message *message;    /* message pattern, when one matched */
	int code_seen;                       /* a number printed beside a known string that
					      * is its pre-10.1 number (old numbering), else -1 */
	struct era_reading era;              /* how the number was read across CUDA 10.1's renumbering */
	/* what the text said, when it said it */
	struct kb_arch arch;                 /* GPU or requested arch (sm_86, compute_120) */
	bool has_arch;
	char gpu_name[96];                   /* "NVIDIA GeForce RTX 3090" */
	struct kb_arch supported[24];        /* "current PyTorch install supports sm_37 sm_50 ..." */
	bool supported_ptx[24];              /* that entry was compute_XX (PTX), not sm_XX */
	size_t n_supported;
	int xids[8];                         /* distinct Xid numbers, in order of appearance */
	size_t n_xids;
	struct oom_message oom;
	bool has_oom;
	double vllm_gib[4];                  /* vLLM's profile: model weights, non-torch memory,
					      * activation peak, what is left for the KV cache (GiB) */
	bool has_vllm;
	double host_need, host_avail;        /* Ollama: the system memory the model needs and what is
					      * available (bytes) */
	bool has_host_mem;
	struct tgi_oom tgi;                  /* TGI's warmup failure and its budgets */
	bool has_tgi;
	double vram_wait_s, vram_gib;        /* Ollama: how long it waited for an unloaded runner's
					      * memory to show as free, and that memory (GiB; 0 unknown) */
	bool has_vram_wait;
	long ggml_ctx;                       /* llama.cpp's context (n_ctx) before its OOM, else 0 */
	char ggml_plan[320];                 /* Ollama's offload plan before it, in words, else "" */
	char path[256];                      /* a library or binary path in the text, if any */
	char library[96];                    /* the soname a loader error names ("libcudart.so.12") */
	int driver_cuda;                     /* "found version 11040": the CUDA the driver runs, else 0 */
	char versions[2][32];                /* library-version-mismatch: what was loaded, what was built for */
	int block_threads;                   /* "Block [512x1x1]": threads per block in the text, else 0 */
	bool invalid_value_launch;           /* an invalid argument (1) tied to a kernel launch: how
					      * CUDA 13 reports a block beyond the GPU's limits */
	enum explain_region region;          /* the region of the log the first hit was in */
	bool windows;                        /* the text is from Windows (context.h decides): fixes
					      * in Windows' form */
	bool embedded_python;                /* the text's paths show ComfyUI portable's python_embeded */
	bool torch_dll;                      /* the DLL a loader error names is PyTorch's or ships in
					      * its torch\\lib folder: torch's wheel carries it */
	bool rocm;                           /* the text is from AMD's ROCm/HIP (context.h decides):
					      * only rocm-* findings, no CUDA advice */
};

struct explain_result {
	struct explain_match *m;
	size_t n, cap;
	bool torch;                          /* the text is PyTorch's (it names torch) */
	struct text_facts facts;             /* what the text says of its machine */
	struct text_platform platform;       /* the vendor, OS and container the text shows */
};

/* Scans text (len bytes; need not be NUL-terminated). CD_OK (possibly no matches),
 * CD_ENOMEM, or the kb's load error. */
int explain_text(const char *text, size_t len, struct explain_result *out, char *err);
void explain_result_free(struct explain_result *r);

/* The same over a stream: new, feed pieces of any size (lines may span pieces), finish
 * (moves the matches to out). The NCCL lines are read into an nccl_log on the way. A large
 * stream is scanned on threads in stages (docs/explain.md): what it holds, its bytes and
 * lines are complete after finish. */
struct explain_scan;
int explain_scan_new(struct explain_scan **out, char *err);
int explain_scan_feed(struct explain_scan *s, const char *data, size_t n, char *err);
/* Or let the scanner read: read(ctx, buf, cap) fills buf with up to cap bytes and returns how
 * many, 0 at the end, negative on an error (then CD_EIO). It may be called on another thread
 * (never two at once), so a large stream is read beside the line rules. */
typedef long long (*explain_read_fn)(void *ctx, char *buf, size_t cap);
int explain_scan_stream(struct explain_scan *s, explain_read_fn read, void *ctx, char *err);
int explain_scan_finish(struct explain_scan *s, struct explain_result *out, char *err);
const struct nccl_log *explain_scan_nccl(const struct explain_scan *s);
size_t explain_scan_bytes(const struct explain_scan *s);
size_t explain_scan_lines(const struct explain_scan *s);
void explain_scan_free(struct explain_scan *s);

/* A short phrase typed from memory, when nothing in it was recognised (r->n == 0): the error
 * its words name ("no kernel image", "driver too old", "is_available() returns False") added
 * to r as a match of its own (VIA_PHRASE). Nothing when the text is no phrase or names
 * nothing cudoctor knows. CD_OK, CD_ENOMEM or the kb's load error. */
int explain_phrase(const char *text, size_t len, struct explain_result *r, char *err);

/* The user named the failed launch's block (--block): an invalid argument (1) in r is that
 * launch's, and becomes launch-out-of-resources. */
void explain_result_launch_given(struct explain_result *r);

/* A PyTorch OOM message's numbers decide which oom-* finding it is, by a rule outside the
 * reader (rules/oom.h: oom_finding_of): finding_of gives the id for a match's numbers, or NULL
 * when they cannot say. Renames those matches, folds matches that then share an id, and drops
 * the generic out-of-memory beside a classified one. Once, after explain_scan_finish or
 * explain_text. */
void explain_result_classify_oom(struct explain_result *r, const char *(*finding_of)(const struct oom_numbers *n));

/* The strings the scanner's automaton looks for (ASCII case ignored), n of them: only the
 * lines holding one are looked at closely. For comparing the scan against a plain multi-string
 * search (bench/explain.sh). CD_OK or the kb's load error. */
int explain_patterns(const char *const **texts, size_t *n, char *err);

/* For an nvcc "Unsupported gpu architecture" on arch a: arch-dropped-by-toolkit when no
 * current toolkit accepts it but an older one did (or it predates the tables), else
 * toolkit-cannot-target-gpu. */
const char *explain_nvcc_arch_finding(struct kb_arch a);

#endif
