/* libFuzzer harness: the whole device-code inventory of a file (binfmt/devcode.c): format
 * detection, ar members, ELF sections, named and scanned fatbin regions, cubin names. */
#include <stddef.h>
#include <stdint.h>

#include "binfmt/devcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_inventory inv;
	char err[256];
	dc_init(&inv);
	dc_scan(&inv, data, size, DC_SCAN_ALL_SECTIONS | DC_READ_ELF, err);
	dc_free(&inv);
	return 0;
}
