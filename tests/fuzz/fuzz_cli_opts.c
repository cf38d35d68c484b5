/* libFuzzer harness: the command-line parser (cli/opts.c) over argv words split at NUL
 * bytes, with the first byte choosing the parse flags; then the help block of the tables. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct cli_opt globals[] = {
	{ .id = 1, .short_name = 'q', .long_name = "quiet", .group = 2 },
	{ .id = 2, .short_name = 'v', .long_name = "verbose", .group = 2 },
	{ .id = 3, .long_name = "json", .group = 1 },
	{ .id = 4, .long_name = "markdown", .group = 1 },
	{ .id = 5, .long_name = "color", .arg = CLI_REQUIRED, .metavar = "WHEN" },
	{ 0 },
};
static const struct cli_opt cmd[] = {
	{ .id = 10, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .flags = CLI_REPEAT },
	{ .id = 11, .short_name = 'r', .long_name = "recursive" },
	{ .id = 12, .long_name = "all" },
	{ .id = 13, .long_name = "all-major" },
	{ .id = 14, .long_name = "python", .arg = CLI_OPTIONAL, .metavar = "PY" },
	{ 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cli_opt *const tables[] = { globals, cmd, NULL };
	struct cli_args g = { 0 }, c = { 0 };
	char err[CD_ERRMSG];
	char *text, **argv;
	int argc = 1, next = 1;
	unsigned flags;
	struct strbuf sb;

	if (size < 1 || size > 4096)
		return 0;
	flags = data[0] & (CLI_STOP_AT_OPERAND | CLI_NO_OPTIONS | CLI_PASS_UNKNOWN);
	text = malloc(size);
	argv = calloc(size + 2, sizeof(*argv));
	if (!text || !argv)
		goto out;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	argv[0] = "cudoctor";
	for (size_t i = 0; i < size - 1;) {
		argv[argc++] = text + i;
		i += strlen(text + i) + 1;
	}
	if (cli_parse(argc, argv, &next, tables, flags, &g, &c, err) == CD_OK && next > argc)
		abort();
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].opt->arg == CLI_REQUIRED && !c.v[i].value)
			abort();
	sb_init(&sb);
	cli_help_options(&sb, cmd, (size_t)data[0]);
	sb_free(&sb);
out:
	cli_args_free(&g);
	cli_args_free(&c);
	free(argv);
	free(text);
	return 0;
}
