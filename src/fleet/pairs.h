/* `cudoctor fleet --nccl=pairs`: the schedule of disjoint rank pairs (the circle method of
 * round-robin tournaments) and the judgement of every pair's measured busbw: ranked, classed
 * intra-node or inter-node, median and MAD within each class, and the nodes whose pairs are
 * slow in most of their rounds. Pure: no I/O, no MPI, no NCCL. */
#ifndef CUDOCTOR_FLEET_PAIRS_H
#define CUDOCTOR_FLEET_PAIRS_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/stats.h"

/* Up to this many ranks every round runs; above it --rounds defaults to the next. */
#define FLEET_PAIRS_ALL_UP_TO 64
#define FLEET_PAIRS_DEFAULT_ROUNDS 16

/* The rounds that pair every rank with every other once: n-1 for even n, n for odd n (one
 * rank sits out each round); 0 for n < 2. */
int fleet_pairs_rounds(int n);

/* Rank's partner in round (0 <= round < fleet_pairs_rounds(n)), or -1 when it sits out. */
int fleet_pairs_partner(int n, int round, int rank);

/* The rounds a run of n ranks takes when --rounds asks for cap (0: the default). */
int fleet_pairs_rounds_for(int n, int cap);

enum fleet_pair_class { FLEET_PAIR_INTRA, FLEET_PAIR_INTER };

/* One measured pair (a < b, world ranks). busbw < 0: not measured (failed). */
struct fleet_pair {
	int round, a, b;
	const char *node_a, *node_b;
	double busbw;
};

/* A class's spread; judged only with at least FLEET_PAIRS_MIN_SAMPLES pairs. */
#define FLEET_PAIRS_MIN_SAMPLES 3
struct fleet_pairs_class {
	size_t n;
	bool judged;
	struct fleet_spread sp;
};

struct fleet_pairs_node {
	const char *name;
	size_t pairs, slow;       /* measured pairs it took part in; of them, slow outliers */
	double ratio;             /* median busbw of its slow pairs / their class median */
	enum fleet_pair_class cls; /* the class most of its slow pairs are in */
	bool slow_node;           /* slow in more than half of its pairs */
};

struct fleet_pairs_judgement {
	struct fleet_pairs_class cls[2];
	enum fleet_pair_class *cls_of; /* per pair */
	double *z;                /* per pair: robust z within its class (0 unjudged or failed) */
	bool *slow;               /* per pair: z below -FLEET_OUTLIER_Z */
	bool *explained;          /* per pair: one of its nodes is a slow node */
	size_t *order;            /* measured pairs, slowest first (n_order of them) */
	size_t n_order;
	struct fleet_pairs_node *nodes; /* every node of a measured pair, by name */
	size_t n_nodes;
};

/* Judges p[0..n). O(n log n). CD_OK or CD_ENOMEM. */
int fleet_pairs_judge(const struct fleet_pair *p, size_t n, struct fleet_pairs_judgement *j);
void fleet_pairs_judgement_free(struct fleet_pairs_judgement *j);

#endif
