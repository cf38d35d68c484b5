/* An AMD GPU machine as the kernel and the file system show it, with no ROCm needed: the KFD
 * topology, DRM's VRAM, the amdgpu module, /dev/kfd and /dev/dri/renderD* with their groups,
 * the ROCm install, and HIP through dlopen where it loads. Every file through host_path(). */
#ifndef CUDOCTOR_PROBE_AMD_H
#define CUDOCTOR_PROBE_AMD_H

#include "facts/amd.h"

/* Fills h from the host under root (NULL: $CUDOCTOR_HOST_ROOT, else /). Loads nothing. */
void amd_probe(struct amd_host *h, const char *root);
/* Loads libamdhip64 (CUDOCTOR_LIBHIP, the loader, the ROCm install's lib folder) and asks its
 * version and device count into h; a library that does not load is a fact (hip_load_error). */
void amd_probe_hip(struct amd_host *h);
/* A KFD node's properties text ("key value" lines, NUL-terminated) into g: true when it is a
 * GPU node (a gfx_target_version that names a processor), g's DRM fields left unknown. */
bool amd_gpu_from_properties(const char *text, int node, struct amd_gpu *g);
/* "gfx1100" for KFD's 110000, "gfx90a" for 90010; false for 0 (a CPU node) or a value that
 * names no processor. */
bool amd_gfx_of_target_version(unsigned v, char *out, size_t cap);

#endif
