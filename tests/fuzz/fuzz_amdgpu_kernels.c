/* libFuzzer harness: AMDGPU kernels (binfmt/amdgpu_kernels.c): the input as a code object
 * (its metadata note or kernel descriptors) and as a bare msgpack value (binfmt/msgpack.c,
 * skipped whole); then as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/amdgpu_kernels.h"
#include "binfmt/msgpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = {"--kernels", "--resources", NULL};
	struct amdgpu_kernels ks;
	struct mp_reader r = {.data = data, .size = size};
	char err[256];
	size_t total = 0;

	if (amdgpu_kernels_read(data, size, &ks, err) == 0) {
		for (size_t i = 0; i < ks.n; i++)
			total += strlen(ks.k[i].name ? ks.k[i].name : "") + (size_t)ks.k[i].vgprs;
		amdgpu_kernels_free(&ks);
	}
	while (r.pos < r.size && mp_skip(&r, err) == 0)
		total++;
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	return total == (size_t)-1;
}
