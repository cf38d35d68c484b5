/* libFuzzer harness: an Ollama manifest (mem/ollama.h) read for its model layer's digest, then
 * as the manifest of model fuzz:t in a models folder of the harness's own, through `cudoctor
 * mem estimate fuzz:t` (fuzz_report.h): the error or the whole report, text and JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_report.h"
#include "mem/ollama.h"
#include "os/env.h"
#include "util/err.h"

static char dir[64], manifest[160];

static void remove_dir(void)
{
	char cmd[96];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_ollama_manifest: %s failed\n", cmd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "fuzz:t", "--gpu", "H200", NULL };
	char digest[OLLAMA_DIGEST_LEN], err[CD_ERRMSG];
	struct ollama_name n;
	FILE *f;

	if (!dir[0]) {
		char cmd[256];
		snprintf(dir, sizeof dir, "/tmp/cudoctor-fuzz-ollama-%d", (int)getpid());
		snprintf(cmd, sizeof cmd, "mkdir -p %s/manifests/registry.ollama.ai/library/fuzz %s/blobs", dir, dir);
		if (system(cmd) != 0 || os_setenv("OLLAMA_MODELS", dir) != 0 || atexit(remove_dir) != 0)
			abort();
		snprintf(manifest, sizeof manifest, "%s/manifests/registry.ollama.ai/library/fuzz/t", dir);
	}
	if (ollama_manifest_model(data, size, digest, err) == CD_OK && (digest[0] != 's' || !ollama_name_parse("fuzz:t", &n)))
		abort(); /* a digest comes back only as sha256:HEX */
	if (!(f = fopen(manifest, "wb")))
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	fuzz_command_words(&cmd_mem, "estimate", words);
	return 0;
}
