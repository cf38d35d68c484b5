/* The pattern matcher (explain/ac.h): ac_find, which steps only through the prefilter's
 * windows, must report exactly what stepping through every byte reports, in the same order,
 * on texts built to put occurrences at window edges, in mixed case, overlapping, at the end;
 * with the first stage vectorised and portable alike. The first stage alone (ac_cursor)
 * must put a candidate within one byte before every occurrence, and a buffer of lines scanned
 * as explain's feed scans it (one walk over the buffer, ac_find_line on their lines) must
 * give every line what the plain scan gives it. The newline count agrees on every path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "explain/ac.h"
#include "explain/newlines.h"
#include "util/cpu.h"
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

/* ac_find on both first stages (where the CPU has the vectorised one) against every byte */
static void same_hits(struct ac *a, const char *text, size_t len, size_t max)
{
	static struct ac_hit want[MAX_HITS], got[MAX_HITS];
	size_t nw = every_byte(a, (const unsigned char *)text, len, want, max);
	bool simd = a->simd;

	for (int pass = 0; pass < 2; pass++) {
		size_t ng;

		a->simd = pass == 0 ? false : simd;
		ng = ac_find(a, (const unsigned char *)text, len, got, max);
		assert_int_equal(ng, nw);
		for (size_t i = 0; i < nw; i++) {
			assert_int_equal(got[i].pat, want[i].pat);
			assert_int_equal(got[i].end, want[i].end);
		}
	}
	a->simd = simd;
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
	assert_int_equal(a.simd, cpu_has_avx2());
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

static const char *const bits[] = { "GPU", "Cuda", "error", "code=", "out of ", "memory", "CUDA ",
				    "an illegal memory access", " was encountered", "no kernel image",
				    "Torch not compiled with", " CUDA enabled", "cudaError", "MemoryAllocation",
				    "CUDA_ERROR_", "nccl warn", "XID", "invalid device", " ordinal", " ", "x",
				    "step 100 | loss 0.25", "gp", "cud", "\t", "e", "\n", "\r\n", "\n\n" };

/* a random text of about want bytes from bits, newlines among them */
static size_t random_text(char *text, size_t cap, size_t want)
{
	size_t len = 0;

	while (len < want) {
		const char *b = bits[rand() % (sizeof(bits) / sizeof(bits[0]))];
		size_t n = strlen(b);

		if (len + n >= cap)
			break;
		memcpy(text + len, b, n);
		len += n;
	}
	return len;
}

/* the first candidate at or after from */
static size_t first_candidate(const struct ac *a, const unsigned char *s, size_t len, size_t from)
{
	struct ac_cursor k;

	ac_cursor_start(a, &k, s, len, from);
	return k.at;
}

/* every occurrence has a candidate from one byte before its start to its end, on both first
 * stages; both walk through the same candidates */
static void candidates_cover(void **state)
{
	static struct ac_hit h[MAX_HITS];
	char text[1200];
	struct ac a;
	char err[CD_ERRMSG];

	(void)state;
	assert_int_equal(ac_build(pats, sizeof(pats) / sizeof(pats[0]), &a, err), CD_OK);
	srand(11);
	for (int round = 0; round < 1500; round++) {
		const unsigned char *u = (const unsigned char *)text;
		size_t len = random_text(text, sizeof(text), (size_t)(rand() % 1100));
		size_t n = every_byte(&a, u, len, h, MAX_HITS), from = (size_t)(rand() % 40);
		bool simd = a.simd;
		struct ac_cursor k0, k1;

		a.simd = false;
		ac_cursor_start(&a, &k0, u, len, from);
		a.simd = simd;
		ac_cursor_start(&a, &k1, u, len, from);
		assert_int_equal(k0.at, k1.at);
		for (;;) {
			size_t prev = k0.at;

			assert_true(k0.at == len || (k0.at >= from && k0.at % 2 == 0 && k0.at < len));
			if (k0.at == len)
				break;
			a.simd = false;
			ac_cursor_next(&a, &k0);
			a.simd = simd;
			ac_cursor_next(&a, &k1);
			assert_int_equal(k0.at, k1.at);
			assert_true(k0.at > prev);
		}
		for (size_t i = 0; i < n; i++) {
			size_t end = h[i].end, start = end - a.len[h[i].pat];

			assert_true(first_candidate(&a, u, len, start ? start - 1 : 0) < end);
		}
	}
	ac_free(&a);
}

/* a buffer of lines as explain's feed takes it: one walk through the candidates of the whole
 * buffer; a line no candidate falls in must have no occurrence, one that is taken the plain
 * scan's hits from ac_find_line */
static void buffer_of_lines(void **state)
{
	static struct ac_hit want[MAX_HITS], got[MAX_HITS];
	char text[4000];
	struct ac a;
	char err[CD_ERRMSG];
	size_t taken = 0, skipped = 0;

	(void)state;
	assert_int_equal(ac_build(pats, sizeof(pats) / sizeof(pats[0]), &a, err), CD_OK);
	srand(13);
	for (int round = 0; round < 1500; round++) {
		const unsigned char *u = (const unsigned char *)text;
		size_t len = random_text(text, sizeof(text) - 1, (size_t)(rand() % 3000));
		bool simd = a.simd;

		text[len++] = '\n';
		for (int pass = 0; pass < 2; pass++) {
			struct ac_cursor k;
			size_t cur = 0;

			a.simd = pass == 0 ? false : simd;
			ac_cursor_start(&a, &k, u, len, 0);
			while (cur < len) {
				size_t t = k.at < len ? k.at + (text[k.at] == '\n') : len, le;

				if (t < cur) {
					ac_cursor_next(&a, &k);
					continue;
				}
				/* the lines before t's: none may hold an occurrence */
				while (cur < len && (le = (size_t)((char *)memchr(text + cur, '\n', len - cur) - text)) < t) {
					size_t hi = le > cur && text[le - 1] == '\r' ? le - 1 : le;

					assert_int_equal(every_byte(&a, u + cur, hi - cur, want, MAX_HITS), 0);
					skipped++;
					cur = le + 1;
				}
				if (t >= len)
					break;
				le = (size_t)((char *)memchr(text + t, '\n', len - t) - text);
				{
					size_t hi = le > cur && text[le - 1] == '\r' ? le - 1 : le;
					size_t nw = every_byte(&a, u + cur, hi - cur, want, MAX_HITS);
					size_t ng = ac_find_line(&a, &k, cur, hi, got, MAX_HITS);

					assert_int_equal(ng, nw);
					for (size_t i = 0; i < nw; i++) {
						assert_int_equal(got[i].pat, want[i].pat);
						assert_int_equal(got[i].end, want[i].end);
					}
					assert_true(k.at >= hi);
					taken++;
				}
				cur = le + 1;
			}
		}
		a.simd = simd;
	}
	assert_true(taken > 1000 && skipped > 1000);
	ac_free(&a);
}

static void newlines(void **state)
{
	static char buf[70000];

	(void)state;
	srand(17);
	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)(rand() % (round < 200 ? 300 : (int)sizeof(buf))), off = (size_t)(rand() % 40), want = 0;

		if (off + n > sizeof(buf))
			n = sizeof(buf) - off;
		for (size_t i = 0; i < n; i++) {
			/* runs of newlines long enough to fill the byte counters */
			buf[off + i] = round % 3 == 0 ? '\n' : rand() % 5 == 0 ? '\n' : (char)(rand() % 256);
			want += buf[off + i] == '\n';
		}
		assert_int_equal(newline_count(buf + off, n, NEWLINE_PORTABLE), want);
		assert_int_equal(newline_count(buf + off, n, NEWLINE_SSE2), want);
		assert_int_equal(newline_count(buf + off, n, NEWLINE_AVX2), want);
	}
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
		cmocka_unit_test(candidates_cover),
		cmocka_unit_test(buffer_of_lines),
		cmocka_unit_test(newlines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
