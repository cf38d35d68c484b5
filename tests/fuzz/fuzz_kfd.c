/* libFuzzer harness: a KFD topology node's properties (probe/amd.c, the "key value" lines of
 * /sys/class/kfd/kfd/topology/nodes/N/properties) read into a GPU's facts, and the decoding
 * of gfx_target_version into a processor name; then the facts written through their field
 * table (fuzz_report.h): JSON and text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_report.h"
#include "facts/amd.h"
#include "probe/amd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct amd_host h;
	struct report r;
	struct report_rec top, o;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	memset(&h, 0, sizeof h);
	h.hip_device_count = -1;
	if (amd_gpu_from_properties(text, 1, &h.gpus[0]))
		h.n_gpus = 1;
	if (size >= 4) {
		char gfx[16];
		uint32_t v;
		memcpy(&v, data, 4);
		(void)amd_gfx_of_target_version(v, gfx, sizeof gfx);
	}
	if (report_init(&r, "devices") != 0) {
		free(text);
		return 0;
	}
	report_rec_top(&top, &r);
	report_rec_object(&top, "amd", &o);
	for (size_t i = 0; i < h.n_gpus; i++)
		report_fields(&o, &amd_gpu_field_table, &h.gpus[i], FIELD_ALL);
	report_fields(&o, &amd_host_field_table, &h, FIELD_ALL);
	(void)report_rec_end(&o);
	(void)report_rec_end(&top);
	fuzz_render_checked(&r);
	report_free(&r);
	free(text);
	return 0;
}
