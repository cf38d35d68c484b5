/* Cubin header, notes and symbols, read through elf.c's bounded accessors. */
#include "binfmt/cubin.h"

#include <string.h>

#include "binfmt/elf.h"
#include "util/err.h"

#define SHT_CUDA_COMPAT 0x70000086u

bool cubin_is_cubin(const unsigned char *data, size_t size)
{
	return elf_has_magic(data, size) && size >= 20 && rd16(data + 18) == ELF_EM_CUDA;
}

bool cubin_compat_says_arch_specific(const unsigned char *p, size_t len)
{
	size_t i = 0;
	while (i + 4 <= len) {
		uint8_t fmt = p[i], attr = p[i + 1];
		size_t rec;
		switch (fmt) {
		case 1: rec = 4; break;
		case 2:
			if (attr == 0x09)
				return p[i + 2] != 0;
			rec = 4;
			break;
		case 3:
			if (attr == 0x09)
				return rd16(p + i + 2) != 0;
			rec = 4;
			break;
		case 4: rec = 4 + (size_t)rd16(p + i + 2); rec = (rec + 3) & ~(size_t)3; break;
		default: return false;
		}
		i += rec;
	}
	return false;
}

static void read_cuinfo(const struct elf_file *e, const struct elf_section *s, struct cubin_info *ci)
{
	size_t len;
	const unsigned char *p = elf_section_bytes(e, s, &len);
	/* note: namesz, descsz, type, name (4-aligned), desc {u16 2, u16 vsm, u32 toolkit} */
	if (!p || len < 12)
		return;
	uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
	size_t desc = 12 + (((size_t)namesz + 3) & ~(size_t)3);
	if (type != 1000 || descsz < 8 || namesz > len || !in_bounds(desc, 8, len))
		return;
	if (!ci->virtual_sm)
		ci->virtual_sm = rd16(p + desc + 2);
	ci->toolkit = rd32(p + desc + 4);
}

int cubin_read(const unsigned char *data, size_t size, struct cubin_info *ci, char *err)
{
	struct elf_file e;
	memset(ci, 0, sizeof(*ci));
	int rc = elf_open(&e, data, size, err);
	if (rc)
		return rc;
	if (e.machine != ELF_EM_CUDA)
		return cd_fail(err, CD_EFORMAT, "ELF machine %u is not EM_CUDA (offset 18)", e.machine);
	ci->abi = e.abiversion;
	ci->type = e.type;
	ci->e_flags = e.flags;
	bool v2 = e.abiversion >= 8;
	if (v2) {
		ci->sm = (e.flags >> 8) & 0xff;
		ci->virtual_sm = (e.flags >> 16) & 0xff;
	} else {
		ci->sm = e.flags & 0xff;
		ci->virtual_sm = (e.flags >> 16) & 0xff;
		ci->arch_specific = (e.flags & 0x800) != 0;
	}
	struct elf_section s;
	for (size_t i = 1; i < e.shnum; i++) {
		rc = elf_section_at(&e, i, &s, err);
		if (rc)
			return rc;
		if (strncmp(s.name, ".text.", 6) == 0)
			ci->has_code = true;
		else if (s.type == SHT_CUDA_COMPAT && v2) {
			size_t len;
			const unsigned char *p = elf_section_bytes(&e, &s, &len);
			if (p)
				ci->arch_specific = cubin_compat_says_arch_specific(p, len);
		} else if (s.type == ELF_SHT_NOTE && strcmp(s.name, ".note.nv.cuinfo") == 0)
			read_cuinfo(&e, &s, ci);
	}
	return CD_OK;
}

int cubin_kernels(const unsigned char *data, size_t size,
		  int (*fn)(const char *name, void *ctx), void *ctx, char *err)
{
	struct elf_file e;
	int rc = elf_open(&e, data, size, err);
	if (rc)
		return rc;
	/* the first symbol table only (an ELF has one), and names that together take no more than
	 * the cubin's size: crafted symbols can each name the same long string */
	struct elf_section s;
	size_t budget = size + 65536;
	for (size_t i = 1; i < e.shnum; i++) {
		rc = elf_section_at(&e, i, &s, err);
		if (rc)
			return rc;
		if (s.type != ELF_SHT_SYMTAB)
			continue;
		size_t n = elf_symbol_count(&e, &s);
		for (size_t k = 0; k < n; k++) {
			struct elf_symbol sym;
			if (elf_symbol_at(&e, &s, k, &sym, NULL) == CD_OK && sym.type == ELF_STT_FUNC &&
			    (sym.other & CUBIN_STO_ENTRY) && sym.name[0]) {
				size_t len = strnlen(sym.name, budget + 1);
				if (len > budget)
					return cd_fail(err, CD_EFORMAT, "kernel names take more bytes than the cubin (%zu) holds",
						       size);
				budget -= len;
				rc = fn(sym.name, ctx);
				if (rc)
					return rc;
			}
		}
		break;
	}
	return CD_OK;
}
