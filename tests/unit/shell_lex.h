/* How a POSIX shell, cmd.exe and PowerShell read a line, as far as quoting goes: the words it
 * splits into (their text once quotes and escapes are taken away) and the characters it acts on
 * outside quotes (operators, expansions, comment starts). For the tests of the fix lines'
 * quoting (util/str.h's str_quote_*, rules/catalogue.c): a quoted value must come out as one
 * word, unchanged, and add nothing the shell acts on. Kept apart from the code under test. */
#ifndef CUDOCTOR_TEST_SHELL_LEX_H
#define CUDOCTOR_TEST_SHELL_LEX_H

#include <stdbool.h>
#include <string.h>

/* LEX_TEXT: a prose line of the catalogue ({text}), which no shell is meant to read */
enum lex_shell { LEX_TEXT = 0, LEX_SH = 1, LEX_CMD, LEX_PWSH };

#define LEX_MAX 2048

struct lex {
	char words[LEX_MAX];   /* each word's text, words separated by '\n' */
	char active[LEX_MAX];  /* what the shell acts on outside quotes, in order; ' ' a word break */
	size_t nw, na;
	bool open_quote;       /* the line ends inside a quote (or after an escape) */
};

static inline void lex_word(struct lex *l, char c)
{
	if (l->nw + 1 < LEX_MAX)
		l->words[l->nw++] = c;
	l->words[l->nw] = '\0';
}

static inline void lex_active(struct lex *l, char c)
{
	if (c == ' ' && l->na && l->active[l->na - 1] == ' ')
		return;
	if (l->na + 1 < LEX_MAX)
		l->active[l->na++] = c;
	l->active[l->na] = '\0';
}

static inline void lex_break(struct lex *l)
{
	if (l->nw && l->words[l->nw - 1] != '\n')
		lex_word(l, '\n');
	lex_active(l, ' ');
}

/* A PowerShell typographic quote at p: 1 single (U+2018..U+201B), 2 double (U+201C..U+201E). */
static inline int lex_curly(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	if (u[0] != 0xe2 || u[1] != 0x80 || u[2] < 0x98 || u[2] > 0x9e)
		return 0;
	return u[2] >= 0x9c ? 2 : 1;
}

/* line as shell sh reads it; a '#' that starts a word outside quotes (sh, PowerShell) ends the
 * reading: a comment, recorded as '#' in active. */
static inline void lex_line(const char *line, enum lex_shell sh, struct lex *l)
{
	enum { OUT, SQ, DQ } q = OUT;
	const char *ops = sh == LEX_SH ? "|&;<>()$`*?[]{}~!" : sh == LEX_CMD ? "|&<>()%!" : "|&;<>(){}$@,";
	const char *p = line;
	bool word_start = true;

	memset(l, 0, sizeof *l);
	while (*p) {
		char c = *p;
		int curly = sh == LEX_PWSH ? lex_curly(p) : 0;

		if (q == OUT) {
			if (c == ' ' || c == '\t' || (sh == LEX_CMD && (c == ',' || c == ';' || c == '='))) {
				lex_break(l);
				word_start = true;
				p++;
				continue;
			}
			if (c == '#' && word_start && sh != LEX_CMD) {
				lex_active(l, '#');
				return;
			}
			word_start = false;
			if ((sh == LEX_SH && c == '\\') || (sh == LEX_CMD && c == '^') || (sh == LEX_PWSH && c == '`')) {
				if (!p[1]) {
					l->open_quote = true;
					return;
				}
				lex_word(l, p[1]);
				p += 2;
				continue;
			}
			if (c == '"' || curly == 2) {
				q = DQ;
				p += curly ? 3 : 1;
				continue;
			}
			if (sh != LEX_CMD && (c == '\'' || curly == 1)) {
				q = SQ;
				p += curly ? 3 : 1;
				continue;
			}
			if (strchr(ops, c))
				lex_active(l, c);
			lex_word(l, c);
			p++;
		} else if (q == SQ) {
			if (c == '\'' || curly == 1) {
				size_t k = curly ? 3 : 1;
				/* PowerShell: a quote doubled inside single quotes is one quote */
				if (sh == LEX_PWSH && (p[k] == '\'' || lex_curly(p + k) == 1)) {
					for (size_t b = 0; b < k; b++)
						lex_word(l, p[b]);
					p += k + (p[k] == '\'' ? 1 : 3);
					continue;
				}
				q = OUT;
				p += k;
				continue;
			}
			lex_word(l, c);
			p++;
		} else {
			if (c == '"' || curly == 2) {
				size_t k = curly ? 3 : 1;
				if (sh == LEX_PWSH && (p[k] == '"' || lex_curly(p + k) == 2)) {
					for (size_t b = 0; b < k; b++)
						lex_word(l, p[b]);
					p += k + (p[k] == '"' ? 1 : 3);
					continue;
				}
				q = OUT;
				p += k;
				continue;
			}
			if ((sh == LEX_SH && c == '\\' && p[1] && strchr("\\\"$`\n", p[1])) || (sh == LEX_PWSH && c == '`')) {
				if (!p[1]) {
					l->open_quote = true;
					return;
				}
				lex_word(l, p[1]);
				p += 2;
				continue;
			}
			if ((sh == LEX_SH && strchr("$`!", c)) || (sh == LEX_CMD && strchr("%!", c)) || (sh == LEX_PWSH && c == '$'))
				lex_active(l, c);
			lex_word(l, c);
			p++;
		}
	}
	l->open_quote = q != OUT;
}

#endif
