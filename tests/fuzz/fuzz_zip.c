/* libFuzzer harness: the zip reader (binfmt/zip.c): end record, central entries, local
 * headers, heads and whole members inflated with their sizes checked. Then the input as a file
 * through `cudoctor --json arch --kernels --resources` (fuzz_report.h): every member that can
 * carry device code inflated whole and judged, the whole report, text and JSON; and through
 * `arch` and `arch --cuobjdump` without those, where ELF and PE members are judged from a
 * stream (cmd/arch/member.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_report.h"
#include "binfmt/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "12.0", "--driver", "572.61",
					     "--kernels", "--resources", NULL };
	struct zip_archive z;
	struct zip_member m;
	char err[256];
	size_t total = 0;

	static const char *const streamed[] = { "--gpu", "9.0", "--driver", "572.61", NULL };
	static const char *const listed[] = { "--cuobjdump", NULL };

	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	fuzz_command_report(&cmd_arch, NULL, streamed, data, size);
	fuzz_command_report(&cmd_arch, NULL, listed, data, size);
	if (zip_open(&z, data, size, err))
		return 0;
	while (zip_next(&z, &m, err) > 0) {
		unsigned char head[256], *buf = NULL;
		size_t got = 0, len = 0;

		if (zip_member_head(&z, &m, head, sizeof head, &got, err) == 0)
			total += got;
		/* 64 MiB: the fuzzer's memory limit, not the tool's */
		if (zip_member_read(&z, &m, (uint64_t)64 << 20, &buf, &len, err) == 0)
			total += len;
		free(buf);
	}
	return total == (size_t)-1;
}
