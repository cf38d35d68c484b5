/* explain's buffer-wide scan against its plain path on arbitrary bytes: the matches of
 * CUDOCTOR_EXPLAIN_SCAN=lines over the whole input must be those of the default scan (on this
 * thread, and on threads over stages of a few dozen bytes) and of the portable ones, each fed
 * in pieces cut where the input's first bytes say. A difference aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool scan(const char *mode, const char *stage, const uint8_t *data, size_t size, size_t cut1, size_t cut2,
		 struct explain_result *r, size_t *lines)
{
	struct explain_scan *sc;
	bool ok;

	setenv("CUDOCTOR_EXPLAIN_SCAN", mode, 1);
	setenv("CUDOCTOR_EXPLAIN_THREADS", stage ? "2" : "0", 1);
	setenv("CUDOCTOR_EXPLAIN_STAGE", stage ? stage : "", 1);
	if (explain_scan_new(&sc, NULL) != 0)
		return false;
	ok = explain_scan_feed(sc, (const char *)data, cut1, NULL) == 0 &&
	     explain_scan_feed(sc, (const char *)data + cut1, cut2 - cut1, NULL) == 0 &&
	     explain_scan_feed(sc, (const char *)data + cut2, size - cut2, NULL) == 0;
	ok = ok && explain_scan_finish(sc, r, NULL) == 0;
	*lines = explain_scan_lines(sc);
	explain_scan_free(sc);
	return ok;
}

static void same(const struct explain_result *a, size_t la, const struct explain_result *b, size_t lb)
{
	if (a->n != b->n || a->torch != b->torch || la != lb)
		abort();
	for (size_t i = 0; i < a->n; i++) {
		const struct explain_match *x = &a->m[i], *y = &b->m[i];

		if (strcmp(x->finding, y->finding) || x->line != y->line || x->last_line != y->last_line ||
		    x->offset != y->offset || x->last_offset != y->last_offset || x->count != y->count ||
		    strcmp(x->last, y->last) || x->has_oom != y->has_oom)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct explain_result want, got;
	size_t lw, lg, c1 = size ? data[0] % (size + 1) : 0, c2 = size > 1 ? data[1] % (size + 1) : size;

	if (c2 < c1) {
		size_t t = c1;

		c1 = c2;
		c2 = t;
	}
	if (!scan("lines", NULL, data, size, 0, 0, &want, &lw))
		return 0;
	if (scan("", NULL, data, size, c1, c2, &got, &lg)) {
		same(&want, lw, &got, lg);
		explain_result_free(&got);
	}
	if (scan("", "37", data, size, c2, size, &got, &lg)) {
		same(&want, lw, &got, lg);
		explain_result_free(&got);
	}
	if (scan("scalar", NULL, data, size, c2, size, &got, &lg)) {
		same(&want, lw, &got, lg);
		explain_result_free(&got);
	}
	if (scan("sse2", NULL, data, size, c1, size, &got, &lg)) {
		same(&want, lw, &got, lg);
		explain_result_free(&got);
	}
	explain_result_free(&want);
	unsetenv("CUDOCTOR_EXPLAIN_SCAN");
	return 0;
}
