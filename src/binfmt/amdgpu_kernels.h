/* The kernels of an AMDGPU code object and what each uses: the NT_AMDGPU_METADATA note's
 * amdhsa.kernels (code object V3+, AMDGPUUsage "Code Object V3+ Metadata"), else the kernel
 * descriptors (NAME.kd symbols, AMDGPUUsage "Kernel Descriptor"). */
#ifndef CUDOCTOR_BINFMT_AMDGPU_KERNELS_H
#define CUDOCTOR_BINFMT_AMDGPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AMDGPU_KERNELS_MAX 65536 /* more kernels than this in one code object is not a compiler's */
#define AMDGPU_UNKNOWN UINT64_MAX /* a field the code object does not give */

struct amdgpu_kernel {
	char *name;                  /* safe text, owned */
	uint64_t sgprs, vgprs, agprs; /* .sgpr_count, .vgpr_count, .agpr_count */
	uint64_t group_bytes;        /* LDS: .group_segment_fixed_size */
	uint64_t private_bytes;      /* scratch per work-item: .private_segment_fixed_size */
	uint64_t kernarg_bytes;      /* .kernarg_segment_size */
	uint64_t max_workgroup;      /* .max_flat_workgroup_size */
	uint64_t wavefront;          /* .wavefront_size */
	uint64_t sgpr_spills, vgpr_spills;
};

struct amdgpu_kernels {
	struct amdgpu_kernel *k;
	size_t n;
	bool from_metadata;          /* false: from the descriptors (registers unknown) */
};

/* The kernels of the code object in data, in the metadata's (or symbol table's) order. Every
 * field not given is AMDGPU_UNKNOWN. CD_EFORMAT when it is no AMDGPU code object or its
 * metadata is malformed, CD_ENOMEM. A code object with no kernels is CD_OK with n 0. */
int amdgpu_kernels_read(const unsigned char *data, size_t size, struct amdgpu_kernels *out, char *err);
void amdgpu_kernels_free(struct amdgpu_kernels *ks);

#endif
