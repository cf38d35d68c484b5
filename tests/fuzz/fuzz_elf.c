/* libFuzzer harness: ELF header, section table, names and symbols (binfmt/elf.c).
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	struct elf_file e;
	struct elf_section s;
	char err[256];
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	if (elf_open(&e, data, size, err))
		return 0;
	size_t total = 0;
	for (size_t i = 0; i < e.shnum && i < 4096; i++) {
		if (elf_section_at(&e, i, &s, err))
			break;
		total += strlen(s.name);
		size_t len;
		const unsigned char *p = elf_section_bytes(&e, &s, &len);
		if (p && len)
			total += p[len - 1];
		if (s.type == ELF_SHT_SYMTAB || s.type == 11 /* DYNSYM */) {
			size_t n = elf_symbol_count(&e, &s);
			for (size_t k = 0; k < n && k < 4096; k++) {
				struct elf_symbol sym;
				if (elf_symbol_at(&e, &s, k, &sym, err) == 0)
					total += strlen(sym.name);
			}
		}
	}
	elf_find_section(&e, ".nv_fatbin", &s, NULL);
	return total == (size_t)-1;
}
