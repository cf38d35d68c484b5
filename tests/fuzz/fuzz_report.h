/* Shared by the harnesses of file parsers: the fuzz input becomes a file (a memfd, named by
 * /proc/self/fd/N, a regular file to file_open_input) and a command runs on it as from the
 * command line, its whole report then rendered as text, Markdown and JSON. A report that
 * cannot be rendered (JSON refusing a string, a NULL taken for out of memory or a bug), text
 * holding a byte a terminal acts on or that is not UTF-8, or JSON that does not read back
 * with every string safe, aborts: a finding. */
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

#include "../unit/safe_check.h"
#include "cli/opts.h"
#include "cmd/cmd.h"
#include "report/render.h"
#include "report/report.h"
#include "util/err.h"

/* The input as a file; its path (the same each run). */
static inline const char *fuzz_input_file(const unsigned char *data, size_t size)
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

/* r rendered in each format into memory and checked as above. */
static inline void fuzz_render_checked(const struct report *r)
{
	static const enum output_format formats[] = { FMT_TEXT, FMT_MARKDOWN, FMT_JSON };

	if (r->oom || r->internal)
		abort(); /* nothing here runs out of memory: a NULL was taken for it, or a bug */
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		struct render_opts o = { .format = formats[i], .width = 80 };
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);
		json_t *j = NULL;

		if (!mem || render_report(r, &o, mem) != CD_OK)
			abort();
		fclose(mem);
		if (!safe_bytes(buf, len, NULL))
			abort();
		if (formats[i] == FMT_JSON && (!(j = json_loadb(buf, len, 0, NULL)) || !json_strings_safe(j)))
			abort();
		json_decref(j);
		free(buf);
	}
}

/* Runs `cudoctor NAME [SUB] WORDS...` in process (the command's own option table parses
 * words), then renders and checks the report (fuzz_render_checked). Returns the report's
 * exit_override (CD_EXIT_FAILED when an input could not be read). */
static inline int fuzz_command_words(const struct cd_command *cmd, const char *sub, const char *const *words)
{
	static struct cd_run run;
	const struct cli_opt *tables[3] = { NULL, cmd->opts, NULL };
	struct cli_args global = { 0 }, args = { 0 };
	struct cd_globals g = { .render = { .format = FMT_JSON, .width = 80 }, .run = &run };
	char *argv[24], *cargv[4], err[CD_ERRMSG] = "";
	int argc = 0, next = 0, cargc = 0;
	struct report r;
	static const struct cli_opt no_globals[] = { { 0 } };

	if (sub)
		for (const struct cd_subcommand *s = cmd->subs; s && s->name; s++)
			if (strcmp(s->name, sub) == 0)
				tables[1] = s->opts;
	tables[0] = no_globals;
	for (size_t i = 0; words[i] && argc < 23; i++)
		argv[argc++] = (char *)words[i];
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
	if (cmd->run(&r, cargc, cargv, &g, err) == CD_OK && !r.self_rendered)
		fuzz_render_checked(&r);
	if (r.oom || r.internal)
		abort(); /* nothing here runs out of memory: a NULL was taken for it, or a bug */
	if (!safe_printed(err))
		abort(); /* an error message names what was wrong as safe text */
	int exit_override = r.exit_override;
	report_free(&r);
	cli_args_free(&global);
	cli_args_free(&args);
	return exit_override;
}

/* The input as a file whose name ends in suffix (".conda": arch reads a conda payload only in a
 * file so named): a symlink to fuzz_input_file's, removed when the process ends. */
static char fuzz_named_link[96];

static inline void fuzz_named_unlink(void)
{
	unlink(fuzz_named_link);
}

static inline const char *fuzz_input_file_as(const unsigned char *data, size_t size, const char *suffix)
{
	const char *path = fuzz_input_file(data, size);

	if (!fuzz_named_link[0]) {
		snprintf(fuzz_named_link, sizeof fuzz_named_link, "/tmp/cudoctor-fuzz-%ld%s", (long)getpid(), suffix);
		unlink(fuzz_named_link);
		if (symlink(path, fuzz_named_link) != 0)
			abort();
		atexit(fuzz_named_unlink);
	}
	return fuzz_named_link;
}

/* `cudoctor NAME [SUB] WORDS... FILE`, the fuzz input as FILE (named with suffix, NULL: as
 * fuzz_input_file names it). */
static inline int fuzz_command_report_as(const struct cd_command *cmd, const char *sub, const char *const *words,
					 const unsigned char *data, size_t size, const char *suffix)
{
	const char *argv[24];
	size_t n = 0;

	for (; words[n] && n < 22; n++)
		argv[n] = words[n];
	argv[n++] = suffix ? fuzz_input_file_as(data, size, suffix) : fuzz_input_file(data, size);
	argv[n] = NULL;
	return fuzz_command_words(cmd, sub, argv);
}

/* `cudoctor NAME [SUB] WORDS... FILE`, the fuzz input as FILE. */
static inline int fuzz_command_report(const struct cd_command *cmd, const char *sub, const char *const *words,
				const unsigned char *data, size_t size)
{
	return fuzz_command_report_as(cmd, sub, words, data, size, NULL);
}

#endif
