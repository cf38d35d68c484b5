/* The fix engine: every fix line that names a build, a driver, a toolkit or a wheel, written
 * from what is known of the situation (each fact with where it came from) by plan's planner.
 * doctor, explain, arch, plan and fleet ask it, so one situation gets one fix. Pure. */
#ifndef CUDOCTOR_RULES_FIX_H
#define CUDOCTOR_RULES_FIX_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/catalogue.h"
#include "rules/plan.h"
#include "util/version.h"

#define FIX_MAX_GPUS PLAN_MAX_GPUS
#define FIX_MAX_LINES 6

/* Where a fact came from: the pasted text, this machine's probes, or the command line. */
enum fix_source { FIX_SRC_NONE, FIX_SRC_TEXT, FIX_SRC_HERE, FIX_SRC_GIVEN };
const char *fix_source_name(enum fix_source s); /* "", "text", "here", "given" */

enum fix_platform { FIX_OS_UNKNOWN, FIX_OS_LINUX, FIX_OS_WINDOWS, FIX_OS_WSL2 };

/* What the binary that fails is, which decides who fixes it: a framework's wheel or an app is
 * replaced by another build (its install line), the user's own build or a PyTorch extension is
 * rebuilt, an NVIDIA library is replaced by a release that carries the arch (a pip wheel, or the
 * toolkit or distribution package it came with). */
enum fix_binary {
	FIX_BIN_UNKNOWN,
	FIX_BIN_FRAMEWORK,   /* a framework's wheel (torch, jax, vllm): framework says which */
	FIX_BIN_APP,         /* an app's own build (Ollama): framework says which, PLAN_FW_NONE if plan has no table */
	FIX_BIN_OWN_BUILD,   /* the user's nvcc build */
	FIX_BIN_TORCH_EXT,   /* built against libtorch: TORCH_CUDA_ARCH_LIST rebuilds it */
	FIX_BIN_NV_WHEEL,    /* NVIDIA's library from a pip wheel (site-packages/nvidia/...) */
	FIX_BIN_NV_TOOLKIT,  /* NVIDIA's library under a toolkit prefix (/usr/local/cuda*, /opt/nvidia, a distribution's /usr/lib) */
	FIX_BIN_NV_CONDA,    /* NVIDIA's library in a conda env's lib (a conda package, not pip) */
};

struct fix_gpu {
	unsigned cc;                  /* 120 for 12.0; 0 unknown */
	char name[96];                /* "NVIDIA GeForce RTX 5090"; "" unknown */
	enum fix_source src;
};

/* The facts a fix may use; a fact whose src is FIX_SRC_NONE is unknown. */
struct fix_situation {
	struct fix_gpu gpu[FIX_MAX_GPUS];
	size_t n_gpus;

	struct {
		enum fix_source src;
		char version[32];     /* "550.54.14", "R550" or "" (only its CUDA known) */
		int branch;           /* 550; 0 unknown */
		struct version cuda;  /* the newest CUDA it runs (torch's "found version 11040": 11.4) */
	} driver;

	struct {
		enum fix_source src;
		enum fix_platform os;
		char pip[256];        /* the command that runs the environment's pip ("C:\...\python_embeded\python.exe -m pip"); "" pip */
	} platform;

	struct {
		enum fix_source src;
		enum plan_framework fw;   /* PLAN_FW_NONE: no framework */
		struct version version;   /* torch 2.5.1; parts 0 unknown */
		struct version cuda;      /* its CUDA (torch.version.cuda); parts 0 unknown */
		bool cpu_only;            /* a +cpu build */
	} framework;

	struct {
		enum fix_source src;
		enum fix_binary kind;
		char wheel[64];           /* an NVIDIA library's wheel family ("nvidia-cublas") */
		int cuda_major;           /* its own CUDA major (libcublas.so.13, NEEDED libcudart.so.12); 0 unknown */
	} binary;
};

/* What the fix is for. */
enum fix_problem {
	FIX_NO_IMAGE,           /* no kernel image for a GPU (no-kernel-image, partial-kernel-image, jit-disabled) */
	FIX_RUNTIME_TOO_NEW,    /* the binary's CUDA runtime needs a newer driver (runtime-newer-than-driver) */
	FIX_ARCH_DROPPED,       /* a toolkit no longer builds a GPU's arch (arch-dropped-by-toolkit) */
	FIX_CPU_ONLY,           /* a CPU-only framework build (torch-cpu-only) */
	FIX_INSTALL,            /* what to install for these GPUs (plan) */
};

enum fix_line_kind {
	FIX_LINE_INSTALL,       /* a build, wheel or package to install */
	FIX_LINE_DRIVER,        /* a driver branch to install */
	FIX_LINE_ASK,           /* a fact is missing: the command that gets it */
	FIX_LINE_NOTE,          /* a comment only (no release carries it, the last toolkit is ...) */
};

struct fix_line {
	enum fix_line_kind kind;
	char cmd[400];          /* the command to paste; "" for a note */
	char why[320];          /* its comment, without "# " */
};

/* The engine's answer: lines in the order the user should try them, and the pick they came
 * from. Never printed by the engine. */
struct fix_lines {
	struct fix_line line[FIX_MAX_LINES];
	size_t n;
	const struct kb_torch_build *torch;  /* the torch build named, NULL none */
	int need_branch;                     /* the branch the named build needs (0: the driver runs it, or unknown) */
	const char *missing;                 /* the first fact missing ("gpu", "driver", "runtime"), NULL none */
	bool replace;                        /* the binary is replaced by another build, not rebuilt */
};

void fix_situation_init(struct fix_situation *s);
/* Adds a GPU by compute capability (major*10+minor) and name (either may be 0 / NULL). CD_OK,
 * CD_EUSAGE when FIX_MAX_GPUS are known. */
int fix_add_gpu(struct fix_situation *s, unsigned cc, const char *name, enum fix_source src);
/* The driver by version or branch ("550.54.14", "R550", "572.61"): its branch and CUDA from the
 * kb. CD_OK or CD_EUSAGE (not a driver the tables know). */
int fix_set_driver(struct fix_situation *s, const char *version, enum fix_source src);
/* The driver known only by the newest CUDA it runs (a log's "found version 11040"). */
void fix_set_driver_cuda(struct fix_situation *s, const struct version *cuda, enum fix_source src);

/* The fix lines for problem in situation s, from plan. CD_OK, CD_ENOMEM, CD_EFORMAT (the kb did
 * not load; err says why). */
int fix_plan(const struct fix_situation *s, enum fix_problem problem, struct fix_lines *out, char *err);

/* The catalogue values of a fix (fix_a .. fix_d and fix_a_why ..: the engine's lines in order;
 * torch_install and torch_build: the torch build named), for rows whose fix lines say
 * {?{fix_a}  # {fix_a_why}}; the flag `fixed` when the engine wrote a line (the row's generic
 * advice goes), `replace` when the binary is replaced (the row's rebuild lines go). */
void fix_vars(const struct fix_lines *l, struct finding_vars *v);

/* plan's own lead for s's GPUs without a driver: the newest torch build that runs on the oldest
 * branch supporting every GPU (*lead, its branch *lead_branch), and the newest overall (*newest,
 * *newest_branch: the branch it needs). NULLs when none. */
void fix_torch_leads(const struct plan *p, const struct kb_torch_build **lead, int *lead_branch,
		     const struct kb_torch_build **newest, int *newest_branch);

#endif
