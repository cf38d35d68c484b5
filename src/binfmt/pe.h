/* PE/COFF images (.dll, .pyd, .exe) read in place: DOS header, PE header, optional header,
 * section table and import names, every offset checked against the buffer. */
#ifndef CUDOCTOR_BINFMT_PE_H
#define CUDOCTOR_BINFMT_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PE_FILE_EXECUTABLE 0x0002u /* IMAGE_FILE_EXECUTABLE_IMAGE */
#define PE_FILE_DLL 0x2000u        /* IMAGE_FILE_DLL */
#define PE_SCN_CODE 0x00000020u
#define PE_SCN_INITIALIZED_DATA 0x00000040u
#define PE_SCN_UNINITIALIZED_DATA 0x00000080u
#define PE_SCN_DISCARDABLE 0x02000000u
#define PE_SCN_EXECUTE 0x20000000u

/* Section names as Windows linkers cut them to 8 bytes: ELF's .nv_fatbin and .nvFatBinSegment */
#define PE_SEC_NV_FATBIN ".nv_fatb"
#define PE_SEC_FATBIN_SEGMENT ".nvFatBi"

struct pe_file {
	const unsigned char *data;
	size_t size;
	uint16_t machine;          /* IMAGE_FILE_MACHINE_* (0x8664 x64) */
	uint16_t characteristics;  /* PE_FILE_* */
	size_t sections;           /* section table offset, already bounds-checked */
	size_t n_sections;
	size_t strtab, strtab_size;/* COFF string table (long section names), 0 size if none */
	uint32_t import_rva, import_size;   /* data directory 1 */
	uint32_t delay_rva, delay_size;     /* data directory 13 (delay-load imports) */
};

struct pe_section {
	size_t index;
	const char *name;          /* inside the file, name_len bytes, not NUL-terminated */
	size_t name_len;
	uint32_t vaddr, vsize;
	uint64_t offset, size;     /* raw data in the file: size is min(SizeOfRawData, VirtualSize) */
	uint32_t characteristics;  /* PE_SCN_* */
};

/* True when the buffer starts with "MZ" and points at a "PE\0\0" signature inside it. */
bool pe_has_magic(const unsigned char *data, size_t size);

/* Validates the headers and the section table. */
int pe_open(struct pe_file *pe, const unsigned char *data, size_t size, char *err);

/* Section i (0 <= i < n_sections); a long name ("/123") outside the string table reads as
 * the 8 bytes of the table entry. */
int pe_section_at(const struct pe_file *pe, size_t i, struct pe_section *s, char *err);

/* True when the section's name is exactly name. */
bool pe_section_is(const struct pe_section *s, const char *name);

/* The file offset of rva, with at least len bytes behind it in its section and in the file. */
bool pe_rva_to_offset(const struct pe_file *pe, uint32_t rva, size_t len, size_t *off);

/* The DLL names the image imports, directly or delay-loaded: pointers into the file
 * (NUL-terminated there) in names[0 .. max); returns how many were stored. Descriptors
 * outside the file end the list; at most PE_MAX_IMPORTS are read. */
#define PE_MAX_IMPORTS 1024
size_t pe_imports(const struct pe_file *pe, const char **names, size_t max);

/* Whether an imported name is a DLL's file name and nothing more: 1 to 64 of A-Z a-z 0-9 _ . -
 * then ".dll", any case. The loader takes any string, so a crafted import ("x.dll & calc & rem
 * .dll", "../../evil/cudart64_12.dll") is refused here before it names a file, a finding or a
 * command. */
#define PE_DLL_NAME_MAX 64
bool pe_dll_name_ok(const char *name);

#endif
