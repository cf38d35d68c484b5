/* The stack rules: pure functions from facts about driver, GPUs, toolkits, runtimes,
 * Python frameworks and platform to findings. No I/O; every fact is given. */
#ifndef CUDOCTOR_STACK_RULES_H
#define CUDOCTOR_STACK_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "util/version.h"

/* A version that may be unknown: parts == 0 means unknown. */

struct stack_driver {
	bool loaded;                  /* libcuda could be dlopen'ed */
	const char *load_error;       /* why not, when !loaded */
	const char *library_path;     /* the file loaded */
	bool init_called;
	int init_result;              /* CUresult of cuInit(0) */
	const char *init_result_name; /* "CUDA_ERROR_NO_DEVICE" */
	struct version cuda;          /* cuDriverGetVersion: the newest CUDA it supports */
	const char *version;          /* user-space driver "580.159.04", NULL if unknown */
	const char *version_source;   /* "NVML", "libcuda file name", ... */
	const char *kmod_version;     /* loaded kernel module, NULL if unknown */
	bool has_device_count;        /* cuDeviceGetCount answered (after a good cuInit) */
	int device_count;
	bool nvml_failed;             /* NVML could not be loaded or initialised */
	const char *nvml_error;
	int nvml_result;              /* nvmlReturn_t of nvmlInit when it failed; 0 when not loaded */
	const char *nvml_path;        /* the libnvidia-ml loaded, NULL if none */
	bool has_nvml_device_count;   /* NVML answered nvmlDeviceGetCount */
	int nvml_device_count;
	/* from the kb: the driver branch that supports the next CUDA release, for fixes */
	const char *branch;           /* "R550", NULL if unknown */
};

/* One MIG device (compute instance) of a GPU, for CUDA_VISIBLE_DEVICES=MIG-... */
struct stack_mig {
	const char *uuid;             /* "MIG-..." as NVML gives it; NULL unknown */
	int gpu_instance_id, compute_instance_id;  /* -1 unknown */
};

struct stack_gpu {
	int cuda_index;               /* ordinal as CUDA numbers it (-1: hidden from CUDA) */
	int pci_index;                /* NVML / nvidia-smi / PCI order */
	const char *name;
	int cc_major, cc_minor;       /* 0.0 unknown */
	const char *pci_bus_id;
	const char *uuid;             /* "GPU-..." */
	/* from the kb */
	const char *first_toolkit;    /* first CUDA that can build sm_XY for it, "11.8" */
	const char *last_toolkit;     /* last CUDA that can, NULL: still supported */
	/* hardware health (ECC, retired pages, PCIe, clocks) is judged by cmd/gpu_findings */
	int persistence;              /* 1 on, 0 off, -1 unknown */
	/* MIG devices: mig_listed when they are known (MIG mode off: known, none) */
	bool mig_listed;
	const struct stack_mig *migs;
	size_t n_migs;
};

struct stack_toolkit {
	const char *path;             /* toolkit root as found */
	const char *nvcc;
	struct version version;       /* CUDA release of the toolkit */
	bool selected;                /* the nvcc a build would use (first on PATH) */
	/* from the kb (kb_known false when the kb has no row for this version) */
	bool kb_known;
	const int *archs;             /* SM numbers nvcc accepts, ascending (75, 80, 90; a/f variants left out) */
	size_t n_archs;
	const char *min_driver;       /* minimum Linux driver for this toolkit, "580.65.06" */
	const char *min_branch;       /* "R580" */
};

enum runtime_origin { ORIGIN_SYSTEM, ORIGIN_TOOLKIT, ORIGIN_PIP, ORIGIN_TORCH, ORIGIN_CONDA };
const char *runtime_origin_name(enum runtime_origin o); /* "system", "toolkit", "pip wheel", ... */

struct stack_runtime {
	const char *path;             /* as the loader or search found it */
	const char *real_path;
	const char *soname;           /* "libcudart.so.12" */
	struct version version;
	const char *version_text;     /* as found, "12.4.127"; NULL: format version */
	enum runtime_origin origin;
	int rank;                     /* loader preference for a program without RUNPATH; -1: not on the loader path */
	bool from_ld_library_path;
	const char *min_driver;       /* kb: the family floor, "525.60.13" */
};

struct stack_framework {
	const char *name;             /* "torch" */
	const char *version;          /* "2.5.1+cu124" */
	const char *cuda;             /* "12.4"; NULL for a CPU-only build */
	bool cpu_only;
	const char *path;             /* its package directory */
	const char *min_driver;       /* kb: the family floor for its CUDA */
};

enum visible_token_kind { VIS_INDEX, VIS_GPU_UUID, VIS_MIG_UUID, VIS_INVALID };

struct visible_token {
	enum visible_token_kind kind;
	long index;                   /* VIS_INDEX */
	char text[96];                /* the token as written (truncated) */
};

#define VISIBLE_MAX_TOKENS 64

struct visible_devices {
	bool set;                     /* CUDA_VISIBLE_DEVICES is in the environment */
	const char *raw;
	size_t n;
	bool truncated;               /* more than VISIBLE_MAX_TOKENS tokens */
	struct visible_token tok[VISIBLE_MAX_TOKENS];
};

struct device_node {
	char path[64];
	bool exists;
	bool accessible;              /* open for read and write would be allowed */
};

struct stack_platform {
	bool wsl;
	bool wsl_lib_dir;             /* /usr/lib/wsl/lib exists */
	bool wsl_libcuda1;            /* /usr/lib/wsl/lib/libcuda.so.1 exists */
	bool wsl_libcuda1_symlink;    /* ... and is a symbolic link (ldconfig complains otherwise) */
	bool wsl_libcuda_unversioned; /* libcuda.so (what -lcuda and Triton need) is reachable */
	bool wsl_dxg;                 /* /dev/dxg exists */
	const char *wsl_distro_libcuda; /* a Linux driver libcuda.so.<ver> installed inside WSL */
	const char *container;        /* "docker", "podman", "kubernetes", NULL */
	const struct device_node *nodes;
	size_t n_nodes;
	struct visible_devices visible;
	const char *device_order;     /* CUDA_DEVICE_ORDER, NULL if unset */
};

struct stack_facts {
	struct stack_driver driver;
	const struct stack_gpu *gpus;          /* in PCI (NVML) order */
	size_t n_gpus;
	const struct stack_toolkit *toolkits;
	size_t n_toolkits;
	const struct stack_runtime *runtimes;
	size_t n_runtimes;
	const struct stack_framework *frameworks;
	size_t n_frameworks;
	struct stack_platform platform;
};

/* Adds every finding the facts support to r. Returns CD_OK or CD_ENOMEM. */
int stack_rules_run(const struct stack_facts *f, struct report *r);

/* Only the driver layer: no-driver, cuInit's failures (no-device, system-not-ready,
 * driver-library-mismatch, forward-compat-unsupported, driver-init-failed), a device count
 * of 0, kernel module vs user-space mismatch and nvml-unavailable. Reads f->driver and
 * f->platform (WSL, container, CUDA_VISIBLE_DEVICES) only. `devices` runs this alone;
 * stack_rules_run runs it first. Returns CD_OK or CD_ENOMEM. */
int stack_driver_rules(const struct stack_facts *f, struct report *r);

/* The one-line verdict when the report holds no warning or error and CUDA initialised:
 * an ok finding `stack-consistent` with what was checked. Run after every other rule. */
int stack_verdict(const struct stack_facts *f, struct report *r);

/* Whether code built against CUDA `cuda` runs on a driver that supports `driver_cuda`:
 * the rule toolkit-newer-than-driver applies (minor-version compatibility from CUDA 11). */
enum stack_cuda_fit { STACK_CUDA_FITS, STACK_CUDA_NEWER_MINOR, STACK_CUDA_NEWER_MAJOR };
enum stack_cuda_fit stack_cuda_fit(const struct version *cuda, const struct version *driver_cuda);

/* True when a toolkit accepts sm_<cc_major><cc_minor> (plain target). */
bool stack_toolkit_targets(const struct stack_toolkit *t, int cc_major, int cc_minor);

#endif
