/* libFuzzer harness: PE headers, section table and import names (binfmt/pe.c), the runtime a
 * PE image needs (rules/driver_need.c). Then the input as a file through `cudoctor --json arch
 * --kernels --resources` (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/pe.h"
#include "rules/driver_need.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "12.0", "--driver", "572.61",
					     "--kernels", "--resources", NULL };
	struct pe_file pe;
	struct pe_section s;
	struct runtime_need need;
	const char *imports[16];
	char err[256];
	size_t total = 0;

	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	runtime_need_of(data, size, &need);
	total += need.known;
	if (pe_open(&pe, data, size, err))
		return 0;
	for (size_t i = 0; i < pe.n_sections && i < 4096; i++) {
		if (pe_section_at(&pe, i, &s, err))
			break;
		for (size_t k = 0; k < s.name_len; k++)
			total += (unsigned char)s.name[k];
	}
	size_t n = pe_imports(&pe, imports, 16);
	for (size_t i = 0; i < n; i++)
		total += strlen(imports[i]);
	return total == (size_t)-1;
}
