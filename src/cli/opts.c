/* The one command-line parser (getopt_long's conventions over cli_opt tables) and the
 * options block of --help. Nothing here prints: errors go to err, help into a strbuf. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "util/err.h"
#include "util/str.h"

const char *cli_opt_name(const struct cli_opt *o, char buf[64])
{
	if (o->long_name)
		snprintf(buf, 64, "--%s", o->long_name);
	else
		snprintf(buf, 64, "-%c", o->short_name);
	return buf;
}

static int push_value(struct cli_args *a, const struct cli_opt *o, const char *value, char *err)
{
	char n1[64], n2[64];

	for (size_t i = 0; i < a->n; i++) {
		const struct cli_opt *p = a->v[i].opt;

		if (o->group && p->group == o->group && p != o)
			return cd_fail(err, CD_EUSAGE, "options '%s' and '%s' exclude each other",
				       cli_opt_name(p, n1), cli_opt_name(o, n2));
		/* a second value of a one-value option is a mistake, not an override */
		if (p == o && !(o->flags & CLI_REPEAT) && o->arg != CLI_NOARG &&
		    !(value && a->v[i].value && strcmp(value, a->v[i].value) == 0))
			return cd_fail(err, CD_EUSAGE, "option '%s' given twice", cli_opt_name(o, n1));
	}
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 8;
		struct cli_value *v = realloc(a->v, nc * sizeof(*v));

		if (!v)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		a->v = v;
		a->cap = nc;
	}
	a->v[a->n].opt = o;
	a->v[a->n].value = value;
	a->n++;
	return CD_OK;
}

static int push_operand(struct cli_args *a, char *word, char *err)
{
	if (a->n_operands == a->cap_operands) {
		size_t nc = a->cap_operands ? a->cap_operands * 2 : 8;
		char **v = realloc(a->operands, nc * sizeof(*v));

		if (!v)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		a->operands = v;
		a->cap_operands = nc;
	}
	a->operands[a->n_operands++] = word;
	return CD_OK;
}

void cli_args_free(struct cli_args *a)
{
	free(a->v);
	free(a->operands);
	memset(a, 0, sizeof(*a));
}

/* The long option a slip of the keyboard away from name[0..len) (str_typo_reach), or NULL. */
static const char *nearest_long(const struct cli_opt *const *tables, const char *name, size_t len)
{
	char word[STR_EDIT_MAX + 1];
	size_t best;
	const char *hit = NULL;

	if (len > STR_EDIT_MAX)
		return NULL;
	memcpy(word, name, len);
	word[len] = '\0';
	best = str_typo_reach(len) + 1;
	for (size_t t = 0; tables[t]; t++)
		for (const struct cli_opt *o = tables[t]; o->id; o++) {
			size_t d = o->long_name ? str_edit_distance(word, o->long_name) : SIZE_MAX;
			if (d < best) {
				best = d;
				hit = o->long_name;
			}
		}
	return hit;
}

/* The option spelled name[0..len): an exact match, else the one option it abbreviates. */
static int find_long(const struct cli_opt *const *tables, const char *name, size_t len,
		     const struct cli_opt **found, size_t *level, char *err)
{
	const struct cli_opt *hit = NULL, *second = NULL;
	size_t hit_level = 0;

	for (size_t t = 0; tables[t]; t++)
		for (const struct cli_opt *o = tables[t]; o->id; o++) {
			if (!o->long_name || strncmp(o->long_name, name, len) != 0)
				continue;
			if (o->long_name[len] == '\0') {
				*found = o;
				*level = t;
				return CD_OK;
			}
			if (!hit) {
				hit = o;
				hit_level = t;
			} else if (strcmp(hit->long_name, o->long_name) != 0) {
				second = o;
			}
		}
	if (!hit) {
		const char *near = nearest_long(tables, name, len);
		if (near)
			return cd_fail(err, CD_EUSAGE, "unknown option '--%.*s'; did you mean '--%s'?",
				       (int)(len > 60 ? 60 : len), name, near);
		return cd_fail(err, CD_EUSAGE, "unknown option '--%.*s'", (int)(len > 60 ? 60 : len), name);
	}
	if (second)
		return cd_fail(err, CD_EUSAGE, "option '--%.*s' is ambiguous (--%s, --%s)",
			       (int)(len > 60 ? 60 : len), name, hit->long_name, second->long_name);
	*found = hit;
	*level = hit_level;
	return CD_OK;
}

static const struct cli_opt *find_short(const struct cli_opt *const *tables, char c, size_t *level)
{
	for (size_t t = 0; tables[t]; t++)
		for (const struct cli_opt *o = tables[t]; o->id; o++)
			if (o->short_name && o->short_name == c) {
				*level = t;
				return o;
			}
	return NULL;
}

/* No option's name holds a blank: "-> CUDA driver version is insufficient" is pasted text,
 * while "--gpu=RTX 4090" and "-gRTX 4090" are options with their values. */
static bool pasted_text(const struct cli_opt *const *tables, const char *w)
{
	size_t blank = strcspn(w, " \t\r\n"), level;
	const struct cli_opt *o;

	if (!w[blank])
		return false;
	if (w[1] == '-') {
		const char *eq = strchr(w, '=');

		return !eq || (size_t)(eq - w) > blank;
	}
	o = find_short(tables, w[1], &level);
	return !(o && o->arg == CLI_REQUIRED && blank > 2);
}

/* A word that is itself a long option is not taken as the value of the one before it:
 * `--gpu --json` is a forgotten value, not a GPU named "--json". */
static bool looks_like_option(const char *w)
{
	return w[0] == '-' && w[1] == '-' && w[2];
}

static int missing_value(const struct cli_opt *o, char *err)
{
	char n[64];

	return cd_fail(err, CD_EUSAGE, "option '%s' needs a value (%s)", cli_opt_name(o, n),
		       o->metavar ? o->metavar : "VALUE");
}

int cli_parse(int argc, char **argv, int *next, const struct cli_opt *const *tables, unsigned flags,
	      struct cli_args *first, struct cli_args *rest, char *err)
{
	bool options = !(flags & CLI_NO_OPTIONS);
	int i = *next, rc = CD_OK;

	for (; i < argc; i++) {
		char *w = argv[i];
		const struct cli_opt *o = NULL;
		size_t level = 0;

		if (!options || w[0] != '-' || w[1] == '\0' || pasted_text(tables, w)) {
			if (flags & CLI_STOP_AT_OPERAND)
				break;
			TRY(push_operand(rest, w, err));
			continue;
		}
		if (strcmp(w, "--") == 0) {
			options = false;
			if (flags & CLI_PASS_UNKNOWN) {
				TRY(push_operand(rest, w, err));
				continue;
			}
			rest->ended = first->ended = true;
			if (flags & CLI_STOP_AT_OPERAND) {
				i++;
				break;
			}
			continue;
		}
		if (w[1] == '-') {
			const char *name = w + 2, *eq = strchr(name, '=');
			const char *value = NULL;
			char nb[64];

			rc = find_long(tables, name, eq ? (size_t)(eq - name) : strlen(name), &o, &level, err);
			if (rc == CD_EUSAGE && (flags & CLI_PASS_UNKNOWN)) {
				TRY(push_operand(rest, w, err));
				continue;
			}
			if (rc)
				goto out;
			if (eq && o->arg == CLI_NOARG) {
				rc = cd_fail(err, CD_EUSAGE, "option '%s' takes no value", cli_opt_name(o, nb));
				goto out;
			}
			if (eq)
				value = eq + 1;
			else if (o->arg == CLI_REQUIRED) {
				if (i + 1 >= argc || looks_like_option(argv[i + 1])) {
					rc = missing_value(o, err);
					goto out;
				}
				value = argv[++i];
			}
			TRY(push_value(level ? rest : first, o, value, err));
			continue;
		}
		/* a bundle of short options: -qv, -rg sm_90, -gsm_90 */
		if (flags & CLI_PASS_UNKNOWN) {
			bool all_known = true;

			for (char *c = w + 1; *c && all_known; c++) {
				o = find_short(tables, *c, &level);
				all_known = o && o->arg == CLI_NOARG;
			}
			if (!all_known) {
				TRY(push_operand(rest, w, err));
				continue;
			}
		}
		for (char *c = w + 1; *c; c++) {
			if (!(o = find_short(tables, *c, &level))) {
				rc = cd_fail(err, CD_EUSAGE, "unknown option '-%c'", *c);
				goto out;
			}
			if (o->arg == CLI_REQUIRED) {
				const char *value = c[1] ? c + 1 : NULL;

				if (!value) {
					if (i + 1 >= argc || looks_like_option(argv[i + 1])) {
						rc = missing_value(o, err);
						goto out;
					}
					value = argv[++i];
				}
				TRY(push_value(level ? rest : first, o, value, err));
				break;
			}
			TRY(push_value(level ? rest : first, o, NULL, err));
		}
	}
out:
	*next = i;
	return rc;
}

/* "  -g, --gpu SPEC" for the left column of --help. */
static int left_column(const struct cli_opt *o, char *buf, size_t cap)
{
	return snprintf(buf, cap, "  %c%c%s%s%s%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
			o->short_name && o->long_name ? "," : " ", o->long_name ? " --" : "",
			o->long_name ? o->long_name : "",
			o->arg == CLI_OPTIONAL ? "[=" : o->arg == CLI_REQUIRED ? (o->long_name ? " " : "") : "",
			o->arg != CLI_NOARG && o->metavar ? o->metavar : "", o->arg == CLI_OPTIONAL ? "]" : "");
}

void cli_help_options(struct strbuf *sb, const struct cli_opt *table, size_t width)
{
	enum { MIN_COL = 20, MAX_COL = 30 };
	size_t col = MIN_COL;
	char left[96];

	/* one column for the whole table: the longest left side that is not too long */
	for (const struct cli_opt *o = table; o && o->id; o++) {
		int n = left_column(o, left, sizeof(left));

		if (!(o->flags & CLI_HIDDEN) && n > 0 && (size_t)n + 2 > col && (size_t)n + 2 <= MAX_COL)
			col = (size_t)n + 2;
	}
	for (const struct cli_opt *o = table; o && o->id; o++) {
		int n;

		if (o->flags & CLI_HIDDEN)
			continue;
		if ((n = left_column(o, left, sizeof(left))) < 0)
			continue;
		sb_append(sb, left);
		if ((size_t)n + 2 > col) {
			sb_append(sb, "\n");
			n = 0;
		}
		for (; (size_t)n < col; n++)
			sb_append(sb, " ");
		sb_wrap(sb, o->help ? o->help : "", col, col, width);
		sb_append(sb, "\n");
	}
}

/* The column a continuation of line[0..len) starts at: after the first run of two or more
 * spaces that follows a word of an indented line, else the line's own indent. */
static size_t hanging_column(const char *line, size_t len)
{
	size_t lead = 0, i;

	while (lead < len && line[lead] == ' ')
		lead++;
	if (lead == 0)
		return 0;
	for (i = lead; i + 1 < len; i++)
		if (line[i] == ' ' && line[i + 1] == ' ') {
			while (i < len && line[i] == ' ')
				i++;
			return i < len ? i : lead;
		}
	return lead;
}

void cli_help_text(struct strbuf *sb, const char *text, size_t width)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = malloc(len + 1);

		if (!line) { /* out of memory: the text unwrapped rather than lost */
			sb_append(sb, p);
			return;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		sb_wrap(sb, line, 0, hanging_column(line, len), width);
		free(line);
		p += len;
		if (*p == '\n') {
			sb_append(sb, "\n");
			p++;
		}
	}
}
