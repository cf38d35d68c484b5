/* libFuzzer harness for the fleet's report reader (fleet/read.c): any bytes as one --json
 * report or a rank's bundle, read twice into one fleet (the merge by node name), judged
 * (hostlists, grouping, median/MAD) and the whole report rendered as text, Markdown and JSON
 * and checked (fuzz_report.h): no byte a terminal acts on, JSON that reads back, and every
 * Slurm line to run quoting exactly the two words it interpolates. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_report.h"

#include "fleet/fleet.h"
#include "fleet/judge.h"
#include "report/report.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "scontrol update nodename='…' state=drain reason='cudoctor: …'" with no other quote */
static void check_drain_line(const char *s)
{
	static const char head[] = "scontrol update nodename='", mid[] = "' state=drain reason='cudoctor: ";
	const char *m = strstr(s, mid);
	size_t quotes = 0;

	if (strncmp(s, head, sizeof head - 1) != 0 || !m || s[strlen(s) - 1] != '\'')
		abort();
	for (const char *p = s; *p; p++)
		quotes += *p == '\'';
	if (quotes != 4)
		abort();
}

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
		if (fleet_judge(&f, &o, &r) == CD_OK) {
			const json_t *lines = json_object_get(r.data, "slurm"), *l;
			size_t i;

			fuzz_render_checked(&r);
			json_array_foreach(lines, i, l)
				check_drain_line(json_string_value(l));
		}
		report_free(&r);
	}
	fleet_free(&f);
	return 0;
}
