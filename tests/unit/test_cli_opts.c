/* The option parser: getopt_long's conventions over option tables, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cli/opts.h"
#include "util/err.h"

enum { Q = 1, V, J, M, COLOR, GPU, REC, ALL, ALLMAJ, PY };
static const struct cli_opt globals[] = {
	{ .id = Q, .short_name = 'q', .long_name = "quiet", .group = 2 },
	{ .id = V, .short_name = 'v', .long_name = "verbose", .group = 2 },
	{ .id = J, .long_name = "json", .group = 1 },
	{ .id = M, .long_name = "markdown", .group = 1 },
	{ .id = COLOR, .long_name = "color", .arg = CLI_REQUIRED, .metavar = "WHEN" },
	{ 0 },
};
static const struct cli_opt cmd[] = {
	{ .id = GPU, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC", .flags = CLI_REPEAT },
	{ .id = REC, .short_name = 'r', .long_name = "recursive" },
	{ .id = ALL, .long_name = "all" },
	{ .id = ALLMAJ, .long_name = "all-major" },
	{ .id = PY, .long_name = "python", .arg = CLI_OPTIONAL, .metavar = "PY" },
	{ 0 },
};

struct parse {
	struct cli_args g, c;
	int rc, next;
	char err[CD_ERRMSG];
};

static void parse(struct parse *p, unsigned flags, char **argv)
{
	const struct cli_opt *const tables[] = { globals, cmd, NULL };
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(p, 0, sizeof(*p));
	p->next = 1;
	p->rc = cli_parse(argc, argv, &p->next, tables, flags, &p->g, &p->c, p->err);
}

static void done(struct parse *p)
{
	cli_args_free(&p->g);
	cli_args_free(&p->c);
}

static void test_options_anywhere_values_both_ways(void **state)
{
	char *argv[] = { "x", "a.so", "--gpu=sm_90", "-q", "-g", "H200", "--gpu", "8.9", "b.so", "-gsm_75", NULL };
	struct parse p;

	(void)state;
	parse(&p, 0, argv);
	assert_int_equal(p.rc, CD_OK);
	assert_int_equal(p.g.n, 1);
	assert_int_equal(p.g.v[0].opt->id, Q);
	assert_int_equal(p.c.n, 4);
	assert_string_equal(p.c.v[0].value, "sm_90");
	assert_string_equal(p.c.v[1].value, "H200");
	assert_string_equal(p.c.v[2].value, "8.9");
	assert_string_equal(p.c.v[3].value, "sm_75");
	assert_int_equal(p.c.n_operands, 2);
	assert_string_equal(p.c.operands[0], "a.so");
	assert_string_equal(p.c.operands[1], "b.so");
	done(&p);
}

static void test_bundles_and_double_dash(void **state)
{
	char *argv[] = { "x", "-rg", "sm_90", "-", "--", "--json", "-q", NULL };
	struct parse p;

	(void)state;
	parse(&p, 0, argv);
	assert_int_equal(p.rc, CD_OK);
	assert_int_equal(p.c.n, 2);
	assert_int_equal(p.c.v[0].opt->id, REC);
	assert_string_equal(p.c.v[1].value, "sm_90");
	assert_int_equal(p.g.n, 0); /* after `--`, --json and -q are operands */
	assert_int_equal(p.c.n_operands, 3);
	assert_string_equal(p.c.operands[0], "-");
	assert_string_equal(p.c.operands[1], "--json");
	assert_true(p.c.ended);
	done(&p);
}

static void test_stop_at_operand_leaves_the_command(void **state)
{
	char *argv[] = { "x", "--color", "always", "-q", "arch", "--gpu", "sm_90", NULL };
	struct parse p;

	(void)state;
	parse(&p, CLI_STOP_AT_OPERAND, argv);
	assert_int_equal(p.rc, CD_OK);
	assert_int_equal(p.next, 4);
	assert_int_equal(p.g.n, 2);
	assert_string_equal(p.g.v[0].value, "always");
	done(&p);
}

static void expect_usage(char **argv, const char *message)
{
	struct parse p;

	parse(&p, 0, argv);
	assert_int_equal(p.rc, CD_EUSAGE);
	assert_string_equal(p.err, message);
	done(&p);
}

static void test_refusals_name_the_option(void **state)
{
	(void)state;
	expect_usage((char *[]){ "x", "--bogus", NULL }, "unknown option '--bogus'");
	expect_usage((char *[]){ "x", "-qx", NULL }, "unknown option '-x'");
	expect_usage((char *[]){ "x", "--gpu", NULL }, "option '--gpu' needs a value (SPEC)");
	expect_usage((char *[]){ "x", "-g", NULL }, "option '--gpu' needs a value (SPEC)");
	expect_usage((char *[]){ "x", "--gpu", "--json", NULL }, "option '--gpu' needs a value (SPEC)");
	expect_usage((char *[]){ "x", "--json=1", NULL }, "option '--json' takes no value");
	expect_usage((char *[]){ "x", "--json", "--markdown", NULL },
		     "options '--json' and '--markdown' exclude each other");
	expect_usage((char *[]){ "x", "-qv", NULL }, "options '--quiet' and '--verbose' exclude each other");
	expect_usage((char *[]){ "x", "--color", "always", "--color=never", NULL }, "option '--color' given twice");
	expect_usage((char *[]){ "x", "--al", NULL }, "option '--al' is ambiguous (--all, --all-major)");
}

static void test_abbreviation_and_optional_value(void **state)
{
	char *argv[] = { "x", "--rec", "--all", "--python", "py", "--js", NULL };
	struct parse p;

	(void)state;
	parse(&p, 0, argv);
	assert_int_equal(p.rc, CD_OK);
	assert_int_equal(p.c.v[0].opt->id, REC);
	assert_int_equal(p.c.v[1].opt->id, ALL); /* exact beats the longer all-major */
	assert_null(p.c.v[2].value); /* an optional value only through --python=PY */
	assert_string_equal(p.c.operands[0], "py");
	assert_int_equal(p.g.v[0].opt->id, J);
	done(&p);
}

static void test_pass_unknown_keeps_order(void **state)
{
	char *argv[] = { "x", "--offline", "-q", "--binary", "f", "--", "-v", NULL };
	const struct cli_opt *const tables[] = { globals, NULL };
	struct cli_args g = { 0 };
	char err[CD_ERRMSG];
	int next = 1;

	(void)state;
	assert_int_equal(cli_parse(7, argv, &next, tables, CLI_PASS_UNKNOWN, &g, &g, err), CD_OK);
	assert_int_equal(g.n, 1); /* -q */
	assert_int_equal(g.n_operands, 5);
	assert_string_equal(g.operands[0], "--offline");
	assert_string_equal(g.operands[1], "--binary");
	assert_string_equal(g.operands[3], "--");
	assert_string_equal(g.operands[4], "-v");
	cli_args_free(&g);
}

static void test_help_block_wraps_with_a_hanging_indent(void **state)
{
	static const struct cli_opt t[] = {
		{ .id = 1, .short_name = 'g', .long_name = "gpu", .arg = CLI_REQUIRED, .metavar = "SPEC",
		  .help = "judge against this GPU (sm_89, 8.9, 89, sm_90a); repeatable. Default: every GPU here" },
		{ .id = 2, .long_name = "secret", .flags = CLI_HIDDEN, .help = "not shown" },
		{ 0 },
	};
	struct strbuf sb;

	(void)state;
	sb_init(&sb);
	cli_help_options(&sb, t, 60);
	assert_false(sb.failed);
	assert_string_equal(sb.buf, "  -g, --gpu SPEC    judge against this GPU (sm_89, 8.9, 89,\n"
				    "                    sm_90a); repeatable. Default: every GPU\n"
				    "                    here\n");
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_anywhere_values_both_ways),
		cmocka_unit_test(test_bundles_and_double_dash),
		cmocka_unit_test(test_stop_at_operand_leaves_the_command),
		cmocka_unit_test(test_refusals_name_the_option),
		cmocka_unit_test(test_abbreviation_and_optional_value),
		cmocka_unit_test(test_pass_unknown_keeps_order),
		cmocka_unit_test(test_help_block_wraps_with_a_hanging_indent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
