/* The pairs' schedule (every pair once over the rounds, disjoint within a round, one rank
 * out per round for odd n) and their judgement on synthetic numbers (fleet/pairs.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/pairs.h"

static void test_schedule_pairs_everyone_once(void **state)
{
	(void)state;
	for (int n = 2; n <= 67; n++) {
		int rounds = fleet_pairs_rounds(n);
		char *met = calloc((size_t)n * (size_t)n, 1);
		assert_non_null(met);
		assert_int_equal(rounds, n % 2 ? n : n - 1);
		for (int r = 0; r < rounds; r++) {
			int out = 0;
			for (int k = 0; k < n; k++) {
				int p = fleet_pairs_partner(n, r, k);
				if (p < 0) {
					out++;
					continue;
				}
				assert_true(p != k && p < n);
				assert_int_equal(fleet_pairs_partner(n, r, p), k); /* disjoint: partners agree */
				if (k < p) {
					assert_int_equal(met[k * n + p], 0);
					met[k * n + p] = 1;
				}
			}
			assert_int_equal(out, n % 2); /* a bye per round for odd n only */
		}
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++)
				assert_int_equal(met[a * n + b], 1);
		free(met);
	}
}

static void test_schedule_edges(void **state)
{
	(void)state;
	assert_int_equal(fleet_pairs_rounds(1), 0);
	assert_int_equal(fleet_pairs_partner(1, 0, 0), -1);
	assert_int_equal(fleet_pairs_partner(4, 3, 0), -1); /* no round 3 of 4 ranks */
	assert_int_equal(fleet_pairs_partner(4, 0, 4), -1);
	assert_int_equal(fleet_pairs_rounds_for(6, 0), 5);
	assert_int_equal(fleet_pairs_rounds_for(6, 2), 2);
	assert_int_equal(fleet_pairs_rounds_for(6, 99), 5);
	assert_int_equal(fleet_pairs_rounds_for(64, 0), 63);
	assert_int_equal(fleet_pairs_rounds_for(65, 0), FLEET_PAIRS_DEFAULT_ROUNDS);
}

/* 8 ranks on 8 nodes, all rounds: node05 at 30% in every pair, one pair between node01
 * and node02 at half speed, one failed pair; the rest near 40 GB/s. */
static void test_judge_names_the_slow_node(void **state)
{
	static char names[8][16];
	struct fleet_pair p[28];
	struct fleet_pairs_judgement j;
	size_t n = 0;
	(void)state;
	for (int k = 0; k < 8; k++)
		snprintf(names[k], sizeof names[k], "node%02d", k + 1);
	for (int r = 0; r < 7; r++)
		for (int a = 0; a < 8; a++) {
			int b = fleet_pairs_partner(8, r, a);
			double bw = 40.0 + 0.1 * (double)((a * 7 + b * 3 + r) % 5);
			if (b <= a)
				continue;
			if (a == 4 || b == 4)
				bw = 12.0;
			if (a == 0 && b == 1)
				bw = 20.0;
			if (a == 2 && b == 3)
				bw = -1; /* failed */
			p[n++] = (struct fleet_pair){ r, a, b, names[a], names[b], bw };
		}
	assert_int_equal(n, 28);
	assert_int_equal(fleet_pairs_judge(p, n, &j), 0);
	assert_int_equal(j.cls[FLEET_PAIR_INTER].n, 27);
	assert_true(j.cls[FLEET_PAIR_INTER].judged);
	assert_int_equal(j.cls[FLEET_PAIR_INTRA].n, 0);
	assert_true(j.cls[FLEET_PAIR_INTER].sp.median > 39.9 && j.cls[FLEET_PAIR_INTER].sp.median < 40.5);
	assert_int_equal(j.n_order, 27);
	/* slowest first: node05's seven pairs, then node01-node02 */
	for (size_t k = 0; k < 7; k++)
		assert_true(p[j.order[k]].a == 4 || p[j.order[k]].b == 4);
	assert_int_equal(p[j.order[7]].a, 0);
	assert_int_equal(p[j.order[7]].b, 1);
	assert_true(j.slow[j.order[7]]);
	assert_false(j.explained[j.order[7]]);
	assert_false(j.slow[j.order[8]]);
	assert_int_equal(j.n_nodes, 8);
	for (size_t k = 0; k < j.n_nodes; k++) {
		const struct fleet_pairs_node *x = &j.nodes[k];
		bool five = strcmp(x->name, "node05") == 0;
		assert_int_equal(x->slow_node, five);
		if (five) {
			assert_int_equal(x->pairs, 7);
			assert_int_equal(x->slow, 7);
			assert_true(x->ratio > 0.29 && x->ratio < 0.31);
			assert_int_equal(x->cls, FLEET_PAIR_INTER);
		}
		if (strcmp(x->name, "node03") == 0)
			assert_int_equal(x->pairs, 6); /* its failed pair is not counted */
		if (strcmp(x->name, "node01") == 0)
			assert_int_equal(x->slow, 2); /* node05 and node02: 2 of 7, not most */
	}
	fleet_pairs_judgement_free(&j);
}

/* Two ranks per node: intra-node pairs are judged against their own kind only. */
static void test_judge_classes_apart(void **state)
{
	static const char *const node[6] = { "a1", "a1", "a2", "a2", "a3", "a3" };
	struct fleet_pair p[15];
	struct fleet_pairs_judgement j;
	size_t n = 0;
	(void)state;
	for (int r = 0; r < 5; r++)
		for (int a = 0; a < 6; a++) {
			int b = fleet_pairs_partner(6, r, a);
			if (b <= a)
				continue;
			/* intra-node (NVLink) 400, inter-node 25: neither is slow against the other */
			p[n++] = (struct fleet_pair){ r, a, b, node[a], node[b], strcmp(node[a], node[b]) ? 25.0 : 400.0 };
		}
	assert_int_equal(fleet_pairs_judge(p, n, &j), 0);
	assert_int_equal(j.cls[FLEET_PAIR_INTRA].n, 3);
	assert_int_equal(j.cls[FLEET_PAIR_INTER].n, 12);
	for (size_t i = 0; i < n; i++)
		assert_false(j.slow[i]);
	assert_true(p[j.order[0]].busbw == 25.0);
	assert_true(p[j.order[n - 1]].busbw == 400.0);
	fleet_pairs_judgement_free(&j);
}

static void test_judge_nothing(void **state)
{
	struct fleet_pairs_judgement j;
	(void)state;
	assert_int_equal(fleet_pairs_judge(NULL, 0, &j), 0);
	assert_int_equal(j.n_order, 0);
	assert_int_equal(j.n_nodes, 0);
	fleet_pairs_judgement_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_pairs_everyone_once),
		cmocka_unit_test(test_schedule_edges),
		cmocka_unit_test(test_judge_names_the_slow_node),
		cmocka_unit_test(test_judge_classes_apart),
		cmocka_unit_test(test_judge_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
