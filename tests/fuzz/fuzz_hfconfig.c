/* libFuzzer harness: a Hugging Face config.json -> model description -> estimate and
 * fit search (the numbers in a config are untrusted too). */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/estimate.h"
#include "mem/model.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CD_ERRMSG];
	struct mem_model m;
	json_t *config = json_loadb((const char *)data, size, 0, NULL);
	if (!config)
		return 0;
	if (mem_model_from_config(config, NULL, &m, err) == CD_OK) {
		struct mem_opts o;
		struct mem_estimate e;
		struct mem_fit f;
		mem_opts_default(&o);
		o.context = 8192;
		mem_estimate(&m, &o, &e);
		mem_fit_search(&m, &o, 80ull << 30, &f);
		o.train = true;
		o.optimizer = MEM_OPT_ADAFACTOR;
		mem_estimate(&m, &o, &e);
		mem_model_free(&m);
	}
	json_decref(config);
	return 0;
}
