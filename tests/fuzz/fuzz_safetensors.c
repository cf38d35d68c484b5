/* libFuzzer harness: the safetensors header reader and the shard index reader.
 * Then the input as a file through `cudoctor --json mem estimate` (fuzz_report.h): the
 * whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_report.h"
#include "binfmt/safetensors.h"
#include "mem/model.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "--gpu", "H200", "--context", "4096", NULL };
	struct st_file f;
	struct st_index ix;
	char err[CD_ERRMSG];
	fuzz_command_report(&cmd_mem, "estimate", words, data, size);
	if (st_parse(data, size, &f, err) == CD_OK) {
		struct mem_model m;
		if (mem_model_from_safetensors(&f, 1, NULL, &m, err) == CD_OK)
			mem_model_free(&m);
		st_free(&f);
	}
	if (st_index_parse(data, size, &ix, err) == CD_OK)
		st_index_free(&ix);
	return 0;
}
