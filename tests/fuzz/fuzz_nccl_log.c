/* libFuzzer harness for the NCCL log parser (explain/nccl_log.c) and the rules that read its
 * facts (rules/nccl.c), rendering included. */
#include <stddef.h>
#include <stdint.h>

#include "explain/nccl_log.h"
#include "report/report.h"
#include "cmd/explain/nccl.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r;
	char err[CD_ERRMSG];

	if (report_init(&r, "explain") != CD_OK)
		return 0;
	nccl_explain(&r, (const char *)data, size, err);
	report_free(&r);
	return 0;
}
