/* Prometheus renderer: doctor's and devices' findings and facts as metrics in the text
 * exposition format, for node_exporter's textfile collector (docs/prometheus.md). The
 * facts come from the records written from field tables (r->facts): the metric of a field
 * is described beside its JSON key, so a metric always says what --json says. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/render.h"
#include "report/render_internal.h"
#include "util/err.h"

#ifndef CUDOCTOR_VERSION
#define CUDOCTOR_VERSION "0.0.0"
#endif

/* A label value or HELP text: backslash, double quote (labels only) and newline escaped,
 * as the exposition format asks. */
static void put_escaped(const char *s, bool label, FILE *out)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && label)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

static void put_family(const char *name, const char *type, const char *help, FILE *out)
{
	fprintf(out, "# HELP %s ", name);
	put_escaped(help, false, out);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* name{k1="v1",...} value; labels: NULL-terminated name/value pairs, NULL values left out */
static void put_sample(const char *name, const char *const *labels, double value, FILE *out)
{
	bool first = true;

	fputs(name, out);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!labels[i + 1])
			continue;
		fprintf(out, "%s%s=\"", first ? "{" : ",", labels[i]);
		put_escaped(labels[i + 1], true, out);
		fputc('"', out);
		first = false;
	}
	if (!first)
		fputc('}', out);
	if (isnan(value))
		fputs(" NaN\n", out);
	else if (value == floor(value) && fabs(value) < 1e15)
		fprintf(out, " %.0f\n", value);
	else
		fprintf(out, " %.17g\n", value);
}

/* The labels a fact's samples carry: its FIELD_PROM_ID fields (all its prom_label fields
 * for the info metric), then one more pair; NULL values are left out by put_sample. */
#define MAX_LABELS 16
static void fact_labels(const struct report_fact *fc, bool info, const char *extra, const char *extra_value,
			const char **labels)
{
	size_t n = 0;

	for (size_t i = 0; i < fc->table->n && n + 4 < 2 * MAX_LABELS; i++) {
		const struct field *f = &fc->table->fields[i];
		if (!f->prom_label || !(info || (f->flags & FIELD_PROM_ID)))
			continue;
		labels[n++] = f->prom_label;
		labels[n++] = fc->label[i];
	}
	if (extra) {
		labels[n++] = extra;
		labels[n++] = extra_value;
	}
	labels[n] = NULL;
}

/* Whether the record knows any of its info labels: an info sample without them says nothing. */
static bool any_label(const struct report_fact *fc)
{
	for (size_t i = 0; i < fc->table->n; i++)
		if (fc->label[i])
			return true;
	return false;
}

/* Whether table t was met before fact k (its metrics were written then). */
static bool table_seen(const struct report *r, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (r->facts[j].table == r->facts[k].table)
			return true;
	return false;
}

/* A metric family: the first field of t with this metric name that carries the help. */
static const struct field_metric *family_head(const struct field_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fields[i].metric && strcmp(t->fields[i].metric->name, name) == 0 && t->fields[i].metric->help)
			return t->fields[i].metric;
	return NULL;
}

/* Every metric of table t: its info metric, then each family with a sample per record
 * (and per field of the family) whose value is known. */
static void table_metrics(const struct report *r, const struct field_table *t, FILE *out)
{
	const char *labels[2 * MAX_LABELS + 1];
	bool any = false;

	for (size_t k = 0; t->info_metric && k < r->n_facts; k++) {
		const struct report_fact *fc = &r->facts[k];
		if (fc->table != t || !any_label(fc))
			continue;
		if (!any)
			put_family(t->info_metric, "gauge", t->info_help, out);
		any = true;
		fact_labels(fc, true, NULL, NULL, labels);
		put_sample(t->info_metric, labels, 1, out);
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct field_metric *head = t->fields[i].metric ? family_head(t, t->fields[i].metric->name) : NULL;

		/* a family is written once, at its head field */
		if (!head || head != t->fields[i].metric)
			continue;
		any = false;
		for (size_t f = i; f < t->n; f++) {
			const struct field_metric *m = t->fields[f].metric;
			if (!m || strcmp(m->name, head->name) != 0)
				continue;
			for (size_t k = 0; k < r->n_facts; k++) {
				const struct report_fact *fc = &r->facts[k];
				if (fc->table != t || isnan(fc->num[f]))
					continue;
				if (!any)
					put_family(head->name, head->type, head->help, out);
				any = true;
				fact_labels(fc, false, m->label, m->label_value, labels);
				put_sample(m->name, labels, fc->num[f] * (m->scale ? m->scale : 1), out);
			}
		}
	}
}

static void findings(const struct report *r, FILE *out)
{
	size_t by_sev[4] = { 0 };

	put_family("cudoctor_findings", "gauge",
		   "Findings of this report by id and severity (ids are listed in docs/findings.md).", out);
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct finding *f = &r->findings[i];
		size_t n = 0;
		bool seen = false;

		by_sev[f->severity]++;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(r->findings[k].id, f->id) == 0 && r->findings[k].severity == f->severity;
		if (seen)
			continue;
		for (size_t k = i; k < r->n_findings; k++)
			n += strcmp(r->findings[k].id, f->id) == 0 && r->findings[k].severity == f->severity;
		const char *labels[] = { "id", f->id, "severity", severity_name(f->severity), NULL };
		put_sample("cudoctor_findings", labels, (double)n, out);
	}
	put_family("cudoctor_findings_by_severity", "gauge", "How many findings of each severity this report has.", out);
	for (int s = SEV_ERROR; s >= SEV_OK; s--) {
		const char *labels[] = { "severity", severity_name((enum severity)s), NULL };

		put_sample("cudoctor_findings_by_severity", labels, (double)by_sev[s], out);
	}
}

int render_prometheus_facts(const struct report *r, FILE *out)
{
	for (size_t k = 0; k < r->n_facts; k++)
		if (!table_seen(r, k))
			table_metrics(r, r->facts[k].table, out);
	return ferror(out) ? CD_EIO : CD_OK;
}

int render_prometheus(const struct report *r, const struct render_opts *o, FILE *out)
{
	const char *version = CUDOCTOR_VERSION;

	(void)o;
	put_family("cudoctor_up", "gauge", "1: cudoctor ran to the end and wrote this report.", out);
	{
		const char *labels[] = { "command", r->command, NULL };

		put_sample("cudoctor_up", labels, 1, out);
	}
	put_family("cudoctor_build_info", "gauge", "The cudoctor that wrote this report.", out);
	{
		const char *labels[] = { "version", version, NULL };

		put_sample("cudoctor_build_info", labels, 1, out);
	}
	findings(r, out);
	return render_prometheus_facts(r, out);
}
