/* What was collected about an AMD GPU machine, with no ROCm needed: the GPUs of the KFD
 * topology, their VRAM, the amdgpu kernel module, the device nodes and the groups that own
 * them, the ROCm user space installed and, where it loads, what HIP says, and the ROCm
 * environment variables. probe/amd.c fills it; rules/amd.c judges it. */
#ifndef CUDOCTOR_FACTS_AMD_H
#define CUDOCTOR_FACTS_AMD_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"

#define AMD_MAX_GPUS 16
#define AMD_MAX_NODES (AMD_MAX_GPUS + 1)

struct amd_gpu {
	int node;                     /* KFD topology node number */
	unsigned gfx_target_version;  /* as KFD writes it: 110000, 90010 */
	char gfx[16];                 /* decoded: "gfx1100", "gfx90a" */
	unsigned vendor_id, device_id, revision_id;
	unsigned simd_count, cu_count;
	int render_minor;             /* its /dev/dri/renderD node; -1 unknown */
	char card[16];                /* its DRM card ("card0"); "" unknown */
	long long vram_bytes;         /* mem_info_vram_total; -1 unknown */
	char product[96];             /* the kb's AMD GPU of this target when there is one alone, else "" */
};

/* A device node every ROCm program opens: /dev/kfd and each GPU's /dev/dri/renderD*. */
struct amd_node {
	char path[32];
	bool exists;
	bool accessible;              /* this process may open it for read and write (what it holds) */
	unsigned mode, gid;           /* permission bits and owning group */
	char group[32];               /* the group's name (the host's /etc/group), "" unknown */
	int user_in_group;            /* the user is in that group: 1, 0, -1 unknown */
	bool opens;                   /* the user may open it: by owner, group or other bits (root: always) */
};

struct amd_host {
	bool kfd;                     /* /sys/class/kfd/kfd/topology/nodes exists */
	struct amd_gpu gpus[AMD_MAX_GPUS];
	size_t n_gpus;
	bool amdgpu_module;           /* /sys/module/amdgpu exists */
	char amdgpu_initstate[16];    /* "live" once loaded and initialised */
	char amdgpu_version[48];      /* AMD's DKMS driver writes its version; "" for the kernel's own */
	struct amd_node nodes[AMD_MAX_NODES];
	size_t n_nodes;
	char user[64];                /* whose groups are judged ($USER, else the uid's name) */
	bool root;                    /* the user is root (uid 0): every node opens */
	char rocm_version[48];        /* /opt/rocm/.info/version ("6.4.1-120"), "" none */
	char rocm_path[FACTS_PATH];   /* the /opt/rocm* it came from */
	char hip_library[FACTS_PATH]; /* libamdhip64.so* found, "" none */
	char hsa_library[FACTS_PATH]; /* libhsa-runtime64.so* found, "" none */
	bool hip_loaded;              /* libamdhip64 loaded (dlopen) */
	int hip_runtime_version;      /* hipRuntimeGetVersion: 60443483 (6.4.43483); 0 unknown */
	int hip_device_count;         /* hipGetDeviceCount; -1 unknown */
	int hip_error;                /* its hipError_t when it failed, else 0 */
	char hip_load_error[160];     /* why it did not load, "" */
	const char *hsa_override;     /* $HSA_OVERRIDE_GFX_VERSION, NULL unset */
	const char *hip_visible;      /* $HIP_VISIBLE_DEVICES */
	const char *rocr_visible;     /* $ROCR_VISIBLE_DEVICES */
	const char *hsa_xnack;        /* $HSA_XNACK */
	/* NVIDIA's side of the machine, which decides whether a missing NVIDIA driver is an error:
	 * NVIDIA display controllers on the PCI bus (vendor 0x10de, class 0x03), -1 bus unreadable */
	int nvidia_pci_gpus;
	bool nvidia_module;           /* /proc/driver/nvidia/version or /sys/module/nvidia exists */
};

/* Their fields (amd_fields.c): doctor's and devices' "amd" object, its "gpus" and "nodes". */
extern const struct field_table amd_host_field_table, amd_gpu_field_table, amd_node_field_table;

#endif
