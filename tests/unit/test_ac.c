/* The pattern matcher (explain/ac.h): ac_find, which steps only through the prefilter's
 * windows, must report exactly what stepping through every byte reports, in the same order,
 * on texts built to put occurrences at window edges, in mixed case, overlapping, at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "explain/ac.h"
#include "util/err.h"

#define MAX_HITS 4096

/* the plain scan: every byte through the automaton from state 0 */
static size_t every_byte(const struct ac *a, const unsigned char *s, size_t len, struct ac_hit *hits, size_t max)
{
	uint32_t st = 0;
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		st = ac_step(a, st, s[i]);
		if (st & AC_ENDS) {
			uint32_t q = ac_state(a, st);

			for (uint32_t k = a->out_start[q]; k < a->out_start[q + 1] && n < max; k++)
				hits[n++] = (struct ac_hit){ a->out[k], (uint32_t)(i + 1) };
		}
	}
	return n;
}

static void same_hits(const struct ac *a, const char *text, size_t len, size_t max)
{
	static struct ac_hit want[MAX_HITS], got[MAX_HITS];
	size_t nw = every_byte(a, (const unsigned char *)text, len, want, max);
	size_t ng = ac_find(a, (const unsigned char *)text, len, got, max);

	assert_int_equal(ng, nw);
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(got[i].pat, want[i].pat);
		assert_int_equal(got[i].end, want[i].end);
	}
}

/* patterns of explain's kinds: a three-byte word, short keys, long messages whose rare part
 * is far from their start, ones inside others */
static const char *const pats[] = {
	"gpu",
	"cuda",
	"error",
	"code=",
	"out of memory",
	"CUDA out of memory",
	"an illegal memory access was encountered",
	"no kernel image is available for execution on the device",
	"Torch not compiled with CUDA enabled",
	"cudaErrorMemoryAllocation",
	"CUDA_ERROR_",
	"NCCL WARN",
	"xid",
	"invalid device ordinal",
};

static void random_texts(void **state)
{
	static const char *const bits[] = { "GPU", "Cuda", "error", "code=", "out of ", "memory", "CUDA ",
					    "an illegal memory access", " was encountered", "no kernel image",
					    "Torch not compiled with", " CUDA enabled", "cudaError", "MemoryAllocation",
					    "CUDA_ERROR_", "nccl warn", "XID", "invalid device", " ordinal", " ", "x",
					    "step 100 | loss 0.25", "gp", "cud", "\t", "e" };
	char text[3000];
	struct ac a;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(ac_build(pats, sizeof(pats) / sizeof(pats[0]), &a, err), CD_OK);
	assert_true(a.use_grams);
	srand(7);
	for (int round = 0; round < 3000; round++) {
		size_t len = 0, want = (size_t)(rand() % 400);

		while (len < want) {
			const char *b = bits[rand() % (sizeof(bits) / sizeof(bits[0]))];
			size_t n = strlen(b);

			if (len + n >= sizeof(text))
				break;
			memcpy(text + len, b, n);
			len += n;
		}
		same_hits(&a, text, len, MAX_HITS);
		same_hits(&a, text, len, 3); /* the first few only, as a full line keeps */
	}
	ac_free(&a);
}

static void edges(void **state)
{
	static const char *const texts[] = {
		"", "g", "gp", "gpu", "GPU", " gpu", "xgpu", "cuda", "Torch not compiled with CUDA enabled",
		/* a short occurrence's window first, then a long one starting before it */
		"xxTorch not compiled with CUDA enabled", "an illegal memory access was encountered gpu",
		"CUDA out of memoryCUDA out of memory", "no kernel image is available for execution on the devic",
	};
	struct ac a;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(ac_build(pats, sizeof(pats) / sizeof(pats[0]), &a, err), CD_OK);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		same_hits(&a, texts[i], strlen(texts[i]), MAX_HITS);
	{
		struct ac_hit h[4];

		assert_int_equal(ac_find(&a, (const unsigned char *)"RuntimeError: CUDA out of memory", 32, h, 4), 4);
		assert_int_equal(ac_find(&a, (const unsigned char *)"step 100 | loss 0.25", 20, h, 4), 0);
	}
	ac_free(&a);
}

/* a pattern of two bytes turns the prefilter off: every byte is stepped through */
static void short_pattern(void **state)
{
	static const char *const two[] = { "ab", "cuda" };
	struct ac a;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(ac_build(two, 2, &a, err), CD_OK);
	assert_false(a.use_grams);
	same_hits(&a, "xxABcudaab", 10, MAX_HITS);
	ac_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_texts),
		cmocka_unit_test(edges),
		cmocka_unit_test(short_pattern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
