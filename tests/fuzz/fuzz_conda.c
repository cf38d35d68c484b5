/* libFuzzer harness: conda packages (binfmt/conda.c, binfmt/tar.c), a .conda's zip around a
 * zstd tarball or a bare .tar.zst: through `cudoctor --json arch` (fuzz_report.h), every
 * tar entry that can carry device code judged, libraries from the tarball's stream
 * (cmd/arch/tarwalk.c, member.c), the whole report in text and JSON; through `arch
 * --cuobjdump` and `arch --kernels --resources` (entries read whole); then the tar reader
 * alone over a bare zstd stream, every entry read to its end. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_report.h"
#include "binfmt/conda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const streamed[] = { "--gpu", "9.0", "--gpu", "12.0", "--driver", "572.61", NULL };
	static const char *const listed[] = { "--cuobjdump", NULL };
	static const char *const whole[] = { "--gpu", "9.0", "--kernels", "--resources", NULL };
	static struct tar_entry e;
	struct conda_tar c;
	unsigned char buf[4096];
	char err[256];
	size_t got, total = 0;

	fuzz_command_report_as(&cmd_arch, NULL, streamed, data, size, ".conda");
	fuzz_command_report_as(&cmd_arch, NULL, listed, data, size, ".conda");
	fuzz_command_report_as(&cmd_arch, NULL, whole, data, size, ".conda");
	if (!conda_has_zstd_magic(data, size) || conda_tar_open(&c, NULL, NULL, data, size, err))
		return 0;
	while (conda_tar_next(&c, &e, err) > 0 && total < ((size_t)64 << 20))
		do {
			if (conda_tar_read(&c, buf, sizeof buf, &got, err))
				break;
			total += got;
		} while (got);
	conda_tar_close(&c);
	return total == (size_t)-1;
}
