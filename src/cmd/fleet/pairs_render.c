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

/* One pair as its row and its object show it (docs/json.md nccl_pairs.pairs[]). */
struct pair_row {
	unsigned long long valid[1];
	const struct joined *j;
	const char *cls;
	double pct, z;             /* PR_PCT, PR_Z */
	bool slow;
	const char *verdict;       /* failed, slow, ok */
};

enum { PR_BUSBW, PR_PCT, PR_Z };

#define PR(m) offsetof(struct pair_row, m)

static bool pair_int(int v, struct field_value *out)
{
	out->kind = FV_INT;
	out->i = v;
	return true;
}

static bool round_of(const void *o, struct field_value *v) { const struct pair_row *x = o; return pair_int(x->j->p.round + 1, v); }
static bool rank_a(const void *o, struct field_value *v) { const struct pair_row *x = o; return pair_int(x->j->p.a, v); }
static bool rank_b(const void *o, struct field_value *v) { const struct pair_row *x = o; return pair_int(x->j->p.b, v); }

static bool str_of(const char *s, struct field_value *v)
{
	v->kind = FV_STR;
	v->s = s;
	return s != NULL;
}

static bool node_a(const void *o, struct field_value *v) { return str_of(((const struct pair_row *)o)->j->p.node_a, v); }
static bool node_b(const void *o, struct field_value *v) { return str_of(((const struct pair_row *)o)->j->p.node_b, v); }
static bool error_of(const void *o, struct field_value *v) { return str_of(((const struct pair_row *)o)->j->error, v); }

static bool real_of(double d, struct field_value *v)
{
	v->kind = FV_REAL;
	v->d = d;
	return true;
}

static bool seconds_of(const void *o, struct field_value *v) { return real_of(((const struct pair_row *)o)->j->seconds, v); }

static bool busbw_of(const void *o, struct field_value *v)
{
	const struct pair_row *x = o;

	return x->j->p.busbw >= 0 && real_of(x->j->p.busbw, v);
}

static const char *pair_text(const void *o, char *buf, size_t cap)
{
	const struct fleet_pair *p = &((const struct pair_row *)o)->j->p;

	snprintf(buf, cap, "%d (%.60s) - %d (%.60s)", p->a, p->node_a, p->b, p->node_b);
	return buf;
}

static void busbw_text(const void *o, char *buf, size_t len)
{
	snprintf(buf, len, "%.3g GB/s", ((const struct pair_row *)o)->j->p.busbw);
}

static void pct_text(const void *o, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f%%", ((const struct pair_row *)o)->pct);
}

static void z_text(const void *o, char *buf, size_t len)
{
	snprintf(buf, len, "%+.1f", ((const struct pair_row *)o)->z);
}

static const struct field pair_fields[] = {
	{ .key = "round", .label = "round", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .get = round_of },
	{ .label = "pair", .kind = FK_TEXT, .valid = FIELD_ALWAYS, .views = FIELD_ALL, .string = pair_text },
	{ .key = "rank_a", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = rank_a },
	{ .key = "node_a", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = node_a },
	{ .key = "rank_b", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = rank_b },
	{ .key = "node_b", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = node_b },
	{ .key = "class", .label = "class", .kind = FK_CSTR, .off = PR(cls), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
	{ .key = "seconds", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = seconds_of },
	{ .key = "busbw_gbs", .label = "busbw", .kind = FK_CALC, .valid = FIELD_ALWAYS, .views = FIELD_ALL,
	  .get = busbw_of, .text = busbw_text },
	{ .key = "percent_of_median", .label = "of median", .kind = FK_DOUBLE, .off = PR(pct), .valid = PR_PCT,
	  .views = FIELD_ALL, .text = pct_text },
	{ .key = "robust_z", .label = "robust z", .kind = FK_DOUBLE, .off = PR(z), .valid = PR_Z, .views = FIELD_ALL,
	  .text = z_text },
	{ .key = "slow", .kind = FK_BOOL, .off = PR(slow), .valid = FIELD_ALWAYS },
	{ .key = "error", .kind = FK_CALC, .valid = FIELD_ALWAYS, .get = error_of },
	{ .label = "verdict", .kind = FK_CSTR, .off = PR(verdict), .valid = FIELD_ALWAYS, .views = FIELD_ALL },
};

static const struct field_table pair_table = {
	"nccl_pairs.pairs[]", pair_fields, sizeof pair_fields / sizeof pair_fields[0], offsetof(struct pair_row, valid),
	NULL, NULL,
};

/* Pair i's row: its busbw against its class's median and robust z, where the class is judged. */
static void pair_row_of(struct pair_row *x, const struct joined *j, const struct fleet_pairs_judgement *v, size_t i)
{
	const struct fleet_pairs_class *c = &v->cls[v->cls_of[i]];
	bool measured = j->p.busbw >= 0;

	memset(x, 0, sizeof *x);
	x->j = j;
	x->cls = class_name[v->cls_of[i]];
	x->slow = v->slow[i];
	x->verdict = !measured ? "failed" : v->slow[i] ? "slow" : "ok";
	if (measured && c->judged && c->sp.median > 0) {
		x->pct = 100.0 * j->p.busbw / c->sp.median;
		x->valid[0] |= 1ull << PR_PCT;
	}
	if (measured && c->judged) {
		x->z = v->z[i];
		x->valid[0] |= 1ull << PR_Z;
	}
}

/* Pair i as the next row of tab (or, past the text's rows, its JSON only). */
static void pair_item(struct report_rec *tab, const struct joined *j, const struct fleet_pairs_judgement *v,
		      size_t i, size_t *shown)
{
	struct report_rec row;
	struct pair_row x;

	pair_row_of(&x, j, v, i);
	if ((*shown)++ < TEXT_ROWS)
		report_rec_item(tab, &row);
	else
		report_rec_item_json(tab, &row);
	report_fields(&row, &pair_table, &x, FIELD_ALL);
	if (report_rec_end(&row) != CD_OK)
		return; /* the failure is tab's now */
}

/* The slow nodes (slow in most of their pairs), one finding naming them all. */
static int slow_nodes(struct report *r, const struct fleet_pairs_judgement *v, struct report_rec *arr)
{
	const char **names = malloc((v->n_nodes ? v->n_nodes : 1) * sizeof *names);
	struct report_rec it;
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
		report_rec_item(arr, &it);
		report_rec_line(&it, "slow node %s: %zu of %zu pairs at %.0f%% of the median %s busbw", x->name, x->slow,
				x->pairs, 100.0 * x->ratio, class_name[x->cls]);
		report_field(&it, NULL, "node", rv_str(x->name));
		report_field(&it, NULL, "pairs", rv_int((long long)x->pairs));
		report_field(&it, NULL, "slow_pairs", rv_int((long long)x->slow));
		report_field(&it, NULL, "percent_of_median", rv_real(100.0 * x->ratio));
		report_field(&it, NULL, "class", rv_str(class_name[x->cls]));
		TRY(report_rec_end(&it));
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

static int render_run(struct report_rec *o, const struct fleet_pairs_result *res)
{
	const char *hdr[8];
	size_t ncols = report_fields_headers(&pair_table, FIELD_ALL, hdr, 8);
	struct report *r = o->r;
	struct report_rec classes, k, slow, tab;
	struct joined *jp = NULL;
	struct fleet_pair *pp = NULL;
	struct fleet_pairs_judgement v = { 0 };
	size_t cap = (size_t)res->rounds_done * (size_t)(res->plan.nranks / 2) + 1, n, shown = 0;
	int rc = CD_OK;

	if (!(jp = calloc(cap, sizeof *jp)) || !(pp = calloc(cap, sizeof *pp))) {
		rc = CD_ENOMEM;
		goto out;
	}
	n = join_pairs(res, jp);
	for (size_t i = 0; i < n; i++)
		pp[i] = jp[i].p;
	TRY(fleet_pairs_judge(pp, n, &v));
	report_rec_object(o, "classes", &classes);
	for (int c = 0; c < 2; c++) {
		const struct fleet_pairs_class *x = &v.cls[c];
		if (x->n == 0)
			continue;
		report_rec_object(&classes, class_name[c], &k);
		if (x->judged)
			report_rec_line(&k, "%s pairs: %zu, median busbw %.3g GB/s, MAD %.3g", class_name[c], x->n,
					x->sp.median, x->sp.mad);
		else
			report_rec_line(&k, "%s pairs: %zu, median busbw %.3g GB/s (too few to judge against)", class_name[c],
					x->n, x->sp.median);
		report_field(&k, NULL, "pairs", rv_int((long long)x->n));
		report_field(&k, NULL, "judged", rv_bool(x->judged));
		report_field(&k, NULL, "median_busbw_gbs", rv_real(x->sp.median));
		report_field(&k, NULL, "mad_gbs", rv_real(x->sp.mad));
		TRY(report_rec_end(&k));
	}
	TRY(report_rec_end(&classes));
	report_rec_array(o, "slow_nodes", &slow);
	TRY(slow_nodes(r, &v, &slow));
	TRY(report_rec_end(&slow));
	TRY(slow_pairs(r, jp, &v));
	report_rec_table(o, "pairs", ncols, hdr, &tab);
	/* failed pairs first (the slowest of all), then the measured ones slowest first */
	for (size_t i = 0; i < n; i++) {
		if (jp[i].p.busbw >= 0)
			continue;
		TRY(pair_failed(r, res, &jp[i]));
		pair_item(&tab, &jp[i], &v, i, &shown);
	}
	for (size_t m = 0; m < v.n_order; m++)
		pair_item(&tab, &jp[v.order[m]], &v, v.order[m], &shown);
	TRY(report_rec_end(&tab));
	if (shown > TEXT_ROWS)
		report_rec_line(o, "and %zu more pairs (--json lists them)", shown - TEXT_ROWS);
out:
	fleet_pairs_judgement_free(&v);
	free(pp);
	free(jp);
	return rc;
}

int fleet_pairs_render(struct report *r, const struct fleet_pairs_result *res)
{
	const struct fleet_pairs_plan *p = &res->plan;
	struct report_rec top, o;
	char size[UNITS_BUF], what[512];
	int rc = CD_OK;

	units_fmt_bytes((uint64_t)p->bytes, size, sizeof size);
	report_rec_top(&top, r);
	report_rec_object(&top, "nccl_pairs", &o);
	report_field(&o, NULL, "nranks", rv_int(p->nranks));
	report_field(&o, NULL, "ran", rv_bool(p->go));
	report_field(&o, NULL, "why", rv_str(p->go ? NULL : p->why));
	report_field(&o, NULL, "bytes", rv_int((long long)p->bytes));
	report_field(&o, NULL, "rounds", rv_int(p->rounds));
	report_field(&o, NULL, "rounds_done", rv_int(res->rounds_done));
	report_field(&o, NULL, "stopped", rv_str(res->stopped[0] ? res->stopped : NULL));
	if (!p->go) {
		report_rec_section(&o, "NCCL pairs across %d ranks", p->nranks);
		report_rec_line(&o, "not run: %s", p->why);
		snprintf(what, sizeof what, "the NCCL pairs did not run: %s", p->why);
		TRY(fleet_nccl_failed(r, p->nranks, true, "fleet", what));
	} else {
		report_rec_section(&o, "NCCL pairs across %d ranks: %d of %d rounds, a %s all-reduce per pair (float, sum)",
				   p->nranks, res->rounds_done, fleet_pairs_rounds(p->nranks), size);
		if (res->stopped[0]) {
			report_rec_line(&o, "stopped at %s", res->stopped);
			snprintf(what, sizeof what, "the NCCL pairs stopped at %s", res->stopped);
			TRY(fleet_nccl_failed(r, p->nranks, true, "fleet", what));
		}
		TRY(render_run(&o, res));
	}
	TRY(report_rec_end(&o));
	rc = report_rec_end(&top);
out:
	return rc;
}
