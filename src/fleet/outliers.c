/* Outliers in what the nodes measured: per lab measurement or check load result (same name
 * and unit), the median and MAD over every GPU of every node, and the samples more than
 * FLEET_OUTLIER_Z robust scales away, with how far off they are. A check rate far below the
 * median is a slow GPU: fleet-check-slow, an error with its drain line. */
#include "fleet/judge.h"
#include "util/sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/hostlist.h"
#include "fleet/stats.h"
#include "rules/catalogue.h"
#include "util/err.h"
#include "util/str.h"

/* Fewer samples than this give no median worth comparing against. */
#define MIN_SAMPLES 3
/* Text rows per measurement; JSON lists every outlier. */
#define TEXT_ROWS 10

struct sentry {
	const struct fleet_sample *s;
	size_t node;
	double z;
};

static int cmp_metric(const void *a, const void *b)
{
	const struct sentry *x = a, *y = b;
	int c = strcmp(x->s->metric, y->s->metric);
	if (!c)
		c = strcmp(x->s->unit, y->s->unit);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static bool same_metric(const struct sentry *x, const struct sentry *y)
{
	return strcmp(x->s->metric, y->s->metric) == 0 && strcmp(x->s->unit, y->s->unit) == 0;
}

static int cmp_far(const void *a, const void *b)
{
	double x = fabs(((const struct sentry *)a)->z), y = fabs(((const struct sentry *)b)->z);
	return (x < y) - (x > y);
}

static void where(const struct fleet *f, const struct sentry *e, char *buf, size_t n)
{
	if (e->s->gpu >= 0)
		snprintf(buf, n, "%s GPU %d", f->nodes[e->node].name, e->s->gpu);
	else
		snprintf(buf, n, "%s", f->nodes[e->node].name);
}

/* The outlier table, opened at the first outlier so a fleet without any shows none. */
struct out_table {
	struct report_rec *top;
	struct report_rec tab;
	bool open;
};

static void open_table(struct out_table *t)
{
	static const char *const hdr[] = { "measurement", "node", "GPU", "value", "median", "off", "robust z" };

	if (t->open)
		return;
	report_rec_section(t->top, "Outliers (median and MAD per measurement)");
	report_rec_table(t->top, "outliers", 7, hdr, &t->tab);
	t->open = true;
}

/* The slow ones first (below the median), each side farthest first */
static int cmp_slow_first(const void *a, const void *b)
{
	const struct sentry *x = a, *y = b;

	if ((x->z < 0) != (y->z < 0))
		return x->z < 0 ? -1 : 1;
	return cmp_far(a, b);
}

/* e[0..n): one evidence line each on fd (the first TEXT_ROWS) and a row each in the table */
static int evidence_and_rows(const struct fleet *f, const struct sentry *e, size_t n, const struct fleet_spread *sp,
			     struct finding *fd, struct out_table *t)
{
	struct report_rec row;
	int rc = CD_OK;

	for (size_t i = 0; i < n; i++) {
		const struct sentry *o = &e[i];
		double off = sp->median != 0 ? 100.0 * (o->s->value - sp->median) / fabs(sp->median) : 0;
		char at[320];
		where(f, o, at, sizeof at);
		if (i < TEXT_ROWS)
			TRY(finding_evidence(fd, "%s: %.4g %s, %.1f%% %s the median %.4g (robust z %+.1f, MAD %.3g)", at,
					     o->s->value, o->s->unit, fabs(off), off < 0 ? "below" : "above", sp->median,
					     o->z, sp->mad));
		if (i < TEXT_ROWS)
			report_rec_item(&t->tab, &row);
		else
			report_rec_item_json(&t->tab, &row); /* a row of JSON only: the text shows the first */
		report_field(&row, "measurement", "metric", rv_str(o->s->metric));
		report_field(&row, "node", "node", rv_str(f->nodes[o->node].name));
		if (o->s->gpu >= 0)
			report_field(&row, "GPU", "gpu", rv_int(o->s->gpu));
		else
			report_fieldf(&row, "GPU", "gpu", rv_null(), "-");
		report_fieldf(&row, "value", "value", rv_real(o->s->value), "%.4g %s", o->s->value, o->s->unit);
		report_field(&row, NULL, "unit", rv_str(o->s->unit));
		report_fieldf(&row, "median", "median", rv_real(sp->median), "%.4g", sp->median);
		report_field(&row, NULL, "mad", rv_real(sp->mad));
		report_fieldf(&row, "off", "off_percent", rv_real(off), "%+.1f%%", off);
		report_fieldf(&row, "robust z", "robust_z", rv_real(o->z), "%+.1f", o->z);
		TRY(report_rec_end(&row));
	}
	if (n > TEXT_ROWS)
		TRY(finding_evidence(fd, "and %zu more (--json lists them)", n - TEXT_ROWS));
out:
	return rc;
}

/* check's load rates far below the fleet's median: the GPUs named, their nodes marked for
 * the Slurm lines (slow[node]), and a drain line of their own */
static int slow_gpus(const struct fleet *f, const struct sentry *e, size_t n, size_t n_all,
		     const struct fleet_spread *sp, bool *slow, size_t *idx, struct out_table *t, struct report *r)
{
	struct finding_vars v;
	struct finding *fd;
	char *list = NULL;
	int rc = CD_OK;

	for (size_t i = 0; i < n; i++) {
		idx[i] = e[i].node;
		if (slow)
			slow[e[i].node] = true;
	}
	TRY(fleet_hostlist_of(f, idx, n, &list));
	finding_vars_init(&v);
	finding_var(&v, "metric", "%s", e[0].s->metric + strlen(FLEET_CHECK_METRIC));
	finding_var(&v, "count", "%zu", n);
	finding_var(&v, "total", "%zu", n_all);
	finding_var(&v, "median", "%.4g", sp->median);
	finding_var(&v, "unit", "%s", e[0].s->unit);
	finding_var(&v, "nodes", "%s", list);
	fd = finding_make(r, SEV_CATALOGUE, "fleet-check-slow", list, &v);
	if (!fd) {
		rc = CD_ENOMEM;
		goto out;
	}
	TRY(evidence_and_rows(f, e, n, sp, fd, t));
out:
	free(list);
	return rc;
}

/* One measurement's samples e[0..n): its spread, and a finding when some are far off. */
static int one_metric(const struct fleet *f, struct sentry *e, size_t n, struct out_table *t, struct report *r,
		      bool *slow)
{
	double *v = malloc(n * sizeof *v);
	size_t *idx = malloc(n * sizeof *idx), n_out = 0, n_slow = 0;
	struct fleet_spread sp;
	struct finding_vars fv;
	struct finding *fd;
	char *list = NULL, lab[64];
	int rc = CD_OK;

	if (!v || !idx) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = e[i].s->value;
	TRY(fleet_spread_of(v, n, &sp));
	for (size_t i = 0; i < n; i++) {
		e[i].z = fleet_robust_z(&sp, e[i].s->value);
		if (fabs(e[i].z) > FLEET_OUTLIER_Z)
			e[n_out++] = e[i]; /* compacts the outliers to the front; the rest is done with */
	}
	if (n_out == 0)
		goto out;
	open_table(t);
	if (strncmp(e[0].s->metric, FLEET_CHECK_METRIC, strlen(FLEET_CHECK_METRIC)) == 0) {
		/* a check rate: the slow GPUs are their own finding, the fast ones stay outliers */
		cd_qsort(e, n_out, sizeof *e, cmp_slow_first);
		while (n_slow < n_out && e[n_slow].z < 0)
			n_slow++;
		if (n_slow)
			TRY(slow_gpus(f, e, n_slow, n, &sp, slow, idx, t, r));
		e += n_slow;
		n_out -= n_slow;
		if (n_out == 0)
			goto out;
	} else
		cd_qsort(e, n_out, sizeof *e, cmp_far);
	for (size_t i = 0; i < n_out; i++)
		idx[i] = e[i].node;
	TRY(fleet_hostlist_of(f, idx, n_out, &list));
	snprintf(lab, sizeof lab, "%.*s", (int)strcspn(e[0].s->metric, ":"), e[0].s->metric);
	/* a check number is measured again by check, a lab's by its lab */
	finding_vars_init(&fv);
	finding_var(&fv, "metric", "%s", e[0].s->metric);
	finding_var(&fv, "count", "%zu", n_out);
	finding_var(&fv, "total", "%zu", n);
	finding_var(&fv, "median", "%.4g", sp.median);
	finding_var(&fv, "unit", "%s", e[0].s->unit);
	finding_var(&fv, "nodes", "%s", list);
	finding_var(&fv, "lab", "%s", lab);
	finding_flag(&fv, "check", strcmp(lab, "check") == 0);
	fd = finding_make(r, SEV_CATALOGUE, "fleet-outlier", list, &fv);
	if (!fd) {
		rc = CD_ENOMEM;
		goto out;
	}
	TRY(evidence_and_rows(f, e, n_out, &sp, fd, t));
out:
	free(list);
	free(idx);
	free(v);
	return rc;
}

int fleet_judge_outliers(const struct fleet *f, struct report_rec *top, struct report *r, bool *slow)
{
	struct out_table t = { .top = top };
	struct sentry *e = NULL;
	size_t n = 0, metrics = 0;
	int rc = CD_OK, end;

	for (size_t i = 0; i < f->n_nodes; i++)
		n += f->nodes[i].n_samples;
	if (n && !(e = malloc(n * sizeof *e)))
		return CD_ENOMEM;
	n = 0;
	for (size_t i = 0; i < f->n_nodes; i++)
		for (size_t k = 0; k < f->nodes[i].n_samples; k++)
			e[n++] = (struct sentry){ &f->nodes[i].samples[k], i, 0 };
	if (n)
		cd_qsort(e, n, sizeof *e, cmp_metric);
	for (size_t i = 0, j; i < n && rc == CD_OK; i = j) {
		for (j = i + 1; j < n && same_metric(&e[i], &e[j]); j++)
			;
		if (j - i >= MIN_SAMPLES) {
			metrics++;
			rc = one_metric(f, e + i, j - i, &t, r, slow);
		}
	}
	free(e);
	if (t.open) {
		/* ended either way: the record frees its cells; the first error wins */
		end = report_rec_end(&t.tab);
		return rc != CD_OK ? rc : end;
	}
	if (rc == CD_OK && metrics)
		report_rec_line(top, "lab numbers: no outlier in %zu measurement%s", metrics, metrics == 1 ? "" : "s");
	if (rc == CD_OK) {
		struct report_rec none; /* "outliers": [] */

		report_rec_array(top, "outliers", &none);
		rc = report_rec_end(&none);
	}
	return rc;
}
