/* libFuzzer harness for the fleet's report reader (fleet/read.c): any bytes as one --json
 * report or a rank's bundle, read twice into one fleet (the merge by node name) and judged
 * (hostlists, grouping, median/MAD). */
#include <stddef.h>
#include <stdint.h>

#include "fleet/fleet.h"
#include "fleet/judge.h"
#include "report/report.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fleet_judge_opts o = { 2, 1 };
	char err[CD_ERRMSG];
	struct report r;
	struct fleet f;

	fleet_init(&f);
	if (fleet_read_report(&f, data, size, "fuzz01", err) != CD_OK)
		fleet_skip(&f, "input", err);
	fleet_read_report(&f, data, size, "fuzz02", err);
	fleet_missing(&f, "fuzz03");
	if (report_init(&r, "fleet") == CD_OK) {
		fleet_judge(&f, &o, &r);
		report_free(&r);
	}
	fleet_free(&f);
	return 0;
}
