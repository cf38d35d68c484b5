/* The include rules of docs/internals.md, enforced over src/: which room may include which,
 * that no two rooms include each other through any chain (no folder cycle), that src/cmd/
 * holds commands only (each command's parts its own), that POSIX and Win32 headers stay in
 * src/os/ and src/driver/, where libraries may be loaded, and that library code never prints
 * or exits. */
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

/* A rule: files under `from` but `except` must not include headers of `to` (NULL `from`:
 * every file but those under `except` and `except2`). */
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
	{ "src/rules/", "explain/", NULL, NULL },
	{ "src/rules/", "driver/cudrv.h", NULL, NULL },
	{ "src/rules/", "driver/loader.h", NULL, NULL },
	{ "src/util/", "/", NULL, NULL }, /* util includes only util and os: checked separately */
	{ NULL, "cmd/", "src/cmd/", "src/main.c" },
	/* the commands ask the run context for the machine; only it reaches the probes */
	{ "src/cmd/", "probe/", "src/cmd/run.c", NULL },
};

/* Whether rule ru speaks for the file at path. */
static bool rule_applies(const struct include_rule *ru, const char *path);

/* Rooms that may include only the listed rooms (and system headers). */
struct only_rule {
	const char *from;
	const char *rooms[8];
};

static const struct only_rule only_rules[] = {
	/* the OS layer is the floor every room stands on: it includes nothing of theirs */
	{ "src/os/", { "os/" } },
	/* explain reads text: the kb's tables and the facts it fills, nothing that probes or judges */
	{ "src/explain/", { "explain/", "kb/", "facts/", "util/", "os/" } },
	/* a lab measures the GPU through the driver; what it learns of the machine beyond that
	 * comes through lab_ctx from cmd/lab */
	{ "src/lab/", { "lab/", "driver/", "facts/", "kb/", "util/", "os/" } },
	/* show writes facts and verdicts into the report; it never collects them */
	{ "src/show/", { "show/", "facts/", "report/", "rules/", "kb/", "util/" } },
	/* check's load tests run on the GPU through the lab's layer and judge what they measure */
	{ "src/check/", { "check/", "lab/", "driver/", "facts/", "report/", "rules/", "kb/", "util/" } },
};

/* The folder graph: room a includes a header of room b (a != b). */
#define MAX_ROOMS 32
static char rooms[MAX_ROOMS][24];
static size_t n_rooms;
static bool edge[MAX_ROOMS][MAX_ROOMS];

static size_t room_index(const char *name, size_t len)
{
	for (size_t i = 0; i < n_rooms; i++)
		if (strlen(rooms[i]) == len && strncmp(rooms[i], name, len) == 0)
			return i;
	assert_true(n_rooms < MAX_ROOMS && len < sizeof rooms[0]);
	memcpy(rooms[n_rooms], name, len);
	rooms[n_rooms][len] = '\0';
	return n_rooms++;
}

/* The room of a source path ("src/rules/x.c": rules; "src/main.c": main). */
static size_t room_of_path(const char *path)
{
	const char *p = path + 4, *slash = strchr(p, '/');

	return slash ? room_index(p, (size_t)(slash - p)) : room_index("main", 4);
}

static void note_edge(const char *path, const char *inc)
{
	const char *slash = strchr(inc, '/'), *quote = strchr(inc, '"');
	size_t from, to;

	if (!slash || !quote || slash > quote)
		return;
	from = room_of_path(path);
	to = room_index(inc, (size_t)(slash - inc));
	if (from != to)
		edge[from][to] = true;
}

/* A cycle through room `at` back to `start`, written into msg as "a -> b -> a"; false if none. */
static bool cycle_from(size_t start, size_t at, bool *seen, size_t *path, size_t depth, char *msg, size_t cap)
{
	path[depth] = at;
	for (size_t b = 0; b < n_rooms; b++) {
		if (!edge[at][b])
			continue;
		if (b == start) {
			size_t used = 0;

			for (size_t i = 0; i <= depth && used < cap; i++)
				used += (size_t)snprintf(msg + used, cap - used, "%s -> ", rooms[path[i]]);
			if (used < cap)
				snprintf(msg + used, cap - used, "%s", rooms[start]);
			return true;
		}
		if (!seen[b]) {
			seen[b] = true;
			if (cycle_from(start, b, seen, path, depth + 1, msg, cap))
				return true;
		}
	}
	return false;
}

/* The first folder cycle in the graph, into msg; false when there is none. */
static bool find_cycle(char *msg, size_t cap)
{
	for (size_t a = 0; a < n_rooms; a++) {
		bool seen[MAX_ROOMS] = { false };
		size_t path[MAX_ROOMS];

		seen[a] = true;
		if (cycle_from(a, a, seen, path, 0, msg, cap))
			return true;
	}
	return false;
}

static void graph_reset(void)
{
	n_rooms = 0;
	memset(edge, 0, sizeof edge);
}

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

/* the renderers write the report; the progress line is the one thing written on stderr
 * while a command still works */
static bool is_renderer(const char *path)
{
	return starts(path, "src/report/render") || strcmp(path, "src/report/progress.c") == 0;
}

static bool rule_applies(const struct include_rule *ru, const char *path)
{
	if (!ru->from)
		return !(starts(path, ru->except) || starts(path, ru->except2));
	return starts(path, ru->from) && !(ru->except && starts(path, ru->except));
}

static bool is_front(const char *path)
{
	return starts(path, "src/cmd/") || strcmp(path, "src/main.c") == 0;
}

/* Whether path may include inc as far as src/cmd/NAME/ goes: a header of a command's folder
 * is included only by that command's file and its folder. */
static bool own_command_part(const char *path, const char *inc)
{
	const char *name = inc + 4, *slash = strchr(name, '/'), *quote = strchr(inc, '"');
	char dir[64], file[64];

	if (!starts(inc, "cmd/") || !slash || !quote || slash > quote || (size_t)(slash - name) >= 40)
		return true;
	snprintf(dir, sizeof dir, "src/cmd/%.*s/", (int)(slash - name), name);
	snprintf(file, sizeof file, "src/cmd/cmd_%.*s.c", (int)(slash - name), name);
	return starts(path, dir) || strcmp(path, file) == 0;
}

/* What src/cmd/ may hold directly: the command table (cmd.h), the run context (run.c) and one
 * cmd_NAME.c per command; a folder only as cmd/NAME/ beside its cmd_NAME.c. */
static bool cmd_entry_allowed(const char *name, bool is_dir, const char *cmd_dir)
{
	char sibling[4096];
	struct stat st;
	size_t n = strlen(name);

	if (is_dir) {
		snprintf(sibling, sizeof sibling, "%s/cmd_%s.c", cmd_dir, name);
		return stat(sibling, &st) == 0;
	}
	return strcmp(name, "cmd.h") == 0 || strcmp(name, "run.c") == 0 ||
	       (starts(name, "cmd_") && n > 6 && strcmp(name + n - 2, ".c") == 0);
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

/* Headers of one platform (POSIX, Win32): only src/os/ (each job's NAME_posix.c and
 * NAME_win32.c) and src/driver/ (the NVIDIA libraries' own types) include them, so every
 * other room builds unchanged on both. */
static bool platform_header(const char *h, size_t len)
{
	static const char *const names[] = { "unistd.h", "dirent.h", "dlfcn.h", "pthread.h", "fcntl.h", "poll.h",
					     "termios.h", "spawn.h", "sched.h", "libgen.h", "pwd.h",
					     "grp.h", "glob.h", "fnmatch.h", "syslog.h", "netdb.h", "windows.h",
					     "io.h", "direct.h", "process.h", "shlobj.h", "tlhelp32.h", "psapi.h",
					     "ntstatus.h" };
	static const char *const prefixes[] = { "sys/", "gnu/", "linux/", "netinet/", "arpa/", "win" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == len && strncmp(h, names[i], len) == 0)
			return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(h, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
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
		if (strncmp(p, "#include <", 10) == 0 && platform_header(p + 10, strcspn(p + 10, ">\n")) &&
		    !starts(path, "src/os/") && !starts(path, "src/driver/"))
			note(msg, cap, &bad, "%s includes <%.*s> (POSIX and Win32 headers only in src/os/ and src/driver/)\n",
			     path, (int)strcspn(p + 10, ">\n"), p + 10);
		if (strncmp(p, "#include \"", 10) != 0)
			continue;
		inc = p + 10;
		note_edge(path, inc);
		for (size_t r = 0; r < sizeof(only_rules) / sizeof(only_rules[0]); r++) {
			const struct only_rule *o = &only_rules[r];
			bool allowed = !strchr(inc, '/') || strchr(inc, '/') > strchr(inc, '"');

			if (!starts(path, o->from))
				continue;
			for (size_t k = 0; k < sizeof(o->rooms) / sizeof(o->rooms[0]) && o->rooms[k]; k++)
				allowed |= starts(inc, o->rooms[k]);
			if (!allowed)
				note(msg, cap, &bad, "%s includes %.*s (%s includes only its listed rooms)\n", path,
				     (int)strcspn(inc, "\""), inc, o->from);
		}
		if (!own_command_part(path, inc))
			note(msg, cap, &bad, "%s includes %.*s (a command's parts are its own: only src/cmd/cmd_NAME.c "
			     "and src/cmd/NAME/ include src/cmd/NAME/)\n", path, (int)strcspn(inc, "\""), inc);
		for (size_t r = 0; r < sizeof(include_rules) / sizeof(include_rules[0]); r++) {
			const struct include_rule *ru = &include_rules[r];

			if (!rule_applies(ru, path))
				continue;
			if (strcmp(ru->to, "/") == 0) {
				if (!starts(inc, "util/") && !starts(inc, "os/") && strchr(inc, '/') &&
				    strchr(inc, '/') < strchr(inc, '"'))
					note(msg, cap, &bad, "%s includes %.*s (util includes only util and os)\n", path,
						  (int)(strchr(inc, '"') - inc), inc);
			} else if (starts(inc, ru->to)) {
				note(msg, cap, &bad, "%s includes %.*s (%s%s%s must not include %s)\n", path,
					  (int)(strcspn(inc, "\"")), inc, ru->from ? ru->from : "code outside src/cmd",
					  ru->from && ru->except ? " but " : "", ru->from && ru->except ? ru->except : "", ru->to);
			}
		}
	}
	/* a finding's title, why and fix come from its catalogue row: only the catalogue and the
	 * report itself write them */
	if (!starts(path, "src/report/") && strcmp(path, "src/rules/catalogue.c") != 0) {
		static const char *const writers[] = { "report_add_finding", "finding_why", "finding_fix" };

		for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
			if (calls(code, writers[i]))
				note(msg, cap, &bad, "%s calls %s (a finding's text comes from its catalogue row: "
				     "finding_make, rules/catalogue.h)\n", path, writers[i]);
		if (strstr(text, "#include \"report/finding_write.h\""))
			note(msg, cap, &bad, "%s includes report/finding_write.h (only src/report/ and "
			     "src/rules/catalogue.c write a finding's text)\n", path);
	}
	/* a section is written through records (text and JSON from one description): the body's
	 * item writers are the records' own */
	if (!starts(path, "src/report/")) {
		static const char *const body[] = { "report_section", "report_kv", "report_kv_command", "report_line",
						    "report_table", "report_table_row" };

		for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++)
			if (calls(code, body[i]))
				note(msg, cap, &bad, "%s calls %s (a section is written through records: report_rec_*, "
				     "report_field*, field tables)\n", path, body[i]);
		if (strstr(text, "#include \"report/report_internal.h\""))
			note(msg, cap, &bad, "%s includes report/report_internal.h (the body's item writers are "
			     "src/report/'s own)\n", path);
	}
	if (!starts(path, "src/os/") && (calls(code, "dlopen") || calls(code, "dlsym") || calls(code, "LoadLibraryExW") ||
					  calls(code, "LoadLibraryW") || calls(code, "GetProcAddress")))
		note(msg, cap, &bad, "%s loads a library itself (only src/os/dl_*.c does)\n", path);
	if (!starts(path, "src/driver/") && !starts(path, "src/os/") && calls(code, "os_dl_open"))
		note(msg, cap, &bad, "%s calls os_dl_open (only src/driver loads libraries)\n", path);
	if (!is_front(path) && !is_renderer(path)) {
		static const char *const printing[] = { "printf", "fprintf", "puts", "fputs", "putchar", "perror", "exit", "_exit",
							"abort" };

		for (size_t i = 0; i < sizeof(printing) / sizeof(printing[0]); i++)
			/* the OS layer's fork child ends in _exit when its exec fails, and its watchdog
			 * (os_exit_after) ends the process */
			if (calls(code, printing[i]) && !(strcmp(printing[i], "_exit") == 0 && starts(path, "src/os/")))
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
	graph_reset();
	bad = walk(CUDOCTOR_SOURCE_DIR, "src", msg, sizeof msg, &files);
	if (bad)
		print_message("%s", msg);
	assert_true(files > 50);
	assert_int_equal(bad, 0);
	assert_true(n_rooms >= 10); /* the graph was built at all */
	if (find_cycle(msg, sizeof msg))
		fail_msg("the rooms include each other in a cycle: %s", msg);
}

/* src/cmd/ holds the commands: every file there is the command table, the run context or a
 * command; helpers live in the room their job belongs to. */
static void test_cmd_holds_commands(void **state)
{
	char dir[4096], msg[4096] = "";
	DIR *d;
	struct dirent *e;
	int bad = 0, n = 0;

	(void)state;
	snprintf(dir, sizeof dir, "%s/src/cmd", CUDOCTOR_SOURCE_DIR);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d))) {
		char full[8192];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		assert_int_equal(stat(full, &st), 0);
		n++;
		if (!cmd_entry_allowed(e->d_name, S_ISDIR(st.st_mode), dir))
			note(msg, sizeof msg, &bad, "src/cmd/%s is not a command (cmd_NAME.c, cmd/NAME/, cmd.h, run.c)\n",
			     e->d_name);
	}
	closedir(d);
	if (bad)
		print_message("%s", msg);
	assert_true(n > 10);
	assert_int_equal(bad, 0);
	/* the checker itself */
	assert_true(cmd_entry_allowed("cmd_doctor.c", false, dir));
	assert_true(cmd_entry_allowed("mem", true, dir));
	assert_false(cmd_entry_allowed("progress.c", false, dir));
	assert_false(cmd_entry_allowed("helpers", true, dir));
}

/* The checker itself flags what it must, so a green tree means something. */
static void test_checker_flags_violations(void **state)
{
	char msg[4096] = "";

	(void)state;
	assert_int_equal(check_file("src/probe/x.c", "#include \"rules/driver.h\"\n", 25, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/kb/x.c", "#include \"report/report.h\"\n#include \"driver/nvml.h\"\n", 52,
				    msg, sizeof msg), 2);
	/* lab is outside cmd and includes only its listed rooms: both rules speak */
	assert_int_equal(check_file("src/lab/x.c", "#include \"cmd/cmd.h\"\n", 21, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/cmd/x.c", "#include \"cmd/cmd.h\"\n", 21, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/mem/x.c", "void f(void){ void *h = dlopen (\"a\", 0); }\n", 44, msg,
				    sizeof msg), 1);
	assert_int_equal(check_file("src/driver/x.c", "void f(void){ void *h = dlopen(\"a\", 0); }\n", 43, msg,
				    sizeof msg), 1);
	assert_int_equal(check_file("src/os/dl_posix.c", "void f(void){ void *h = dlopen(\"a\", 0); }\n", 43, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/probe/x.c", "void f(void){ os_dl_open(\"a\", 0, 0, 0); }\n", 40, msg,
				    sizeof msg), 1);
	assert_int_equal(check_file("src/driver/x.c", "void f(void){ os_dl_open(\"a\", 0, 0, 0); }\n", 40, msg,
				    sizeof msg), 0);
	/* platform headers: only the OS layer and the driver's room */
	assert_int_equal(check_file("src/probe/x.c", "#include <unistd.h>\n#include <sys/stat.h>\n", 41, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/util/x.c", "#include <windows.h>\n", 20, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/os/fs_posix.c", "#include <dirent.h>\n#include <sys/stat.h>\n", 40, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/os/fs_win32.c", "#include <windows.h>\n", 20, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/driver/x.c", "#include <dlfcn.h>\n", 18, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/probe/x.c", "#include <stdio.h>\n#include <time.h>\n", 37, msg, sizeof msg), 0);
	/* the OS layer includes no room above it; util may include it */
	assert_int_equal(check_file("src/os/x.c", "#include \"util/err.h\"\n", 21, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/util/x.c", "#include \"os/fs.h\"\n", 18, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/os/x.c", "void f(void){ _exit(3); }\n", 25, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/probe/x.c", "void f(void){ _exit(3); }\n", 25, msg, sizeof msg), 1);
	/* a comment or string naming dlopen or printf is no call */
	assert_int_equal(check_file("src/probe/x.c", "/* dlopen(x) printf( */ const char *s = \"exit(1)\";\n", 50,
				    msg, sizeof msg), 0);
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ printf(\"x\"); }\n", 29, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ fprintf(stderr, \"x\"); }\n", 38, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/report/render_text.c", "void f(FILE *o){ fprintf(o, \"x\"); }\n", 36, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/util/x.c", "#include \"kb/kb.h\"\n", 19, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/util/x.c", "#include \"util/str.h\"\n", 22, msg, sizeof msg), 0);
	/* a finding's text is written only by the catalogue and the report */
	assert_int_equal(check_file("src/rules/x.c", "void f(void){ finding_why(f, \"x\"); finding_fix(f, \"y\"); }\n",
				    58, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/cmd/cmd_x.c", "void f(void){ report_add_finding(r, 0, \"i\", \"s\", \"t\"); }\n",
				    57, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/fleet/x.c", "#include \"report/finding_write.h\"\n", 34, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/rules/catalogue.c", "#include \"report/finding_write.h\"\nvoid f(void){ "
				    "finding_why(f, \"x\"); }\n", 71, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/report/report.c", "void f(void){ finding_fix(f, \"x\"); }\n", 37, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/rules/x.c", "void f(void){ finding_evidence(f, \"x\"); my_finding_fix(); }\n",
				    60, msg, sizeof msg), 0);
	/* sections only through records */
	assert_int_equal(check_file("src/cmd/cmd_x.c", "void f(void){ report_kv(r, \"k\", \"v\"); report_table(r, 1, h); }\n",
				    63, msg, sizeof msg), 2);
	assert_int_equal(check_file("src/show/x.c", "#include \"report/report_internal.h\"\n", 36, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/report/record.c", "void f(void){ report_line(r, \"x\"); }\n", 37, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/cmd/cmd_x.c", "void f(void){ report_rec_line(w, \"x\"); report_kv_x(); }\n",
				    56, msg, sizeof msg), 0);
	/* a longer name ending in a watched word is not that word */
	assert_int_equal(check_file("src/kb/x.c", "void f(void){ sb_printf(b, \"x\"); s.exit(); }\n", 45, msg,
				    sizeof msg), 0);
	/* the rooms that may include only a list, and rules never reading explain's text */
	assert_int_equal(check_file("src/explain/x.c", "#include \"rules/oom.h\"\n", 22, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/explain/x.c", "#include \"probe/gpus.h\"\n", 24, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/explain/x.c", "#include \"facts/oom.h\"\n#include <stdio.h>\n", 41, msg,
				    sizeof msg), 0);
	assert_int_equal(check_file("src/lab/x.c", "#include \"probe/python.h\"\n", 26, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/lab/x.c", "#include \"rules/topology.h\"\n", 28, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/lab/x.c", "#include \"driver/nccl.h\"\n", 25, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/rules/x.c", "#include \"explain/nccl_log.h\"\n", 30, msg, sizeof msg), 1);
	/* a command's folder is its own: not another command's, not a room outside cmd */
	assert_int_equal(check_file("src/cmd/cmd_explain.c", "#include \"cmd/arch/arch.h\"\n", 27, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/cmd/mem/x.c", "#include \"cmd/arch/arch.h\"\n", 27, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/cmd/cmd_arch.c", "#include \"cmd/arch/arch.h\"\n", 27, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/cmd/arch/list.c", "#include \"cmd/arch/arch.h\"\n#include \"cmd/cmd.h\"\n", 48,
				    msg, sizeof msg), 0);
	assert_int_equal(check_file("src/show/x.c", "#include \"cmd/arch/arch.h\"\n", 27, msg, sizeof msg), 3);
	assert_int_equal(check_file("src/show/x.c", "#include \"probe/gpus.h\"\n", 24, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/show/x.c", "#include \"rules/arch.h\"\n", 24, msg, sizeof msg), 0);
	/* the machine reaches the commands through the run context alone */
	assert_int_equal(check_file("src/cmd/cmd_topo.c", "#include \"probe/topology.h\"\n", 28, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/cmd/mem/targets.c", "#include \"probe/gpus.h\"\n", 24, msg, sizeof msg), 1);
	assert_int_equal(check_file("src/cmd/run.c", "#include \"probe/gpus.h\"\n", 24, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/cmd/cmd_topo.c", "#include \"facts/topology.h\"\n", 28, msg, sizeof msg), 0);
}

/* A folder cycle of any length is found and named; a graph without one passes. */
static void test_cycle_detected(void **state)
{
	char msg[256] = "";

	(void)state;
	graph_reset();
	assert_int_equal(check_file("src/rules/x.c", "#include \"kb/kb.h\"\n", 18, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/kb/x.c", "#include \"util/err.h\"\n", 22, msg, sizeof msg), 0);
	assert_false(find_cycle(msg, sizeof msg));
	/* mem -> binfmt -> fleet -> mem: no single rule forbids these, the cycle check does */
	assert_int_equal(check_file("src/mem/x.c", "#include \"binfmt/elf.h\"\n", 24, msg, sizeof msg), 0);
	assert_int_equal(check_file("src/binfmt/x.c", "#include \"fleet/fleet.h\"\n", 26, msg, sizeof msg), 0);
	assert_false(find_cycle(msg, sizeof msg));
	assert_int_equal(check_file("src/fleet/x.c", "#include \"mem/model.h\"\n", 23, msg, sizeof msg), 0);
	assert_true(find_cycle(msg, sizeof msg));
	assert_non_null(strstr(msg, "mem"));
	assert_non_null(strstr(msg, "fleet"));
	assert_non_null(strstr(msg, "binfmt"));
	graph_reset();
}

/* Whether two rules speak for the same files (one row of the table). */
static bool same_room(const struct include_rule *a, const struct include_rule *b)
{
	if (!a->from || !b->from)
		return !a->from && !b->from;
	return strcmp(a->from, b->from) == 0 && (a->except == b->except || (a->except && b->except &&
									    strcmp(a->except, b->except) == 0));
}

/* docs/internals.md's table of include rules (between its markers) is these tables, row for
 * row: a rule changed in one place and not the other fails. */
static void test_internals_lists_the_rules(void **state)
{
	static char rows[64][512];
	size_t n = 0, in_doc = 0;
	char *doc = NULL, *start, *end;
	size_t len;

	(void)state;
	/* never includes: one row per room, its forbidden rooms in table order */
	for (size_t r = 0; r < sizeof(include_rules) / sizeof(include_rules[0]); r++) {
		const struct include_rule *ru = &include_rules[r];
		size_t used;
		bool seen = false;

		for (size_t q = 0; q < r; q++)
			seen |= same_room(ru, &include_rules[q]) && ru->from;
		if (seen)
			continue;
		assert_true(n < 64);
		if (!ru->from)
			used = (size_t)snprintf(rows[n], sizeof rows[n], "| all but `%s`, `%s` | never includes |", ru->except,
						ru->except2);
		else if (strcmp(ru->to, "/") == 0)
			used = (size_t)snprintf(rows[n], sizeof rows[n], "| `%s` | includes only | `util/` `os/`", ru->from);
		else if (ru->except)
			used = (size_t)snprintf(rows[n], sizeof rows[n], "| `%s` but `%s` | never includes |", ru->from,
						ru->except);
		else
			used = (size_t)snprintf(rows[n], sizeof rows[n], "| `%s` | never includes |", ru->from);
		for (size_t q = r; q < sizeof(include_rules) / sizeof(include_rules[0]) && strcmp(ru->to, "/") != 0; q++) {
			const struct include_rule *o = &include_rules[q];

			if (same_room(ru, o))
				used += (size_t)snprintf(rows[n] + used, sizeof rows[n] - used, " `%s`", o->to);
		}
		snprintf(rows[n] + used, sizeof rows[n] - used, " |");
		n++;
	}
	for (size_t r = 0; r < sizeof(only_rules) / sizeof(only_rules[0]); r++) {
		size_t used = (size_t)snprintf(rows[n], sizeof rows[n], "| `%s` | includes only |", only_rules[r].from);

		for (size_t k = 0; k < sizeof(only_rules[r].rooms) / sizeof(only_rules[r].rooms[0]) && only_rules[r].rooms[k];
		     k++)
			used += (size_t)snprintf(rows[n] + used, sizeof rows[n] - used, " `%s`", only_rules[r].rooms[k]);
		snprintf(rows[n] + used, sizeof rows[n] - used, " |");
		n++;
	}
	/* what own_command_part and cmd_entry_allowed enforce */
	snprintf(rows[n++], sizeof rows[0], "| `src/cmd/` | holds only | `cmd.h` `run.c` `cmd_NAME.c` `NAME/` |");
	snprintf(rows[n++], sizeof rows[0], "| `src/cmd/NAME/` | is included only by | `src/cmd/cmd_NAME.c` `src/cmd/NAME/` |");

	assert_int_equal(file_read_text(CUDOCTOR_SOURCE_DIR "/docs/internals.md", 1 << 20, &doc, &len, NULL), CD_OK);
	start = strstr(doc, "<!-- include rules -->");
	end = start ? strstr(start, "<!-- /include rules -->") : NULL;
	if (!start || !end)
		fail_msg("docs/internals.md has no <!-- include rules --> ... <!-- /include rules --> table");
	*end = '\0';
	for (size_t i = 0; i < n; i++)
		if (!strstr(start, rows[i]))
			fail_msg("docs/internals.md's include rules lack the row\n%s", rows[i]);
	for (const char *l = strstr(start, "\n| "); l; l = strstr(l + 1, "\n| "))
		in_doc += strncmp(l, "\n| room |", 9) != 0 && strncmp(l, "\n|---", 5) != 0;
	if (in_doc != n)
		fail_msg("docs/internals.md lists %zu include rules, test_layout.c enforces %zu", in_doc, n);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_flags_violations),
		cmocka_unit_test(test_cycle_detected),
		cmocka_unit_test(test_cmd_holds_commands),
		cmocka_unit_test(test_internals_lists_the_rules),
		cmocka_unit_test(test_tree_follows_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
