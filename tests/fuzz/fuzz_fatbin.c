/* libFuzzer harness: fatbin containers and entries (binfmt/fatbin.c), walked and scanned.
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"
#include "binfmt/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	struct fatbin_container c;
	struct fatbin_entry e;
	char err[256];
	size_t total = 0;
	size_t pos = 0;
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	while (pos < size && fatbin_container_open(&c, data, size, pos, err) == 0) {
		int rc;
		while ((rc = fatbin_next_entry(&c, &e, err)) == 1) {
			if (e.ident_len)
				total += (unsigned char)e.ident[e.ident_len - 1];
			if (e.options_len)
				total += (unsigned char)e.options[e.options_len - 1];
			if (e.payload_len)
				total += e.payload[e.payload_len - 1];
			total += fatbin_entry_image_size(&e) + fatbin_arch_suffix(e.flags)[0];
		}
		if (rc < 0)
			break;
		pos = c.end;
	}
	for (size_t off = fatbin_scan(data, size, 0, size); off < size; off = fatbin_scan(data, size, off + 8, size))
		total += off;
	return total == (size_t)-1;
}
