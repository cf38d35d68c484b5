/* libFuzzer harness: ar archive member walking (binfmt/ar.c).
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/ar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	struct ar_iter it;
	struct ar_member m;
	char err[256];
	size_t total = 0;
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	if (ar_open(&it, data, size, err))
		return 0;
	for (int k = 0; k < 100000 && ar_next(&it, &m, err) == 1; k++) {
		total += strlen(m.name);
		if (m.size)
			total += m.data[m.size - 1];
	}
	return total == (size_t)-1;
}
