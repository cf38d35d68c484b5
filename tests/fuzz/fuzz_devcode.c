/* libFuzzer harness: the whole device-code inventory of a file (binfmt/devcode.c): format
 * detection, ar members, ELF sections, named and scanned fatbin regions, cubin names.
 * Then the input as a file through `cudoctor --json arch --kernels --resources`
 * (fuzz_report.h): the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"
#include "binfmt/devcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", "--gpu", "8.6", "--driver", "550.54.14",
					     "--kernels", "--resources", NULL };
	struct dc_inventory inv;
	char err[256];
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	dc_init(&inv);
	dc_scan(&inv, data, size, DC_SCAN_ALL_SECTIONS | DC_READ_ELF, err);
	dc_free(&inv);
	/* every section searched (--all-sections): one pass instead of the ordered ones */
	dc_scan(&inv, data, size, DC_SCAN_ALL_SECTIONS | DC_SCAN_EVERY_SECTION, err);
	dc_free(&inv);
	return 0;
}
