/* --gpu names over kb/gpus.tsv: words and digits matched case- and space-insensitively,
 * memory variants of one board resolved, ambiguous parts listed, near misses suggested. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "kb/kb.h"
#include "util/err.h"

static int load(void **state)
{
	char err[CD_ERRMSG] = "";

	(void)state;
	if (kb_load(err) != CD_OK) {
		print_error("kb_load: %s\n", err);
		return -1;
	}
	return 0;
}

static void resolves(const char *spec, const char *name, int arch)
{
	struct gpu_spec s;
	char err[CD_ERRMSG] = "";

	if (kb_parse_gpu_spec(spec, &s, err) != CD_OK)
		fail_msg("'%s': %s", spec, err);
	if (!s.gpu || s.gpu->arch != arch || (name && strcmp(s.gpu->name, name) != 0))
		fail_msg("'%s' resolved to %s (sm_%d)", spec, s.gpu ? s.gpu->name : "(no GPU)",
			 s.gpu ? s.gpu->arch : 0);
}

static void refused(const char *spec, const char *must_say, const char *must_not_say)
{
	struct gpu_spec s;
	char err[CD_ERRMSG] = "";

	assert_int_equal(kb_parse_gpu_spec(spec, &s, err), CD_EUSAGE);
	if (!strstr(err, must_say))
		fail_msg("'%s': expected \"%s\" in: %s", spec, must_say, err);
	if (must_not_say && strstr(err, must_not_say))
		fail_msg("'%s': did not expect \"%s\" in: %s", spec, must_not_say, err);
}

static void case_and_spacing_ignored(void **state)
{
	(void)state;
	resolves("rtx4090", "NVIDIA GeForce RTX 4090", 89);
	resolves("RTX4090", "NVIDIA GeForce RTX 4090", 89);
	resolves("4090", "NVIDIA GeForce RTX 4090", 89);
	resolves("rtx-4090", "NVIDIA GeForce RTX 4090", 89);
	resolves("  RTX   4090 ", "NVIDIA GeForce RTX 4090", 89);
	resolves("geforce rtx 4060ti", "NVIDIA GeForce RTX 4060 Ti", 89);
	resolves("h200", "NVIDIA H200", 90);
	resolves("NVIDIA H200 NVL", "NVIDIA H200 NVL", 90);
	resolves("a100", "NVIDIA A100-SXM4-40GB", 80);
}

/* "A100 40GB" names two boards (SXM4 and PCIe) of one target and one memory size. */
static void memory_size_picks_the_rows(void **state)
{
	const struct kb_gpu *c[8];
	size_t n;

	(void)state;
	n = kb_gpu_search("A100 40GB", c, 8);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i]->arch, 80);
		assert_int_equal(c[i]->n_memory_gb, 1);
		assert_true(c[i]->memory_gb[0] == 40.0);
	}
	resolves("A100 40GB", NULL, 80);
	resolves("a100 80gb", NULL, 80);
}

static void part_of_a_series_is_ambiguous(void **state)
{
	const struct kb_gpu *c[64];
	size_t n;

	(void)state;
	refused("RTX 40", "ambiguous", NULL);
	refused("RTX 40", "RTX 4090, RTX 4090 D, RTX 4080", NULL);
	refused("RTX 40", "`cudoctor kb gpu 'RTX 40'` lists them all", NULL);
	n = kb_gpu_search("RTX 40", c, 64);
	assert_true(n >= 10);
	for (size_t i = 0; i < n && i < 64; i++) /* RTX 4090, RTX PRO 4000, RTX A4000 */
		if (!strstr(c[i]->name, "RTX") || !strstr(c[i]->name, "40"))
			fail_msg("'RTX 40' matched %s", c[i]->name);
}

static void near_misses_are_suggested(void **state)
{
	(void)state;
	refused("RTX 4909", "did you mean NVIDIA GeForce RTX 4090?", "ambiguous");
	refused("H2000", "did you mean NVIDIA H200?", NULL);
	refused("rtx 5900", "did you mean NVIDIA GeForce RTX 5090", NULL);
	/* far from everything: no guess */
	refused("toaster", "no known GPU matches 'toaster'", "did you mean");
}

/* Every row's name and each of its aliases, as written, squeezed and lower-cased,
 * still resolves to a GPU of that row's target. */
static void every_row_resolves_by_name_and_alias(void **state)
{
	(void)state;
	for (size_t i = 0; i < kb_gpu_count(); i++) {
		const struct kb_gpu *g = kb_gpu_at(i);

		resolves(g->name, g->name, g->arch);
		for (size_t a = 0; a < g->n_aliases; a++) {
			const char *p = g->aliases[a];
			char squeezed[128] = "";
			size_t k = 0;

			resolves(p, NULL, g->arch);
			/* a vendor word keeps its blank: "NVIDIA T4" is "nvidia t4" */
			if (!strncmp(p, "NVIDIA ", 7) || !strncmp(p, "Tesla ", 6) ||
			    !strncmp(p, "Quadro ", 7) || !strncmp(p, "GeForce ", 8))
				while (*p && squeezed[k ? k - 1 : 0] != ' ' && k + 1 < sizeof squeezed)
					squeezed[k++] = (char)tolower((unsigned char)*p++);
			for (; *p && k + 1 < sizeof squeezed; p++)
				if (*p != ' ')
					squeezed[k++] = (char)tolower((unsigned char)*p);
			squeezed[k] = '\0';
			resolves(squeezed, NULL, g->arch);
		}
	}
}

static void driver_names_still_exact(void **state)
{
	(void)state;
	assert_non_null(kb_gpu_by_name("NVIDIA GeForce RTX 4090"));
	assert_non_null(kb_gpu_by_name("nvidia geforce rtx 4090"));
	assert_null(kb_gpu_by_name("RTX 4090"));
	assert_null(kb_gpu_by_name("NVIDIA GeForce RTX 40"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(case_and_spacing_ignored),
		cmocka_unit_test(memory_size_picks_the_rows),
		cmocka_unit_test(part_of_a_series_is_ambiguous),
		cmocka_unit_test(near_misses_are_suggested),
		cmocka_unit_test(every_row_resolves_by_name_and_alias),
		cmocka_unit_test(driver_names_still_exact),
	};

	return cmocka_run_group_tests(tests, load, NULL);
}
