/* libFuzzer harness for gpu_normalize_pci_bus_id, which reads bus ids from the driver
 * (cuDeviceGetPCIBusId, nvmlPciInfo_t) and from user text: any bytes, bounded output. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/gpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char out[32], small[8];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (gpu_normalize_pci_bus_id(text, out, sizeof(out))) {
		/* a normalized id normalizes to itself */
		char again[32];
		if (!gpu_normalize_pci_bus_id(out, again, sizeof(again)) || strcmp(out, again) != 0)
			abort();
	}
	gpu_normalize_pci_bus_id(text, small, sizeof(small)); /* truncating output stays terminated */
	if (size >= 8) {
		unsigned long long mask;
		memcpy(&mask, data, sizeof(mask));
		gpu_clock_event_reason_names(mask, small, sizeof(small));
		if (strlen(small) >= sizeof(small))
			abort();
	}
	free(text);
	return 0;
}
