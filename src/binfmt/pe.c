/* PE/COFF headers, section table and import names (Microsoft PE format: DOS stub, "PE\0\0",
 * COFF file header, optional header, 40-byte section headers). */
#include "binfmt/pe.h"

#include <string.h>

#include "binfmt/bytes.h"
#include "util/err.h"

#define DOS_LFANEW 0x3c
#define COFF_HEADER 20
#define SECTION_HEADER 40
#define COFF_SYMBOL 18
#define OPT_PE32 0x10b
#define OPT_PE32_PLUS 0x20b
#define DIR_IMPORT 1
#define DIR_DELAY_IMPORT 13
#define IMPORT_DESCRIPTOR 20
#define DELAY_DESCRIPTOR 32
/* a DLL name longer than this is not one a CUDA rule asks about */
#define MAX_DLL_NAME 256

static bool pe_offset(const unsigned char *data, size_t size, size_t *off)
{
	if (size < DOS_LFANEW + 4 || data[0] != 'M' || data[1] != 'Z')
		return false;
	uint32_t lfanew = rd32(data + DOS_LFANEW);
	if (!in_bounds(lfanew, 4 + COFF_HEADER, size) || memcmp(data + lfanew, "PE\0\0", 4) != 0)
		return false;
	*off = lfanew;
	return true;
}

bool pe_has_magic(const unsigned char *data, size_t size)
{
	size_t off;
	return data && pe_offset(data, size, &off);
}

static void read_directory(const unsigned char *dirs, uint32_t n, uint32_t i, uint32_t *rva, uint32_t *size)
{
	*rva = *size = 0;
	if (i < n) {
		*rva = rd32(dirs + 8 * i);
		*size = rd32(dirs + 8 * i + 4);
	}
}

int pe_open(struct pe_file *pe, const unsigned char *data, size_t size, char *err)
{
	size_t off;
	memset(pe, 0, sizeof(*pe));
	if (!data || !pe_offset(data, size, &off))
		return cd_fail(err, CD_EFORMAT, "not a PE file (no MZ header pointing at a PE signature)");
	pe->data = data;
	pe->size = size;
	const unsigned char *h = data + off + 4;
	pe->machine = rd16(h);
	pe->n_sections = rd16(h + 2);
	uint32_t symtab = rd32(h + 8), n_symbols = rd32(h + 12);
	uint16_t opt_size = rd16(h + 16);
	pe->characteristics = rd16(h + 18);
	size_t opt = off + 4 + COFF_HEADER;
	if (!in_bounds(opt, opt_size, size))
		return cd_fail(err, CD_EFORMAT, "PE optional header (offset 0x%zx, %u bytes) is outside the file", opt,
			       (unsigned)opt_size);
	if (opt_size >= 2) {
		uint16_t magic = rd16(data + opt);
		size_t count_at = magic == OPT_PE32 ? 92 : magic == OPT_PE32_PLUS ? 108 : 0;
		if (!count_at)
			return cd_fail(err, CD_EFORMAT, "PE optional header at 0x%zx has magic 0x%x, not PE32 or PE32+",
				       opt, (unsigned)magic);
		if (opt_size >= count_at + 4) {
			uint32_t n = rd32(data + opt + count_at);
			uint32_t fit = (uint32_t)((opt_size - count_at - 4) / 8);
			if (n > fit)
				n = fit;
			read_directory(data + opt + count_at + 4, n, DIR_IMPORT, &pe->import_rva, &pe->import_size);
			read_directory(data + opt + count_at + 4, n, DIR_DELAY_IMPORT, &pe->delay_rva, &pe->delay_size);
		}
	}
	pe->sections = opt + opt_size;
	if (!in_bounds(pe->sections, (uint64_t)pe->n_sections * SECTION_HEADER, size))
		return cd_fail(err, CD_EFORMAT, "PE section table (offset 0x%zx, %zu sections) is outside the file",
			       pe->sections, pe->n_sections);
	/* the COFF string table follows the symbols; images have one only for long section names */
	uint64_t strtab = symtab + (uint64_t)n_symbols * COFF_SYMBOL;
	if (symtab && in_bounds(strtab, 4, size)) {
		uint32_t len = rd32(data + strtab);
		if (len >= 4 && in_bounds(strtab, len, size)) {
			pe->strtab = (size_t)strtab;
			pe->strtab_size = len;
		}
	}
	return CD_OK;
}

static void section_name(const struct pe_file *pe, const unsigned char *h, struct pe_section *s)
{
	s->name = (const char *)h;
	s->name_len = strnlen(s->name, 8);
	if (h[0] != '/' || !pe->strtab_size)
		return;
	/* "/123": offset of the full name in the string table */
	uint64_t at = 0;
	for (size_t i = 1; i < 8 && h[i] >= '0' && h[i] <= '9'; i++)
		at = at * 10 + (h[i] - '0');
	if (at < 4 || at >= pe->strtab_size)
		return;
	s->name = (const char *)pe->data + pe->strtab + at;
	s->name_len = strnlen(s->name, pe->strtab_size - (size_t)at);
}

int pe_section_at(const struct pe_file *pe, size_t i, struct pe_section *s, char *err)
{
	if (i >= pe->n_sections)
		return cd_fail(err, CD_EFORMAT, "PE section %zu does not exist", i);
	const unsigned char *h = pe->data + pe->sections + i * SECTION_HEADER;
	memset(s, 0, sizeof(*s));
	s->index = i;
	section_name(pe, h, s);
	s->vsize = rd32(h + 8);
	s->vaddr = rd32(h + 12);
	uint32_t raw_size = rd32(h + 16), raw_off = rd32(h + 20);
	s->characteristics = rd32(h + 36);
	s->offset = raw_off;
	/* raw data is padded to the file alignment; the virtual size is what the linker wrote
	 * (0 in objects) */
	s->size = s->vsize && s->vsize < raw_size ? s->vsize : raw_size;
	if (s->characteristics & PE_SCN_UNINITIALIZED_DATA)
		s->size = 0;
	return CD_OK;
}

bool pe_section_is(const struct pe_section *s, const char *name)
{
	size_t n = strlen(name);
	return s->name_len == n && memcmp(s->name, name, n) == 0;
}

bool pe_rva_to_offset(const struct pe_file *pe, uint32_t rva, size_t len, size_t *off)
{
	for (size_t i = 0; i < pe->n_sections; i++) {
		const unsigned char *h = pe->data + pe->sections + i * SECTION_HEADER;
		uint32_t va = rd32(h + 12), raw_size = rd32(h + 16), raw_off = rd32(h + 20);
		if (rva < va || rva - va >= raw_size)
			continue;
		uint64_t at = (uint64_t)raw_off + (rva - va);
		if (!in_bounds(at, len, pe->size) || len > raw_size - (rva - va))
			return false;
		*off = (size_t)at;
		return true;
	}
	return false;
}

static const char *dll_name(const struct pe_file *pe, uint32_t rva)
{
	size_t off;
	if (!rva || !pe_rva_to_offset(pe, rva, 1, &off))
		return NULL;
	size_t room = pe->size - off < MAX_DLL_NAME ? pe->size - off : MAX_DLL_NAME;
	const char *name = (const char *)pe->data + off;
	return memchr(name, '\0', room) && name[0] ? name : NULL;
}

/* Descriptors of one table: entry_size bytes each, the name's RVA at name_at, a zero
 * descriptor at the end. */
static size_t read_table(const struct pe_file *pe, uint32_t rva, size_t entry_size, size_t name_at,
			 const char **names, size_t n, size_t max, size_t *budget)
{
	static const unsigned char zero[DELAY_DESCRIPTOR];
	for (uint64_t at = rva; at + entry_size <= UINT32_MAX && *budget; at += entry_size, --*budget) {
		size_t off;
		if (!pe_rva_to_offset(pe, (uint32_t)at, entry_size, &off) || memcmp(pe->data + off, zero, entry_size) == 0)
			break;
		const char *name = dll_name(pe, rd32(pe->data + off + name_at));
		if (name && n < max)
			names[n++] = name;
	}
	return n;
}

bool pe_dll_name_ok(const char *name)
{
	size_t n = 0;

	for (; name[n]; n++) {
		char c = name[n];

		if (n > PE_DLL_NAME_MAX + 4 ||
		    !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return n > 4 && n <= PE_DLL_NAME_MAX + 4 && (name[n - 4] == '.') && (name[n - 3] | 0x20) == 'd' &&
	       (name[n - 2] | 0x20) == 'l' && (name[n - 1] | 0x20) == 'l';
}

size_t pe_imports(const struct pe_file *pe, const char **names, size_t max)
{
	size_t n = 0, budget = PE_MAX_IMPORTS;
	if (pe->import_rva)
		n = read_table(pe, pe->import_rva, IMPORT_DESCRIPTOR, 12, names, n, max, &budget);
	if (pe->delay_rva)
		n = read_table(pe, pe->delay_rva, DELAY_DESCRIPTOR, 4, names, n, max, &budget);
	return n;
}
