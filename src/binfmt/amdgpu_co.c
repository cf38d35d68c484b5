/* AMDGPU code object headers: EF_AMDGPU_MACH and the XNACK/SRAMECC settings of e_flags,
 * as code object V3 and V4 onwards spell them. */
#include "binfmt/amdgpu_co.h"

#include <stdio.h>
#include <string.h>

#include "binfmt/bytes.h"
#include "binfmt/elf.h"
#include "util/err.h"

#define EF_MACH 0x0ffu
#define EF_XNACK_V3 0x100u
#define EF_SRAMECC_V3 0x200u
#define EF_XNACK_V4 0x300u
#define EF_SRAMECC_V4 0xc00u
#define EF_GENERIC_VERSION_SHIFT 24
#define ABI_V3 1 /* EI_ABIVERSION of code object V3; V4 is 2, V5 3, V6 4 */

/* EF_AMDGPU_MACH values (llvm/BinaryFormat/ELF.h, AMDGPUUsage's EF_AMDGPU_MACH table) */
static const struct {
	unsigned mach;
	const char *name;
} machs[] = {
	{0x20, "gfx600"}, {0x21, "gfx601"}, {0x22, "gfx700"}, {0x23, "gfx701"}, {0x24, "gfx702"},
	{0x25, "gfx703"}, {0x26, "gfx704"}, {0x28, "gfx801"}, {0x29, "gfx802"}, {0x2a, "gfx803"},
	{0x2b, "gfx810"}, {0x2c, "gfx900"}, {0x2d, "gfx902"}, {0x2e, "gfx904"}, {0x2f, "gfx906"},
	{0x30, "gfx908"}, {0x31, "gfx909"}, {0x32, "gfx90c"}, {0x33, "gfx1010"}, {0x34, "gfx1011"},
	{0x35, "gfx1012"}, {0x36, "gfx1030"}, {0x37, "gfx1031"}, {0x38, "gfx1032"}, {0x39, "gfx1033"},
	{0x3a, "gfx602"}, {0x3b, "gfx705"}, {0x3c, "gfx805"}, {0x3d, "gfx1035"}, {0x3e, "gfx1034"},
	{0x3f, "gfx90a"}, {0x40, "gfx940"}, {0x41, "gfx1100"}, {0x42, "gfx1013"}, {0x43, "gfx1150"},
	{0x44, "gfx1103"}, {0x45, "gfx1036"}, {0x46, "gfx1101"}, {0x47, "gfx1102"}, {0x48, "gfx1200"},
	{0x49, "gfx1250"}, {0x4a, "gfx1151"}, {0x4b, "gfx941"}, {0x4c, "gfx942"}, {0x4e, "gfx1201"},
	{0x4f, "gfx950"}, {0x50, "gfx1310"}, {0x51, "gfx9-generic"}, {0x52, "gfx10-1-generic"},
	{0x53, "gfx10-3-generic"}, {0x54, "gfx11-generic"}, {0x55, "gfx1152"}, {0x57, "gfx1154"},
	{0x58, "gfx1153"}, {0x59, "gfx12-generic"}, {0x5a, "gfx1251"}, {0x5b, "gfx12-5-generic"},
	{0x5c, "gfx1172"}, {0x5d, "gfx1170"}, {0x5e, "gfx1171"}, {0x5f, "gfx9-4-generic"},
	{0x62, "gfx11-7-generic"}, {0x63, "gfx13-generic"},
};

const char *amdgpu_mach_name(unsigned mach)
{
	for (size_t i = 0; i < sizeof(machs) / sizeof(machs[0]); i++)
		if (machs[i].mach == mach)
			return machs[i].name;
	return NULL;
}

bool amdgpu_co_is_code_object(const unsigned char *data, size_t size)
{
	return elf_has_magic(data, size) && size >= 20 && rd16(data + 18) == ELF_EM_AMDGPU;
}

/* V4 onwards: 0 unsupported (any), 1 any, 2 off, 3 on */
static enum hipfb_feature feature_v4(unsigned bits)
{
	return bits == 3 ? HIPFB_FEAT_ON : bits == 2 ? HIPFB_FEAT_OFF : HIPFB_FEAT_ANY;
}

int amdgpu_co_read(const unsigned char *data, size_t size, struct amdgpu_co *out, char *err)
{
	struct elf_file e;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!amdgpu_co_is_code_object(data, size))
		return cd_fail(err, CD_EFORMAT, "not an AMDGPU code object");
	if ((rc = elf_open(&e, data, size, err)))
		return rc;
	if (!e.is64)
		return cd_fail(err, CD_EFORMAT, "a 32-bit AMDGPU ELF file (r600) is no HSA code object");
	out->co_version = e.abiversion + 2u;
	const char *name = out->co_version >= 3 ? amdgpu_mach_name(e.flags & EF_MACH) : NULL;
	if (name)
		snprintf(out->target.processor, sizeof out->target.processor, "%s", name);
	if (out->co_version == 3) {
		out->target.xnack = e.flags & EF_XNACK_V3 ? HIPFB_FEAT_ON : HIPFB_FEAT_OFF;
		out->target.sramecc = e.flags & EF_SRAMECC_V3 ? HIPFB_FEAT_ON : HIPFB_FEAT_OFF;
	} else if (out->co_version > 3) {
		out->target.xnack = feature_v4((e.flags & EF_XNACK_V4) >> 8);
		out->target.sramecc = feature_v4((e.flags & EF_SRAMECC_V4) >> 10);
		if (out->co_version >= 6)
			out->generic_version = e.flags >> EF_GENERIC_VERSION_SHIFT;
	}
	return CD_OK;
}
