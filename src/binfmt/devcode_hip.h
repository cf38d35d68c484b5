/* Between devcode.c and devcode_hip.c only: the section names they share, and the HIP half
 * of dc_scan. */
#ifndef CUDOCTOR_BINFMT_DEVCODE_HIP_H
#define CUDOCTOR_BINFMT_DEVCODE_HIP_H

#include "binfmt/devcode.h"

/* The index of a section name in inv->sections, added when new. CD_OK or CD_ENOMEM. */
int dc_intern_section(struct dc_inventory *inv, const char *full, size_t full_len, uint32_t *idx);

/* The offload bundles that start at data[start] and follow it to data[end] (a .hip_fatbin
 * section, or a bare bundle file): plain and compressed, back to back with padding between,
 * as clang's linker lays them out. base: data's offset in the file. */
int dc_hip_scan_region(struct dc_inventory *inv, const unsigned char *data, size_t start, size_t end, size_t base,
		       const char *section, size_t name_len, int member, char *err);
/* A bare AMDGPU code object: one bundle of one entry, its target from the ELF header. */
int dc_hip_add_code_object(struct dc_inventory *inv, const unsigned char *data, size_t size, char *err);
/* Whether the bytes at p (n available) start an offload bundle or a compressed one. */
bool dc_hip_magic_at(const unsigned char *p, size_t n);
void dc_hip_free(struct dc_inventory *inv);

#endif
