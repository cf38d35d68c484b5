/* Fix lines are meant to be pasted into a shell, and their values come from inputs (a program's
 * import names, paths on a Windows drive, a log's library name). Each value is quoted for the
 * line's shell (util/str.h's str_quote_sh/cmd/pwsh, chosen per line by rules/catalogue.c):
 * checked here against a reading of each shell's quoting (shell_lex.h) and, for POSIX sh, a
 * real sh; then every fix line of every catalogue row filled with hostile values must read as
 * the same command as with plain ones, or be left out with the refusal said. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kb/kb.h"
#include "report/report.h"
#include "rules/catalogue.h"
#include "shell_lex.h"
#include "util/err.h"
#include "util/str.h"

/* Values a crafted input can hand a fix line. */
static const char *const hostile[] = {
	"cudart64_12.dll & calc & rem .dll",
	"../../../../evil/cudart64_12.dll",
	"..\\..\\Windows\\System32\\x.dll | powershell -c iex",
	"a b; rm -rf ~ $(touch PWNED) `id` $HOME {x,y} *",
	"it's a 'quoted' \"word\"",
	"100% ^caret !bang! \"q\"",
	"line\nbreak",
	"cr\rret",
	"tab\there",
	"ps $env:PATH `n @(1,2) $(calc) # not a comment",
	"curly \xe2\x80\x98single\xe2\x80\x99 \xe2\x80\x9c" "double\xe2\x80\x9d \xe2\x80\x9e",
	"-o /etc/passwd",
	"",
};

static int quote(enum lex_shell sh, const char *s, enum shell_quote_ctx ctx, char *buf, size_t n)
{
	return sh == LEX_SH ? str_quote_sh(s, ctx, buf, n) : sh == LEX_CMD ? str_quote_cmd(s, ctx, buf, n)
									 : str_quote_pwsh(s, ctx, buf, n);
}

static bool cmd_refuses(const char *s)
{
	return strpbrk(s, "\"%^!") != NULL;
}

static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

/* "echo <q>", "echo 'a<q>b'" or "echo "a<q>b"" for ctx. */
static void line_at(enum shell_quote_ctx ctx, const char *q, char *line, size_t n)
{
	snprintf(line, n, ctx == SHQ_SINGLE ? "echo 'a%sb'" : ctx == SHQ_DOUBLE ? "echo \"a%sb\"" : "echo %s", q);
}

/* Each helper, each place in a line, each hostile value: one word, the value's own text, nothing
 * the shell acts on; or refused, with nothing written. */
static void test_quote_helpers(void **state)
{
	static const enum lex_shell shells[] = { LEX_SH, LEX_CMD, LEX_PWSH };
	char q[1024], line[1200], want[1200];
	struct lex l;

	(void)state;
	for (size_t s = 0; s < 3; s++)
		for (int ctx = SHQ_NONE; ctx <= SHQ_DOUBLE; ctx++) {
			if (shells[s] == LEX_CMD && ctx == SHQ_SINGLE)
				continue; /* cmd.exe has no single quotes */
			for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
				const char *v = hostile[i];
				int rc = quote(shells[s], v, (enum shell_quote_ctx)ctx, q, sizeof q);

				if (has_control(v) || (shells[s] == LEX_CMD && cmd_refuses(v))) {
					if (rc != CD_EFORMAT || q[0])
						fail_msg("shell %zu ctx %d: %s was not refused: %s", s, ctx, v, q);
					continue;
				}
				if (rc != CD_OK)
					fail_msg("shell %zu ctx %d: %s refused", s, ctx, v);
				if (ctx == SHQ_NONE && !v[0])
					continue; /* an empty word outside quotes: '' where the shell has them */
				line_at((enum shell_quote_ctx)ctx, q, line, sizeof line);
				lex_line(line, shells[s], &l);
				snprintf(want, sizeof want, ctx == SHQ_NONE ? "echo\n%s" : "echo\na%sb", v);
				if (l.open_quote || strcmp(l.words, want) != 0 || strcmp(l.active, " ") != 0)
					fail_msg("shell %zu ctx %d: %s reads as [%s] acting on [%s] in: %s", s, ctx, v, l.words,
						 l.active, line);
			}
		}
	/* what does not fit is refused whole, never cut inside a quote */
	assert_int_equal(str_quote_sh("a b", SHQ_NONE, q, 5), CD_EFORMAT);
	assert_string_equal(q, "");
	assert_int_equal(str_quote_cmd("a b", SHQ_NONE, q, 5), CD_EFORMAT);
	assert_int_equal(str_quote_pwsh("a'b", SHQ_NONE, q, 6), CD_EFORMAT);
	/* plain words stay as they are: the lines people read do not change */
	assert_int_equal(str_quote_sh("580.65.06", SHQ_NONE, q, sizeof q), CD_OK);
	assert_string_equal(q, "580.65.06");
	assert_int_equal(str_quote_cmd("C:\\Apps\\render", SHQ_NONE, q, sizeof q), CD_OK);
	assert_string_equal(q, "C:\\Apps\\render");
	assert_int_equal(str_quote_cmd("C:\\Program Files\\x", SHQ_NONE, q, sizeof q), CD_OK);
	assert_string_equal(q, "\"C:\\Program Files\\x\"");
	assert_int_equal(str_quote_pwsh("it's", SHQ_NONE, q, sizeof q), CD_OK);
	assert_string_equal(q, "'it''s'");
	assert_int_equal(str_quote_sh("it's", SHQ_NONE, q, sizeof q), CD_OK);
	assert_string_equal(q, "'it'\\''s'");
}

/* POSIX sh itself: printf '%s\n' of each quoted value prints the value. */
static void test_quote_sh_real_shell(void **state)
{
	char dir[] = "/tmp/cudoctor-quote-XXXXXX", script[128], out[128], cmd[512], q[1024], line[1200];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof script, "%s/s.sh", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
		for (int ctx = SHQ_NONE; ctx <= SHQ_DOUBLE; ctx++) {
			const char *v = hostile[i];
			char got[1024] = "", want[1024];
			FILE *f;
			size_t n;

			if (has_control(v) || (ctx == SHQ_NONE && !v[0]))
				continue;
			assert_int_equal(str_quote_sh(v, (enum shell_quote_ctx)ctx, q, sizeof q), CD_OK);
			line_at((enum shell_quote_ctx)ctx, q, line, sizeof line);
			assert_non_null(f = fopen(script, "w"));
			/* the line's first word replaced by printf: the shell's words, one a line */
			fprintf(f, "cd '%s' || exit 9\nprintf '%%s\\n' %s\n", dir, line + 5);
			fclose(f);
			snprintf(cmd, sizeof cmd, "sh '%s' > '%s' 2>&1", script, out);
			assert_int_equal(system(cmd), 0);
			assert_non_null(f = fopen(out, "r"));
			n = fread(got, 1, sizeof got - 1, f);
			fclose(f);
			got[n] = '\0';
			snprintf(want, sizeof want, ctx == SHQ_NONE ? "%s\n" : "a%sb\n", v);
			if (strcmp(got, want) != 0)
				fail_msg("sh read [%s] as [%s], not [%s]", line, got, want);
			assert_int_not_equal(access("PWNED", F_OK), 0);
		}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The shell a fix line is written for, read from the line and its row as docs/internals.md
 * says, apart from the code's own choice (which must agree). */
static enum lex_shell line_shell(const struct kb_finding *x, const char *tmpl, const struct finding_vars *v)
{
	const char *w = finding_var_get(v, "windows"), *s = tmpl;
	bool windows = strstr(tmpl, "{+windows}") != NULL || strstr(x->layer, "(Windows)") != NULL ||
		       (w && strcmp(w, "1") == 0);

	while (s[0] == '{' && (s[1] == '+' || s[1] == '-'))
		s = strchr(s, '}') + 1;
	if (strncmp(s, "{text}", 6) == 0)
		return LEX_TEXT;
	if (strstr(tmpl, "{-windows}"))
		windows = false;
	if (!windows)
		return LEX_SH;
	if (s[0] == '[' || s[0] == '$' || strncmp(s, "Remove-Item", 11) == 0 || strncmp(s, "Get-", 4) == 0 ||
	    strncmp(s, "Set-", 4) == 0)
		return LEX_PWSH;
	return LEX_CMD;
}

/* A sample of what a rule composes as shell text, the same in both fills. */
static const char *shell_text_sample(const char *name)
{
	if (strcmp(name, "nvcc_flags") == 0)
		return "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90";
	if (strcmp(name, "pip") == 0)
		return "python -m pip";
	if (strcmp(name, "plan_why") == 0)
		return "the newest build this driver runs";
	return "pip install --force-reinstall torch==2.5.1 --index-url https://download.pytorch.org/whl/cu121";
}

/* v with every name of tmpl: flags its conditions need set so the line is kept, the others
 * value (NULL: the name left unknown, to reach the other branches). */
static void vars_for(const char *tmpl, const char *value, const char *unknown, bool windows, struct finding_vars *v)
{
	static char names[24][32];
	size_t n = catalogue_names(tmpl, names, 24);

	finding_vars_init(v);
	finding_flag(v, "windows", windows);
	for (size_t i = 0; i < n; i++) {
		char tag[40];

		if (unknown && strcmp(names[i], unknown) == 0)
			continue;
		if (snprintf(tag, sizeof tag, "{+%s}", names[i]) > 0 && strstr(tmpl, tag))
			finding_flag(v, names[i], true);
		else if (snprintf(tag, sizeof tag, "{-%s}", names[i]) > 0 && strstr(tmpl, tag))
			finding_flag(v, names[i], false);
		else if (catalogue_is_shell_text(names[i]))
			finding_var(v, names[i], "%s", shell_text_sample(names[i]));
		else
			finding_var(v, names[i], "%s", value);
	}
}

/* Every fix line of every row, with each value hostile (and, in turn, each name unknown): it
 * reads as the same words and operators as with a plain value, or is refused (cmd.exe: " % ^ !;
 * any shell: a control character), never written raw. */
static void test_every_fix_line_with_hostile_values(void **state)
{
	char err[CD_ERRMSG], plain[1024], bad[1024];
	size_t lines = 0, quoted[4] = { 0 }, refused = 0;

	(void)state;
	assert_int_equal(kb_load(err), CD_OK);
	for (size_t i = 0; i < kb_finding_count(); i++) {
		const struct kb_finding *x = kb_finding_at(i);

		for (size_t k = 0; k < x->n_fix; k++) {
			const char *tmpl = x->fix[k];
			static char names[24][32];
			size_t nn = catalogue_names(tmpl, names, 24);

			for (int win = 0; win <= 1; win++)
				for (size_t u = 0; u <= nn; u++)
					for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; h++) {
						struct finding_vars pv, hv;
						const char *unknown = u < nn ? names[u] : NULL;
						char why[32];
						int rc_plain, rc;
						enum lex_shell sh;
						struct lex lp, lh;

						vars_for(tmpl, "v", unknown, win, &pv);
						vars_for(tmpl, hostile[h], unknown, win, &hv);
						sh = line_shell(x, tmpl, &hv);
						assert_int_equal(catalogue_fix_shell(x, tmpl, &hv), (int)sh);
						rc_plain = catalogue_fill_fix(x, tmpl, &pv, plain, sizeof plain, why);
						rc = catalogue_fill_fix(x, tmpl, &hv, bad, sizeof bad, why);
						lines++;
						if (rc == CD_EFORMAT) {
							if (bad[0] || !why[0])
								fail_msg("%s: a refused line wrote [%s]", x->finding, bad);
							if (!has_control(hostile[h]) && !(sh == LEX_CMD && cmd_refuses(hostile[h])))
								fail_msg("%s: %s refused for shell %d in %s", x->finding, hostile[h], sh,
									 tmpl);
							refused++;
							continue;
						}
						if (rc != rc_plain)
							fail_msg("%s: [%s] %s with a plain value, %d with %s", x->finding, tmpl,
								 rc_plain == CD_OK ? "filled" : "left out", rc, hostile[h]);
						if (rc != CD_OK)
							continue;
						if (sh == LEX_TEXT) {
							/* prose: the value as it is, and no line break */
							if (has_control(bad) || (strcmp(bad, plain) != 0 && !strstr(bad, hostile[h])))
								fail_msg("%s: prose line [%s] with %s", x->finding, bad, hostile[h]);
							quoted[0]++;
							continue;
						}
						lex_line(plain, sh, &lp);
						lex_line(bad, sh, &lh);
						if (lh.open_quote || strcmp(lp.active, lh.active) != 0)
							fail_msg("%s (shell %d): with %s\n  %s\nreads as acting on [%s], not [%s] as\n  %s",
								 x->finding, sh, hostile[h], bad, lh.active, lp.active, plain);
						if (strcmp(bad, plain) != 0)
							quoted[sh]++;
					}
		}
	}
	/* each shell's lines were reached, and some values were refused rather than printed */
	assert_true(quoted[LEX_SH] > 100);
	assert_true(quoted[LEX_CMD] > 100);
	assert_true(quoted[LEX_PWSH] > 10);
	assert_true(quoted[0] > 10); /* prose lines ({text}) were reached too */
	assert_true(refused > 100);
	assert_true(lines > 1000);
}

/* A refused value leaves its line out and says so in the finding, the value as safe text. */
static void test_refusal_is_said(void **state)
{
	struct report r;
	struct finding_vars v;
	const struct finding *f;
	bool said = false;

	(void)state;
	assert_int_equal(report_init(&r, "test"), CD_OK);
	finding_vars_init(&v);
	finding_var(&v, "dll", "%s", "cudart64_12.dll");
	finding_var(&v, "app_dir", "%s", "C:\\Apps\\100%PATH%");
	finding_var(&v, "exe", "%s", "C:\\Apps\\x.exe");
	assert_non_null(f = finding_make(&r, SEV_CATALOGUE, "win-exe-dll-not-found/missing", "x.exe", &v));
	for (size_t i = 0; i < f->n_fix; i++)
		if (strstr(f->fix[i], "PATH%"))
			fail_msg("a fix line holds the refused value: %s", f->fix[i]);
	for (size_t i = 0; i < f->n_evidence; i++)
		said |= strstr(f->evidence[i], "{app_dir}") && strstr(f->evidence[i], "100%PATH%") &&
			strstr(f->evidence[i], "cmd.exe");
	if (!said)
		fail_msg("no evidence says {app_dir} was refused (%zu lines, first: %s)", f->n_evidence,
			 f->n_evidence ? f->evidence[0] : "none");
	assert_true(f->n_fix >= 1); /* the lines without the value stay */
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_helpers),
		cmocka_unit_test(test_quote_sh_real_shell),
		cmocka_unit_test(test_every_fix_line_with_hostile_values),
		cmocka_unit_test(test_refusal_is_said),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
