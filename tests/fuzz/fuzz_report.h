/* Shared by the harnesses of file parsers: the fuzz input becomes a file (a memfd, named by
 * /proc/self/fd/N, a regular file to file_open_input) and a command runs on it as from the
 * command line, its whole report then rendered as text and as JSON. A report that cannot be
 * rendered (JSON refusing a string, a NULL taken for out of memory) aborts: a finding. */
#ifndef CUDOCTOR_FUZZ_REPORT_H
#define CUDOCTOR_FUZZ_REPORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cmd/cmd.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"

/* The input as a file; its path (the same each run). */
static const char *fuzz_input_file(const unsigned char *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("cudoctor-fuzz", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return path;
}

/* Runs `cudoctor --json NAME [SUB] WORDS... FILE` in process (the command's own option table
 * parses words), then renders the report as text and JSON into /dev/null. */
static void fuzz_command_report(const struct cd_command *cmd, const char *sub, const char *const *words,
				const unsigned char *data, size_t size)
{
	static FILE *null;
	static struct cd_run run;
	const char *file = fuzz_input_file(data, size);
	const struct cli_opt *tables[3] = { NULL, cmd->opts, NULL };
	struct cli_args global = { 0 }, args = { 0 };
	struct cd_globals g = { .render = { .format = FMT_JSON, .width = 80 }, .run = &run };
	char *argv[24], *cargv[4], err[CD_ERRMSG] = "";
	int argc = 0, next = 0, cargc = 0;
	struct report r;
	static const struct cli_opt no_globals[] = { { 0 } };

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (sub)
		for (const struct cd_subcommand *s = cmd->subs; s && s->name; s++)
			if (strcmp(s->name, sub) == 0)
				tables[1] = s->opts;
	tables[0] = no_globals;
	for (size_t i = 0; words[i] && argc < 22; i++)
		argv[argc++] = (char *)words[i];
	argv[argc++] = (char *)file;
	argv[argc] = NULL;
	if (cli_parse(argc, argv, &next, tables, 0, &global, &args, err) != CD_OK)
		abort(); /* the harness's own words must parse */
	g.args = &args;
	cargv[cargc++] = (char *)cmd->name;
	if (sub)
		cargv[cargc++] = (char *)sub;
	for (size_t i = 0; i < args.n_operands && cargc < 3; i++)
		cargv[cargc++] = args.operands[i];
	cargv[cargc] = NULL;
	if (report_init(&r, cmd->name) != CD_OK)
		abort();
	if (cmd->run(&r, cargc, cargv, &g, err) == CD_OK && !r.oom && !r.self_rendered) {
		struct render_opts text = { .format = FMT_TEXT, .width = 80 };

		if (render_report(&r, &g.render, null) != CD_OK || render_report(&r, &text, null) != CD_OK)
			abort();
	}
	if (r.oom)
		abort(); /* nothing here runs out of memory: a NULL was taken for it */
	report_free(&r);
	cli_args_free(&global);
	cli_args_free(&args);
}

#endif
