/* NCCL logs from public reports (tests/explain/nccl/, URL in each .expect) through the parser
 * and the rules: the nccl-* findings must be exactly the expected ones ("none" for a healthy
 * log); the facts of single logs; explain's wiring through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/nccl_log.h"
#include "report/report.h"
#include "cmd/explain/nccl.h"
#include "testlib.h"
#include "util/err.h"
#include "util/file.h"

#define CORPUS CUDOCTOR_SOURCE_DIR "/tests/explain/nccl"

static char *read_case(const char *name, size_t *len)
{
	char path[512], err[CD_ERRMSG], *text = NULL;

	snprintf(path, sizeof path, "%s/%s", CORPUS, name);
	assert_int_equal(file_read_text(path, 1 << 20, &text, len, err), CD_OK);
	return text;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the nccl-* ids of r, space-separated, in order */
static void nccl_ids(const struct report *r, char *out, size_t n)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->n_findings && used < n; i++)
		if (strncmp(r->findings[i].id, "nccl-", 5) == 0)
			used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "", r->findings[i].id);
	if (!out[0])
		snprintf(out, n, "none");
}

static bool same_set(const char *want, const char *got)
{
	char a[512], b[512], *sa = NULL, *sb = NULL;
	size_t na = 0, nb = 0;

	snprintf(a, sizeof a, "%s", want);
	for (char *t = strtok_r(a, " ", &sa); t; t = strtok_r(NULL, " ", &sa), na++) {
		char pat[80];
		snprintf(pat, sizeof pat, " %s ", t);
		char padded[520];
		snprintf(padded, sizeof padded, " %s ", got);
		if (!strstr(padded, pat))
			return false;
	}
	snprintf(b, sizeof b, "%s", got);
	for (char *t = strtok_r(b, " ", &sb); t; t = strtok_r(NULL, " ", &sb))
		nb++;
	return na == nb;
}

static void whole_corpus(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	char *names[256];
	size_t n = 0, failed = 0, healthy = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL && n < 256) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".txt") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof names[0], cmp_names);
	for (size_t i = 0; i < n; i++) {
		size_t len, elen;
		char *text = read_case(names[i], &len), err[CD_ERRMSG] = "", got[512], *expect;
		struct report r;

		char ename[300];
		snprintf(ename, sizeof ename, "%.*s.expect", (int)(strlen(names[i]) - 4), names[i]);
		expect = read_case(ename, &elen);
		assert_non_null(strstr(expect, "source: https://github.com/"));
		char *line = strstr(expect, "expect: ");
		assert_non_null(line);
		line += 8;
		line[strcspn(line, "\n")] = '\0';
		healthy += strcmp(line, "none") == 0;
		assert_int_equal(report_init(&r, "explain"), CD_OK);
		assert_int_equal(nccl_explain(&r, text, len, err), CD_OK);
		nccl_ids(&r, got, sizeof got);
		if (!same_set(line, got)) {
			print_error("%s: want %s, got %s\n", names[i], line, got);
			failed++;
		}
		report_free(&r);
		free(text);
		free(expect);
		free(names[i]);
	}
	print_message("%zu NCCL logs, %zu healthy, %zu failed\n", n, healthy, failed);
	assert_true(n >= 25);
	assert_true(healthy >= 5);
	assert_int_equal(failed, 0);
}

static void facts_of_one_log(void **state)
{
	size_t len;
	char *text = read_case("001.txt", &len), err[CD_ERRMSG];
	struct nccl_log l;

	(void)state;
	assert_int_equal(nccl_log_parse(text, len, &l, err), CD_OK);
	assert_int_equal(l.n_ch, 5);
	assert_int_equal(l.ch[0].channel, 4);
	assert_int_equal(l.ch[0].src_rank, 9);
	assert_string_equal(l.ch[0].dst_dev, "2");
	assert_string_equal(l.ch[0].transport, "P2P");
	assert_string_equal(l.ch[2].via, "NET/Socket/0");
	assert_int_equal(l.result_codes[2], 4);
	assert_int_equal(l.warn_lines, 2);
	nccl_log_free(&l);
	free(text);

	/* before 2.5: "Ring" lines, "direct shared memory" is SHM, ranks without a device */
	text = read_case("023.txt", &len);
	assert_int_equal(nccl_log_parse(text, len, &l, err), CD_OK);
	assert_int_equal(l.n_ch, 5);
	assert_string_equal(l.ch[3].transport, "NET");
	assert_string_equal(l.ch[3].src_dev, "");
	assert_int_equal(l.n_hosts, 2);
	nccl_log_free(&l);
	free(text);

	text = read_case("014.txt", &len);
	assert_int_equal(nccl_log_parse(text, len, &l, err), CD_OK);
	assert_string_equal(l.bootstrap_if, "");
	assert_int_equal(l.result_codes[3], 4);
	nccl_log_free(&l);
	free(text);
}

/* The channel and host fields read as scanf's "%d[%23[^]]] -> %d[...]" and ":%d:%d [%d]"
 * read them: blanks around the arrow optional, a device of 24 bytes or more refused, a
 * caller's anchor hits standing in for the search. */
static void channel_fields(void **state)
{
	static const char *const lines[] = {
		"h1:11:12 [0] NCCL INFO Channel 02 : 3[3]->4[4] via SHM/direct/direct",
		"h1:11:12 [0] NCCL INFO Channel 03 : 5[0123456789abcdef0123456789] -> 6[1] via P2P/IPC",
		"h1:11:12 [0] NCCL INFO Channel 04 : 7 -> 8 via NET/IB/0",
		"h2:x:12 [0] NCCL INFO Channel 05 : 1[1] -> 2[2] via P2P/IPC",
		"h3:13:14[1] NCCL INFO ncclSystemError: System call failed",
	};
	bool hit[64] = { false };
	char err[CD_ERRMSG];
	struct nccl_log l;
	size_t n = nccl_log_anchor_count();

	(void)state;
	assert_true(n <= 64);
	nccl_log_init(&l);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(nccl_log_line(&l, lines[i], strlen(lines[i]), err), CD_OK);
	assert_int_equal(l.n_ch, 3); /* the 26-byte device is not a device */
	assert_int_equal(l.ch[0].src_rank, 3);
	assert_string_equal(l.ch[0].dst_dev, "4");
	assert_string_equal(l.ch[1].src_dev, "");
	assert_int_equal(l.ch[1].dst_rank, 8);
	assert_string_equal(l.ch[1].transport, "NET");
	assert_int_equal(l.ch[2].channel, 5);
	assert_int_equal(l.n_hosts, 1); /* "h2:x:12" has no pid */
	assert_string_equal(l.hosts[0], "h1");
	/* the anchors found by the caller: ncclSystemError's and "nccl" */
	for (size_t i = 0; i + 1 < n; i++)
		hit[i] = strcmp(nccl_log_anchor(i), "ncclSystemError") == 0;
	hit[n - 1] = true;
	assert_int_equal(nccl_log_line_hits(&l, lines[4], strlen(lines[4]), hit, err), CD_OK);
	assert_int_equal(l.ev[NCCL_EV_SYSTEM].count, 1);
	assert_int_equal(l.n_hosts, 2); /* "h3:13:14[1]": the blank before '[' is optional */
	/* an anchor the caller did not see is not counted, though the text has it */
	memset(hit, 0, sizeof(hit));
	hit[n - 1] = true;
	assert_int_equal(nccl_log_line_hits(&l, lines[4], strlen(lines[4]), hit, err), CD_OK);
	assert_int_equal(l.ev[NCCL_EV_SYSTEM].count, 1);
	nccl_log_free(&l);
}

static void cuda_error_named(void **state)
{
	size_t len;
	char *text = read_case("012.txt", &len), err[CD_ERRMSG];
	struct report r;

	(void)state;
	assert_int_equal(report_init(&r, "explain"), CD_OK);
	assert_int_equal(nccl_explain(&r, text, len, err), CD_OK);
	const struct finding *f = report_find(&r, "nccl-cuda-error");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "cudaErrorInvalidDeviceFunction (98)"));
	report_free(&r);
	free(text);

	text = read_case("011.txt", &len);
	assert_int_equal(report_init(&r, "explain"), CD_OK);
	assert_int_equal(nccl_explain(&r, text, len, err), CD_OK);
	f = report_find(&r, "nccl-cuda-error");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "cudaErrorInvalidValue (1)"));
	report_free(&r);
	free(text);
}

/* The version lines of two real logs (NCCL 2.25.1 from
 * https://github.com/NVIDIA/nccl/issues/1637, 2.14.3 from 031.txt) as if two ranks printed them:
 * no public report quoted a log with both. */
static void version_mismatch(void **state)
{
	static const char two[] = "localhost:11326:11326 [0] NCCL INFO NCCL version 2.25.1+cuda12.2\n"
				  "NCCL version 2.14.3+cuda11.5\n"
				  "localhost:11344:11344 [1] NCCL INFO NCCL version 2.25.1+cuda12.2\n";
	struct report r;
	char err[CD_ERRMSG], got[256];

	(void)state;
	assert_int_equal(report_init(&r, "explain"), CD_OK);
	assert_int_equal(nccl_explain(&r, two, sizeof two - 1, err), CD_OK);
	nccl_ids(&r, got, sizeof got);
	assert_string_equal(got, "nccl-version-mismatch");
	assert_non_null(strstr(report_find(&r, "nccl-version-mismatch")->title, "2.25.1 and 2.14.3"));
	report_free(&r);
}

static void edges(void **state)
{
	static const char nul[] = "x NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\0junk NCCL WARN\n";
	static const char cut[] = "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[";
	struct nccl_log l;
	char err[CD_ERRMSG], *big;
	size_t n = 5000;

	(void)state;
	assert_int_equal(nccl_log_parse(nul, sizeof nul - 1, &l, err), CD_OK);
	assert_int_equal(l.n_ch, 1);
	assert_int_equal(l.warn_lines, 0); /* the NUL ends the line */
	nccl_log_free(&l);
	assert_int_equal(nccl_log_parse(cut, sizeof cut - 1, &l, err), CD_OK);
	assert_int_equal(l.n_ch, 0);
	nccl_log_free(&l);
	assert_int_equal(nccl_log_parse("", 0, &l, err), CD_OK);
	assert_int_equal(l.nccl_lines, 0);
	nccl_log_free(&l);
	/* more channel lines than kept */
	big = malloc(n * 64);
	assert_non_null(big);
	size_t used = 0;
	for (size_t i = 0; i < 600; i++)
		used += (size_t)sprintf(big + used, "NCCL INFO Channel %02zu/0 : 0[0] -> 1[1] via P2P/IPC\n", i % 32);
	assert_int_equal(nccl_log_parse(big, used, &l, err), CD_OK);
	assert_int_equal(l.n_ch, NCCL_LOG_CHANNELS);
	assert_int_equal(l.n_ch_dropped, 600 - NCCL_LOG_CHANNELS);
	nccl_log_free(&l);
	free(big);
}

static void through_explain(void **state)
{
	size_t len;
	char *text = read_case("021.txt", &len);
	const char *argv[] = { CUDOCTOR_BINARY, "--json", "explain", "--offline", NULL };
	struct run_result res;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, text, &res), 0);
	assert_int_equal(res.status, 0); /* a warning only */
	assert_non_null(strstr(res.out, "\"nccl-p2p-disabled\""));
	assert_non_null(strstr(res.out, "\"nccl\""));
	assert_non_null(strstr(res.out, "\"network\": \"Socket\""));
	run_result_free(&res);
	free(text);
	text = read_case("008.txt", &len);
	assert_int_equal(testlib_run(argv, NULL, text, &res), 0);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "\"nccl-invalid-usage\""));
	run_result_free(&res);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_corpus),	    cmocka_unit_test(facts_of_one_log), cmocka_unit_test(cuda_error_named),
		cmocka_unit_test(version_mismatch), cmocka_unit_test(edges), cmocka_unit_test(channel_fields),	      cmocka_unit_test(through_explain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
