/* The fleet's store: nodes by name (hashed, so merging 10,000 reports stays linear), each
 * node's facts, findings and samples, and the inputs that were skipped or never came. */
#include "fleet/fleet.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/str.h"

/* Everything kept from a report or a rank is anyone's text: stored as safe text (the
 * report's own rule, report_text_take), so every renderer and the Prometheus files get it so. */
static char *text_dup(const char *s)
{
	return report_text_take(cd_strdup(s));
}

/* A node's facts, each its JSON key (nodes[].facts) and its text label (the heterogeneity
 * lines); a fact no report gave is null. */
#define FACT(k, key_, label_)                                                                                    \
	[k] = { .key = key_, .label = label_, .kind = FK_CSTR, .off = offsetof(struct fleet_node, facts) + (k) * sizeof(char *), \
		.valid = FIELD_ALWAYS, .views = FIELD_ALL, .flags = FIELD_EMPTY_KNOWN },
static const struct field fact_fields[FF_COUNT] = { FLEET_FACTS(FACT) };

const struct field_table fleet_fact_table = { "nodes[].facts", fact_fields, FF_COUNT, -1, NULL, NULL };

const char *fleet_fact_label(enum fleet_fact f)
{
	return f < FF_COUNT ? fact_fields[f].label : "?";
}

const char *fleet_fact_key(enum fleet_fact f)
{
	return f < FF_COUNT ? fact_fields[f].key : "?";
}

void fleet_init(struct fleet *f)
{
	memset(f, 0, sizeof *f);
}

/* The view: facts, findings, samples and failure (not the name, not the parts). */
static void view_free(struct fleet_node *n)
{
	for (int i = 0; i < FF_COUNT; i++)
		free(n->facts[i]);
	for (size_t i = 0; i < n->n_findings; i++) {
		free(n->findings[i].id);
		free(n->findings[i].title);
		free(n->findings[i].fix);
	}
	free(n->findings);
	strindex_free(&n->finding_ix);
	for (size_t i = 0; i < n->n_samples; i++) {
		free(n->samples[i].metric);
		free(n->samples[i].unit);
	}
	free(n->samples);
	free(n->failure);
	for (size_t i = 0; i < n->n_health; i++) {
		free(n->health[i].uuid);
		free(n->health[i].bus);
	}
	free(n->health);
	n->health = NULL;
	n->n_health = n->cap_health = 0;
	n->have_count = false;
	n->findings = NULL;
	n->samples = NULL;
	n->failure = NULL;
	n->n_findings = n->cap_findings = n->n_samples = n->cap_samples = 0;
	memset(n->facts, 0, sizeof n->facts);
}

static void node_free(struct fleet_node *n)
{
	free(n->name);
	view_free(n);
	for (int k = 0; k < FP_COUNT; k++) {
		if (n->part[k])
			node_free(n->part[k]);
		free(n->part[k]);
		free(n->part_date[k]);
	}
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		node_free(&f->nodes[i]);
	free(f->nodes);
	free(f->index);
	for (size_t i = 0; i < f->n_skipped; i++) {
		free(f->skipped[i].source);
		free(f->skipped[i].reason);
	}
	free(f->skipped);
	for (size_t i = 0; i < f->n_missing; i++)
		free(f->missing[i]);
	free(f->missing);
	memset(f, 0, sizeof *f);
}

/* Makes room for one more element of size sz in *arr. */
static int grow(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = arr;
	size_t nc;
	void *q;

	if (n < *cap)
		return CD_OK;
	nc = *cap ? *cap * 2 : 8;
	q = realloc(*p, nc * sz);
	if (!q)
		return CD_ENOMEM;
	*p = q;
	*cap = nc;
	return CD_OK;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int index_rebuild(struct fleet *f, size_t cap)
{
	size_t *t = calloc(cap, sizeof *t);

	if (!t)
		return CD_ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		size_t at = name_hash(f->nodes[i].name) & (cap - 1);
		while (t[at])
			at = (at + 1) & (cap - 1);
		t[at] = i + 1;
	}
	free(f->index);
	f->index = t;
	f->index_cap = cap;
	return CD_OK;
}

struct fleet_node *fleet_node_get(struct fleet *f, const char *name)
{
	struct fleet_node *n;
	size_t at;

	if (f->index_cap) {
		for (at = name_hash(name) & (f->index_cap - 1); f->index[at]; at = (at + 1) & (f->index_cap - 1))
			if (strcmp(f->nodes[f->index[at] - 1].name, name) == 0)
				return &f->nodes[f->index[at] - 1];
	}
	/* keep the table at most half full */
	if ((f->n_nodes + 1) * 2 > f->index_cap && index_rebuild(f, f->index_cap ? f->index_cap * 2 : 64) != CD_OK)
		return NULL;
	if (grow(&f->nodes, &f->cap_nodes, f->n_nodes, sizeof *f->nodes) != CD_OK)
		return NULL;
	n = &f->nodes[f->n_nodes];
	memset(n, 0, sizeof *n);
	if (!(n->name = cd_strdup(name)))
		return NULL;
	for (at = name_hash(name) & (f->index_cap - 1); f->index[at]; at = (at + 1) & (f->index_cap - 1))
		;
	f->index[at] = ++f->n_nodes;
	return n;
}

int fleet_node_fact(struct fleet_node *n, enum fleet_fact fact, const char *value)
{
	if (fact >= FF_COUNT || !value || n->facts[fact])
		return CD_OK;
	n->facts[fact] = text_dup(value);
	return n->facts[fact] ? CD_OK : CD_ENOMEM;
}

int fleet_node_finding(struct fleet_node *n, const char *id, enum severity sev, const char *title,
		       const char *fix)
{
	struct fleet_finding *ff;
	size_t at;

	if (strindex_get(&n->finding_ix, id, strlen(id), &at)) {
		ff = &n->findings[at];
		if (sev > ff->severity)
			ff->severity = sev;
		return CD_OK;
	}
	if (grow(&n->findings, &n->cap_findings, n->n_findings, sizeof *n->findings) != CD_OK)
		return CD_ENOMEM;
	ff = &n->findings[n->n_findings];
	ff->id = cd_strdup(id);
	ff->title = text_dup(title ? title : "");
	ff->fix = text_dup(fix ? fix : "");
	ff->severity = sev;
	if (!ff->id || !ff->title || !ff->fix ||
	    strindex_put(&n->finding_ix, ff->id, strlen(ff->id), n->n_findings, NULL) != CD_OK) {
		free(ff->id);
		free(ff->title);
		free(ff->fix);
		return CD_ENOMEM;
	}
	n->n_findings++;
	return CD_OK;
}

int fleet_node_sample(struct fleet_node *n, const char *metric, const char *unit, int gpu, double value)
{
	struct fleet_sample *s;

	if (grow(&n->samples, &n->cap_samples, n->n_samples, sizeof *n->samples) != CD_OK)
		return CD_ENOMEM;
	s = &n->samples[n->n_samples];
	s->metric = text_dup(metric);
	s->unit = text_dup(unit ? unit : "");
	s->gpu = gpu;
	s->value = value;
	if (!s->metric || !s->unit) {
		free(s->metric);
		free(s->unit);
		return CD_ENOMEM;
	}
	n->n_samples++;
	return CD_OK;
}

int fleet_node_health(struct fleet_node *n, int gpu, const char *uuid, const char *bus, bool healthy)
{
	struct fleet_gpu_health *h;

	if (grow(&n->health, &n->cap_health, n->n_health, sizeof *n->health) != CD_OK)
		return CD_ENOMEM;
	h = &n->health[n->n_health];
	h->gpu = gpu;
	h->healthy = healthy;
	h->uuid = text_dup(uuid ? uuid : "");
	h->bus = text_dup(bus ? bus : "");
	if (!h->uuid || !h->bus) {
		free(h->uuid);
		free(h->bus);
		return CD_ENOMEM;
	}
	n->n_health++;
	return CD_OK;
}

int fleet_node_failed(struct fleet_node *n, const char *why)
{
	if (n->failure)
		return CD_OK;
	n->failure = text_dup(why);
	return n->failure ? CD_OK : CD_ENOMEM;
}

int fleet_skip(struct fleet *f, const char *source, const char *reason)
{
	struct fleet_skip *s;

	if (grow(&f->skipped, &f->cap_skipped, f->n_skipped, sizeof *f->skipped) != CD_OK)
		return CD_ENOMEM;
	s = &f->skipped[f->n_skipped];
	s->source = text_dup(source);
	s->reason = text_dup(reason);
	if (!s->source || !s->reason) {
		free(s->source);
		free(s->reason);
		return CD_ENOMEM;
	}
	f->n_skipped++;
	return CD_OK;
}

int fleet_missing(struct fleet *f, const char *name)
{
	char *s;

	if (grow(&f->missing, &f->cap_missing, f->n_missing, sizeof *f->missing) != CD_OK)
		return CD_ENOMEM;
	if (!(s = text_dup(name)))
		return CD_ENOMEM;
	f->missing[f->n_missing++] = s;
	return CD_OK;
}

void fleet_name_from_path(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t len;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	snprintf(buf, n, "%.*s", (int)len, base);
}

/* Adds what s says to d's view: facts d does not have yet, findings, samples, a failure. */
static int view_add(struct fleet_node *d, const struct fleet_node *s)
{
	int rc = CD_OK;

	for (int k = 0; k < FF_COUNT; k++)
		TRY(fleet_node_fact(d, (enum fleet_fact)k, s->facts[k]));
	for (size_t k = 0; k < s->n_findings; k++)
		TRY(fleet_node_finding(d, s->findings[k].id, s->findings[k].severity, s->findings[k].title,
				       s->findings[k].fix));
	for (size_t k = 0; k < s->n_samples; k++)
		TRY(fleet_node_sample(d, s->samples[k].metric, s->samples[k].unit, s->samples[k].gpu,
				      s->samples[k].value));
	if (s->failure)
		TRY(fleet_node_failed(d, s->failure));
	/* the health verdicts and the count of the newest check only */
	if (s->n_health && !d->n_health)
		for (size_t k = 0; k < s->n_health; k++)
			TRY(fleet_node_health(d, s->health[k].gpu, s->health[k].uuid, s->health[k].bus, s->health[k].healthy));
	if (s->have_count && !d->have_count) {
		memcpy(d->gpu_count, s->gpu_count, sizeof d->gpu_count);
		d->have_count = true;
	}
out:
	return rc;
}

/* The view again from the kept parts, newest first: the newest report's fact wins. */
static int view_rebuild(struct fleet_node *d)
{
	bool used[FP_COUNT] = { false };
	int rc = CD_OK;

	view_free(d);
	for (;;) {
		int pick = -1;

		for (int k = 0; k < FP_COUNT; k++)
			if (d->part[k] && !used[k] && (pick < 0 || strcmp(d->part_date[k], d->part_date[pick]) > 0))
				pick = k;
		if (pick < 0)
			break;
		used[pick] = true;
		TRY(view_add(d, d->part[pick]));
	}
out:
	return rc;
}

static enum fleet_part part_of(const char *command)
{
	return strcmp(command, "doctor") == 0 ? FP_DOCTOR : strcmp(command, "devices") == 0 ? FP_DEVICES
	       : strcmp(command, "lab") == 0  ? FP_LAB : strcmp(command, "check") == 0 ? FP_CHECK : FP_BUNDLE;
}

/* "node03: a doctor report of 2026-11-30T08:00:00Z, older than the one used (2026-12-01T...)" */
static int superseded(struct fleet *f, const char *node, const char *command, const char *old, const char *kept)
{
	char source[300], reason[200];

	snprintf(source, sizeof source, "%s's %s report of %s", node, command, *old ? old : "no date");
	snprintf(reason, sizeof reason, "superseded by its newer %s report (%s)", command, *kept ? kept : "no date");
	return fleet_skip(f, source, reason);
}

int fleet_merge(struct fleet *dst, struct fleet *src, const char *command, const char *date)
{
	enum fleet_part k = part_of(command);
	int rc = CD_OK;

	if (!date)
		date = "";
	for (size_t i = 0; i < src->n_nodes; i++) {
		struct fleet_node *s = &src->nodes[i], *d = fleet_node_get(dst, s->name), *keep;
		char *when;

		if (!d)
			return CD_ENOMEM;
		if (d->part[k] && strcmp(date, d->part_date[k]) < 0) {
			TRY(superseded(dst, d->name, command, date, d->part_date[k]));
			continue;
		}
		if (!(keep = malloc(sizeof *keep)) || !(when = cd_strdup(date))) {
			free(keep);
			return CD_ENOMEM;
		}
		if (d->part[k]) {
			rc = superseded(dst, d->name, command, d->part_date[k], date);
			node_free(d->part[k]);
			free(d->part[k]);
			free(d->part_date[k]);
			if (rc != CD_OK) {
				d->part[k] = NULL;
				d->part_date[k] = NULL;
				free(keep);
				free(when);
				goto out;
			}
		}
		*keep = *s; /* moved: src keeps a zeroed node for fleet_free */
		memset(s, 0, sizeof *s);
		d->part[k] = keep;
		d->part_date[k] = when;
		TRY(view_rebuild(d));
	}
out:
	return rc;
}
