/* ELF header, section table and symbol table reading, bounds-checked, in place. */
#include "binfmt/elf.h"

#include <string.h>

#include "util/err.h"

bool elf_has_magic(const unsigned char *data, size_t size)
{
	return data && size >= 4 && memcmp(data, "\177ELF", 4) == 0;
}

/* How far a string table holds terminated strings: just past its last NUL, looked for only
 * in its last STRTAB_TAIL bytes (a table ends in NUL; one that does not holds garbage after
 * its last string). Every name of a table is then checked in constant time: a search from
 * each name's offset to its NUL would cost the table's length per name when crafted names
 * share one long unterminated run (an 8 MB file: 36 s). */
#define STRTAB_TAIL 256

static size_t strtab_terminated(const unsigned char *tab, size_t len)
{
	size_t stop = len > STRTAB_TAIL ? len - STRTAB_TAIL : 0;

	for (size_t i = len; i > stop; i--)
		if (tab[i - 1] == 0)
			return i;
	return 0;
}

/* A NUL-terminated string at tab[off] inside tab[0..len), else "". */
static const char *bounded_str(const unsigned char *tab, size_t len, uint64_t off)
{
	if (!tab || off >= strtab_terminated(tab, len))
		return "";
	return (const char *)tab + off;
}

int elf_open(struct elf_file *e, const unsigned char *data, size_t size, char *err)
{
	memset(e, 0, sizeof(*e));
	if (!elf_has_magic(data, size) || size < 52)
		return cd_fail(err, CD_EFORMAT, "not an ELF file (offset 0)");
	if (data[4] != 1 && data[4] != 2)
		return cd_fail(err, CD_EFORMAT, "bad ELF class %u at offset 4", data[4]);
	if (data[5] != 1)
		return cd_fail(err, CD_EUNSUPPORTED, "big-endian ELF is not supported (offset 5)");
	e->data = data;
	e->size = size;
	e->is64 = data[4] == 2;
	e->osabi = data[7];
	e->abiversion = data[8];
	e->type = rd16(data + 16);
	e->machine = rd16(data + 18);
	uint64_t shoff;
	size_t shentsize, shnum, shstrndx;
	if (e->is64) {
		if (size < 64)
			return cd_fail(err, CD_EFORMAT, "ELF header truncated at offset %zu", size);
		e->flags = rd32(data + 48);
		shoff = rd64(data + 40);
		shentsize = rd16(data + 58);
		shnum = rd16(data + 60);
		shstrndx = rd16(data + 62);
	} else {
		e->flags = rd32(data + 36);
		shoff = rd32(data + 32);
		shentsize = rd16(data + 46);
		shnum = rd16(data + 48);
		shstrndx = rd16(data + 50);
	}
	if (shoff == 0) /* no sections: legal (e.g. a stripped core), nothing to read */
		return CD_OK;
	size_t want = e->is64 ? 64 : 40;
	if (shentsize < want)
		return cd_fail(err, CD_EFORMAT, "ELF section header size %zu too small (offset %d)",
			       shentsize, e->is64 ? 58 : 46);
	/* shnum 0 with a table: the real count is in section 0's sh_size (many sections) */
	if (shnum == 0) {
		if (!in_bounds(shoff, shentsize, size))
			return cd_fail(err, CD_EFORMAT, "ELF section table at 0x%llx is outside the file",
				       (unsigned long long)shoff);
		shnum = e->is64 ? rd64(data + shoff + 32) : rd32(data + shoff + 20);
	}
	if (shnum > size / shentsize || !in_bounds(shoff, (uint64_t)shnum * shentsize, size))
		return cd_fail(err, CD_EFORMAT, "ELF section table (0x%llx, %zu entries) is outside the file",
			       (unsigned long long)shoff, shnum);
	if (shstrndx == 0xffff) /* SHN_XINDEX: index in section 0's sh_link */
		shstrndx = rd32(data + shoff + (e->is64 ? 40 : 24));
	e->shoff = (size_t)shoff;
	e->shentsize = shentsize;
	e->shnum = shnum;
	e->shstrndx = shstrndx < shnum ? shstrndx : 0;
	return CD_OK;
}

#define PT_DYNAMIC 2

bool elf_dynamic_segment(const struct elf_file *e, uint64_t *off, uint64_t *size)
{
	const unsigned char *d = e->data;
	uint64_t phoff = e->is64 ? rd64(d + 32) : rd32(d + 28);
	size_t ent = rd16(d + (e->is64 ? 54 : 42)), n = rd16(d + (e->is64 ? 56 : 44));
	if (ent < (e->is64 ? 56u : 32u) || n > e->size / ent || !in_bounds(phoff, (uint64_t)n * ent, e->size))
		return false;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = d + phoff + i * ent;
		if (rd32(p) != PT_DYNAMIC)
			continue;
		*off = e->is64 ? rd64(p + 8) : rd32(p + 4);
		*size = e->is64 ? rd64(p + 32) : rd32(p + 16);
		return in_bounds(*off, *size, e->size);
	}
	return false;
}

static void read_shdr(const struct elf_file *e, size_t i, struct elf_section *s, uint32_t *name_off)
{
	const unsigned char *p = e->data + e->shoff + i * e->shentsize;
	memset(s, 0, sizeof(*s));
	s->index = i;
	*name_off = rd32(p);
	s->type = rd32(p + 4);
	if (e->is64) {
		s->flags = rd64(p + 8);
		s->addr = rd64(p + 16);
		s->offset = rd64(p + 24);
		s->size = rd64(p + 32);
		s->link = rd32(p + 40);
		s->info = rd32(p + 44);
		s->entsize = rd64(p + 56);
	} else {
		s->flags = rd32(p + 8);
		s->addr = rd32(p + 12);
		s->offset = rd32(p + 16);
		s->size = rd32(p + 20);
		s->link = rd32(p + 24);
		s->info = rd32(p + 28);
		s->entsize = rd32(p + 36);
	}
}

int elf_section_at(const struct elf_file *e, size_t i, struct elf_section *s, char *err)
{
	if (i >= e->shnum)
		return cd_fail(err, CD_ENOTFOUND, "ELF section %zu does not exist", i);
	uint32_t name_off;
	read_shdr(e, i, s, &name_off);
	s->name = "";
	if (e->shstrndx) {
		struct elf_section strs;
		uint32_t ignored;
		read_shdr(e, e->shstrndx, &strs, &ignored);
		size_t len;
		const unsigned char *tab = elf_section_bytes(e, &strs, &len);
		s->name = bounded_str(tab, len, name_off);
	}
	return CD_OK;
}

int elf_find_section(const struct elf_file *e, const char *name, struct elf_section *s, char *err)
{
	for (size_t i = 1; i < e->shnum; i++) {
		int rc = elf_section_at(e, i, s, err);
		if (rc)
			return rc;
		if (strcmp(s->name, name) == 0)
			return CD_OK;
	}
	return cd_fail(err, CD_ENOTFOUND, "no section %s", name);
}

const unsigned char *elf_section_bytes(const struct elf_file *e, const struct elf_section *s, size_t *len)
{
	*len = 0;
	if (s->type == ELF_SHT_NOBITS || !in_bounds(s->offset, s->size, e->size))
		return NULL;
	*len = (size_t)s->size;
	return e->data + s->offset;
}

static size_t sym_entsize(const struct elf_file *e) { return e->is64 ? 24 : 16; }

size_t elf_symbol_count(const struct elf_file *e, const struct elf_section *symtab)
{
	size_t len;
	if (!elf_section_bytes(e, symtab, &len))
		return 0;
	return len / sym_entsize(e);
}

int elf_symbol_at(const struct elf_file *e, const struct elf_section *symtab, size_t i,
		  struct elf_symbol *sym, char *err)
{
	size_t len;
	const unsigned char *tab = elf_section_bytes(e, symtab, &len);
	size_t es = sym_entsize(e);
	if (!tab || i >= len / es)
		return cd_fail(err, CD_EFORMAT, "symbol %zu is outside its table", i);
	const unsigned char *p = tab + i * es;
	uint32_t name_off = rd32(p);
	memset(sym, 0, sizeof(*sym));
	if (e->is64) {
		sym->type = p[4] & 0xf;
		sym->bind = p[4] >> 4;
		sym->other = p[5];
		sym->shndx = rd16(p + 6);
		sym->value = rd64(p + 8);
		sym->size = rd64(p + 16);
	} else {
		sym->value = rd32(p + 4);
		sym->size = rd32(p + 8);
		sym->type = p[12] & 0xf;
		sym->bind = p[12] >> 4;
		sym->other = p[13];
		sym->shndx = rd16(p + 14);
	}
	sym->name = "";
	if (symtab->link < e->shnum) {
		struct elf_section strs;
		uint32_t ignored;
		read_shdr(e, symtab->link, &strs, &ignored);
		size_t slen;
		const unsigned char *st = elf_section_bytes(e, &strs, &slen);
		sym->name = bounded_str(st, slen, name_off);
	}
	return CD_OK;
}
