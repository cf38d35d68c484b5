/* libFuzzer harness: the GGUF header reader, then the model description and the
 * estimate built from whatever metadata survived parsing.
 * Then the input as a file through `cudoctor --json mem estimate` (fuzz_report.h): the
 * whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"
#include "binfmt/gguf.h"
#include "mem/estimate.h"
#include "mem/model.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "H200", "--context", "4096", NULL };
	struct gguf_file g;
	struct mem_model m;
	char err[CD_ERRMSG];
	fuzz_command_report(&cmd_mem, "estimate", words, data, size);
	if (gguf_parse(data, size, &g, err) != CD_OK)
		return 0;
	if (mem_model_from_gguf(&g, &m, err) == CD_OK) {
		struct mem_opts o;
		struct mem_estimate e;
		struct mem_fit f;
		mem_opts_default(&o);
		o.context = 4096;
		mem_estimate(&m, &o, &e);
		mem_fit_search(&m, &o, 1ull << 30, &f);
		o.train = true;
		mem_estimate(&m, &o, &e);
		mem_model_free(&m);
	}
	gguf_free(&g);
	return 0;
}
