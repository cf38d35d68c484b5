/* What else a text says that decides between findings: the allocator in use, a pinned host
 * allocation, versions a tool printed, the platform (text_platform.h). A finding whose premise
 * the text contradicts is renamed to the cause the text supports, lowered, or dropped; a cause
 * that only such lines show is added. Pure. */
#ifndef CUDOCTOR_EXPLAIN_PREMISE_H
#define CUDOCTOR_EXPLAIN_PREMISE_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/explain.h"
#include "explain/prose_arch.h"

enum premise_hint {
	HINT_MALLOC_ASYNC = 1u << 0, /* the cudaMallocAsync allocator is in use */
	HINT_PINNED = 1u << 1,       /* a pinned (page-locked) host allocation: pin_memory, cudaHostAlloc */
	HINT_WSL = 1u << 2,          /* WSL named at all */
	HINT_ASYNC_APP = 1u << 3,    /* an app that turns cudaMallocAsync on by default (ComfyUI, Fooocus) */
	HINT_LOST_LATER = 1u << 4,   /* the GPU worked and was lost later (daemon-reload, after a while) */
	HINT_SMI_HEADER = 1u << 5,   /* nvidia-smi's header: its own version beside the driver's */
	HINT_TF_VERSION = 1u << 6,   /* a TensorFlow version named */
	HINT_NO_GPU = 1u << 7,       /* a framework says it sees no GPU */
	HINT_CPU_WHEEL = 1u << 8,    /* a CPU-only wheel's version ("Torch 2.0.1+cpu") */
	HINT_P2P_OFF = 1u << 9,      /* NCCL_P2P_DISABLE named: peer to peer turned off, as a workaround */
	HINT_HANG = 1u << 10,        /* the job hangs, freezes or deadlocks */
	HINT_ACS_ON = 1u << 11,      /* lspci's "ACSCtl: SrcValid+": ACS on a bridge */
	HINT_CDI_LISTED = 1u << 12,  /* nvidia-ctk cdi list found the devices */
	HINT_DRIVER_UPDATED = 1u << 13, /* the host's driver was updated or upgraded */
	HINT_WIN_PATH = 1u << 14,    /* a Windows path (read for characters a loader cannot take) */
	HINT_LINUX_DRIVER = 1u << 15, /* a Linux driver package named (nvidia-utils-NNN, nvidia-driver-NNN) */
	HINT_TCC_ROW = 1u << 16,     /* " TCC " on a line (kept only as nvidia-smi's Driver-Model column) */
	HINT_DOCKER_RUN = 1u << 17,  /* "docker run": kept as run with sudo or without */
	HINT_PAGE_CACHE = 1u << 18,  /* the memory counted as used is page cache (MemAvailable, buff/cache) */
	HINT_OWN_SOURCE = 1u << 19,  /* a compiler cannot open a source file of the program's own */
	HINT_DLL_FAILED = 1u << 20,  /* Windows could not load a DLL (or one it imports) */
	HINT_CUDA_NAMED = 1u << 21,  /* CUDA or cuDNN named at all */
	HINT_PROSE = 1u << 22,       /* prose_arch.h's markers: HINT_PROSE << its kind (4 bits) */
};

struct premise_marker {
	const char *text; /* lower-case */
	unsigned hint;
};

/* A line kept as a cause's evidence: its text and number. */
struct premise_line {
	char text[EXPLAIN_LINE_MAX];
	size_t no;
};

/* What the lines said so far. */
struct premise {
	unsigned hints;
	struct premise_line smi;     /* an nvidia-smi header whose version's branch is not the driver's */
	int tf_minor;                /* the newest TensorFlow 2.x named, else 0 */
	struct premise_line tf, no_gpu, cpu_wheel;
	struct premise_line p2p_off, acs_on, driver_updated, odd_path, linux_driver;
	struct premise_line tcc_row; /* a GPU row of Windows' nvidia-smi whose driver model is TCC */
	struct premise_line sudo_docker; /* "sudo docker run" */
	struct premise_line dll_failed; /* the first DLL load failure */
	bool plain_docker;           /* "docker run" without sudo */
	struct prose_arch prose;     /* a GPU and a build that cannot run on it, in prose */
	struct premise_line prose_gpu; /* the line that names that GPU */
};

/* The strings a scanner looks for; each hit goes to premise_hit. */
const struct premise_marker *premise_markers(size_t *n);

/* A marker with hint was found on a line (s: as written, low: lower-cased, len bytes; no: its number). */
void premise_hit(struct premise *ps, unsigned hint, const char *s, const char *low, size_t len, size_t no);

/* Re-reads r's findings by its platform and what ps saw (after the platform is settled, before
 * findings that share an id are merged). CD_OK or CD_ENOMEM. */
int premise_settle(struct explain_result *r, const struct premise *ps);

#endif
