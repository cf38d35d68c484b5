/* Will a framework or app run on each GPU here: its device code on disk judged by arch's judge
 * (headers only), its CUDA runtime against the driver's floor, the driver's branch against the
 * GPU; and the one command that fixes it, chosen by plan's rules. Pure: the caller found and
 * scanned the files. */
#ifndef CUDOCTOR_RULES_FRAMEWORK_H
#define CUDOCTOR_RULES_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"
#include "report/report.h"
#include "rules/arch.h"
#include "rules/driver_need.h"
#include "rules/plan.h"

enum fw_run {
	FW_RUN_NATIVE,          /* SASS this GPU runs as-is, in every file */
	FW_RUN_JIT,             /* some kernels only as PTX, compiled by the driver at first load */
	FW_RUN_NO_IMAGE,        /* no kernel image for this GPU: error 209 */
	FW_RUN_PTX_TOO_NEW,     /* only PTX, newer than this driver compiles: error 222 */
	FW_RUN_DRIVER_TOO_OLD,  /* its CUDA runtime needs a newer driver: error 35 */
	FW_RUN_GPU_UNSUPPORTED, /* the driver's branch does not support this GPU */
	FW_RUN_UNKNOWN,         /* no device code found, or no driver to judge against */
};
/* "runs natively", "runs (JIT)", "no kernel image", ... */
const char *fw_run_text(enum fw_run r);
/* "native", "jit", "no-image", ...: the JSON value */
const char *fw_run_name(enum fw_run r);
static inline bool fw_run_fails(enum fw_run r)
{
	return r >= FW_RUN_NO_IMAGE && r <= FW_RUN_GPU_UNSUPPORTED;
}

/* One framework or app and its device code, scanned by the caller. */
struct fw_app {
	const char *name;             /* "torch", "ollama", a --binary's path */
	const char *version;          /* "2.5.1+cu124"; "" unknown */
	const char *cuda;             /* the CUDA its version.py names ("12.4"); "" unknown */
	enum plan_framework plan;     /* plan's table of its builds; PLAN_FW_NONE: none */
	const struct arch_file *files;
	size_t n_files;
	bool alternatives;            /* the files are builds it picks from at run time (Ollama's
	                               * cuda_v12 and cuda_v13 runners): the best decides, not the worst */
	const char *pip;              /* the command that runs its environment's pip (a Windows install's
				       * "C:\...\python.exe" -m pip); NULL: "pip" */
};

/* The app on one GPU. */
struct fw_verdict {
	enum fw_run run;
	long file;                    /* the file that decided an image verdict; -1 none */
	struct arch_verdict image;    /* that file's verdict (VERDICT_NONE: no device code) */
	char missing[16];             /* "sm_120": the GPU's arch when no image runs it */
	struct runtime_need need;     /* its CUDA runtime: a file's NEEDED libcudart, else version.py */
	bool need_fails;              /* that runtime refuses this driver */
	int gpu_last_branch;          /* the GPU's last branch, when the driver is past it */
	char fix[400];                /* the one command that fixes it; "" none known */
	char fix_why[320];            /* what the command gets, as a comment */
};

/* Judges a on every GPU of t into out[0 .. t->n_gpus); specs[i] is GPU i as the kb knows it (its
 * product row when the name is known, for the branch range). CD_OK, CD_ENOMEM. */
int fw_judge(const struct fw_app *a, const struct arch_target *t, const struct gpu_spec *specs,
	     struct fw_verdict *out, char *err);

/* The findings of a's verdicts on t's GPUs (v from fw_judge), one per cause: its CUDA runtime
 * newer than the driver is one runtime-newer-than-driver for the app (what it stops on each GPU
 * is the evidence, plan's pick the one fix); a branch that predates the GPU is the driver's
 * finding (driver_finding[g], from fw_driver_findings), which gets a line for a; no image, or a
 * branch past the GPU's last, is framework-cannot-run for that GPU. CD_OK or CD_ENOMEM. */
int fw_findings(struct report *r, const struct fw_app *a, const struct arch_target *t, const struct fw_verdict *v,
		const size_t *driver_finding);

/* The driver's own finding for each GPU of t whose branch predates it (gpu-newer-than-driver,
 * driver_gpu_verdict): the cause of every framework's "GPU not supported" there, so fw_findings
 * adds each framework it stops as a line of its evidence rather than a framework-cannot-run.
 * at[g] gets the finding's index in r->findings, FW_NO_FINDING for a GPU the branch supports.
 * CD_OK or CD_ENOMEM. */
#define FW_NO_FINDING ((size_t)-1)
int fw_driver_findings(struct report *r, const struct arch_target *t, size_t *at);

/* The plan_framework whose builds a Python distribution's name belongs to ("torch", "jax-cuda12-plugin",
 * "vllm"); PLAN_FW_NONE for the others. */
enum plan_framework fw_plan_of(const char *name);

#endif
