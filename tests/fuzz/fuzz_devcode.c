/* libFuzzer harness: the whole device-code inventory of a file (binfmt/devcode.c): format
 * detection, ar members, ELF sections, named and scanned fatbin regions, cubin names; and
 * arch's report of it (listing and verdicts on two GPUs) rendered as text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binfmt/devcode.h"
#include "cmd/arch/arch.h"
#include "report/render.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render_all(const struct report *r)
{
	FILE *out = fopen("/dev/null", "w");

	for (int fmt = FMT_TEXT; out && fmt <= FMT_JSON; fmt++) {
		struct render_opts o = { (enum output_format)fmt, false, 1, 0 };

		render_report(r, &o, out);
	}
	if (out)
		fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arch_file f = { .path = "fuzz", .data = data, .size = size };
	struct arch_verdict v[2];
	struct arch_opts o;
	struct report r;
	struct report_rec top, files;
	char err[256];

	dc_init(&f.inv);
	if (dc_scan(&f.inv, data, size, DC_SCAN_ALL_SECTIONS | DC_READ_ELF, err) == 0 && report_init(&r, "arch") == 0) {
		memset(&o, 0, sizeof(o));
		o.json = true;
		o.target.n_gpus = 2;
		o.target.gpus[0].cc = 90;
		o.target.gpus[1].cc = 75;
		o.target.driver.known = true;
		o.target.driver.ptx_isa_max = 850;
		o.target.driver.zstd_ok = 0;
		report_rec_top(&top, &r);
		report_rec_array(&top, "files", &files);
		arch_file_fields(&files, &f, &o, v);
		if (report_rec_end(&files) == 0 && report_rec_end(&top) == 0)
			render_all(&r);
		report_free(&r);
	}
	dc_free(&f.inv);
	return 0;
}
