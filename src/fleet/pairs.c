/* The pairs' schedule (circle method) and their judgement: per class the median and MAD of
 * busbw (stats.c), the pairs far below it, and per node how many of its pairs those are. */
#include "fleet/pairs.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "fleet/hostlist.h"
#include "util/err.h"

int fleet_pairs_rounds(int n)
{
	return n < 2 ? 0 : n % 2 ? n : n - 1;
}

/* Positions 0..m-2 turn around the fixed position m-1 (m even: a rank that does not exist
 * for odd n, whose partner sits out). In round r, m-1 meets r and i meets 2r - i mod m-1:
 * i + j = 2r has one solution r for every pair because m-1 is odd. */
int fleet_pairs_partner(int n, int round, int rank)
{
	int m = n % 2 ? n + 1 : n, ring = m - 1, p;

	if (n < 2 || rank < 0 || rank >= n || round < 0 || round >= ring)
		return -1;
	if (rank == ring)
		p = round;
	else if (rank == round)
		p = ring;
	else
		p = ((2 * round - rank) % ring + ring) % ring;
	return p >= n ? -1 : p;
}

int fleet_pairs_rounds_for(int n, int cap)
{
	int all = fleet_pairs_rounds(n);

	if (cap <= 0)
		cap = n <= FLEET_PAIRS_ALL_UP_TO ? all : FLEET_PAIRS_DEFAULT_ROUNDS;
	return cap < all ? cap : all;
}

static const struct fleet_pair *sort_pairs; /* cd_qsort has no user pointer */

static int cmp_slowest(const void *x, const void *y)
{
	const struct fleet_pair *a = &sort_pairs[*(const size_t *)x], *b = &sort_pairs[*(const size_t *)y];
	if (a->busbw != b->busbw)
		return (a->busbw > b->busbw) - (a->busbw < b->busbw);
	return a->round != b->round ? a->round - b->round : a->a - b->a;
}

static int name_order(const char *a, const char *b)
{
	int c = fleet_name_cmp(a, b);
	return c ? c : strcmp(a, b);
}

static int cmp_name(const void *x, const void *y)
{
	return name_order(*(const char *const *)x, *(const char *const *)y);
}

/* A slow pair's share of its class median, filed under one of its nodes. */
struct share {
	size_t node;
	double ratio;
	bool inter;
};

static int cmp_share(const void *x, const void *y)
{
	const struct share *a = x, *b = y;
	if (a->node != b->node)
		return (a->node > b->node) - (a->node < b->node);
	return (a->ratio > b->ratio) - (a->ratio < b->ratio);
}

static struct fleet_pairs_node *node_of(struct fleet_pairs_judgement *j, const char *name)
{
	size_t lo = 0, hi = j->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_order(j->nodes[mid].name, name);
		if (c == 0)
			return &j->nodes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int spread_classes(const struct fleet_pair *p, size_t n, struct fleet_pairs_judgement *j)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	int rc = CD_OK;

	if (!v)
		return CD_ENOMEM;
	for (int c = 0; c < 2 && rc == CD_OK; c++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (p[i].busbw >= 0 && j->cls_of[i] == (enum fleet_pair_class)c)
				v[k++] = p[i].busbw;
		j->cls[c].n = k;
		j->cls[c].judged = k >= FLEET_PAIRS_MIN_SAMPLES;
		if (k)
			rc = fleet_spread_of(v, k, &j->cls[c].sp);
	}
	free(v);
	return rc;
}

/* Each node's pairs and slow pairs; the ratio is the median of its slow pairs' share of
 * their class median. An intra-node pair counts once for its node. */
static int judge_nodes(const struct fleet_pair *p, size_t n, struct fleet_pairs_judgement *j)
{
	size_t cap = n ? 2 * n : 1, k = 0, ns = 0;
	const char **names = malloc(cap * sizeof *names);
	struct share *sh = malloc(cap * sizeof *sh);
	int rc = CD_OK;

	if (!names || !sh) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (p[i].busbw >= 0) {
			names[k++] = p[i].node_a;
			names[k++] = p[i].node_b;
		}
	cd_qsort(names, k, sizeof *names, cmp_name);
	if (k && !(j->nodes = calloc(k, sizeof *j->nodes))) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < k; i++)
		if (j->n_nodes == 0 || strcmp(j->nodes[j->n_nodes - 1].name, names[i]) != 0)
			j->nodes[j->n_nodes++].name = names[i];
	for (size_t i = 0; i < n; i++) {
		struct fleet_pairs_node *side[2];
		const struct fleet_pairs_class *c = &j->cls[j->cls_of[i]];
		if (p[i].busbw < 0)
			continue;
		side[0] = node_of(j, p[i].node_a);
		side[1] = node_of(j, p[i].node_b);
		for (int s = 0; s < 2; s++) {
			struct fleet_pairs_node *x = side[s];
			if (!x || (s == 1 && side[1] == side[0]))
				continue;
			x->pairs++;
			if (!j->slow[i])
				continue;
			x->slow++;
			sh[ns++] = (struct share){ (size_t)(x - j->nodes), c->sp.median > 0 ? p[i].busbw / c->sp.median : 0,
						   j->cls_of[i] == FLEET_PAIR_INTER };
		}
	}
	cd_qsort(sh, ns, sizeof *sh, cmp_share);
	for (size_t i = 0, e; i < ns; i = e) {
		struct fleet_pairs_node *x = &j->nodes[sh[i].node];
		size_t m, inter = 0;
		for (e = i; e < ns && sh[e].node == sh[i].node; e++)
			inter += sh[e].inter;
		m = e - i;
		x->ratio = m % 2 ? sh[i + m / 2].ratio : 0.5 * (sh[i + m / 2 - 1].ratio + sh[i + m / 2].ratio);
		x->cls = 2 * inter >= m ? FLEET_PAIR_INTER : FLEET_PAIR_INTRA;
		x->slow_node = 2 * x->slow > x->pairs;
	}
	for (size_t i = 0; i < n; i++) {
		const struct fleet_pairs_node *a, *b;
		if (p[i].busbw < 0)
			continue;
		a = node_of(j, p[i].node_a);
		b = node_of(j, p[i].node_b);
		j->explained[i] = (a && a->slow_node) || (b && b->slow_node);
	}
out:
	free(names);
	free(sh);
	return rc;
}

int fleet_pairs_judge(const struct fleet_pair *p, size_t n, struct fleet_pairs_judgement *j)
{
	size_t cap = n ? n : 1;
	int rc;

	memset(j, 0, sizeof *j);
	j->cls_of = malloc(cap * sizeof *j->cls_of);
	j->z = calloc(cap, sizeof *j->z);
	j->slow = calloc(cap, sizeof *j->slow);
	j->explained = calloc(cap, sizeof *j->explained);
	j->order = malloc(cap * sizeof *j->order);
	if (!j->cls_of || !j->z || !j->slow || !j->explained || !j->order) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		bool same = p[i].node_a && p[i].node_b && strcmp(p[i].node_a, p[i].node_b) == 0;
		j->cls_of[i] = same ? FLEET_PAIR_INTRA : FLEET_PAIR_INTER;
	}
	if ((rc = spread_classes(p, n, j)) != CD_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct fleet_pairs_class *c = &j->cls[j->cls_of[i]];
		if (p[i].busbw < 0 || !c->judged)
			continue;
		j->z[i] = fleet_robust_z(&c->sp, p[i].busbw);
		j->slow[i] = j->z[i] < -FLEET_OUTLIER_Z;
		j->order[j->n_order++] = i;
	}
	/* unjudged classes are still ranked */
	for (size_t i = 0; i < n; i++)
		if (p[i].busbw >= 0 && !j->cls[j->cls_of[i]].judged)
			j->order[j->n_order++] = i;
	sort_pairs = p;
	cd_qsort(j->order, j->n_order, sizeof *j->order, cmp_slowest);
	rc = judge_nodes(p, n, j);
out:
	if (rc != CD_OK)
		fleet_pairs_judgement_free(j);
	return rc;
}

void fleet_pairs_judgement_free(struct fleet_pairs_judgement *j)
{
	free(j->cls_of);
	free(j->z);
	free(j->slow);
	free(j->explained);
	free(j->order);
	free(j->nodes);
	memset(j, 0, sizeof *j);
}
