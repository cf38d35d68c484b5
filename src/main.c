/* cudoctor's front door: global options, the command table, rendering and exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "report/render.h"
#include "util/err.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

enum { EXIT_CLEAN = 0, EXIT_FINDING = 1, EXIT_USAGE = 2, EXIT_TOOL = 3 };

/* Keep in the order `cudoctor --help` lists them. A command is listed only once it works. */
static const struct cd_command *const commands[] = {
	&cmd_doctor,
	&cmd_devices,
	&cmd_arch,
	&cmd_explain,
	&cmd_gencode,
	&cmd_kb,
	&cmd_mem,
	&cmd_lab,
	&cmd_fleet,
	NULL,
};

static const struct cd_command *find_command(const char *name)
{
	for (size_t i = 0; commands[i]; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_help(FILE *out)
{
	fputs("usage: cudoctor [--json|--markdown] [--color=auto|always|never] [-q|-v] COMMAND [ARGS]\n"
	      "\n"
	      "Checks the CUDA stack on this machine and explains what it finds.\n"
	      "`cudoctor` alone runs `cudoctor doctor`.\n\ncommands:\n",
	      out);
	for (size_t i = 0; commands[i]; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nglobal options:\n"
	      "  --json           one JSON object on stdout (see docs/json.md)\n"
	      "  --markdown       Markdown, ready to paste into a GitHub issue\n"
	      "  --color=WHEN     auto (default; honours NO_COLOR), always, never\n"
	      "  -q, --quiet      only warnings and errors\n"
	      "  -v, --verbose    more detail\n"
	      "  --version        print the version\n"
	      "  -h, --help       this text; `cudoctor COMMAND --help` for a command\n"
	      "\nexit codes: 0 no error finding, 1 an error finding, 2 usage error, 3 cudoctor failed\n",
	      out);
}

static bool is_flag(const char *a, const char *flag)
{
	return strcmp(a, flag) == 0;
}

/* Global options may stand anywhere before `--`; they are taken out of argv. */
static int take_global_options(int *argc, char **argv, struct cd_globals *g, bool *help,
			       bool *version, char *err)
{
	const char *color = "auto";
	int out = 1;
	bool passthrough = false;

	for (int i = 1; i < *argc; i++) {
		char *a = argv[i];

		if (passthrough || a[0] != '-') {
			argv[out++] = a;
			continue;
		}
		if (is_flag(a, "--")) {
			passthrough = true;
			argv[out++] = a;
		} else if (is_flag(a, "--json")) {
			g->render.format = FMT_JSON;
		} else if (is_flag(a, "--markdown")) {
			g->render.format = FMT_MARKDOWN;
		} else if (strncmp(a, "--color=", 8) == 0) {
			color = a + 8;
		} else if (is_flag(a, "--no-color")) {
			color = "never";
		} else if (is_flag(a, "-q") || is_flag(a, "--quiet")) {
			g->render.verbosity = -1;
		} else if (is_flag(a, "-v") || is_flag(a, "--verbose")) {
			g->render.verbosity = 1;
		} else if (is_flag(a, "--version")) {
			*version = true;
		} else if (is_flag(a, "-h") || is_flag(a, "--help")) {
			*help = true;
		} else {
			argv[out++] = a;
		}
	}
	argv[out] = NULL;
	*argc = out;
	if (strcmp(color, "always") == 0)
		g->render.color = true;
	else if (strcmp(color, "never") == 0)
		g->render.color = false;
	else if (strcmp(color, "auto") == 0)
		g->render.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	else
		return cd_fail(err, CD_EUSAGE, "--color must be auto, always or never, not '%s'", color);
	return CD_OK;
}

int main(int argc, char **argv)
{
	static struct cd_run run; /* the run context: what the command's needs open, once */
	struct cd_globals g = { { FMT_TEXT, false, 0 }, false, &run };
	const struct cd_command *cmd;
	char *default_argv[] = { "doctor", NULL };
	char err[CD_ERRMSG] = "";
	struct report r;
	bool help = false, version = false;
	int rc, code;

	if (take_global_options(&argc, argv, &g, &help, &version, err)) {
		fprintf(stderr, "cudoctor: %s\n", err);
		return EXIT_USAGE;
	}
	g.stderr_is_tty = isatty(STDERR_FILENO);
	if (version) {
		printf("cudoctor %s\n", CUDOCTOR_VERSION);
		return EXIT_CLEAN;
	}
	if (argc < 2 && help) {
		print_help(stdout);
		return EXIT_CLEAN;
	}
	if (argc < 2) {
		argc = 1;
		argv = default_argv;
	} else {
		argc--;
		argv++;
	}
	cmd = find_command(argv[0]);
	if (!cmd) {
		fprintf(stderr, "cudoctor: unknown command '%s'\n", argv[0]);
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (help) {
		fputs(cmd->help, stdout);
		return EXIT_CLEAN;
	}
	if (report_init(&r, cmd->name)) {
		fputs("cudoctor: out of memory\n", stderr);
		return EXIT_TOOL;
	}
	rc = cmd->needs == NEEDS_DRIVER ? cd_run_driver(&run, &r, err) : CD_OK;
	if (rc == CD_OK)
		rc = cmd->run(&r, argc, argv, &g, err);
	if (rc == CD_EUSAGE) {
		fprintf(stderr, "cudoctor %s: %s\nTry 'cudoctor %s --help'.\n", cmd->name, err, cmd->name);
		code = EXIT_USAGE;
		goto out;
	}
	if (rc != CD_OK) {
		fprintf(stderr, "cudoctor %s: %s\n", cmd->name, *err ? err : cd_strerror(rc));
		code = EXIT_TOOL;
		goto out;
	}
	if ((!r.self_rendered && render_report(&r, &g.render, stdout) != 0) || fflush(stdout) != 0) {
		fprintf(stderr, "cudoctor: cannot write the report\n");
		code = EXIT_TOOL;
		goto out;
	}
	if (r.oom) {
		fprintf(stderr, "cudoctor: out of memory; the report is incomplete\n");
		code = EXIT_TOOL;
	} else if (r.exit_override >= 0) {
		code = r.exit_override;
	} else {
		code = report_has_errors(&r) ? EXIT_FINDING : EXIT_CLEAN;
	}
out:
	cd_run_close(&run);
	report_free(&r);
	return code;
}
