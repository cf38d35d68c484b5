/* What the rule files share: reading the driver facts as versions, the evidence and fix
 * lines several layers write, and each layer's rules for stack.c's table. */
#ifndef CUDOCTOR_RULES_INTERNAL_H
#define CUDOCTOR_RULES_INTERNAL_H

#include "rules/rules.h"
#include "util/err.h"
#include "util/version.h"

/* A rule adds its finding's lines and keeps going when one fails: only running out of
 * memory fails them, and the rule then returns CD_ENOMEM. */
static inline int rules_status(bool oom)
{
	return oom ? CD_ENOMEM : CD_OK;
}

/* s when it says something, else NULL (the facts keep "" for unknown). */
static inline const char *rules_opt(const char *s)
{
	return s && *s ? s : NULL;
}

static inline bool rules_known(const struct version *v)
{
	return v->parts > 0;
}

/* The newest CUDA the loaded driver runs (cuDriverGetVersion); parts 0 when unknown. */
struct version rules_driver_cuda(const struct gpu_probe *p);

/* libcuda loaded and its CUDA version known: there is a driver to compare against. */
bool rules_driver_usable(const struct gpu_probe *p);

/* "driver 550.54.14 supports CUDA up to 12.4 (cuDriverGetVersion = 12040; ...)" */
int rules_driver_evidence(struct finding *f, const struct gpu_probe *p);

/* The values of a driver that runs CUDA need, for toolkit-newer-than-driver's fix lines: the
 * branch every GPU here allows (need_branch, raise_branch), or none does (past_gpu), else the
 * toolkit's own minimum (min_driver). */
struct finding_vars;
void rules_driver_fix_vars(const struct gpu_probe *d, const struct version *need, const char *min_driver,
			   const char *min_branch, struct finding_vars *v);

typedef int (*rules_fn)(const struct facts *f, struct report *r);

/* The machine verdicts rules_machine_vars reads beside driver.c's own: the first GPU with
 * uncorrectable ECC errors (gpu_health.c), WSL2's driver libraries and CUDA_VISIBLE_DEVICES
 * (platform.c). */
bool rules_ecc_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row);
bool rules_wsl_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row);
bool rules_visible_machine_verdict(const struct facts *f, struct finding_vars *v, const char **row);

/* driver.c */
int rule_no_driver(const struct facts *f, struct report *r);
int rule_init(const struct facts *f, struct report *r);
int rule_no_device_count(const struct facts *f, struct report *r);
int rule_module_mismatch(const struct facts *f, struct report *r);
int rule_nvml(const struct facts *f, struct report *r);
/* toolkit.c */
int rule_toolkit_vs_driver(const struct facts *f, struct report *r);
int rule_toolkit_vs_gpu(const struct facts *f, struct report *r);
int rule_smi_cuda_version(const struct facts *f, struct report *r);
/* helper.c */
int rule_helper_timeouts(const struct facts *f, struct report *r);
/* The toolkit whose tree holds rt (its lib64 or targets/ copy), when that toolkit's CUDA major is
 * newer than the driver's: toolkit-newer-than-driver names the cause, and rt is its evidence. */
const struct toolkit *rules_runtime_of_refused_toolkit(const struct facts *f, const struct runtime *rt);
/* runtime.c */
int rule_runtime_vs_driver(const struct facts *f, struct report *r);
/* Whether a program would load rt: its framework's copy, or the loader's first of its soname. */
bool rules_runtime_used(const struct runtime *rt, const struct runtimes *set);
int rule_shadowed(const struct facts *f, struct report *r);
/* python.c */
int rule_torch_cpu(const struct facts *f, struct report *r);
/* platform.c */
int rule_visible_devices(const struct facts *f, struct report *r);
int rule_device_order(const struct facts *f, struct report *r);
int rule_device_nodes(const struct facts *f, struct report *r);
int rule_wsl(const struct facts *f, struct report *r);
/* gpu_health.c */
int rule_persistence(const struct facts *f, struct report *r);

/* Runs rules[0..n) in order; stops at the first that fails. */
int rules_run_table(const rules_fn *rules, size_t n, const struct facts *f, struct report *r);

#endif
