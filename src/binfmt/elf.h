/* ELF files read in place: header, section table, section names and symbols, with
 * every offset and size checked against the buffer. Host binaries and cubins alike. */
#ifndef CUDOCTOR_BINFMT_ELF_H
#define CUDOCTOR_BINFMT_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binfmt/bytes.h"

#define ELF_EM_CUDA 190
#define ELF_ET_REL 1
#define ELF_ET_EXEC 2
#define ELF_ET_DYN 3
#define ELF_SHT_PROGBITS 1
#define ELF_SHT_SYMTAB 2
#define ELF_SHT_NOTE 7
#define ELF_SHT_NOBITS 8
#define ELF_SHF_ALLOC 0x2
#define ELF_SHF_EXECINSTR 0x4
#define ELF_STT_FUNC 2

struct elf_file {
	const unsigned char *data;
	size_t size;
	bool is64;
	uint16_t type;       /* e_type */
	uint16_t machine;    /* e_machine */
	uint8_t osabi;       /* e_ident[EI_OSABI] */
	uint8_t abiversion;  /* e_ident[EI_ABIVERSION] */
	uint32_t flags;      /* e_flags */
	size_t shoff;        /* section header table, already bounds-checked */
	size_t shentsize;
	size_t shnum;
	size_t shstrndx;     /* 0 when there is no usable name table */
};

struct elf_section {
	size_t index;
	const char *name;    /* NUL-terminated inside the file, or "" */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t entsize;
};

struct elf_symbol {
	const char *name;    /* NUL-terminated inside the file, or "" */
	uint8_t type;        /* STT_* */
	uint8_t bind;        /* STB_* */
	uint8_t other;       /* st_other */
	uint16_t shndx;
	uint64_t value;
	uint64_t size;
};

/* True when the buffer starts with the ELF magic (nothing else is checked). */
bool elf_has_magic(const unsigned char *data, size_t size);

/* Validates the header and the section header table (little-endian only). */
int elf_open(struct elf_file *e, const unsigned char *data, size_t size, char *err);

/* The file range of the PT_DYNAMIC segment, read from the program headers; false when there
 * is none or the headers lie outside the file. */
bool elf_dynamic_segment(const struct elf_file *e, uint64_t *off, uint64_t *size);

/* Reads section i (0 <= i < shnum). Names outside the name table, or past its last NUL
 * within the table's last 256 bytes, read as "" (constant time per name). */
int elf_section_at(const struct elf_file *e, size_t i, struct elf_section *s, char *err);

/* First section with this name; CD_ENOTFOUND if none. */
int elf_find_section(const struct elf_file *e, const char *name, struct elf_section *s, char *err);

/* The bytes of a section, NULL (and *len 0) for NOBITS or a range outside the file. */
const unsigned char *elf_section_bytes(const struct elf_file *e, const struct elf_section *s, size_t *len);

/* Symbols of a SYMTAB/DYNSYM section: count, then one by one. */
size_t elf_symbol_count(const struct elf_file *e, const struct elf_section *symtab);
int elf_symbol_at(const struct elf_file *e, const struct elf_section *symtab, size_t i,
		  struct elf_symbol *sym, char *err);

#endif
