/* Text for people, at a terminal: wrapping to COLUMNS or the terminal's width with hanging
 * indents and every word kept, colour only on a terminal, arch's progress on stderr only
 * when stderr is a terminal, and arch's per-GPU summary over many files. The terminal is a
 * pseudo-terminal driven by tests/unit/pty_run.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "testlib.h"

#define PTY_RUN CUDOCTOR_SOURCE_DIR "/tests/unit/pty_run.py"
#define FAKES "CUDOCTOR_LIBCUDA=" CUDOCTOR_FAKES_DIR "/libcuda.so.1", \
	"CUDOCTOR_LIBNVML=" CUDOCTOR_FAKES_DIR "/libnvidia-ml.so.1", "FAKE_GPUS=", "CUDA_VISIBLE_DEVICES="
/* devices with a finding that has evidence, why and fix: NVML's version mismatch */
#define MISMATCH "FAKE_NVML_INIT_RESULT=18", "SOURCE_DATE_EPOCH=1700000000", "NO_COLOR="

/* cudoctor -v devices, stdout on a terminal COLS wide (0: left alone) */
static struct run_result devices_on_pty(const char *columns_env, const char *cols)
{
	const char *argv[] = { "/usr/bin/python3", PTY_RUN, "out", cols, CUDOCTOR_BINARY, "-v", "devices", NULL };
	const char *env[] = { FAKES, MISMATCH, columns_env, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static struct run_result devices_piped(const char *columns_env)
{
	const char *argv[] = { CUDOCTOR_BINARY, "-v", "devices", NULL };
	const char *env[] = { FAKES, MISMATCH, columns_env, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

/* Columns of the line at s (up to \n), escape sequences not counted; *words gets its words,
 * *last the columns of its last word. */
static size_t line_columns(const char *s, size_t *words, size_t *last)
{
	size_t cols = 0;
	bool in_word = false;

	*words = 0;
	*last = 0;
	for (; *s && *s != '\n'; s++) {
		if (*s == '\033') {
			while (*s && *s != 'm')
				s++;
			if (!*s)
				break;
			continue;
		}
		cols += ((unsigned char)*s & 0xc0) != 0x80;
		if (*s != ' ' && !in_word) {
			++*words;
			*last = 0;
		}
		*last += *s != ' ' && ((unsigned char)*s & 0xc0) != 0x80;
		in_word = *s != ' ';
	}
	return cols;
}

#define FIX_LEAD "      fix: "

/* The longest line, leaving out lines that end in a word of more than 30 columns (a path
 * too long for the rest of its line stands where it is, after its label) and fix lines
 * (commands, printed whole) */
static size_t widest_line(const char *text)
{
	size_t max = 0;

	for (const char *s = text; *s;) {
		size_t words, last, cols = line_columns(s, &words, &last);

		if (last <= 30 && cols > max && strncmp(s, FIX_LEAD, strlen(FIX_LEAD)) != 0)
			max = cols;
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return max;
}

/* The words of text, escape sequences dropped, each followed by one space */
static char *words_of(const char *text)
{
	char *out = calloc(1, strlen(text) + 2), *o = out;
	bool space = true;

	assert_non_null(out);
	for (const char *s = text; *s; s++) {
		if (*s == '\033') {
			while (*s && *s != 'm')
				s++;
			if (!*s)
				break;
			continue;
		}
		if (*s == ' ' || *s == '\n') {
			if (!space)
				*o++ = ' ';
			space = true;
		} else {
			*o++ = *s;
			space = false;
		}
	}
	return out;
}

static void test_wraps_to_columns_keeping_every_word(void **state)
{
	struct run_result narrow = devices_on_pty("COLUMNS=60", "0");
	struct run_result wide = devices_piped("COLUMNS=9999");
	char *a, *b;

	(void)state;
	assert_int_equal(narrow.status, 0);
	assert_int_equal(wide.status, 0);
	assert_true(widest_line(narrow.out) <= 60);
	assert_true(widest_line(narrow.out) >= 50); /* lines are filled, not cut short */
	assert_true(widest_line(wide.out) > 60);    /* the same report has longer lines unwrapped */
	a = words_of(narrow.out);
	b = words_of(wide.out);
	assert_string_equal(a, b);
	free(a);
	free(b);
	run_result_free(&narrow);
	run_result_free(&wide);
}

/* The line after the first one starting with prefix (a wrapped finding line's next line) */
static const char *line_after(const char *text, const char *prefix)
{
	const char *s = strstr(text, prefix);

	assert_non_null(s);
	s = strchr(s, '\n');
	assert_non_null(s);
	return s + 1;
}

/* Every fix line of text, each ended by a newline, in order */
static char *fix_lines(const char *text)
{
	char *out = calloc(1, strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *s = text; (s = strstr(s, FIX_LEAD)) != NULL;) {
		const char *end = strchr(s, '\n');
		size_t n = end ? (size_t)(end - s) + 1 : strlen(s);

		memcpy(o, s, n);
		o += n;
		s += n;
	}
	return out;
}

/* The widest line of text, every line counted */
static size_t widest(const char *text)
{
	size_t max = 0, words, last;

	for (const char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (line_columns(s, &words, &last) > max)
			max = line_columns(s, &words, &last);
	return max;
}

/* A fix is a command to copy: on a narrow terminal it stays whole on its line */
static void test_fix_lines_are_never_wrapped(void **state)
{
	struct run_result narrow = devices_on_pty("COLUMNS=40", "0");
	struct run_result wide = devices_piped("COLUMNS=9999");
	char *a, *b, *f, *g;

	(void)state;
	assert_int_equal(narrow.status, 0);
	f = fix_lines(narrow.out);
	g = fix_lines(wide.out);
	assert_true(strlen(g) > 0);
	assert_true(widest(f) > 40); /* longer than the terminal, still on one line */
	a = words_of(f);             /* a wrapped tail would be missing from f */
	b = words_of(g);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(f);
	free(g);
	run_result_free(&narrow);
	run_result_free(&wide);
}

static void test_hanging_indents(void **state)
{
	struct run_result r = devices_on_pty("COLUMNS=60", "0");
	const char *next;

	(void)state;
	/* why and evidence continue under their text, not at the margin */
	next = line_after(r.out, "      why: ");
	assert_true(strncmp(next, "           ", 11) == 0 && next[11] != ' ');
	next = line_after(r.out, "      evidence: nvmlInit");
	assert_true(strncmp(next, "                ", 16) == 0 && next[16] != ' ');
	/* a finding's title continues under the severity's indent */
	next = line_after(r.out, "nvml-unavailable");
	assert_true(strncmp(next, "      ", 6) == 0 && next[6] != ' ');
	/* a long key/value value continues under the value's column */
	const char *kv = strstr(r.out, "  CUDA (driver API)  13.0: ");
	assert_non_null(kv);
	size_t col = (size_t)(strstr(kv, "13.0") - kv);
	next = line_after(r.out, "  CUDA (driver API)  13.0: ");
	assert_true(strspn(next, " ") == col);
	run_result_free(&r);
}

static void test_width_from_the_terminal(void **state)
{
	struct run_result r = devices_on_pty("COLUMNS=", "70");
	struct run_result p = devices_piped("COLUMNS=");

	(void)state;
	assert_int_equal(r.status, 0);
	assert_true(widest_line(r.out) <= 70 && widest_line(r.out) > 60);
	/* not a terminal and no COLUMNS: 80 */
	assert_true(widest_line(p.out) <= 80 && widest_line(p.out) > 70);
	run_result_free(&r);
	run_result_free(&p);
}

static void test_colour_only_on_a_terminal(void **state)
{
	struct run_result t = devices_on_pty("COLUMNS=80", "0");
	struct run_result p = devices_piped("COLUMNS=80");

	(void)state;
	assert_non_null(strstr(t.out, "\033[1mDriver\033[0m\n")); /* the code closes on its own line */
	assert_null(strstr(p.out, "\033["));
	run_result_free(&t);
	run_result_free(&p);
}


static void test_progress_only_on_a_terminal(void **state)
{
	/* thousands of files, a few CUDA libraries among them: seconds of work */
	const char *tree = "/usr/local/cuda";
	const char *pty_argv[] = { "/usr/bin/python3", PTY_RUN, "err", "0", CUDOCTOR_BINARY, "arch", "-r", tree,
				   "/usr/lib", "--gpu", "sm_90", NULL };
	const char *argv[] = { CUDOCTOR_BINARY, "arch", "-r", tree, "/usr/lib", "--gpu", "sm_90", NULL };
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "CUDOCTOR_PROGRESS_AFTER=0", NULL };
	struct run_result t, p;
	struct stat st;

	(void)state;
	if (stat(tree, &st) != 0) {
		fprintf(stderr, "skipping: %s (a tree arch takes over a second on) is not here\n", tree);
		skip();
	}
	/* the threshold is moved to 0 s: a terminal must show progress however fast this machine is */
	assert_int_equal(testlib_run(pty_argv, env, NULL, &t), 0);
	assert_non_null(strstr(t.out, "\r\033[Karch: searched "));
	assert_non_null(strstr(t.out, " files"));
	/* erased at the end: the terminal is left on a clean line */
	assert_true(strlen(t.out) >= 4 && strcmp(t.out + strlen(t.out) - 4, "\r\033[K") == 0);
	assert_int_equal(testlib_run(argv, env, NULL, &p), 0);
	assert_null(strstr(p.err, "searched"));
	assert_non_null(strstr(p.out, " files carry device code\n"));
	run_result_free(&t);
	run_result_free(&p);
}

#define FIXTURES CUDOCTOR_FIXTURES_DIR "/arch"

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[8192];
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* 21 files native on an H200, one it JIT-compiles, one it cannot run */
static void test_arch_summary_over_many_files(void **state)
{
	char dir[] = "/tmp/cudoctor-summary-XXXXXX", path[512];
	const char *env[] = { "CUDOCTOR_LIBCUDA=/nonexistent", "COLUMNS=100", NULL };
	struct run_result r, v, j;
	json_error_t e;
	json_t *doc, *sum;

	(void)state;
	if (access(FIXTURES "/k_sm90.fatbin", R_OK) != 0) {
		fprintf(stderr, "skipping: the nvcc fixtures were not built\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 21; i++) {
		snprintf(path, sizeof path, "%s/native%02d.fatbin", dir, i);
		copy_file(FIXTURES "/k_sm90.fatbin", path);
	}
	snprintf(path, sizeof path, "%s/only_sm80.fatbin", dir);
	copy_file(FIXTURES "/k_sm80.fatbin", path);
	snprintf(path, sizeof path, "%s/ptx80.fatbin", dir);
	copy_file(FIXTURES "/k_ptx80.fatbin", path);
	{
		const char *argv[] = { CUDOCTOR_BINARY, "arch", "-r", dir, "--gpu", "H200", "--driver", "13.0", NULL };
		const char *argv_v[] = { CUDOCTOR_BINARY, "arch", "-v", "-r", dir, "--gpu", "H200", "--driver", "13.0", NULL };
		const char *argv_j[] = { CUDOCTOR_BINARY, "--json", "arch", "-r", dir, "--gpu", "H200", "--driver", "13.0", NULL };

		assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
		assert_int_equal(testlib_run(argv_v, env, NULL, &v), 0);
		assert_int_equal(testlib_run(argv_j, env, NULL, &j), 0);
	}
	assert_int_equal(r.status, 1); /* only_sm80 cannot run: an error finding */
	/* the per-GPU answer comes first, then only the two files that do not run natively */
	assert_non_null(strstr(r.out, "Summary: 23 files with device code\n"
				      "  --gpu NVIDIA H200 (sm_90)  21 native, 1 jit, 0 partial, 1 no-image\n"));
	assert_true(strstr(r.out, "Summary:") < strstr(r.out, "only_sm80.fatbin (fatbin)"));
	assert_int_equal(count(r.out, ".fatbin (fatbin):"), 2);
	assert_non_null(strstr(r.out, "ptx80.fatbin (fatbin):"));
	assert_non_null(strstr(r.out, "  23 of 23 files carry device code\n"));
	/* -v: every file, no summary */
	assert_int_equal(count(v.out, ".fatbin (fatbin):"), 23);
	assert_null(strstr(v.out, "Summary:"));
	doc = json_loads(j.out, 0, &e);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "files_searched")), 23);
	assert_int_equal(json_integer_value(json_object_get(doc, "files_with_device_code")), 23);
	sum = json_array_get(json_object_get(doc, "summary"), 0);
	assert_int_equal(json_integer_value(json_object_get(sum, "native")), 21);
	assert_int_equal(json_integer_value(json_object_get(sum, "jit")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "no_image")), 1);
	json_decref(doc);
	for (int i = 0; i < 21; i++) {
		snprintf(path, sizeof path, "%s/native%02d.fatbin", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/only_sm80.fatbin", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/ptx80.fatbin", dir);
	unlink(path);
	rmdir(dir);
	run_result_free(&r);
	run_result_free(&v);
	run_result_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wraps_to_columns_keeping_every_word),
		cmocka_unit_test(test_hanging_indents),
		cmocka_unit_test(test_fix_lines_are_never_wrapped),
		cmocka_unit_test(test_width_from_the_terminal),
		cmocka_unit_test(test_colour_only_on_a_terminal),
		cmocka_unit_test(test_progress_only_on_a_terminal),
		cmocka_unit_test(test_arch_summary_over_many_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
