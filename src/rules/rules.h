/* The rules: pure functions from collected facts (src/facts) and the kb to findings.
 * No I/O; every fact is given. One file per layer: driver.c, toolkit.c, runtime.c,
 * python.c, platform.c, gpu_health.c; stack.c runs them in doctor's order, verdict.c
 * sums up, subject.c names a GPU the one way every finding does. */
#ifndef CUDOCTOR_RULES_H
#define CUDOCTOR_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/facts.h"
#include "report/report.h"
#include "rules/catalogue.h"
#include "util/version.h"

/* The driver layer: no-driver, cuInit's failures (no-device, system-not-ready,
 * driver-library-mismatch, forward-compat-unsupported, driver-init-failed), a device count
 * of 0, kernel module vs user-space mismatch and nvml-unavailable. Reads f->driver and
 * f->platform (WSL, container, CUDA_VISIBLE_DEVICES) only. The run context (cmd/run.c)
 * runs it once for every command that needs the driver. Returns CD_OK or CD_ENOMEM. */
int rules_driver(const struct facts *f, struct report *r);

/* Whether CUDA can run work: libcuda loaded, cuInit succeeded and no device count of 0.
 * When false, rules_driver has said why with an error finding. */
bool rules_cuda_usable(const struct gpu_probe *p);

/* Every layer above the driver, in doctor's order: toolkits, runtimes and frameworks
 * against the driver, toolkits against the GPUs, shadowed libraries, CPU-only builds,
 * CUDA_VISIBLE_DEVICES, device order, device nodes, WSL, the Windows side (rules_windows),
 * persistence mode, nvidia-smi's CUDA version. Every pointer in f but windows must be set. Returns CD_OK or CD_ENOMEM. */
int rules_stack(const struct facts *f, struct report *r);
/* The Windows side's rules (windows.c; doctor runs them in rules_stack): CUDA_PATH against the
 * toolkits installed and PATH's nvcc.exe. Nothing when f->windows is NULL or was not read. */
int rules_windows(const struct facts *f, struct report *r);
/* A Windows program's CUDA DLLs (win_exe.c; arch runs it for a .exe): win-exe-dll-not-found for
 * each that Windows finds nowhere in its search order, win-exe-dll-shadowed for a stray copy in
 * System32, the Windows folder or the current folder ahead of another. CD_OK or CD_ENOMEM. */
int rules_win_exe(const struct win_exe *x, struct report *r);

/* helper-timeout: program (a path) run with args ("--version") was stopped after ms
 * milliseconds without an answer. Shared by doctor, gencode, explain and arch --python. */
int rules_helper_timeout(struct report *r, const char *program, const char *args, unsigned ms);
/* helper-timeout for each nvcc in ts that did not answer (toolkit.timed_out). */
int rules_toolkit_timeouts(const struct toolkits *ts, struct report *r);

/* gpu-lost, ecc-errors, retired-pages-pending, pcie-link-degraded, clocks-throttled,
 * gpu-recovery-action, per GPU. Returns CD_OK or CD_ENOMEM. */
int rules_gpu_health(const struct gpu_probe *p, struct report *r);

struct pci_gpus;
struct gpu_count;
/* gpu-missing: an NVIDIA GPU on the PCI bus that NVML does not list (named by its bus id),
 * and fewer GPUs than expect (> 0; check --expect-gpus). The counts into *c. CD_OK or
 * CD_ENOMEM. */
int rules_gpu_count(const struct pci_gpus *pci, const struct gpu_probe *p, long long expect, struct gpu_count *c,
		    struct report *r);
/* One GPU's health verdict: the worst severity of the warn and error findings about it in r so
 * far (those whose subject names it as gpu_subject does: NVML's health, the kernel log's Xids,
 * the load tests), SEV_OK when there is none; their ids, each once, into ids (at most max,
 * pointing into r's findings), how many into *n. A command asks after its rules have run. */
enum severity rules_gpu_verdict(const struct report *r, const struct gpu_info *g, const char **ids, size_t max,
				size_t *n);
/* pcie-link-degraded alone, per GPU (for commands that judge links, not health: topo). */
int rules_gpu_pcie(const struct gpu_probe *p, struct report *r);

/* The one-line verdict when the report holds no warning or error and CUDA initialised:
 * an ok finding `stack-consistent` with what was checked. Run after every other rule. */
int rules_verdict(const struct facts *f, struct report *r);

/* Whether code built against CUDA `cuda` runs on a driver that supports `driver_cuda`
 * (minor-version compatibility from CUDA 11 on): it fits, it runs but the driver cannot JIT
 * its PTX (a newer minor), or it does not run (a newer major). */
enum cuda_fit { CUDA_FITS, CUDA_NEWER_MINOR, CUDA_NEWER_MAJOR };
enum cuda_fit rules_cuda_fit(const struct version *cuda, const struct version *driver_cuda);
/* The same for a toolkit's builds on the loaded driver (toolkit-newer-than-driver's verdict,
 * and doctor's "its builds run here"); false when either CUDA version is unknown. */
bool rules_toolkit_driver_fit(const struct toolkit *t, const struct gpu_probe *d, enum cuda_fit *fit);

/* The nvcc a build here would run: the first on PATH, else $CUDA_HOME's, else the first found. */
const struct toolkit *rules_build_nvcc(const struct toolkits *ts);

/* True when a toolkit accepts sm_<cc_major><cc_minor> (plain target), by the kb. */
bool rules_toolkit_targets(const struct toolkit *t, int cc_major, int cc_minor);

/* The values doctor's rule for finding id gives on these facts when it fires here (the driver
 * layer, the GPUs' health and WSL2's libraries: reads f->driver and f->platform only), and its
 * catalogue row (*row: id or id/variant). explain fills a match of the same id from them, so
 * what it says about this machine reads as doctor's. False when the rule does not fire here. */
bool rules_machine_vars(const char *id, const struct facts *f, struct finding_vars *v, const char **row);
/* Whether rules_machine_vars knows id at all (only then is the machine worth probing for it). */
bool rules_machine_vars_known(const char *id);

/* The catalogue values of the loaded driver: driver_version, driver_branch and those of
 * rules_cuda_vars. */
void rules_driver_vars(const struct gpu_probe *d, struct finding_vars *v);
/* driver_cuda ("12.2"), driver_cuda_digits ("122"), driver_major, driver_text ("driver
 * 535.54.03 (CUDA 12.2)", or "a driver of CUDA 12.2" without a version) of a driver that runs
 * CUDA cuda (version: its version, NULL or "" unknown). */
void rules_cuda_vars(const char *version, const struct version *cuda, struct finding_vars *v);

/* The subject of every finding about one GPU: "GPU 0 (NVIDIA H200)" by CUDA's ordinal,
 * or "NVML device 1 (NVIDIA H200)" for a GPU CUDA does not see. */
void gpu_subject(const struct gpu_info *g, char *buf, size_t len);

#endif
