/* cudoctor's front door: global options, the command table, parsing every command line
 * through the option tables, help, rendering and exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cmd/cmd.h"
#include "probe/host.h"
#include "report/render.h"
#include "report/render_html.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/str.h"
#include "util/term.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

/* Keep in the order `cudoctor --help` lists them. A command is listed only once it works. */
static const struct cd_command *const commands[] = {
	&cmd_doctor,
	&cmd_devices,
	&cmd_topo,
	&cmd_arch,
	&cmd_explain,
	&cmd_gencode,
	&cmd_plan,
	&cmd_diff,
	&cmd_kb,
	&cmd_mem,
	&cmd_lab,
	&cmd_fleet,
	&cmd_completion,
	NULL,
};

enum {
	G_JSON = 1000, G_MARKDOWN, G_COLOR, G_NO_COLOR, G_QUIET, G_VERBOSE, G_VERSION, G_HELP, G_OUTPUT, G_HTML,
	G_ANONYMIZE,
};
enum { GROUP_FORMAT = 1, GROUP_VERBOSITY, GROUP_COLOR };

static const struct cli_opt global_opts[] = {
	{ .id = G_JSON, .long_name = "json", .help = "one JSON object on stdout (docs/json.md)",
	  .group = GROUP_FORMAT },
	{ .id = G_MARKDOWN, .long_name = "markdown", .help = "Markdown, ready to paste into a GitHub issue",
	  .group = GROUP_FORMAT },
	{ .id = G_HTML, .long_name = "html", .arg = CLI_REQUIRED, .metavar = "FILE",
	  .help = "also write the report as one self-contained HTML page to FILE", .complete = CLI_C_FILE },
	{ .id = G_COLOR, .long_name = "color", .arg = CLI_REQUIRED, .metavar = "WHEN",
	  .help = "auto (the default: colour on a terminal unless NO_COLOR is set), always or never",
	  .complete = CLI_C_WORDS, .words = "auto always never", .group = GROUP_COLOR },
	{ .id = G_NO_COLOR, .long_name = "no-color", .help = "the same as --color=never", .group = GROUP_COLOR },
	{ .id = G_QUIET, .short_name = 'q', .long_name = "quiet",
	  .help = "only the essential answer on stdout: the verdict, the flags, a line per GPU, pair or "
		  "row (or nothing); the warn and error findings a line each on stderr (--json is the same "
		  "with or without it)",
	  .group = GROUP_VERBOSITY },
	{ .id = G_VERBOSE, .short_name = 'v', .long_name = "verbose", .help = "more detail",
	  .group = GROUP_VERBOSITY },
	{ .id = G_OUTPUT, .short_name = 'o', .long_name = "output", .arg = CLI_REQUIRED, .metavar = "FILE",
	  .help = "write the report to FILE instead of stdout (a temporary file renamed into place, so "
		  "FILE is never half-written, keeping its mode and owner; a device or FIFO is written in place)",
	  .complete = CLI_C_FILE },
	{ .id = G_ANONYMIZE, .long_name = "anonymize",
	  .help = "before sharing: the host name, GPU UUIDs and serials replaced by stable hashes, "
		  "/home/NAME by /home/USER" },
	{ .id = G_VERSION, .long_name = "version", .help = "print the version and exit" },
	{ .id = G_HELP, .short_name = 'h', .long_name = "help",
	  .help = "this text; `cudoctor COMMAND --help` or `cudoctor help COMMAND` for a command" },
	{ 0 },
};

static const char exit_table[] =
	"exit status:\n"
	"  0  no finding of severity error\n"
	"  1  at least one finding of severity error\n"
	"  2  usage error: the command line was wrong (one line on stderr says how)\n"
	"  3  an input could not be read, or cudoctor itself failed (stderr says what)\n";

struct parsed {
	struct cli_args global;  /* values of global_opts, wherever they stood */
	struct cli_args cmd;     /* the command's (and subcommand's) values and operands */
	const struct cd_command *command;
	const struct cd_subcommand *sub;
	bool help, version;
};

static const struct cd_command *find_command(const char *name)
{
	for (size_t i = 0; commands[i]; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static const struct cd_subcommand *find_sub(const struct cd_command *c, const char *name)
{
	for (const struct cd_subcommand *s = c->subs; s && s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static int print_text(FILE *out, struct strbuf *sb)
{
	if (sb->failed) {
		sb_free(sb);
		fputs("cudoctor: out of memory\n", stderr);
		return CD_EXIT_FAILED;
	}
	fputs(sb->buf ? sb->buf : "", out);
	sb_free(sb);
	return CD_EXIT_CLEAN;
}

static int print_top_help(FILE *out)
{
	size_t width = term_width(fileno(out));
	struct strbuf sb;

	sb_init(&sb);
	sb_append(&sb, "usage: cudoctor [GLOBAL OPTIONS] [COMMAND [OPTIONS] [ARGS]]\n\n");
	sb_wrap(&sb, "Checks the CUDA stack on this machine and explains what it finds. `cudoctor` alone "
		"runs `cudoctor doctor`. Options may stand before or after the command's arguments; "
		"`--` ends them.", 0, 0, width);
	sb_append(&sb, "\n\ncommands:\n");
	for (size_t i = 0; commands[i]; i++) {
		sb_printf(&sb, "  %-10s ", commands[i]->name);
		sb_wrap(&sb, commands[i]->summary, 13, 13, width);
		sb_append(&sb, "\n");
	}
	sb_printf(&sb, "  %-10s ", "help");
	sb_wrap(&sb, "the usage and options of a command: cudoctor help COMMAND", 13, 13, width);
	sb_append(&sb, "\n\nglobal options:\n");
	cli_help_options(&sb, global_opts, width);
	sb_printf(&sb, "\n%s", exit_table);
	return print_text(out, &sb);
}

static int print_command_help(FILE *out, const struct cd_command *c, const struct cd_subcommand *sub)
{
	size_t width = term_width(fileno(out));
	struct strbuf sb;

	sb_init(&sb);
	if (!c->opts && !c->subs) { /* a command that still writes its own help text */
		cli_help_text(&sb, c->help, width);
		return print_text(out, &sb);
	}
	if (sub) {
		sb_printf(&sb, "usage: cudoctor %s %s\n\n", c->name, sub->usage);
		cli_help_text(&sb, sub->summary, width);
		sb_append(&sb, "\n");
		if (sub->opts && sub->opts[0].id) {
			sb_append(&sb, "\noptions:\n");
			cli_help_options(&sb, sub->opts, width);
		}
	} else {
		sb_printf(&sb, "usage: %s\n\n", c->usage);
		cli_help_text(&sb, c->help, width);
		sb_append(&sb, "\n");
		if (c->subs) {
			sb_append(&sb, "\nsubcommands (cudoctor help ");
			sb_printf(&sb, "%s SUBCOMMAND for its options):\n", c->name);
			for (const struct cd_subcommand *s = c->subs; s->name; s++) {
				sb_printf(&sb, "  %-10s ", s->name);
				sb_wrap(&sb, s->summary, 13, 13, width);
				sb_append(&sb, "\n");
			}
		}
		if (c->opts && c->opts[0].id) {
			sb_append(&sb, "\noptions:\n");
			cli_help_options(&sb, c->opts, width);
		}
	}
	if (c->notes && !sub) {
		sb_append(&sb, "\n");
		cli_help_text(&sb, c->notes, width);
		sb_append(&sb, "\n");
	}
	sb_append(&sb, "\n");
	sb_wrap(&sb, "Global options (--json, --markdown, -q, -v, --color, --output) go anywhere; see cudoctor --help.",
		0, 0, width);
	sb_append(&sb, "\n");
	return print_text(out, &sb);
}

/* Where an unknown option before the command is some command's option, say so. */
static void usage_error(const char *cmd, const char *msg)
{
	if (cmd)
		fprintf(stderr, "cudoctor %s: %s\nTry 'cudoctor %s --help'.\n", cmd, msg, cmd);
	else
		fprintf(stderr, "cudoctor: %s\nTry 'cudoctor --help'.\n", msg);
}

/* Parses the whole command line: global options up to the command name, then the
 * command's (and a subcommand's) options and operands mixed with global options. */
static int parse_command_line(int argc, char **argv, struct parsed *p, char *err, const char **who)
{
	const struct cli_opt *const globals_only[] = { global_opts, NULL };
	const struct cli_opt *tables[] = { global_opts, NULL, NULL };
	int i = 1, rc;

	*who = NULL;
	if ((rc = cli_parse(argc, argv, &i, globals_only, CLI_STOP_AT_OPERAND, &p->global, &p->global, err)))
		return rc;
	for (size_t k = 0; k < p->global.n; k++) {
		p->help |= p->global.v[k].opt->id == G_HELP;
		p->version |= p->global.v[k].opt->id == G_VERSION;
	}
	if (i >= argc) {
		if (p->help || p->version)
			return CD_OK;
		p->command = &cmd_doctor;
		return CD_OK;
	}
	if (strcmp(argv[i], "help") == 0) {
		p->help = true;
		i++;
		/* `cudoctor help`, `help help`, `help --help`: the overview, which lists the commands */
		if (i >= argc || strcmp(argv[i], "help") == 0 || argv[i][0] == '-')
			return CD_OK;
	}
	if (!(p->command = find_command(argv[i])))
		return cd_fail(err, CD_EUSAGE, "unknown command '%.60s'", argv[i]);
	*who = p->command->name;
	i++;
	if (!p->command->opts && !p->command->subs) {
		/* parses its own options: main.c takes out only the global ones */
		if ((rc = cli_parse(argc, argv, &i, tables, CLI_PASS_UNKNOWN, &p->global, &p->cmd, err)))
			return rc;
		goto done;
	}
	tables[1] = p->command->opts;
	if (p->command->subs) {
		if ((rc = cli_parse(argc, argv, &i, tables, CLI_STOP_AT_OPERAND, &p->global, &p->cmd, err)))
			return rc;
		if (i < argc && (p->sub = find_sub(p->command, argv[i])))
			tables[1] = p->sub->opts;
		else if (i < argc && !p->cmd.ended)
			return cd_fail(err, CD_EUSAGE, "unknown subcommand '%.60s'", argv[i]);
		if (p->sub)
			i++;
	}
	if ((rc = cli_parse(argc, argv, &i, tables, p->cmd.ended ? CLI_NO_OPTIONS : 0, &p->global, &p->cmd, err)))
		return rc;
done:
	for (size_t k = 0; k < p->global.n; k++) {
		p->help |= p->global.v[k].opt->id == G_HELP;
		p->version |= p->global.v[k].opt->id == G_VERSION;
	}
	return CD_OK;
}

static int apply_globals(const struct cli_args *a, struct cd_globals *g, char *err)
{
	const char *color = "auto";

	for (size_t k = 0; k < a->n; k++) {
		const struct cli_value *v = &a->v[k];

		switch (v->opt->id) {
		case G_JSON: g->render.format = FMT_JSON; break;
		case G_MARKDOWN: g->render.format = FMT_MARKDOWN; break;
		case G_COLOR: color = v->value; break;
		case G_NO_COLOR: color = "never"; break;
		case G_QUIET: g->render.verbosity = -1; break;
		case G_VERBOSE: g->render.verbosity = 1; break;
		case G_ANONYMIZE: g->anonymize = true; break;
		case G_HTML:
			if (!*v->value)
				return cd_fail(err, CD_EUSAGE, "--html wants a file name");
			g->html = v->value;
			break;
		default: break;
		}
	}
	if (strcmp(color, "always") == 0)
		g->render.color = true;
	else if (strcmp(color, "never") == 0)
		g->render.color = false;
	else if (strcmp(color, "auto") == 0)
		g->render.color = term_is_tty(STDOUT_FILENO) && !getenv("NO_COLOR");
	else
		return cd_fail(err, CD_EUSAGE, "--color must be auto, always or never, not '%.40s'", color);
	return CD_OK;
}

/* --output FILE: stdout goes to FILE through util/outfile.h: a temporary file renamed over
 * it once the report is complete (a reader never sees half a report), or FILE itself when
 * it is a device or FIFO (/dev/null stays /dev/null). */
struct output {
	struct outfile f;
	bool open;
};

static int output_open(struct output *o, const char *path, char *err)
{
	int rc;

	if ((rc = outfile_open(&o->f, path, "--output", err)) != CD_OK)
		return rc;
	fflush(stdout);
	if (dup2(o->f.fd, STDOUT_FILENO) < 0) {
		rc = cd_fail(err, CD_EIO, "--output %.200s: %s", path, strerror(errno));
		outfile_abort(&o->f);
		return rc;
	}
	o->open = true;
	return CD_OK;
}

/* keep: the report is complete; else the temporary file goes and FILE stays as it was */
static int output_close(struct output *o, bool keep)
{
	char err[CD_ERRMSG];
	int rc = 0;

	if (!o->open)
		return 0;
	o->open = false;
	if (fflush(stdout) != 0)
		keep = false, rc = -1;
	/* stdout is a copy of the file: point it away so the file's last descriptor is the one
	 * outfile_commit closes */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	if (!keep) {
		outfile_abort(&o->f);
		return rc;
	}
	if (outfile_commit(&o->f, err) != CD_OK) {
		fprintf(stderr, "cudoctor: %s\n", err);
		rc = -1;
	}
	return rc;
}

/* argv for the command: its name, the subcommand's, then the operands. */
static char **command_argv(const struct parsed *p, int *argc)
{
	size_t n = p->cmd.n_operands + 3;
	char **v = calloc(n, sizeof(*v));

	if (!v)
		return NULL;
	*argc = 0;
	v[(*argc)++] = (char *)p->command->name;
	if (p->sub)
		v[(*argc)++] = (char *)p->sub->name;
	for (size_t k = 0; k < p->cmd.n_operands; k++)
		v[(*argc)++] = p->cmd.operands[k];
	return v;
}

/* --format FORMAT of the commands whose table has CMD_OPT_FORMAT_ENTRY, applied before the
 * command runs: r->format is what main.c renders (and what fleet reads to write metrics). */
static int format_option(struct report *r, const struct cd_globals *g, char *err)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_MARKDOWN] = "markdown",
					     [FMT_JSON] = "json", [FMT_PROMETHEUS] = "prometheus" };

	for (size_t i = 0; i < g->args->n; i++) {
		const char *v = g->args->v[i].value;
		int f = -1;

		if (g->args->v[i].opt->id != CMD_OPT_FORMAT)
			continue;
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (strcmp(v, names[k]) == 0)
				f = (int)k;
		if (f < 0)
			return cd_fail(err, CD_EUSAGE, "--format must be text, markdown, json or prometheus, not '%.40s'", v);
		/* --json with --format prometheus: two answers to one question */
		if (g->render.format != FMT_TEXT && (int)g->render.format != f)
			return cd_fail(err, CD_EUSAGE, "--format %s conflicts with --%s", v,
				       names[g->render.format]);
		r->format = f;
	}
	return CD_OK;
}

/* the header every report carries for sharing (docs/json.md "header") */
/* os-release, the host name and CUDOCTOR_NODE are anyone's bytes: safe text, never refused */
static json_t *nonempty(const char *s)
{
	return *s ? report_json_text(s) : json_null();
}

/* Sets r's header (version, OS, kernel, glibc, CPU, date, host and node: probe/host.c, under
 * $CUDOCTOR_HOST_ROOT) and, with anonymize, takes the host name, UUIDs, serials and user names out
 * of the whole report. CD_OK or CD_ENOMEM. */
static int share_header(struct report *r, bool anonymize)
{
	struct host_facts h;
	json_t *j;
	int rc;

	probe_host(&h, NULL);
	j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "version", CUDOCTOR_VERSION,
		      "os", nonempty(h.os), "os_id", nonempty(h.os_id), "os_version", nonempty(h.os_version),
		      "kernel", nonempty(h.kernel), "machine", nonempty(h.machine), "glibc", nonempty(h.glibc),
		      "cpu", nonempty(h.cpu), "date", nonempty(h.date), "hostname", nonempty(h.hostname),
		      "node", nonempty(h.node), "anonymized", 0);
	if ((rc = report_set_header(r, j)) != CD_OK || !anonymize)
		return rc;
	return report_anonymize(r, &(struct report_anon){ .hostname = h.hostname, .home = getenv("HOME") });
}

int main(int argc, char **argv)
{
	static struct cd_run run; /* the run context: what the command's needs open, once */
	struct cd_globals g = { .render = { .format = FMT_TEXT }, .run = &run, .commands = commands,
				.global_opts = global_opts };
	struct parsed p = { 0 };
	char err[CD_ERRMSG] = "";
	char **cargv = NULL;
	const char *who;
	struct report r;
	bool report_made = false;
	struct output output = { 0 };
	int rc, code, cargc = 0;

	rc = parse_command_line(argc, argv, &p, err, &who);
	if (rc == CD_OK)
		rc = apply_globals(&p.global, &g, err);
	if (rc == CD_EUSAGE) {
		usage_error(who, err);
		code = CD_EXIT_USAGE;
		goto out;
	}
	if (rc != CD_OK) {
		fprintf(stderr, "cudoctor: %s\n", err);
		code = CD_EXIT_FAILED;
		goto out;
	}
	g.stderr_is_tty = term_is_tty(STDERR_FILENO);
	g.render.rest = stderr;
	g.args = &p.cmd;
	for (size_t k = 0; k < p.global.n; k++)
		if (p.global.v[k].opt->id == G_OUTPUT && !p.help && !p.version &&
		    (rc = output_open(&output, p.global.v[k].value, err)) != CD_OK) {
			fprintf(stderr, "cudoctor: %s\n", err);
			code = CD_EXIT_FAILED;
			goto out;
		}
	g.render.width = term_width(STDOUT_FILENO); /* after --output: a file gets 80 */
	if (p.version) {
		printf("cudoctor %s\n", CUDOCTOR_VERSION);
		code = CD_EXIT_CLEAN;
		goto out;
	}
	if (p.help) {
		code = p.command ? print_command_help(stdout, p.command, p.sub) : print_top_help(stdout);
		goto out;
	}
	if (!(cargv = command_argv(&p, &cargc)) || report_init(&r, p.command->name)) {
		fputs("cudoctor: out of memory\n", stderr);
		code = CD_EXIT_FAILED;
		goto out;
	}
	report_made = true;
	rc = format_option(&r, &g, err);
	if (rc == CD_OK && p.command->needs == NEEDS_DRIVER)
		rc = cd_run_driver(&run, &r, err);
	if (rc == CD_OK)
		rc = p.command->run(&r, cargc, cargv, &g, err);
	if (rc == CD_EUSAGE) {
		usage_error(p.command->name, err);
		code = CD_EXIT_USAGE;
		goto out;
	}
	if (rc != CD_OK) {
		fprintf(stderr, "cudoctor %s: %s\n", p.command->name, *err ? err : cd_strerror(rc));
		code = CD_EXIT_FAILED;
		goto out;
	}
	if (!r.self_rendered && (rc = share_header(&r, g.anonymize)) != CD_OK) {
		fprintf(stderr, "cudoctor: %s\n", rc == CD_EINTERNAL ? "internal error: the report header could not be made"
							      : "out of memory");
		code = CD_EXIT_FAILED;
		goto out;
	}
	if (r.format >= 0) /* the command's own --format (doctor --format prometheus) */
		g.render.format = (enum output_format)r.format;
	if ((!r.self_rendered && (rc = render_report(&r, &g.render, stdout)) != 0) || fflush(stdout) != 0) {
		fprintf(stderr, "cudoctor: %s\n", rc == CD_EINTERNAL ? "internal error: the report could not be made into JSON"
							      : "cannot write the report");
		code = CD_EXIT_FAILED;
		goto out;
	}
	if (g.html && !r.oom && !r.internal && render_html_file(&r, g.html, err) != CD_OK) {
		fprintf(stderr, "cudoctor: %s\n", err);
		code = CD_EXIT_FAILED;
		goto out;
	}
	if (r.internal) {
		fprintf(stderr, "cudoctor: internal error: a JSON value could not be made; the report is incomplete\n");
		code = CD_EXIT_FAILED;
	} else if (r.oom) {
		fprintf(stderr, "cudoctor: out of memory; the report is incomplete\n");
		code = CD_EXIT_FAILED;
	} else if (r.exit_override >= 0) {
		code = r.exit_override;
	} else {
		code = report_has_errors(&r) ? CD_EXIT_FINDING : CD_EXIT_CLEAN;
	}
out:
	/* a report with findings is complete; a usage error or a failed run leaves no file */
	if (output_close(&output, code == CD_EXIT_CLEAN || code == CD_EXIT_FINDING ||
				     (code == CD_EXIT_FAILED && report_made && !r.oom && !r.internal && rc == CD_OK)) != 0 &&
	    code < CD_EXIT_USAGE)
		code = CD_EXIT_FAILED;
	cd_run_close(&run);
	if (report_made)
		report_free(&r);
	free(cargv);
	cli_args_free(&p.global);
	cli_args_free(&p.cmd);
	return code;
}
