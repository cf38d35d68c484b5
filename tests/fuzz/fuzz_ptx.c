/* libFuzzer harness: PTX text directives and entries (binfmt/ptx.c); input not NUL-terminated.
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/ptx.h"

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
	struct ptx_info pi;
	char err[256];
	size_t total = ptx_looks_like_ptx(data, size);
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	if (ptx_read(data, size, &pi, err) == 0)
		total += pi.isa_major + pi.target + strlen(pi.target_text);
	ptx_entries(data, size, count, &total, err);
	return total == (size_t)-1;
}
