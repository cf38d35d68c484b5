/* The include rules of docs/internals.md, enforced over src/: which room may include which,
 * where dlopen may be called, and that library code never prints or exits. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"
#include "util/file.h"

#define MAX_FILES 1024

/* A rule: files under `from` must not include headers of `to` (NULL `from`: every file but
 * those under `except` and `except2`). */
struct include_rule {
	const char *from, *to, *except, *except2;
};

static const struct include_rule include_rules[] = {
	{ "src/probe/", "rules/", NULL, NULL },
	{ "src/probe/", "cmd/", NULL, NULL },
	{ "src/probe/", "report/", NULL, NULL },
	{ "src/kb/", "report/", NULL, NULL },
	{ "src/kb/", "driver/", NULL, NULL },
	{ "src/kb/", "probe/", NULL, NULL },
	{ "src/kb/", "rules/", NULL, NULL },
	{ "src/facts/", "rules/", NULL, NULL },
	{ "src/facts/", "probe/", NULL, NULL },
	{ "src/facts/", "report/", NULL, NULL },
	{ "src/report/", "facts/", NULL, NULL }, /* field tables meet through util/field.h */
	{ "src/rules/", "probe/", NULL, NULL },
	{ "src/rules/", "driver/cudrv.h", NULL, NULL },
	{ "src/rules/", "driver/loader.h", NULL, NULL },
	{ "src/util/", "/", NULL, NULL }, /* util includes only util: checked separately */
	{ NULL, "cmd/", "src/cmd/", "src/main.c" },
};

/* Copies text with comments and string/char literals blanked, so a word in a comment
 * ("loaded with dlopen(...)") is not a call. */
static char *strip(const char *text, size_t len)
{
	char *out = malloc(len + 1);
	enum { CODE, LINE_C, BLOCK_C, STR, CHR } st = CODE;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		char c = text[i], n = i + 1 < len ? text[i + 1] : '\0';

		out[i] = c;
		switch (st) {
		case CODE:
			if (c == '/' && n == '/')
				st = LINE_C, out[i] = ' ';
			else if (c == '/' && n == '*')
				st = BLOCK_C, out[i] = ' ';
			else if (c == '"')
				st = STR;
			else if (c == '\'')
				st = CHR;
			break;
		case LINE_C:
			if (c == '\n')
				st = CODE;
			else
				out[i] = ' ';
			break;
		case BLOCK_C:
			if (c == '*' && n == '/') {
				out[i] = ' ';
				out[++i] = ' ';
				st = CODE;
			} else if (c != '\n') {
				out[i] = ' ';
			}
			break;
		case STR:
		case CHR:
			if (c == '\\' && n) {
				out[i] = ' ';
				out[++i] = ' ';
			} else if ((st == STR && c == '"') || (st == CHR && c == '\'')) {
				st = CODE;
			} else if (c != '\n') {
				out[i] = ' ';
			}
			break;
		}
	}
	out[len] = '\0';
	return out;
}

static bool starts(const char *s, const char *p)
{
	return p && strncmp(s, p, strlen(p)) == 0;
}

/* Whether `word(` occurs as a call in stripped code (not as part of a longer name). */
static bool calls(const char *code, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(code, word); p; p = strstr(p + 1, word)) {
		const char *q = p + n;
		bool left_ok = p == code || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
					     (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9') ||
					     p[-1] == '.' || p[-1] == '>');
		while (*q == ' ' || *q == '\t')
			q++;
		if (left_ok && *q == '(')
			return true;
	}
	return false;
}

static bool is_renderer(const char *path)
{
	return starts(path, "src/report/render");
}

static bool is_front(const char *path)
{
	return starts(path, "src/cmd/") || strcmp(path, "src/main.c") == 0;
}

static void note(char *msg, size_t cap, int *bad, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void note(char *msg, size_t cap, int *bad, const char *fmt, ...)
{
	size_t len = strlen(msg);
	va_list ap;

	va_start(ap, fmt);
	if (len < cap)
		vsnprintf(msg + len, cap - len, fmt, ap);
	va_end(ap);
	(*bad)++;
}

/* Appends one line per violation in `path` (relative to the source dir) to msg. Returns the count. */
static int check_file(const char *path, const char *text, size_t len, char *msg, size_t cap)
{
	char *code = strip(text, len);
	int bad = 0;

	if (!code)
		return 1;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line, *inc;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "#include \"", 10) != 0)
			continue;
		inc = p + 10;
		for (size_t r = 0; r < sizeof(include_rules) / sizeof(include_rules[0]); r++) {
			const struct include_rule *ru = &include_rules[r];
			bool applies = ru->from ? starts(path, ru->from)
						: !(starts(path, ru->except) || starts(path, ru->except2));

			if (!applies)
				continue;
			if (strcmp(ru->to, "/") == 0) {
				if (!starts(inc, "util/") && strchr(inc, '/') && strchr(inc, '/') < strchr(inc, '"'))
					note(msg, cap, &bad, "%s includes %.*s (util includes only util)\n", path,
						  (int)(strchr(inc, '"') - inc), inc);
			} else if (starts(inc, ru->to)) {
				note(msg, cap, &bad, "%s includes %.*s (%s must not include %s)\n", path,
					  (int)(strcspn(inc, "\"")), inc, ru->from ? ru->from : "code outside src/cmd",
					  ru->to);
			}
		}
	}
	if (!starts(path, "src/driver/") && (calls(code, "dlopen") || calls(code, "dlsym")))
		note(msg, cap, &bad, "%s calls dlopen/dlsym (only src/driver loads libraries)\n", path);
	if (!is_front(path) && !is_renderer(path)) {
		static const char *const printing[] = { "printf", "fprintf", "puts", "fputs", "putchar", "perror", "exit", "_exit",
							"abort" };

		for (size_t i = 0; i < sizeof(printing) / sizeof(printing[0]); i++)
			if (calls(code, printing[i]))
				note(msg, cap, &bad, "%s calls %s (library code never prints or exits)\n", path, printing[i]);
		if (strstr(code, "stdout") || strstr(code, "stderr"))
			note(msg, cap, &bad, "%s writes to stdout/stderr (library code never prints)\n", path);
	}
	free(code);
	return bad;
}

static int walk(const char *root, const char *rel, char *msg, size_t cap, int *files)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int bad = 0;

	snprintf(dir, sizeof dir, "%s/%s", root, rel);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char relpath[4096], full[8192];
		struct stat st;
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(relpath, sizeof relpath, "%s/%s", rel, e->d_name);
		snprintf(full, sizeof full, "%s/%s", root, relpath);
		assert_int_equal(stat(full, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			bad += walk(root, relpath, msg, cap, files);
		} else if (n > 2 && (strcmp(e->d_name + n - 2, ".c") == 0 || strcmp(e->d_name + n - 2, ".h") == 0)) {
			char *text = NULL;
			size_t len;

			assert_int_equal(file_read_text(full, 8 << 20, &text, &len, NULL), CD_OK);
			bad += check_file(relpath, text, len, msg, cap);
			free(text);
			(*files)++;
		}
	}
	closedir(d);
	return bad;
}

static void test_tree_follows_rules(void **state)
{
	static char msg[1 << 16];
	int files = 0, bad;

	(void)state;
	msg[0] = '\0';
	bad = walk(CUDOCTOR_SOURCE_DIR, "src", msg, sizeof msg, &files);
	if (bad)
		print_message("%s", msg);
	assert_true(files > 50);
	assert_int_equal(bad, 0);
}

/* The checker itself flags what it must, so a green tree means something. */
static void test_checker_flags_violations(void **state)
{
	char msg[4096] = "";

	(void)state;
	assert_int_equal(check_file("src/probe/x.c", "#include \"rules/driver.h\"\n", 25, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/kb/x.c", "#include \"report/report.h\"\n#include \"driver/nvml.h\"\n", 52,
				    msg, sizeof msg), 2);
	assert_int_equal(check_file("src/lab/x.c", "#include \"cmd/cmd.h\"\n", 21, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/cmd/x.c", "#include \"cmd/cmd.h\"\n", 21, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/mem/x.c", "void f(void){ void *h = dlopen (\"a\", 0); }\n", 44, msg,
				    sizeof msg), 1);
	assert_int_equal(check_file("src/driver/x.c", "void f(void){ void *h = dlopen(\"a\", 0); }\n", 43, msg,
				    sizeof msg), 0);
	/* a comment or string naming dlopen or printf is no call */
	assert_int_equal(check_file("src/probe/x.c", "/* dlopen(x) printf( */ const char *s = \"exit(1)\";\n", 50,
				    msg, sizeof msg), 0);
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ printf(\"x\"); }\n", 29, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ fprintf(stderr, \"x\"); }\n", 38, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/report/render_text.c", "void f(FILE *o){ fprintf(o, \"x\"); }\n", 36, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/util/x.c", "#include \"kb/kb.h\"\n", 19, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/util/x.c", "#include \"util/str.h\"\n", 22, msg, sizeof msg), 0);
	/* a longer name ending in a watched word is not that word */
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ sb_printf(b, \"x\"); s.exit(); }\n", 45, msg,
				    sizeof msg), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_flags_violations),
		cmocka_unit_test(test_tree_follows_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
