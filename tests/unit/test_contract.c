/* The health-check contracts (rules/contract.h) on reports made here: an environment error is
 * a warning there, node health comes first among equals, and the summary line stays within
 * 80 bytes without cutting a character or passing a control byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "report/finding_write.h"
#include "report/report.h"
#include "rules/contract.h"

static void test_environment_error_is_a_warning(void **state)
{
	struct report r;
	const struct finding *w;
	char line[128];
	size_t more;

	(void)state;
	assert_int_equal(report_init(&r, "doctor"), 0);
	assert_non_null(report_add_finding(&r, SEV_ERROR, "torch-cpu-only", "torch 2.5.1", "%s", "a CPU-only build"));
	w = contract_worst(&r, &more);
	assert_string_equal(w->id, "torch-cpu-only");
	assert_int_equal(contract_severity(w), SEV_WARN);
	assert_int_equal(contract_exit(CONTRACT_NPD, contract_severity(w), false), 0);
	assert_int_equal(contract_exit(CONTRACT_NAGIOS, contract_severity(w), false), 1);
	contract_summary(&r, line, sizeof line);
	assert_string_equal(line, "cudoctor: warn torch-cpu-only: torch 2.5.1: a CPU-only build");
	/* a node warning beside it comes first; a node error then wins */
	assert_non_null(report_add_finding(&r, SEV_WARN, "clocks-throttled", "GPU 0", "%s", "held down"));
	w = contract_worst(&r, &more);
	assert_string_equal(w->id, "clocks-throttled");
	assert_int_equal(more, 1);
	assert_non_null(report_add_finding(&r, SEV_ERROR, "gpu-lost", "GPU 1", "%s", "fallen off the bus"));
	contract_summary(&r, line, sizeof line);
	assert_string_equal(line, "cudoctor: error gpu-lost: GPU 1: fallen off the bus");
	assert_int_equal(contract_exit(CONTRACT_NAGIOS, SEV_ERROR, false), 2);
	assert_int_equal(contract_exit(CONTRACT_NPD, SEV_ERROR, false), 1);
	assert_int_equal(contract_exit(CONTRACT_NAGIOS, SEV_OK, true), 3);
	assert_int_equal(contract_exit(CONTRACT_NPD, SEV_OK, true), 2);
	report_free(&r);
}

static void test_summary_cut(void **state)
{
	struct report r;
	char line[128], title[200];

	(void)state;
	assert_int_equal(report_init(&r, "check"), 0);
	contract_summary(&r, line, sizeof line);
	assert_string_equal(line, "cudoctor: ok");
	/* "é" (2 bytes) straddling byte 77: cut before it, "..." after */
	memset(title, 'a', sizeof title);
	snprintf(title + 40, sizeof title - 40, "%s", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 tail");
	assert_non_null(report_add_finding(&r, SEV_ERROR, "xid-errors", "", "%s", title));
	contract_summary(&r, line, sizeof line);
	assert_true(strlen(line) <= CONTRACT_LINE_MAX);
	assert_string_equal(line + strlen(line) - 3, "...");
	assert_true(((unsigned char)line[strlen(line) - 4] & 0xc0) != 0xc0);
	report_free(&r);
	contract_unknown("bad\x1b[31m input\nsecond line", line, sizeof line);
	assert_string_equal(line, "cudoctor: unknown: bad?[31m input?second line");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_environment_error_is_a_warning),
		cmocka_unit_test(test_summary_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
