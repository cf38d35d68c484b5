/* explain's scanner runs a first stage over whole buffers and hands on only the lines its
 * candidates fall in (src/explain/match.c, docs/explain.md). Its results must be those of
 * the plain path that takes every line through the automaton (CUDOCTOR_EXPLAIN_SCAN=lines),
 * and of the first stage without SIMD (=scalar, =sse2 with SSE2's newline count): the same JSON over every text of
 * tests/explain and over a generated log with errors at every place a buffer-wide scan could
 * get wrong (bench/make_log.py --edges); and in-process, the same matches whatever the pieces
 * the text is fed in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#define CORPUS CUDOCTOR_SOURCE_DIR "/tests/explain"
#define MAKE_LOG CUDOCTOR_SOURCE_DIR "/bench/make_log.py"

/* the plain path first; then the buffer-wide one on each first stage, on this thread
 * (THREADS=0: sse2) or in stages on threads: as many as the CPUs allow, and three over stages
 * small enough that lines, OOM windows and long lines fall across them */
static const char *const modes[][3] = {
	{ "CUDOCTOR_EXPLAIN_SCAN=lines" },
	{ "CUDOCTOR_EXPLAIN_SCAN=scalar" },
	{ "CUDOCTOR_EXPLAIN_SCAN=sse2", "CUDOCTOR_EXPLAIN_THREADS=0" },
	{ "CUDOCTOR_EXPLAIN_SCAN=" },
	{ "CUDOCTOR_EXPLAIN_SCAN=", "CUDOCTOR_EXPLAIN_THREADS=3", "CUDOCTOR_EXPLAIN_STAGE=5000" },
};

/* `cudoctor --json explain --offline < path` in a mode, the report's date line dropped */
static char *explain_json(const char *path, const char *const *mode)
{
	char script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *env[] = { mode[0], mode[1], mode[2], NULL };
	struct run_result r;
	char *out, *date;

	snprintf(script, sizeof(script), "exec '%s' --json explain --offline < '%s'", CUDOCTOR_BINARY, path);
	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	assert_true(r.status == 0 || r.status == 1);
	out = r.out;
	r.out = NULL;
	run_result_free(&r);
	date = strstr(out, "\"date\": \"");
	if (date) {
		char *eol = strchr(date, '\n');

		memmove(date, eol, strlen(eol) + 1);
	}
	return out;
}

/* the three paths agree on path; returns how many findings the report has */
static size_t same_json(const char *path)
{
	char *want = explain_json(path, modes[0]);
	size_t n = 0;

	for (size_t m = 1; m < sizeof(modes) / sizeof(modes[0]); m++) {
		char *got = explain_json(path, modes[m]);

		if (strcmp(got, want) != 0)
			fail_msg("%s: %s %s %s differs from the plain path", path, modes[m][0],
				 modes[m][1] ? modes[m][1] : "", modes[m][2] ? modes[m][2] : "");
		free(got);
	}
	for (const char *p = want; (p = strstr(p, "\"last_line\": ")); p++)
		n++;
	free(want);
	return n;
}

static void corpus_texts(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	size_t texts = 0, found = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[1024];
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS, e->d_name);
		found += same_json(path);
		texts++;
	}
	closedir(d);
	assert_true(texts >= 100);
	assert_true(found >= texts * 3 / 4); /* most texts are errors (some are false-positive cases) */
}

static char log_path[] = "/tmp/cudoctor_test_scan_XXXXXX";

static void make_edges_log(void)
{
	char script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct run_result r;
	int fd = mkstemp(log_path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(script, sizeof(script), "exec python3 '%s' --edges 6 '%s'", MAKE_LOG, log_path);
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	if (r.status != 0)
		fail_msg("make_log.py: %s", r.err);
	run_result_free(&r);
}

static void generated_log(void **state)
{
	(void)state;
	assert_true(same_json(log_path) >= 7); /* every kind of error make_log.py puts in */
}

/* a reader that gives the text in pieces of the sizes given (at most what is asked for) */
struct pieces {
	const char *text;
	size_t len, pos, k;
	const size_t *sizes;
	size_t n_sizes;
};

static long long read_pieces(void *ctx, char *buf, size_t cap)
{
	struct pieces *p = ctx;
	size_t n = p->sizes[p->k++ % p->n_sizes];

	if (n > p->len - p->pos)
		n = p->len - p->pos;
	if (n > cap)
		n = cap;
	memcpy(buf, p->text + p->pos, n);
	p->pos += n;
	return (long long)n;
}

/* the scan in-process, in pieces of the sizes given (fed, or read by the scanner when
 * stream), in one mode, on threads over stages of stage bytes (0: on this thread) */
static void scan_pieces(const char *text, size_t len, const size_t *sizes, size_t n_sizes, const char *mode,
			size_t stage, bool stream, struct explain_result *r, size_t *lines)
{
	struct explain_scan *sc;
	char err[CD_ERRMSG], num[32];
	size_t pos = 0;

	setenv("CUDOCTOR_EXPLAIN_SCAN", mode, 1);
	setenv("CUDOCTOR_EXPLAIN_THREADS", stage ? "2" : "0", 1);
	snprintf(num, sizeof(num), "%zu", stage);
	setenv("CUDOCTOR_EXPLAIN_STAGE", num, 1);
	assert_int_equal(explain_scan_new(&sc, err), CD_OK);
	if (stream) {
		struct pieces p = { text, len, 0, 0, sizes, n_sizes };

		assert_int_equal(explain_scan_stream(sc, read_pieces, &p, err), CD_OK);
		assert_int_equal(p.pos, len);
	}
	for (size_t k = 0; !stream && pos < len; k++) {
		size_t n = sizes[k % n_sizes] < len - pos ? sizes[k % n_sizes] : len - pos;

		assert_int_equal(explain_scan_feed(sc, text + pos, n, err), CD_OK);
		pos += n;
	}
	assert_int_equal(explain_scan_finish(sc, r, err), CD_OK);
	*lines = explain_scan_lines(sc);
	explain_scan_free(sc);
	unsetenv("CUDOCTOR_EXPLAIN_SCAN");
	unsetenv("CUDOCTOR_EXPLAIN_THREADS");
	unsetenv("CUDOCTOR_EXPLAIN_STAGE");
}

static void same_result(const struct explain_result *a, const struct explain_result *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->torch, b->torch);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->m[i].finding, b->m[i].finding);
		assert_int_equal(a->m[i].line, b->m[i].line);
		assert_int_equal(a->m[i].last_line, b->m[i].last_line);
		assert_int_equal(a->m[i].offset, b->m[i].offset);
		assert_int_equal(a->m[i].last_offset, b->m[i].last_offset);
		assert_int_equal(a->m[i].count, b->m[i].count);
		assert_string_equal(a->m[i].last, b->m[i].last);
		assert_int_equal(a->m[i].has_oom, b->m[i].has_oom);
	}
}

/* pieces of odd sizes: lines across pieces, pieces without a newline, a newline alone */
static void any_pieces(void **state)
{
	static const size_t whole[] = { (size_t)1 << 30 };
	static const size_t sizes[][4] = { { 1 << 20 }, { 65536, 1, 4097, 333333 }, { 7, 4096, 1 << 20, 100003 } };
	char *text = NULL;
	size_t len, lines_want, lines;
	struct explain_result want, got;

	(void)state;
	assert_int_equal(file_read_text(log_path, 64 << 20, &text, &len, NULL), CD_OK);
	scan_pieces(text, len, whole, 1, "lines", 0, false, &want, &lines_want);
	assert_true(want.n >= 7);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = 0;

		while (n < 4 && sizes[s][n])
			n++;
		for (size_t m = 0; m < 7; m++) {
			/* a stage smaller than a piece, one larger than several, and one of 2 MiB; fed,
			 * and read by the scanner */
			static const size_t stages[] = { 0, 0, 0, 70001, 2 << 20, 70001, 2 << 20 };

			scan_pieces(text, len, sizes[s], n, m == 0 ? "scalar" : m == 1 ? "sse2" : "", stages[m], m >= 5,
				    &got, &lines);
			assert_int_equal(lines, lines_want);
			same_result(&got, &want);
			explain_result_free(&got);
		}
	}
	explain_result_free(&want);
	free(text);
}

/* a stdin that cannot be read (a directory): said on stderr, exit 3, on the reader's thread
 * or this one */
static void stdin_unreadable(void **state)
{
	static const char *const threads[] = { "CUDOCTOR_EXPLAIN_THREADS=0", "CUDOCTOR_EXPLAIN_THREADS=2" };
	char script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };

	(void)state;
	snprintf(script, sizeof(script), "exec '%s' explain --offline < /", CUDOCTOR_BINARY);
	for (size_t t = 0; t < 2; t++) {
		const char *env[] = { threads[t], NULL };
		struct run_result r;

		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
		assert_int_equal(r.status, 3);
		/* why, from the thread that read (errno is that thread's), and what to give instead */
		assert_non_null(strstr(r.err, "cudoctor explain: cannot read stdin (Is a directory): give the text"));
		run_result_free(&r);
	}
}

static int setup(void **state)
{
	(void)state;
	make_edges_log();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(corpus_texts),
		cmocka_unit_test(generated_log),
		cmocka_unit_test(any_pieces),
		cmocka_unit_test(stdin_unreadable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
