/* Platform facts: WSL2 and its driver libraries, containers, /dev/nvidia* nodes and the
 * CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER environment. */
#ifndef CUDOCTOR_PROBE_PLATFORM_H
#define CUDOCTOR_PROBE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "kb/stack_rules.h"
#include "probe/paths.h"

#define PLATFORM_MAX_NODES 24

struct platform_info {
	bool wsl;
	bool wsl_lib_dir, wsl_libcuda1, wsl_libcuda1_symlink, wsl_libcuda_unversioned, wsl_dxg;
	char wsl_distro_libcuda[PROBE_PATH]; /* "" when none */
	const char *container;               /* "docker", "podman", "kubernetes", "lxc", "container", NULL */
	struct device_node nodes[PLATFORM_MAX_NODES];
	size_t n_nodes;
	struct visible_devices visible;      /* raw points into the environment */
	const char *device_order;            /* $CUDA_DEVICE_ORDER */
	const char *image_cuda_version;      /* $CUDA_VERSION set by NVIDIA's container images */
	const char *nvidia_visible_devices;  /* $NVIDIA_VISIBLE_DEVICES (container runtime) */
};

/* Parses CUDA_VISIBLE_DEVICES as CUDA reads it: comma-separated indices, GPU-<uuid>
 * (any unique prefix) or MIG-<uuid>; whitespace around tokens is ignored. raw may be
 * NULL (unset); out->raw points into raw. */
void visible_devices_parse(const char *raw, struct visible_devices *out);

/* The stack rules' view of p (pointers into p): what doctor and devices hand the rules. */
void platform_stack_facts(const struct platform_info *p, struct stack_platform *out);

/* root prefixes /proc, /dev, /usr/lib/wsl, /etc/ld.so.cache and /.dockerenv (tests). */
int platform_probe(struct platform_info *p, const char *root, char *err);

#endif
