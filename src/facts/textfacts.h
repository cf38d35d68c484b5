/* What a pasted text says of the machine it came from (the driver, CUDA, the GPUs, torch, the
 * platform), and where each fact a verdict reads came from: the text, this machine, or the
 * user's options. explain/ fills the text's; rules/explain.h decides between the sources. */
#ifndef CUDOCTOR_FACTS_TEXTFACTS_H
#define CUDOCTOR_FACTS_TEXTFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/oom.h"
#include "kb/arch_name.h"

enum fact_source { FACT_NONE, FACT_TEXT, FACT_HERE, FACT_GIVEN };

/* "text", "here", "given"; NULL for FACT_NONE */
const char *fact_source_name(enum fact_source s);

#define TEXT_GPUS_MAX 4

/* The text's platform: a marker of one seen, else unknown (the text could be from anywhere). */
enum text_os { TEXT_OS_UNKNOWN, TEXT_OS_LINUX, TEXT_OS_WINDOWS };

struct text_facts {
	int driver_cuda;          /* the CUDA version the driver runs (11040): "found version 11040",
				   * nvidia-smi's "CUDA Version: 12.4"; 0 unknown */
	char driver_version[32];  /* "535.104.05": "Driver Version: 535.104.05"; "" unknown */
	char torch_version[32];   /* "2.1.0" of "torch 2.1.0+cu118" / "torch==2.1.0"; "" unknown */
	int torch_cuda;           /* torch's CUDA (11080 of +cu118); 0 unknown */
	char gpus[TEXT_GPUS_MAX][96]; /* the GPU names the text gives, in order */
	size_t n_gpus;
	struct kb_arch ccs[TEXT_GPUS_MAX]; /* the compute capabilities it names */
	size_t n_ccs;
	enum text_os os;
	bool wsl, container, jetson, rocm;
};

/* One error the text holds, as the matcher read it: what a verdict on it reads of the text. */
struct text_error {
	const char *id;             /* the finding the text was recognised as */
	const char *message_key;    /* the kb message row that matched ("vllm-..."), else NULL */
	int code;                   /* the catalogue code recognised, else -1 */
	char library[96];           /* the soname a loader error names */
	bool torch_dll;             /* ... which PyTorch's wheel carries */
	char built_with[32];        /* library-version-mismatch: the version built for */
	bool has_arch;
	struct kb_arch arch;        /* the GPU or arch the error names */
	int driver_cuda;            /* "found version 11040" on this error's line, else 0 */
	char path[256];             /* a binary the text names */
	bool has_oom;
	struct oom_numbers oom;
	long tgi_prefill, tgi_total; /* TGI's next budgets, else 0 */
	bool has_vram_wait;
	double vram_wait_s;
	bool windows;               /* fix lines in Windows' form */
	const char *pip, *python;   /* the pip and Python the text's platform runs */
};

#endif
