/* libFuzzer harness: HIP offload bundles and compressed bundles (binfmt/hipfb.c): the entry
 * table walked, a CCOB header read and inflated as far as the table and then whole, each id
 * and target id parsed; the inventory's HIP half (binfmt/devcode_hip.c) on the input as a
 * bare bundle, and a bare code object's header; then the input as a file through `cudoctor --json arch` (fuzz_report.h): the
 * whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_report.h"
#include "binfmt/amdgpu_co.h"
#include "binfmt/devcode.h"
#include "binfmt/hipfb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t ids_of(const unsigned char *d, size_t n)
{
	struct hipfb_bundle b;
	struct hipfb_entry e;
	size_t total = 0;
	if (hipfb_open(&b, d, n, NULL) != 0)
		return 0;
	while (hipfb_next(&b, &e, NULL) == 1) {
		struct hipfb_id id;
		struct hipfb_target t;
		char name[64];
		hipfb_parse_id(e.id, e.id_len, &id);
		if (hipfb_parse_target(id.target, id.target_len, &t)) {
			hipfb_target_name(&t, name, sizeof name);
			total += name[0];
		}
		total += id.kind_len + id.arch_len + id.triple_len;
	}
	return total + (size_t)b.extent;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "9.0", NULL };
	struct hipfb_ccob h;
	struct dc_inventory inv;
	char err[256];
	size_t total = ids_of(data, size);

	if (hipfb_ccob_header(data, size, &h, err) == 0) {
		size_t stop = h.version >= 2 ? (size_t)h.total_size : size;
		for (size_t want = 1024; want <= 1u << 20; want *= 32) {
			unsigned char *out;
			size_t got;
			bool complete;
			if (hipfb_ccob_inflate(&h, data + h.header_size, stop - h.header_size, want, &out, &got, &complete,
					       err) == 0) {
				total += ids_of(out, got) + complete;
				free(out);
			}
		}
	}
	total += hipfb_wrapper_count(data, size);
	struct amdgpu_co co;
	if (amdgpu_co_read(data, size, &co, err) == 0)
		total += co.target.processor[0] + co.co_version + co.generic_version;
	dc_init(&inv);
	dc_scan(&inv, data, size, 0, err);
	dc_free(&inv);
	fuzz_command_report(&cmd_arch, NULL, words, data, size);
	return total == (size_t)-1;
}
