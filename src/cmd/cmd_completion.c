/* `cudoctor completion`: shell completion for bash, zsh and fish. The scripts are small and
 * ask cudoctor itself what fits the word being completed (`completion complete -- WORDS`),
 * which answers from the same option tables that parse the command line; `completion
 * json` writes those tables for the man page generator (tools/gen_man.py). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "kb/kb.h"
#include "lab/lab.h"
#include "util/err.h"

static const char completion_help[] =
	"Prints a completion script for SHELL (bash, zsh or fish) that completes commands, "
	"subcommands, options, their values (GPU names, formats, files) and lab names. Load it with\n"
	"  bash:  source <(cudoctor completion bash)\n"
	"  zsh:   source <(cudoctor completion zsh)\n"
	"  fish:  cudoctor completion fish | source\n"
	"`make install` puts the three scripts where bash-completion, zsh and fish look for them. "
	"`cudoctor completion json` writes the command and option tables as JSON.";

static const char bash_script[] =
	"# bash completion for cudoctor (cudoctor completion bash)\n"
	"_cudoctor() {\n"
	"\tlocal IFS=$'\\n' line\n"
	"\tlocal -a out\n"
	"\tout=($(\"${COMP_WORDS[0]}\" completion complete -- \"${COMP_WORDS[@]:0:COMP_CWORD+1}\" 2>/dev/null))\n"
	"\tCOMPREPLY=()\n"
	"\tcase ${out[0]} in\n"
	"\t:file) COMPREPLY=($(compgen -f -- \"${COMP_WORDS[COMP_CWORD]}\")); compopt -o filenames 2>/dev/null; return ;;\n"
	"\t:dir) COMPREPLY=($(compgen -d -- \"${COMP_WORDS[COMP_CWORD]}\")); compopt -o filenames 2>/dev/null; return ;;\n"
	"\tesac\n"
	"\tfor line in \"${out[@]}\"; do COMPREPLY+=(\"$(printf '%q' \"$line\")\"); done\n"
	"}\n"
	"complete -F _cudoctor cudoctor\n";

static const char zsh_script[] =
	"#compdef cudoctor\n"
	"# zsh completion for cudoctor (cudoctor completion zsh)\n"
	"_cudoctor() {\n"
	"\tlocal -a out\n"
	"\tout=(\"${(@f)$(\"${words[1]}\" completion complete -- \"${(@)words[1,CURRENT]}\" 2>/dev/null)}\")\n"
	"\tcase $out[1] in\n"
	"\t:file) _files ;;\n"
	"\t:dir) _files -/ ;;\n"
	"\t*) (( ${#out} )) && [[ -n $out[1] ]] && compadd -U -Q -- \"${(@q)out}\" ;;\n"
	"\tesac\n"
	"}\n"
	"if (( $+functions[compdef] )); then compdef _cudoctor cudoctor; fi\n";

static const char fish_script[] =
	"# fish completion for cudoctor (cudoctor completion fish)\n"
	"function __cudoctor_complete\n"
	"\tset -l words (commandline -opc) (commandline -ct)\n"
	"\tset -l out ($words[1] completion complete -- $words 2>/dev/null)\n"
	"\tswitch \"$out[1]\"\n"
	"\tcase :file\n"
	"\t\t__fish_complete_path (commandline -ct)\n"
	"\tcase :dir\n"
	"\t\t__fish_complete_directories (commandline -ct)\n"
	"\tcase '*'\n"
	"\t\tprintf '%s\\n' $out\n"
	"\tend\n"
	"end\n"
	"complete -c cudoctor -f -a '(__cudoctor_complete)'\n";

/* ---- what fits the word being completed ---- */

struct where {
	const struct cd_command *cmd;
	const struct cd_subcommand *sub;
	bool help_mode;                  /* `cudoctor help ...`: complete command names */
	bool ended;                      /* after `--` */
	const struct cli_opt *value_of;  /* the word is this option's value */
	const char *value_prefix;        /* "--opt=" written before the value, or "" */
};

static const struct cli_opt *lookup(const struct cli_opt *const *tables, const char *word, bool *takes_next)
{
	*takes_next = false;
	if (word[1] == '-') {
		size_t len = strcspn(word + 2, "=");

		for (size_t t = 0; tables[t]; t++)
			for (const struct cli_opt *o = tables[t]; o->id; o++)
				if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, word + 2, len)) {
					*takes_next = o->arg == CLI_REQUIRED && !word[2 + len];
					return o;
				}
		return NULL;
	}
	/* a bundle: the value, if any, follows the last option of it */
	const struct cli_opt *last = NULL;
	for (const char *c = word + 1; *c; c++) {
		last = NULL;
		for (size_t t = 0; tables[t] && !last; t++)
			for (const struct cli_opt *o = tables[t]; o->id; o++)
				if (o->short_name == *c) {
					last = o;
					break;
				}
		if (!last)
			return NULL;
		if (last->arg == CLI_REQUIRED) {
			*takes_next = !c[1];
			return last;
		}
	}
	return last;
}

static void tables_of(const struct cd_globals *g, const struct where *w, const struct cli_opt *tables[4])
{
	size_t n = 0;

	tables[n++] = g->global_opts;
	if (w->cmd && w->cmd->opts)
		tables[n++] = w->cmd->opts;
	if (w->sub && w->sub->opts)
		tables[n++] = w->sub->opts;
	tables[n] = NULL;
}

static void locate(const struct cd_globals *g, char **words, int n, struct where *w)
{
	memset(w, 0, sizeof(*w));
	w->value_prefix = "";
	for (int i = 1; i < n - 1; i++) {
		const char *a = words[i];
		const struct cli_opt *tables[4];
		bool takes_next;

		tables_of(g, w, tables);
		if (!w->ended && strcmp(a, "--") == 0) {
			w->ended = true;
		} else if (!w->ended && a[0] == '-' && a[1]) {
			const struct cli_opt *o = lookup(tables, a, &takes_next);

			if (o && takes_next) {
				if (i + 1 == n - 1) {
					w->value_of = o;
					return;
				}
				i++;
			}
		} else if (!w->cmd && !w->help_mode && strcmp(a, "help") == 0) {
			w->help_mode = true;
		} else if (!w->cmd) {
			for (size_t k = 0; g->commands[k]; k++)
				if (strcmp(g->commands[k]->name, a) == 0)
					w->cmd = g->commands[k];
		} else if (w->cmd->subs && !w->sub) {
			for (const struct cd_subcommand *s = w->cmd->subs; s->name; s++)
				if (strcmp(s->name, a) == 0)
					w->sub = s;
		}
	}
}

static bool starts_ci(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static void put(const char *prefix, const char *cand, const char *cur)
{
	if (starts_ci(cand, cur))
		printf("%s%s\n", prefix, cand);
}

static void put_words(const char *words, const char *cur, const char *prefix)
{
	char w[64];

	for (const char *p = words; p && *p;) {
		size_t len = strcspn(p, " ");

		if (len && len < sizeof(w)) {
			memcpy(w, p, len);
			w[len] = '\0';
			put(prefix, w, cur);
		}
		p += len;
		p += *p == ' ';
	}
}

static void put_gpus(const char *cur, const char *prefix)
{
	char err[CD_ERRMSG];

	if (kb_load(err) != CD_OK)
		return;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *gpu = kb_gpu_at(i);

		for (size_t a = 0; a < gpu->n_aliases; a++)
			put(prefix, gpu->aliases[a], cur);
	}
}

/* One kind of value or operand; a file or directory is the shell's to complete. */
static void put_kind(enum cli_complete kind, const char *words, const char *cur, const char *prefix)
{
	switch (kind) {
	case CLI_C_FILE: puts(":file"); break;
	case CLI_C_DIR: puts(":dir"); break;
	case CLI_C_GPU: put_gpus(cur, prefix); break;
	case CLI_C_WORDS: put_words(words, cur, prefix); break;
	case CLI_C_LAB:
		put_words(words, cur, prefix);
		for (size_t i = 0; i < lab_count(); i++)
			put(prefix, lab_at(i)->name, cur);
		break;
	case CLI_C_NONE:
	case CLI_C_COMMAND: break;
	}
}

static void put_options(const struct cli_opt *const *tables, const char *cur)
{
	for (size_t t = 0; tables[t]; t++)
		for (const struct cli_opt *o = tables[t]; o->id; o++) {
			char name[64];

			if (o->flags & CLI_HIDDEN)
				continue;
			put("", cli_opt_name(o, name), cur);
		}
}

static void complete(const struct cd_globals *g, char **words, int n)
{
	const char *cur = n > 0 ? words[n - 1] : "";
	const struct cli_opt *tables[4];
	struct where w;
	bool unused;

	locate(g, words, n, &w);
	tables_of(g, &w, tables);
	if (w.value_of) {
		put_kind(w.value_of->complete, w.value_of->words, cur, "");
		return;
	}
	if (!w.ended && cur[0] == '-') {
		const char *eq = strchr(cur, '=');
		const struct cli_opt *o = eq ? lookup(tables, cur, &unused) : NULL;

		if (o && o->arg != CLI_NOARG) {
			char prefix[80];

			snprintf(prefix, sizeof(prefix), "%.*s", (int)(eq - cur + 1), cur);
			if (o->complete == CLI_C_FILE || o->complete == CLI_C_DIR)
				return; /* the shell cannot complete a path glued to --opt= */
			put_kind(o->complete, o->words, eq + 1, prefix);
			return;
		}
		put_options(tables, cur);
		return;
	}
	if (!w.cmd) {
		for (size_t k = 0; g->commands[k]; k++)
			put("", g->commands[k]->name, cur);
		if (!w.help_mode)
			put("", "help", cur);
		return;
	}
	if (w.cmd->subs && !w.sub) {
		for (const struct cd_subcommand *s = w.cmd->subs; s->name; s++)
			put("", s->name, cur);
		return;
	}
	if (w.sub)
		put_kind(w.sub->operands, NULL, cur, "");
	else
		put_kind(w.cmd->operands, w.cmd->operand_words, cur, "");
}

/* ---- the tables as JSON, for the man page ---- */

static json_t *opts_json(const struct cli_opt *t)
{
	static const char *const kinds[] = { "none", "file", "dir", "gpu", "lab", "words", "command" };
	json_t *a = json_array();

	for (; a && t && t->id; t++) {
		char name[64];

		if (t->flags & CLI_HIDDEN)
			continue;
		json_array_append_new(a, json_pack("{s:s?, s:s?, s:s, s:s?, s:s, s:b, s:s, s:s?}",
						   "long", t->long_name, "short", t->short_name ? (char[]){ t->short_name, 0 } : NULL,
						   "name", cli_opt_name(t, name), "metavar", t->arg != CLI_NOARG ? t->metavar : NULL,
						   "arg", t->arg == CLI_NOARG ? "none" : t->arg == CLI_REQUIRED ? "required" : "optional",
						   "repeatable", (t->flags & CLI_REPEAT) != 0, "help", t->help ? t->help : "",
						   "complete", kinds[t->complete]));
	}
	return a;
}

static json_t *tables_json(const struct cd_globals *g)
{
	json_t *cmds = json_array(), *top;

	for (size_t k = 0; cmds && g->commands[k]; k++) {
		const struct cd_command *c = g->commands[k];
		json_t *subs = json_array();

		for (const struct cd_subcommand *s = c->subs; subs && s && s->name; s++)
			json_array_append_new(subs, json_pack("{s:s, s:s, s:s, s:o}", "name", s->name, "summary", s->summary,
							      "usage", s->usage, "options", opts_json(s->opts)));
		json_array_append_new(cmds, json_pack("{s:s, s:s, s:s?, s:s, s:s?, s:o, s:o, s:b}", "name", c->name,
						      "summary", c->summary, "usage", c->usage, "help", c->help,
						      "notes", c->notes, "options", opts_json(c->opts), "subcommands",
						      subs ? subs : json_array(), "own_help", c->opts == NULL && c->subs == NULL));
	}
	top = json_pack("{s:o, s:o}", "global_options", opts_json(g->global_opts), "commands", cmds ? cmds : json_array());
	return top;
}

static int completion_run(struct report *r, int argc, char **argv, const struct cd_globals *g, char *err)
{
	const char *what = argc > 1 ? argv[1] : NULL;

	r->self_rendered = true;
	if (!what)
		return cd_fail(err, CD_EUSAGE, "name a shell: bash, zsh or fish");
	if (strcmp(what, "complete") == 0) {
		complete(g, argv + 2, argc - 2);
		return CD_OK;
	}
	if (argc > 2)
		return cd_fail(err, CD_EUSAGE, "one shell at a time ('%.40s' is extra)", argv[2]);
	if (strcmp(what, "bash") == 0)
		fputs(bash_script, stdout);
	else if (strcmp(what, "zsh") == 0)
		fputs(zsh_script, stdout);
	else if (strcmp(what, "fish") == 0)
		fputs(fish_script, stdout);
	else if (strcmp(what, "json") == 0) {
		json_t *j = tables_json(g);

		if (!j)
			return cd_fail(err, CD_ENOMEM, "out of memory");
		/* a write that fails leaves stdout's error flag set, which main.c reports */
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
	} else
		return cd_fail(err, CD_EUSAGE, "no completion for '%.40s': bash, zsh or fish", what);
	return CD_OK;
}

static const struct cli_opt completion_opts[] = { { 0 } };

const struct cd_command cmd_completion = {
	.name = "completion",
	.summary = "shell completion for bash, zsh and fish",
	.usage = "cudoctor completion bash|zsh|fish",
	.help = completion_help,
	.opts = completion_opts,
	.operands = CLI_C_WORDS,
	.operand_words = "bash zsh fish",
	.needs = NEEDS_NONE,
	.run = completion_run,
};
