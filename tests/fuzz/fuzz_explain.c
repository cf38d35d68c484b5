/* Pasted text is untrusted: the explain matcher, the OOM parser and the GPU spec and arch
 * parsers on arbitrary bytes (not NUL-terminated, any length), and the whole `explain
 * --offline` report made from them, rendered and checked (fuzz_report.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_report.h"

#include "explain/evidence.h"
#include "explain/explain.h"
#include "kb/kb.h"
#include "explain/oom_text.h"
#include "rules/oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct explain_result r;
	struct oom_message m;
	struct gpu_spec s;
	struct kb_arch a;
	char *copy, lines[8][400];

	if (explain_text((const char *)data, size, &r, NULL) == 0) {
		for (size_t i = 0; i < r.n; i++)
			explain_offline_evidence(&r.m[i], lines, 8);
		explain_result_free(&r);
	}
	/* the same bytes fed in pieces must not break the one-pass scanner */
	if (size > 1) {
		struct explain_scan *sc;
		size_t cut = data[0] % size;

		if (explain_scan_new(&sc, NULL) == 0) {
			if (explain_scan_feed(sc, (const char *)data, cut, NULL) == 0 &&
			    explain_scan_feed(sc, (const char *)data + cut, size - cut, NULL) == 0 &&
			    explain_scan_finish(sc, &r, NULL) == 0)
				explain_result_free(&r);
			explain_scan_free(sc);
		}
	}
	if (oom_parse((const char *)data, size, &m) == 0)
		oom_classify(&m.n);
	/* the command on the text as its operand (a NUL read as a newline; "x " so that it is
	 * never taken for an option) */
	if ((copy = malloc(size + 3))) {
		const char *words[] = { "--offline", copy, NULL };

		copy[0] = 'x';
		copy[1] = ' ';
		for (size_t i = 0; i < size; i++)
			copy[2 + i] = data[i] ? (char)data[i] : '\n';
		copy[size + 2] = '\0';
		fuzz_command_words(&cmd_explain, NULL, words);
		free(copy);
	}
	if (size > 256)
		return 0;
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	kb_parse_gpu_spec(copy, &s, NULL);
	kb_arch_parse(copy, &a);
	free(copy);
	return 0;
}
