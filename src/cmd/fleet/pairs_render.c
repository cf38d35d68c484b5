/* `cudoctor fleet --nccl=pairs`'s part of rank 0's report: every pair's busbw ranked slowest
 * first, the spread of each class (intra-node, inter-node), the slow nodes and the slow pairs
 * that no slow node explains (judged by fleet/pairs.c), and a finding for each pair whose
 * NCCL failed, naming the call and NCCL's code. */
#include "cmd/fleet/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/hostlist.h"
#include "fleet/judge.h"
#include "fleet/pairs.h"
#include "lab/nccl_judge.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/units.h"

/* Text rows of the ranking; JSON lists every pair. */
#define TEXT_ROWS 30

static const char *const class_name[] = { [FLEET_PAIR_INTRA] = "intra-node", [FLEET_PAIR_INTER] = "inter-node" };

/* A pair as rank 0 saw it: both sides' records joined. */
struct joined {
	struct fleet_pair p;
	double seconds;
	char error[512];   /* "" when both sides ran and agreed; else which rank said what */
};

static void join_error(struct joined *j, const struct fleet_pairs_rec *ra, const struct fleet_pairs_rec *rb)
{
	size_t len = 0;

	for (int s = 0; s < 2; s++) {
		const struct fleet_pairs_rec *x = s ? rb : ra;
		if (x->error[0] && len < sizeof j->error)
			len += (size_t)snprintf(j->error + len, sizeof j->error - len, "%srank %d: %s", len ? "; " : "",
						s ? j->p.b : j->p.a, x->error);
	}
	if (!len && (ra->wrong || rb->wrong))
		snprintf(j->error, sizeof j->error, "a result differs from the expected sum");
}

static size_t join_pairs(const struct fleet_pairs_result *res, struct joined *out)
{
	const struct fleet_pairs_plan *pl = &res->plan;
	size_t n = 0;

	for (int k = 0; k < res->rounds_done; k++)
		for (int a = 0; a < pl->nranks; a++) {
			const struct fleet_pairs_rec *ra = &res->recs[(size_t)k * (size_t)pl->nranks + (size_t)a], *rb;
			int b = ra->partner;
			struct joined *j = &out[n];
			if (b <= a || b >= pl->nranks)
				continue;
			rb = &res->recs[(size_t)k * (size_t)pl->nranks + (size_t)b];
			memset(j, 0, sizeof *j);
			j->p = (struct fleet_pair){ k, a, b, res->ranks[a].node, res->ranks[b].node, -1 };
			j->seconds = ra->seconds > rb->seconds ? ra->seconds : rb->seconds;
			join_error(j, ra, rb);
			if (!j->error[0] && j->seconds > 0)
				j->p.busbw = (double)pl->bytes / j->seconds * nccl_bus_factor(NCCL_ALL_REDUCE, 2) / 1e9;
			n++;
		}
	return n;
}

static int pair_failed(struct report *r, const struct fleet_pairs_result *res, const struct joined *j)
{
	char subj[160], what[640];

	snprintf(subj, sizeof subj, "%.60s rank %d, %.60s rank %d", j->p.node_a, j->p.a, j->p.node_b, j->p.b);
	snprintf(what, sizeof what, "the NCCL pair exchange of round %d failed: %s", j->p.round + 1, j->error);
	return fleet_nccl_failed(r, res->plan.nranks, true, subj, what);
}

static json_t *pair_json(const struct joined *j, const struct fleet_pairs_judgement *v, size_t i)
{
	const struct fleet_pairs_class *c = &v->cls[v->cls_of[i]];
	bool measured = j->p.busbw >= 0;

	return json_pack("{s:i, s:i, s:s, s:i, s:s, s:s, s:f, s:o, s:o, s:o, s:b, s:s}", "round", j->p.round + 1,
			 "rank_a", j->p.a, "node_a", j->p.node_a, "rank_b", j->p.b, "node_b", j->p.node_b, "class",
			 class_name[v->cls_of[i]], "seconds", j->seconds,
			 "busbw_gbs", measured ? json_real(j->p.busbw) : json_null(),
			 "percent_of_median",
			 measured && c->judged && c->sp.median > 0 ? json_real(100.0 * j->p.busbw / c->sp.median) : json_null(),
			 "robust_z", measured && c->judged ? json_real(v->z[i]) : json_null(), "slow", v->slow[i], "error",
			 j->error);
}

/* The slow nodes (slow in most of their pairs), one finding naming them all. */
static int slow_nodes(struct report *r, const struct fleet_pairs_judgement *v, json_t *arr)
{
	const char **names = malloc((v->n_nodes ? v->n_nodes : 1) * sizeof *names);
	struct finding_vars fv;
	struct finding *fd = NULL;
	char *list = NULL;
	size_t n = 0;
	int rc = CD_OK;

	if (!names)
		return CD_ENOMEM;
	for (size_t i = 0; i < v->n_nodes; i++)
		if (v->nodes[i].slow_node)
			names[n++] = v->nodes[i].name;
	if (n == 0)
		goto out;
	TRY(fleet_hostlist(names, n, &list));
	finding_vars_init(&fv);
	finding_var(&fv, "count", "%zu", n);
	finding_flag(&fv, "one", n == 1);
	finding_var(&fv, "nodes", "%s", list);
	if (!(fd = finding_make(r, SEV_CATALOGUE, "fleet-nccl-slow-node", list, &fv))) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < v->n_nodes; i++) {
		const struct fleet_pairs_node *x = &v->nodes[i];
		const struct fleet_pairs_class *c = &v->cls[x->cls];
		if (!x->slow_node)
			continue;
		TRY(finding_evidence(fd, "%s: %zu of %zu pairs at %.0f%% of the median %s busbw (%.3g GB/s)", x->name,
				     x->slow, x->pairs, 100.0 * x->ratio, class_name[x->cls], c->sp.median));
		TRY(report_line(r, "slow node %s: %zu of %zu pairs at %.0f%% of the median %s busbw", x->name, x->slow,
				x->pairs, 100.0 * x->ratio, class_name[x->cls]));
		if (json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:f, s:s}", "node", x->name, "pairs",
							 (json_int_t)x->pairs, "slow_pairs", (json_int_t)x->slow,
							 "percent_of_median", 100.0 * x->ratio, "class",
							 class_name[x->cls]))) {
			rc = CD_ENOMEM;
			goto out;
		}
	}
out:
	free(list);
	free(names);
	return rc;
}

/* Slow pairs between nodes that are not slow with their other partners: the link between them. */
static int slow_pairs(struct report *r, const struct joined *jp, const struct fleet_pairs_judgement *v)
{
	struct finding *fd = NULL;
	size_t shown = 0;
	int rc = CD_OK;

	for (size_t k = 0; k < v->n_order && rc == CD_OK; k++) {
		size_t i = v->order[k];
		const struct fleet_pairs_class *c = &v->cls[v->cls_of[i]];
		if (!v->slow[i] || v->explained[i])
			continue;
		if (!fd && !(fd = finding_make(r, SEV_CATALOGUE, "fleet-nccl-slow-pair", NULL, NULL))) {
			rc = CD_ENOMEM;
			break;
		}
		if (shown++ < TEXT_ROWS)
			rc = finding_evidence(fd, "round %d: rank %d (%s) - rank %d (%s): %.3g GB/s, %.0f%% of the median "
					      "%s busbw %.3g GB/s (robust z %+.1f)", jp[i].p.round + 1, jp[i].p.a,
					      jp[i].p.node_a, jp[i].p.b, jp[i].p.node_b, jp[i].p.busbw,
					      c->sp.median > 0 ? 100.0 * jp[i].p.busbw / c->sp.median : 0,
					      class_name[v->cls_of[i]], c->sp.median, v->z[i]);
	}
	return rc;
}

static int render_run(struct report *r, const struct fleet_pairs_result *res, json_t *j)
{
	static const char *const hdr[] = { "round", "pair", "class", "busbw", "of median", "robust z", "verdict" };
	struct joined *jp = NULL;
	struct fleet_pair *pp = NULL;
	struct fleet_pairs_judgement v = { 0 };
	json_t *pairs = json_array(), *slow = json_array(), *classes = json_object();
	size_t cap = (size_t)res->rounds_done * (size_t)(res->plan.nranks / 2) + 1, n, shown = 0;
	int rc = CD_OK;

	if (!pairs || !slow || !classes || !(jp = calloc(cap, sizeof *jp)) || !(pp = calloc(cap, sizeof *pp))) {
		rc = CD_ENOMEM;
		goto out;
	}
	n = join_pairs(res, jp);
	for (size_t i = 0; i < n; i++)
		pp[i] = jp[i].p;
	TRY(fleet_pairs_judge(pp, n, &v));
	for (int c = 0; c < 2; c++) {
		const struct fleet_pairs_class *k = &v.cls[c];
		if (k->n == 0)
			continue;
		if (k->judged)
			TRY(report_line(r, "%s pairs: %zu, median busbw %.3g GB/s, MAD %.3g", class_name[c], k->n,
					k->sp.median, k->sp.mad));
		else
			TRY(report_line(r, "%s pairs: %zu, median busbw %.3g GB/s (too few to judge against)", class_name[c],
					k->n, k->sp.median));
		if (json_object_set_new(classes, class_name[c],
					json_pack("{s:I, s:b, s:f, s:f}", "pairs", (json_int_t)k->n, "judged", k->judged,
						  "median_busbw_gbs", k->sp.median, "mad_gbs", k->sp.mad))) {
			rc = CD_ENOMEM;
			goto out;
		}
	}
	TRY(slow_nodes(r, &v, slow));
	TRY(slow_pairs(r, jp, &v));
	TRY(report_table(r, 7, hdr));
	/* failed pairs first (the slowest of all), then the measured ones slowest first */
	for (size_t i = 0; i < n; i++) {
		const char *cells[7];
		char round[16], pair[200];
		if (jp[i].p.busbw >= 0)
			continue;
		TRY(pair_failed(r, res, &jp[i]));
		if (json_array_append_new(pairs, pair_json(&jp[i], &v, i))) {
			rc = CD_ENOMEM;
			goto out;
		}
		if (shown++ >= TEXT_ROWS)
			continue;
		snprintf(round, sizeof round, "%d", jp[i].p.round + 1);
		snprintf(pair, sizeof pair, "%d (%.60s) - %d (%.60s)", jp[i].p.a, jp[i].p.node_a, jp[i].p.b, jp[i].p.node_b);
		cells[0] = round, cells[1] = pair, cells[2] = class_name[v.cls_of[i]];
		cells[3] = cells[4] = cells[5] = "-", cells[6] = "failed";
		TRY(report_table_row(r, cells));
	}
	for (size_t k = 0; k < v.n_order; k++) {
		size_t i = v.order[k];
		const struct fleet_pairs_class *c = &v.cls[v.cls_of[i]];
		const char *cells[7];
		char round[16], pair[200], bw[32], pct[16], z[16];
		if (json_array_append_new(pairs, pair_json(&jp[i], &v, i))) {
			rc = CD_ENOMEM;
			goto out;
		}
		if (shown++ >= TEXT_ROWS)
			continue;
		snprintf(round, sizeof round, "%d", jp[i].p.round + 1);
		snprintf(pair, sizeof pair, "%d (%.60s) - %d (%.60s)", jp[i].p.a, jp[i].p.node_a, jp[i].p.b, jp[i].p.node_b);
		snprintf(bw, sizeof bw, "%.3g GB/s", jp[i].p.busbw);
		snprintf(pct, sizeof pct, c->judged && c->sp.median > 0 ? "%.0f%%" : "-",
			 c->sp.median > 0 ? 100.0 * jp[i].p.busbw / c->sp.median : 0);
		snprintf(z, sizeof z, c->judged ? "%+.1f" : "-", v.z[i]);
		cells[0] = round, cells[1] = pair, cells[2] = class_name[v.cls_of[i]], cells[3] = bw, cells[4] = pct;
		cells[5] = z, cells[6] = v.slow[i] ? "slow" : "ok";
		TRY(report_table_row(r, cells));
	}
	if (shown > TEXT_ROWS)
		TRY(report_line(r, "and %zu more pairs (--json lists them)", shown - TEXT_ROWS));
	if (json_object_set(j, "classes", classes) || json_object_set(j, "pairs", pairs) ||
	    json_object_set(j, "slow_nodes", slow))
		rc = CD_ENOMEM;
out:
	fleet_pairs_judgement_free(&v);
	free(pp);
	free(jp);
	json_decref(pairs);
	json_decref(slow);
	json_decref(classes);
	return rc;
}

int fleet_pairs_render(struct report *r, const struct fleet_pairs_result *res)
{
	const struct fleet_pairs_plan *p = &res->plan;
	json_t *j = json_object();
	char size[UNITS_BUF], what[512];
	int rc = CD_OK;

	units_fmt_bytes((uint64_t)p->bytes, size, sizeof size);
	if (!j || json_object_set_new(j, "nranks", json_integer(p->nranks)) ||
	    json_object_set_new(j, "ran", json_boolean(p->go)) ||
	    json_object_set_new(j, "why", p->go ? json_null() : report_json_text(p->why)) ||
	    json_object_set_new(j, "bytes", json_integer((json_int_t)p->bytes)) ||
	    json_object_set_new(j, "rounds", json_integer(p->rounds)) ||
	    json_object_set_new(j, "rounds_done", json_integer(res->rounds_done)) ||
	    json_object_set_new(j, "stopped", res->stopped[0] ? report_json_text(res->stopped) : json_null())) {
		rc = CD_ENOMEM;
		goto out;
	}
	if (!p->go) {
		TRY(report_section(r, "NCCL pairs across %d ranks", p->nranks));
		TRY(report_line(r, "not run: %s", p->why));
		snprintf(what, sizeof what, "the NCCL pairs did not run: %s", p->why);
		TRY(fleet_nccl_failed(r, p->nranks, true, "fleet", what));
	} else {
		TRY(report_section(r, "NCCL pairs across %d ranks: %d of %d rounds, a %s all-reduce per pair (float, sum)",
				    p->nranks, res->rounds_done, fleet_pairs_rounds(p->nranks), size));
		if (res->stopped[0]) {
			TRY(report_line(r, "stopped at %s", res->stopped));
			snprintf(what, sizeof what, "the NCCL pairs stopped at %s", res->stopped);
			TRY(fleet_nccl_failed(r, p->nranks, true, "fleet", what));
		}
		TRY(render_run(r, res, j));
	}
	rc = report_json_set(r, "nccl_pairs", j);
	j = NULL;
out:
	json_decref(j);
	return rc;
}
