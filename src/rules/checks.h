/* explain's checks on this machine, judged: each check a value (a name, a result, one
 * sentence) made from facts the command collected (the GPU probe, toolkits, platform, a
 * binary's scanned images, values of the environment). Pure: no probing, no file reading. */
#ifndef CUDOCTOR_RULES_CHECKS_H
#define CUDOCTOR_RULES_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/amd.h"
#include "facts/driver.h"
#include "facts/oom.h"
#include "facts/platform.h"
#include "facts/toolkit.h"
#include "kb/arch_name.h"
#include "rules/arch.h"
#include "rules/arch_launch.h"
#include "rules/driver_need.h"

#define EXPLAIN_MAX_CHECKS 12

enum check_result { CHECK_OK, CHECK_PROBLEM, CHECK_INFO, CHECK_SKIPPED };

struct explain_check {
	char name[24];       /* driver, gpus, binary, runtime, launch, nvcc, ptx, env, nodes, wsl, ldpath, memory, kfd */
	enum check_result result;
	char detail[512];
};

/* The binary check's verdicts, one per GPU of the target that had something to judge
 * (rules/arch, as `cudoctor arch` reaches them). */
struct explain_binary {
	bool judged;
	char path[512];
	const char *format;              /* dc_format_name */
	struct arch_verdict *v;          /* n entries, heap */
	const struct arch_gpu **gpus;    /* the GPU of each verdict (in the target judged against) */
	size_t n;
};

/* The launch check: each kernel of the image a GPU would run that cannot launch with the
 * block size judged (rules/arch_launch), with the largest block that would. */
struct explain_launch_kernel {
	char gpu[160];
	char image[32];                  /* "sm_90" */
	char name[128];                  /* the kernel (mangled, as the symbol table has it) */
	unsigned registers;
	enum launch_limit limit;
	unsigned largest;                /* 0: no block launches */
};

struct explain_launch {
	bool judged;
	unsigned block;                  /* threads per block judged */
	const char *block_from;          /* "--block", "the text", "the default" */
	struct explain_launch_kernel *k; /* heap */
	size_t n, cap;
};

struct explain_checks {
	struct explain_check c[EXPLAIN_MAX_CHECKS];
	size_t n;
	struct explain_binary binary;
	struct explain_launch launch;
	/* the binary's own CUDA runtime against the driver judged against (runtime_verdict.judged:
	 * both were known) */
	struct runtime_need runtime;
	struct driver_need_verdict runtime_verdict;
};

/* What the explained text said that a check judges against (the command copies it from the
 * matcher's match). */
struct check_text {
	const char *finding;             /* the id the text was recognised as */
	bool has_arch;
	struct kb_arch arch;             /* the GPU or the arch the text names */
	const struct kb_arch *supported; /* the arch list a PyTorch build printed */
	const bool *supported_ptx;       /* that entry is compute_XX (PTX) */
	size_t n_supported;
	int block_threads;               /* threads per block the text names, 0 none */
	bool has_oom;
	const struct oom_numbers *oom;   /* PyTorch's OOM numbers, when has_oom */
	int oom_gpu;                     /* the GPU the OOM message names, -1 none */
};

const char *check_result_name(enum check_result r);   /* "ok" "problem" "info" "skipped" */

/* Adds a check (none once EXPLAIN_MAX_CHECKS are there: NULL) and appends to one's sentence;
 * for the command's checks that end in its own reading (a file that cannot be mapped). */
struct explain_check *check_add(struct explain_checks *out, const char *name, enum check_result r,
				const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void check_more(struct explain_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void explain_checks_free(struct explain_checks *c);

/* The driver the ptx check speaks of: the target's when --driver named it, else the loaded
 * one's CUDA version (false when unknown). */
bool check_ptx_driver(const struct arch_target *t, const struct gpu_probe *g, struct arch_driver *d);

/* doctor's view of the driver layer: libcuda loads, cuInit, the module vs user-space version,
 * a cuda-compat libcuda, the CUDA version and PTX ISA it runs. */
void check_driver(const struct gpu_probe *g, struct explain_checks *out);
/* The GPUs CUDA sees (cvd: CUDA_VISIBLE_DEVICES, NULL unset), against the arch list and the
 * launch block of the text. */
void check_gpus(const struct check_text *t, const struct gpu_probe *g, const char *cvd, struct explain_checks *out);
/* The images of a scanned binary f (path: as named) and its own CUDA runtime, judged on each
 * GPU of target t (rules/arch, rules/driver_need) into out->binary. CD_OK or CD_ENOMEM. */
int check_binary(const char *path, const struct arch_file *f, const struct arch_target *t,
		 struct explain_checks *out, char *err);
/* The kernels of a scanned binary f that cannot launch with out->launch.block threads on each
 * GPU of target t (rules/arch_launch) into out->launch. CD_OK or CD_ENOMEM. */
int check_launch(const char *path, struct arch_file *f, const struct arch_target *t,
		 struct explain_checks *out, char *err);
/* The AMD machine's KFD: GPU nodes in the topology and whether /dev/kfd exists and the user may
 * open it, whatever reading it prints (a working /dev/kfd answers a read with EINVAL). */
void check_kfd(const struct check_text *t, const struct amd_host *h, struct explain_checks *out);
/* The nvcc a build would run (NULL: none found) against the arch the text names. */
void check_nvcc(const struct check_text *t, const struct toolkit *nvcc, struct explain_checks *out);
/* The PTX that nvcc emits against the JIT of driver d (NULL: its CUDA version is unknown). */
void check_ptx(const struct toolkit *nvcc, const struct arch_driver *d, struct explain_checks *out);
/* The shell's JIT switch (disable_jit: CUDA_DISABLE_PTX_JIT or CUDA_DISABLE_JIT, NULL unset)
 * or allocator setting (alloc_conf: PYTORCH_CUDA_ALLOC_CONF). */
void check_env(const struct check_text *t, const char *disable_jit, const char *alloc_conf,
	       struct explain_checks *out);
/* The device nodes (on WSL2: /dev/dxg) and WSL2's libcuda, as probe/platform.c saw them. */
void check_nodes(const struct platform_info *p, struct explain_checks *out);
void check_wsl(const struct platform_info *p, struct explain_checks *out);
/* CUDA directories on LD_LIBRARY_PATH (ld_path, NULL unset). */
void check_ldpath(const char *ld_path, struct explain_checks *out);
/* NCCL_SOCKET_IFNAME (NCCL's syntax: a comma list of name prefixes, "=" for exact names, a
 * leading "^" to exclude) against this machine's interfaces with a route, blank-separated;
 * known: they could be read. */
void check_nccl_ifname(const char *ifname, const char *ifaces, bool known, struct explain_checks *out);
/* Each GPU's memory now (the OOM's GPU only, when the text names one), as NVML sees it. */
void check_memory(const struct check_text *t, const struct gpu_probe *g, struct explain_checks *out);

#endif
