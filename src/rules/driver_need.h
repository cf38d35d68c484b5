/* The two judgements of a driver that arch and explain share: the driver a binary's own CUDA
 * runtime needs (a NEEDED libcudart.so.N, an imported cudart64_N.dll, or the release a
 * statically linked runtime records),
 * and whether the driver's branch knows a GPU at all. Pure. */
#ifndef CUDOCTOR_RULES_DRIVER_NEED_H
#define CUDOCTOR_RULES_DRIVER_NEED_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/kb.h"
#include "report/report.h"
#include "rules/catalogue.h"
#include "rules/arch.h"
#include "util/version.h"

struct runtime_need {
	bool known;
	bool is_static;
	bool windows;                 /* a PE image: min_driver is in Windows numbering */
	struct version cuda;          /* 13 (NEEDED libcudart.so.13) or 13.0 (static, its release) */
	char how[160];                /* "NEEDED libcudart.so.13" / "a static CUDA runtime (release 13.0)" */
	struct version min_driver;    /* the oldest driver its CUDA family runs on (minor-version compatibility) */
	char min_driver_text[32];
	int branch;                   /* the first driver branch of that family (580), 0 unknown */
};

/* What a statically linked runtime leaves in a binary: its objects' names in .strtab, and
 * nvcc's release, followed by its number, in the device code it embedded. */
#define RUNTIME_STATIC_MARK "libcudart_static_"
#define RUNTIME_RELEASE_MARK "Cuda compilation tools, release "

/* What the file's own CUDA runtime needs; out->known is false for a file without one (a
 * library that leaves the runtime to its host, a driver-API program, neither ELF nor PE). */
void runtime_need_of(const unsigned char *data, size_t size, struct runtime_need *out);

/* The same for a runtime known by its release (a framework's version.py: cuda = '12.4'). */
void runtime_need_of_cuda(const struct version *cuda, const char *how, struct runtime_need *out);

/* For a CUDA toolkit library whose runtime is linked in statically and stripped
 * (libcublas.so.13): the CUDA major its soname names; for its Windows DLL (cublas64_12.dll,
 * cublasLt64_12.dll, cudart64_12.dll, nvrtc64_120_0.dll, nvJitLink_120_0.dll) the major its
 * name's number gives, with the Windows driver floor. out->known false for other names. */
void runtime_need_of_library(const char *path, struct runtime_need *out);

/* A program's own runtime against a driver: judged when both are known; fails when the driver
 * is below what the runtime needs (error 35 at the first runtime call). */
struct driver_need_verdict {
	bool judged;
	bool fails;
};
struct driver_need_verdict driver_need_verdict(const struct runtime_need *n, const struct arch_driver *d);
/* The catalogue values of runtime-newer-than-driver for a runtime of CUDA major (runtime_major,
 * need_driver and need_branch: its family's floor), and with a driver too (rules_cuda_vars,
 * driver_version, driver_branch). */
void runtime_need_vars(int major, struct finding_vars *v);
/* The same for these GPUs: the branch the fix names is one that supports them (plan's
 * plan_branch_advice), or past_gpu and what the GPU still runs. */
void runtime_need_vars_for(int major, const struct gpu_spec *gpus, size_t n, struct finding_vars *v);
/* With the driver too, for t's GPUs (t NULL: none known). */
void driver_need_vars(const struct runtime_need *n, const struct arch_driver *d, const struct arch_target *t,
		      struct finding_vars *v);
/* runtime-newer-than-driver for a failing verdict against t's driver and GPUs; nothing otherwise.
 * CD_OK or CD_ENOMEM. */
int driver_need_finding(struct report *r, const char *subject, const struct runtime_need *n,
			const struct arch_target *t, const struct driver_need_verdict *v);
/* The same for a runtime already judged failing, whose one fix is plan_fix when given (plan's
 * pick for a framework: the build that runs on this driver, or the branch it needs; plan_why its
 * comment); *out gets the finding for the caller's evidence. CD_OK or CD_ENOMEM. */
int driver_need_finding_to(struct report *r, const char *subject, const struct runtime_need *n,
			   const struct arch_target *t, const char *plan_fix, const char *plan_why,
			   struct finding **out);

/* A GPU against a driver's branch: judged when the driver and the GPU's first toolkit are
 * known; fails when the branch predates every toolkit that builds for the GPU (R535 and a
 * Blackwell GPU). */
struct driver_gpu_verdict {
	bool judged;
	bool fails;
	const struct kb_toolkit *first; /* the first toolkit that builds for the GPU */
};
struct driver_gpu_verdict driver_gpu_verdict(const struct arch_gpu *g, const struct arch_driver *d);
/* gpu-newer-than-driver for a failing verdict; nothing otherwise. CD_OK or CD_ENOMEM. */
int driver_gpu_finding(struct report *r, const struct arch_gpu *g, const struct arch_driver *d,
		       const struct driver_gpu_verdict *v);

#endif
