/* AMDGPU code objects (ELF, e_machine EM_AMDGPU): the processor and target features their
 * header flags name (AMDGPUUsage, "ELF Code Object"). Knows file formats, not GPUs. */
#ifndef CUDOCTOR_BINFMT_AMDGPU_CO_H
#define CUDOCTOR_BINFMT_AMDGPU_CO_H

#include <stdbool.h>
#include <stddef.h>

#include "binfmt/hipfb.h"

#define ELF_EM_AMDGPU 224

struct amdgpu_co {
	struct hipfb_target target; /* processor "" when the flags name none (code object V2) */
	unsigned co_version;        /* code object version: 2..6 (from EI_ABIVERSION) */
	unsigned generic_version;   /* V6 generic code objects: EF_AMDGPU_GENERIC_VERSION, else 0 */
};

/* True when the buffer is an ELF file for EM_AMDGPU (its header only is looked at). */
bool amdgpu_co_is_code_object(const unsigned char *data, size_t size);
/* Its processor and features. CD_EFORMAT when it is not a 64-bit AMDGPU ELF file. */
int amdgpu_co_read(const unsigned char *data, size_t size, struct amdgpu_co *out, char *err);
/* The processor an EF_AMDGPU_MACH value names ("gfx90a"), or NULL. */
const char *amdgpu_mach_name(unsigned mach);

#endif
