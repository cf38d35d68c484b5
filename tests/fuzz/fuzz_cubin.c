/* libFuzzer harness: cubin facts, kernel symbols and .nv.compat records (binfmt/cubin.c).
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/cubin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(const char *name, void *ctx)
{
	*(size_t *)ctx += strlen(name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	struct cubin_info ci;
	char err[256];
	size_t total = cubin_compat_says_arch_specific(data, size);
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	if (cubin_read(data, size, &ci, err) == 0)
		total += ci.sm + ci.has_code;
	cubin_kernels(data, size, count, &total, err);
	return total == (size_t)-1;
}
