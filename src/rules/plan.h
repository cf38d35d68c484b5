/* `plan`'s decisions: for a set of GPUs and a driver, which driver branches, CUDA toolkits
 * and framework builds (PyTorch wheels, JAX plug-ins, vLLM and Ollama builds) fit, which one
 * to pick and why, and which GPU forces which limit. Pure: the kb tables and the given
 * facts in, a plan out; the arch rules are compat.c's, the driver rule rules/driver.c's. */
#ifndef CUDOCTOR_RULES_PLAN_H
#define CUDOCTOR_RULES_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/frameworks.h"
#include "kb/kb.h"
#include "rules/rules.h"

#define PLAN_MAX_GPUS 16
#define PLAN_MAX_TORCH 96
#define PLAN_MAX_FW 32
#define PLAN_MAX_TOOLKITS 64

enum plan_framework { PLAN_FW_TORCH, PLAN_FW_JAX, PLAN_FW_VLLM, PLAN_FW_OLLAMA, PLAN_FW_NONE };
const char *plan_framework_name(enum plan_framework f); /* "torch", ... */

/* The driver as the plan knows it: a version (given or probed), or only the CUDA level. */
struct plan_driver {
	bool known;
	struct version version;       /* parts 0 when only cuda is known */
	struct version cuda;          /* newest CUDA it runs ("CUDA Version") */
	int branch;                   /* 580; 0 unknown */
};

/* --driver 550, R550, 550.54.14 or 572.61 (Windows numbering) -> a plan_driver through
 * drivers.tsv. CD_OK or CD_EUSAGE. */
int plan_driver_parse(const char *text, struct plan_driver *out, char *err);

struct plan_input {
	const struct gpu_spec *gpus;
	size_t n_gpus;                /* 1..PLAN_MAX_GPUS */
	struct plan_driver driver;
	enum plan_framework framework;
	struct version fw_version;    /* torch==VER; parts 0: every release */
};

/* How one build serves one GPU, in compat.c's terms. */
enum plan_fit {
	PLAN_FIT_SASS,        /* SASS for exactly this arch */
	PLAN_FIT_SASS_COMPAT, /* SASS of a lower minor of the same major (sm_60 on 6.1) */
	PLAN_FIT_PTX,         /* only PTX, which this driver JIT-compiles */
	PLAN_FIT_PTX_TOO_NEW, /* only PTX, newer than this driver can JIT */
	PLAN_FIT_NONE,        /* nothing runs on it */
};
const char *plan_fit_name(enum plan_fit f); /* "sass", "sass-compat", "ptx", ... */

struct plan_gpu {
	struct gpu_spec spec;
	bool jetson;                  /* integrated (L4T) GPU: desktop branches and wheels do not apply */
	const struct kb_toolkit *first_tk, *last_tk; /* that build its arch; last NULL: current */
	int first_branch;             /* oldest branch that runs code for it (from first_tk); 0 unknown */
	bool first_branch_floor;      /* first_tk is the table's oldest: the branch may be older */
	int last_branch;              /* last branch that supports it; 0: still current */
	bool driver_supports;         /* the given driver is within [first, last] (true when unknown) */
};

struct plan_toolkit {
	const struct kb_toolkit *tk;
	bool builds_all;              /* accepts every GPU's arch */
	size_t blocker;               /* first GPU it cannot build, when !builds_all */
	int driver_fit;               /* enum cuda_fit, -1 when the driver is unknown */
};

struct plan_torch {
	const struct kb_torch_build *b;
	enum plan_fit fit[PLAN_MAX_GPUS];
	struct kb_arch via[PLAN_MAX_GPUS]; /* the image that serves each GPU */
	int driver_fit;               /* enum cuda_fit, -1 unknown */
	bool fits_gpus;               /* every GPU gets SASS or JIT-able PTX */
	bool runnable;                /* and the driver runs this CUDA and supports every GPU */
};

struct plan_fw {
	const struct kb_fw_build *b;
	bool gpu_ok[PLAN_MAX_GPUS];
	int driver_ok;                /* 1 yes, 0 no, -1 unknown */
	bool fits_gpus, runnable;
};

/* GPUs that can share one choice when no choice fits all. */
struct plan_group {
	bool member[PLAN_MAX_GPUS];
	long choice;                  /* index into torch[] or fw[]; -1 none fits these GPUs */
};

struct plan {
	struct plan_input in;
	struct plan_gpu gpu[PLAN_MAX_GPUS];
	size_t n_gpus;
	bool any_jetson;

	/* driver branches that support every (non-Jetson) GPU */
	int drv_first, drv_last;      /* drv_last 0: current branches */
	size_t drv_first_gpu, drv_last_gpu; /* which GPU sets each bound */
	bool drv_empty;               /* no branch supports them all */
	enum { PLAN_DRV_UNKNOWN, PLAN_DRV_OK, PLAN_DRV_TOO_OLD, PLAN_DRV_TOO_NEW, PLAN_DRV_NONE } drv_verdict;

	struct plan_toolkit tk[PLAN_MAX_TOOLKITS];
	size_t n_tk;
	long tk_pick;                 /* index into tk[], -1 none */
	const char *tk_why;

	struct plan_torch torch[PLAN_MAX_TORCH];
	size_t n_torch;
	long torch_pick;              /* best runnable variant, -1 none */
	long torch_pick_any_driver;   /* best that fits the GPUs if the driver were new enough */
	const struct kb_torch_build *torch_newest; /* newest release asked about */

	struct plan_fw fw[PLAN_MAX_FW];
	size_t n_fw;
	long fw_pick;

	struct plan_group group[PLAN_MAX_GPUS];
	size_t n_groups;              /* > 0 only when no single choice fits every GPU */
};

/* Without a driver: the newest torch build that runs on the oldest branch supporting every GPU
 * (*lead, its branch *lead_branch) and the newest overall (*newest, the branch it needs). NULLs
 * when none. */
void plan_torch_leads(const struct plan *p, const struct kb_torch_build **lead, int *lead_branch,
		      const struct kb_torch_build **newest, int *newest_branch);

/* A GPU's driver-branch range and toolkits, from the kb (driver_supports true: no driver). */
void plan_gpu_support(const struct gpu_spec *s, struct plan_gpu *out);

/* The driver branch a fix line may name for these GPUs when something needs branch
 * need_branch (a runtime's family, a toolkit): the oldest branch at or past it that supports
 * every GPU. past_gpu when that would be past a GPU's last branch (a GTX 1080 and CUDA 13.2's
 * R595): branch is 0, and gpu, gpu_last and cuda_max say what that GPU still runs. Every
 * command that names a branch in a fix asks this. CD_OK or the kb's load error. */
struct plan_branch_advice {
	int branch;
	bool past_gpu;
	const struct gpu_spec *gpu;        /* the GPU whose support ends first; NULL none ends */
	int gpu_last;                      /* its last branch */
	const struct kb_toolkit *last_tk;  /* the last toolkit that builds it (NULL: current) */
	struct version cuda_max;           /* newest CUDA it can still use (past_gpu only) */
};
int plan_branch_advice(const struct gpu_spec *gpus, size_t n, int need_branch, struct plan_branch_advice *out);

/* A GPU known by compute capability and the driver's name for it ("NVIDIA GeForce GTX 1080"; NULL
 * none) as plan takes it: the product row when the name is in the kb. */
void plan_spec_of(unsigned cc, const char *name, struct gpu_spec *out);

/* The specs of the GPUs CUDA sees in a probe (compute capability known), up to max. */
struct gpu_probe;
size_t plan_specs_of_probe(const struct gpu_probe *p, struct gpu_spec *out, size_t max);

/* The catalogue values of an advice for a fix line that names need_branch: need_branch raised
 * to what the GPUs need, or past_gpu with gpu_name, gpu_last_branch and gpu_cuda_max. */
struct finding_vars;
void plan_advice_vars(const struct plan_branch_advice *a, int need_branch, struct finding_vars *v);

/* CD_OK, CD_EUSAGE (bad input), CD_EFORMAT (tables failed to load; err says why). */
int plan_make(const struct plan_input *in, struct plan *p, char *err);

/* The newest torch release in the table whose build carries SASS for exactly `arch`
 * (NULL when none does), for "no current wheel carries sm_61". */
const struct kb_torch_build *plan_torch_last_exact(struct kb_arch arch);

/* The install line of a torch build: "pip install torch==2.9.1 --index-url .../cu128";
 * reinstall adds --force-reinstall, which pip needs to swap a variant of the same release
 * (2.11.0+cu130 satisfies torch==2.11.0). pip is the command that runs the environment's pip
 * (a Windows install's "C:\...\python_embeded\python.exe -m pip"); NULL is "pip". */
void plan_torch_install(const struct kb_torch_build *b, bool reinstall, const char *pip, char *out, size_t n);

/* The oldest driver branch that runs a torch variant on these GPUs (max of the GPUs' first
 * branches and the branch of its CUDA, or the family floor's branch with minor-version
 * compatibility). 0 unknown. */
int plan_torch_min_branch(const struct plan *p, const struct plan_torch *t);

#endif
