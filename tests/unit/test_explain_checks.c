/* explain reads a binary once per run: the first check or value that names it maps it, and
 * every later check and value of any match reads that same mapping (src/cmd/explain/checks.c).
 * Shown by replacing the file between two checks: what the second judges is what the first
 * read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/explain/checks.h"

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static const struct explain_check *named(const struct explain_checks *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->c[i].name, name) == 0)
			return &c->c[i];
	return NULL;
}

static void test_binary_is_read_once(void **state)
{
	char dir[] = "/tmp/cudoctor-explain-bin-XXXXXX", path[128], other[128], err[CD_ERRMSG] = "";
	struct explain_match m;
	struct explain_given given;
	struct explain_checks first, second;
	struct cd_run run = { 0 };
	const struct explain_check *a, *b, *launch;
	const struct arch_file *mapped;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/prog", dir);
	snprintf(other, sizeof other, "%s/prog.new", dir);
	copy_file(CUDOCTOR_BINARY, path);
	memset(&m, 0, sizeof m);
	m.finding = "no-kernel-image";
	explain_given_init(&given);
	/* offline against a named GPU: the checks read the binary and nothing of this machine */
	given.offline = true;
	given.binary = path;
	assert_int_equal(arch_target_gpu_option(&given.target, "sm_90", err), CD_OK);
	assert_int_equal(explain_checks_run(&m, "binary", &given, &run, &first, err), CD_OK);
	assert_non_null(a = named(&first, "binary"));
	assert_int_not_equal(a->result, CHECK_SKIPPED);
	/* the program replaced by text that is no binary: a new read would say it cannot scan it */
	assert_non_null(f = fopen(other, "w"));
	fputs("not a program\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(explain_checks_run(&m, "binary launch", &given, &run, &second, err), CD_OK);
	assert_non_null(b = named(&second, "binary"));
	assert_int_equal(b->result, a->result);
	assert_string_equal(b->detail, a->detail);
	assert_non_null(launch = named(&second, "launch"));
	assert_null(strstr(launch->detail, "not an ELF"));
	/* and the values a finding takes from the binary read the same bytes */
	assert_non_null(mapped = explain_given_mapped(&given, path));
	assert_true(mapped->size > 4 && memcmp(mapped->data, "\177ELF", 4) == 0);
	explain_checks_free(&first);
	explain_checks_free(&second);
	explain_given_free(&given);
	cd_run_close(&run);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binary_is_read_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
