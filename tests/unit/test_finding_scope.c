/* Every id cudoctor can emit has a scope (rules/scope.h: node health or environment), the
 * table names no id the code does not emit, and its lists are sorted for the search; the
 * split itself on the ids that decide a drain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "emitted_ids.h"
#include "rules/scope.h"

struct seen {
	char ids[512][72];
	size_t n;
	size_t unscoped;
};

static void scoped(const char *id, size_t n, const char *where, void *arg)
{
	struct seen *s = arg;
	char one[72];

	if (n == 0 || n >= sizeof one)
		return;
	memcpy(one, id, n);
	one[n] = '\0';
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->ids[i], one) == 0)
			return;
	if (s->n < sizeof s->ids / sizeof s->ids[0])
		snprintf(s->ids[s->n++], sizeof s->ids[0], "%s", one);
	if (finding_scope(one) == SCOPE_UNKNOWN) {
		fprintf(stderr, "finding id '%s' (%s) has no scope in src/rules/scope.c\n", one, where);
		s->unscoped++;
	}
}

static void test_every_emitted_id_has_a_scope(void **state)
{
	static struct seen s;
	enum finding_scope sc, prev_sc = SCOPE_UNKNOWN;
	const char *id, *prev = NULL;

	(void)state;
	emitted_ids(CUDOCTOR_SOURCE_DIR, scoped, &s);
	assert_true(s.n >= 100); /* the scan found the ids at all */
	assert_int_equal(s.unscoped, 0);
	/* the way back: each id of the table is one the code or the catalogue emits, and each
	 * list is sorted, since finding_scope searches it by halves */
	for (size_t i = 0; (id = finding_scope_at(i, &sc)) != NULL; i++) {
		bool found = false;
		for (size_t k = 0; k < s.n && !found; k++)
			found = strcmp(s.ids[k], id) == 0;
		if (!found)
			fail_msg("src/rules/scope.c lists '%s', which neither the code nor kb/findings.tsv emits", id);
		if (prev && sc == prev_sc && strcmp(prev, id) >= 0)
			fail_msg("src/rules/scope.c: '%s' after '%s' in the %s list: keep it sorted", id, prev,
				 finding_scope_name(sc));
		prev = id;
		prev_sc = sc;
	}
}

/* What decides a drain: the node's health does, what a job brings does not. */
static void test_scopes_of_the_ids_a_drain_names(void **state)
{
	static const char *const node[] = { "no-driver", "driver-library-mismatch", "ecc-errors", "xid-errors",
					     "gpu-lost", "device-nodes", "load-memory-errors", "fleet-check-slow" };
	static const char *const env[] = { "framework-cannot-run", "torch-cpu-only", "toolkit-newer-than-driver",
					   "runtime-newer-than-driver", "library-missing", "no-kernel-image",
					   "cuda-env", "oom-capacity" };

	(void)state;
	for (size_t i = 0; i < sizeof node / sizeof node[0]; i++) {
		assert_int_equal(finding_scope(node[i]), SCOPE_NODE);
		assert_true(finding_scope_drains(node[i]));
	}
	for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
		assert_int_equal(finding_scope(env[i]), SCOPE_ENVIRONMENT);
		assert_false(finding_scope_drains(env[i]));
	}
	/* a case row is its id's; an id of a newer cudoctor is unknown and drains nothing */
	assert_int_equal(finding_scope("wsl-libcuda/copy"), SCOPE_NODE);
	assert_int_equal(finding_scope("gpu-from-the-future"), SCOPE_UNKNOWN);
	assert_false(finding_scope_drains("gpu-from-the-future"));
	assert_string_equal(finding_scope_name(SCOPE_ENVIRONMENT), "environment");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_emitted_id_has_a_scope),
		cmocka_unit_test(test_scopes_of_the_ids_a_drain_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
