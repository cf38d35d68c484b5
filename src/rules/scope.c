/* Each id's scope (rules/scope.h): two sorted lists, searched by halves. */
#include "rules/scope.h"

#include <stdlib.h>
#include <string.h>

/* The node's own health, the same for every job on it: the driver (libcuda, NVML, the kernel
 * module, cuInit, the JIT compiler it ships), the GPUs (lost, ECC, retired pages, PCIe, clocks,
 * NVLink, peer access, NUMA placement), the kernel log and its Xids, device nodes, nouveau,
 * persistence, the container runtime's and the OS's GPU settings (WSL's libraries, WDDM, TDR,
 * the paging file), and cudoctor's own known-good work on the GPUs (check's load tests, the
 * labs, the fleet's measurements and its NCCL runs). */
static const char *const node_ids[] = {
	"amd-hip-no-device", "amd-kfd-no-gpu", "cdi-spec-stale", "cdi-spec-version-mismatch", "clocks-throttled",
	"container-device-rules-lost", "container-engine-sandboxed",
	"container-toolkit-missing", "device-nodes", "devices-unavailable", "driver-init-failed",
	"driver-library-mismatch", "ecc-errors", "fabric-manager-state", "fleet-check-slow",
	"fleet-nccl-failed", "fleet-nccl-slow-node", "fleet-nccl-slow-pair", "fleet-node-failed",
	"fleet-node-missing", "fleet-outlier", "forward-compat-unsupported", "gpu-display-tdr", "gpu-lost",
	"gpu-missing", "gpu-newer-than-driver", "gpu-recovery-action", "gpu-wddm-datacenter", "helper-timeout",
	"hyperv-no-gpu-libs",
	"jit-compiler-missing", "kernel-log-unread", "lab-failed", "lab-inconclusive", "lab-refuted",
	"lab-wrong-result", "launch-timeout", "load-copy-corrupt", "load-copy-slow", "load-gemm-mismatch",
	"load-gemm-slow", "load-memory-errors", "load-new-xid", "load-throttled", "nccl-ib-missing",
	"nccl-memlock-limit", "nccl-p2p-disabled", "nccl-socket-fallback", "nccl-system-error", "no-device",
	"no-driver", "no-nvidia-gpu", "nouveau-loaded", "numa-affinity", "nvlink-down", "nvml-unavailable",
	"p2p-unsupported",
	"pcie-acs-p2p-blocked", "pcie-link-degraded", "persistence-off", "retired-pages-pending", "rocm-driver-window",
	"rocm-kfd-access", "stack-consistent", "system-not-ready", "unknown-error",
	"windows-pagefile-too-small", "wsl-libcuda", "wsl-pinned-memory-limit", "wsl-tcc-mode", "wsl1-no-gpu",
	"xid-errors", "xpu-device-lost",
};

/* What a job brings, which draining the node would not fix: Python and its frameworks,
 * toolkits, runtime and library files, environment variables, a binary's device code, the
 * program's own errors (memory, launches, NCCL usage), and what mem, plan, gencode and the
 * fleet's inputs judge. */
static const char *const environment_ids[] = {
	"amd-override-set", "amd-visible-devices", "arch-deprecated-by-toolkit", "arch-dropped-by-toolkit",
	"container-stale-driver-libs", "context-past-training", "cuda-env", "cuda-error",
	"cuda-malloc-async-unsupported", "device-order-mismatch", "driver-cuda-version",
	"dtype-unsupported-by-gpu", "fleet-grouped", "fleet-heterogeneous", "fleet-report-skipped", "framework-cannot-run",
	"gpu-vendor-mismatch", "hip-sdk-not-on-path", "host-compiler-unsupported", "host-memory-insufficient",
	"host-pinned-memory-exhausted", "illegal-address", "install-path-unloadable", "invalid-device-ordinal", "invalid-kernel-image",
	"invalid-ptx", "jetson-nvmap-alloc-limit", "jetson-sbsa-mismatch", "jit-disabled", "kernel-exception",
	"lab-no-kernels", "launch-out-of-resources", "libcuda-link-missing", "library-arch-mismatch",
	"library-missing", "library-shadowed", "library-version-mismatch", "mem-shape-unknown",
	"mps-out-of-memory", "nccl-cuda-error", "nccl-internal-error", "nccl-invalid-usage",
	"nccl-socket-ifname-invalid", "nccl-timeout", "nccl-version-mismatch", "no-common-toolkit",
	"no-kernel-image", "non-nvidia-platform", "ollama-vram-not-recovered", "oom-capacity",
	"oom-fragmentation", "oom-other-process", "out-of-memory", "partial-kernel-image", "pinned-host-oom",
	"plan-driver-change", "plan-jetson", "plan-no-common-driver", "plan-no-rocm-build",
	"plan-no-single-build", "ptx-too-new", "rocm-error", "rocm-gfx-override-wrong",
	"rocm-gfx-target-missing", "rocm-out-of-memory", "rocm-partial-code-object",
	"runtime-newer-than-driver", "stream-capture-violation", "toolkit-cannot-target-gpu",
	"toolkit-framework-mismatch", "toolkit-newer-than-driver", "toolkit-not-found", "torch-cpu-only",
	"visible-devices-invalid", "vllm-startup-free-memory", "win-cuda-path-mismatch",
	"win-cuda-path-missing", "win-dll-not-found",
	"win-dll-shadowed", "win-exe-dll-not-found", "win-exe-dll-shadowed", "win-exe-import-malformed",
	"win-runtime-dll-missing", "xpu-out-of-memory", "zstd-needs-newer-driver",
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static int cmp_id(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool listed(const char *id, const char *const *ids, size_t n)
{
	return bsearch(id, ids, n, sizeof *ids, cmp_id) != NULL;
}

enum finding_scope finding_scope(const char *id)
{
	char base[72];
	size_t n = strcspn(id, "/");

	if (n >= sizeof base)
		return SCOPE_UNKNOWN;
	memcpy(base, id, n);
	base[n] = '\0';
	if (listed(base, node_ids, COUNT(node_ids)))
		return SCOPE_NODE;
	if (listed(base, environment_ids, COUNT(environment_ids)))
		return SCOPE_ENVIRONMENT;
	return SCOPE_UNKNOWN;
}

const char *finding_scope_name(enum finding_scope s)
{
	switch (s) {
	case SCOPE_NODE: return "node";
	case SCOPE_ENVIRONMENT: return "environment";
	case SCOPE_UNKNOWN: break;
	}
	return "unknown";
}

bool finding_scope_drains(const char *id)
{
	return finding_scope(id) == SCOPE_NODE;
}

const char *finding_scope_at(size_t i, enum finding_scope *scope)
{
	if (i < COUNT(node_ids)) {
		*scope = SCOPE_NODE;
		return node_ids[i];
	}
	i -= COUNT(node_ids);
	if (i < COUNT(environment_ids)) {
		*scope = SCOPE_ENVIRONMENT;
		return environment_ids[i];
	}
	*scope = SCOPE_UNKNOWN;
	return NULL;
}
