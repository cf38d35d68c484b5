/* What was collected about the platform: WSL2 and its driver libraries, containers,
 * /dev/nvidia* nodes and the CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER environment.
 * probe/platform.c fills it; rules and renderers only read it. */
#ifndef CUDOCTOR_FACTS_PLATFORM_H
#define CUDOCTOR_FACTS_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "facts/path.h"
#include "util/field.h"

enum visible_token_kind { VIS_INDEX, VIS_GPU_UUID, VIS_MIG_UUID, VIS_INVALID };

struct visible_token {
	enum visible_token_kind kind;
	long index;                   /* VIS_INDEX */
	char text[96];                /* the token as written (truncated) */
};

#define VISIBLE_MAX_TOKENS 64

struct visible_devices {
	bool set;                     /* CUDA_VISIBLE_DEVICES is in the environment */
	const char *raw;              /* points into the environment */
	size_t n;
	bool truncated;               /* more than VISIBLE_MAX_TOKENS tokens */
	struct visible_token tok[VISIBLE_MAX_TOKENS];
};

struct device_node {
	char path[64];
	bool exists;
	bool accessible;              /* open for read and write would be allowed */
};

#define PLATFORM_MAX_NODES 24

struct platform_info {
	bool windows;                 /* cudoctor.exe on Windows: Linux's files (WSL's, containers',
				       * /dev/nvidia*) are no facts here and were not read */
	bool wsl;
	bool wsl_lib_dir;             /* /usr/lib/wsl/lib exists */
	bool wsl_libcuda1;            /* /usr/lib/wsl/lib/libcuda.so.1 exists */
	bool wsl_libcuda1_symlink;    /* ... and is a symbolic link (ldconfig complains otherwise) */
	bool wsl_libcuda_unversioned; /* libcuda.so (what -lcuda and Triton need) is reachable */
	bool wsl_dxg;                 /* /dev/dxg exists */
	char wsl_distro_libcuda[FACTS_PATH]; /* a Linux driver libcuda.so.<ver> installed inside WSL; "" none */
	const char *container;        /* "docker", "podman", "kubernetes", "lxc", "container", NULL */
	struct device_node nodes[PLATFORM_MAX_NODES];
	size_t n_nodes;
	struct visible_devices visible;
	const char *device_order;     /* $CUDA_DEVICE_ORDER, NULL if unset */
	const char *image_cuda_version;     /* $CUDA_VERSION set by NVIDIA's container images */
	const char *nvidia_visible_devices; /* $NVIDIA_VISIBLE_DEVICES (container runtime) */
	char net_ifaces[256];         /* network interfaces with a route (/proc/net/route, /proc/net/if_inet6),
				       * blank-separated, lo left out; what NCCL_SOCKET_IFNAME is judged against */
	bool net_known;               /* one of those files was read */
};

/* Their fields (platform_fields.c): doctor's "platform" object. */
extern const struct field_table platform_field_table, device_node_field_table;

#endif
