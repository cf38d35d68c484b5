/* Shell completion: the scripts of `cudoctor completion` loaded into a real bash and zsh
 * complete a command, an option and a GPU name; the answers come from the option tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* bash: the words typed so far and the index of the one being completed */
static const char bash_driver[] =
	"source <(\"$B\" completion bash) || exit 9\n"
	"c() { COMP_WORDS=(\"$B\" \"$@\"); COMP_CWORD=$#; _cudoctor; printf '%s|' \"${COMPREPLY[@]}\"; echo; }\n"
	"c gen\n"
	"c gencode --g\n"
	"c gencode --gpu 'RTX 409'\n"
	"c lab bank\n"
	"complete -p cudoctor\n";

/* zsh: compadd and _files are what the completion system provides; here they print */
static const char zsh_driver[] =
	"compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; shift; print -rn -- \"${(j:|:)@}\"; print }\n"
	"_files() { print FILES $@ }\n"
	"source <(\"$B\" completion zsh) || exit 9\n"
	"c() { words=(\"$B\" \"$@\"); CURRENT=${#words}; _cudoctor }\n"
	"c gen\n"
	"c gencode --g\n"
	"c gencode --gpu 'RTX 409'\n"
	"c mem estimate ''\n";

static struct run_result run_shell(const char *shell, const char *script)
{
	const char *argv[] = { shell, "-c", script, NULL };
	const char *env[] = { "B=" CUDOCTOR_BINARY, NULL };
	struct run_result r;

	assert_int_equal(testlib_run(argv, env, NULL, &r), 0);
	return r;
}

static void test_bash_completes_command_option_gpu(void **state)
{
	struct run_result r;

	(void)state;
	if (access("/bin/bash", X_OK) != 0)
		skip();
	r = run_shell("/bin/bash", bash_driver);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gencode|\n"
				   "--gpu|\n"
				   "RTX\\ 4090|RTX\\ 4090\\ D|RTX\\ 4090\\ Laptop|\n"
				   "bank-conflicts|\n"
				   "complete -F _cudoctor cudoctor\n");
	run_result_free(&r);
}

static void test_zsh_completes_command_option_gpu(void **state)
{
	struct run_result r;

	(void)state;
	if (access("/usr/bin/zsh", X_OK) != 0)
		skip(); /* tools/deps.sh installs zsh */
	r = run_shell("/usr/bin/zsh", zsh_driver);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "gencode\n"
				   "--gpu\n"
				   "RTX\\ 4090|RTX\\ 4090\\ D|RTX\\ 4090\\ Laptop\n"
				   "FILES\n");
	run_result_free(&r);
}

/* the answers themselves: values of one command's option are not another's */
static void test_values_follow_the_table(void **state)
{
	const char *argv[] = { CUDOCTOR_BINARY, "completion", "complete", "--", "cudoctor", "gencode", "--format=c", NULL };
	const char *argv2[] = { CUDOCTOR_BINARY, "completion", "complete", "--", "cudoctor", "--color", "always", "kb", "", NULL };
	struct run_result r;

	(void)state;
	assert_int_equal(testlib_run(argv, NULL, NULL, &r), 0);
	assert_string_equal(r.out, "--format=cmake\n");
	run_result_free(&r);
	assert_int_equal(testlib_run(argv2, NULL, NULL, &r), 0);
	assert_string_equal(r.out, "gpu\ntoolkit\ndriver\nerror\ntorch\nframework\n");
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bash_completes_command_option_gpu),
		cmocka_unit_test(test_zsh_completes_command_option_gpu),
		cmocka_unit_test(test_values_follow_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
