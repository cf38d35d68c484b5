/* Option tables and the one command-line parser. A table is data: the parser reads it, and
 * so do --help, the man page and the shell completions, so they cannot disagree. */
#ifndef CUDOCTOR_CLI_OPTS_H
#define CUDOCTOR_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/str.h"

enum cli_arg {
	CLI_NOARG,    /* --flag */
	CLI_REQUIRED, /* --opt VALUE or --opt=VALUE (-o VALUE, -oVALUE) */
	CLI_OPTIONAL, /* --opt or --opt=VALUE only */
};

/* What a shell completes for a value or an operand. */
enum cli_complete {
	CLI_C_NONE,
	CLI_C_FILE,
	CLI_C_DIR,
	CLI_C_GPU,   /* GPU names of the knowledge tables */
	CLI_C_LAB,   /* lab names */
	CLI_C_WORDS, /* the words of .words */
	CLI_C_COMMAND,
};

enum {
	CLI_REPEAT = 1u << 0, /* may be given more than once; every value is used */
	CLI_HIDDEN = 1u << 1, /* parsed, but not listed in --help or completions */
};

struct cli_opt {
	int id;                  /* handed back by the parser; 0 ends a table */
	char short_name;         /* 0: none */
	const char *long_name;   /* without the dashes */
	enum cli_arg arg;
	const char *metavar;     /* "SPEC"; NULL when the option takes no value */
	const char *help;        /* sentences, wrapped where shown */
	enum cli_complete complete;
	const char *words;       /* CLI_C_WORDS: the choices, space-separated */
	unsigned flags;          /* CLI_REPEAT, CLI_HIDDEN */
	int group;               /* nonzero: options of one group exclude each other */
};

struct cli_value {
	const struct cli_opt *opt;
	const char *value;       /* NULL when none was given; points into argv */
};

/* What one parse found: option values in command-line order and the operands. */
struct cli_args {
	struct cli_value *v;
	size_t n, cap;
	char **operands;         /* into argv */
	size_t n_operands, cap_operands;
	bool ended;              /* `--` was seen: everything after it is an operand */
};

enum {
	CLI_STOP_AT_OPERAND = 1u << 0, /* stop before the first operand (a command name) */
	CLI_NO_OPTIONS = 1u << 1,      /* after `--`: every word is an operand */
	CLI_PASS_UNKNOWN = 1u << 2,    /* unknown options (and `--`, and all after it) become
					* operands, for a command that parses its own */
};

/* Parses argv[*next..argc) with getopt_long's conventions against tables (a NULL-terminated
 * list): options and operands in any order, --opt=value or --opt value, unambiguous
 * abbreviations of long options, bundled short options (-qv, -gsm_90), `--` ending the
 * options, `-` and a word with a blank in it ("-> CUDA error") operands. Values of options in tables[0] go to first, the others to rest
 * (which may be first). On return *next is where the parse stopped (CLI_STOP_AT_OPERAND)
 * or argc. Returns CD_OK, CD_EUSAGE with err naming the option (unknown, ambiguous, missing
 * or unwanted value, given twice, excluded by another), or CD_ENOMEM. */
int cli_parse(int argc, char **argv, int *next, const struct cli_opt *const *tables, unsigned flags,
	      struct cli_args *first, struct cli_args *rest, char *err);
void cli_args_free(struct cli_args *a);

/* The option's name as a user writes it: "--gpu", or "-g" for a short-only option. */
const char *cli_opt_name(const struct cli_opt *o, char buf[64]);

/* The "options:" block of --help: one entry per visible option, the help wrapped to width
 * with a hanging indent. Appends to sb (check sb->failed). */
/* Appends a command's help prose wrapped to width, line by line: an indented line that
 * lays out a table ("  Driver     the libcuda ...", "  gpu [NAME]   GPUs: ...") continues
 * under its second column, another indented line under its own indent. */
void cli_help_text(struct strbuf *sb, const char *text, size_t width);
void cli_help_options(struct strbuf *sb, const struct cli_opt *table, size_t width);

#endif
