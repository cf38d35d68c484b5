/* Heterogeneity, findings by id, the Slurm drain lines (node-health errors only: an id's scope,
 * rules/scope.h) and each node's environment findings, which never drain. Each grouping sorts
 * once and walks runs, so 10,000 nodes cost a few sorts, not a comparison of every pair. */
#include "fleet/judge.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "fleet/hostlist.h"
#include "rules/catalogue.h"
#include "rules/scope.h"
#include "util/err.h"
#include "util/str.h"

char *fleet_drain_line(const char *nodes, const char *why)
{
	char *reason = cd_asprintf("cudoctor: %s", why), *qn = str_shell_quote(nodes);
	char *qr = reason ? str_shell_quote(reason) : NULL;
	char *line = qn && qr ? cd_asprintf("scontrol update nodename=%s state=drain reason=%s", qn, qr) : NULL;

	free(reason);
	free(qn);
	free(qr);
	return line;
}

const char *fleet_text_list(const char *list, size_t count, char *buf, size_t n)
{
	if (strlen(list) <= FLEET_TEXT_LIST_MAX)
		return list;
	snprintf(buf, n, "%zu nodes (--json lists them)", count);
	return buf;
}

/* ---- heterogeneity ---- */

struct fact_entry {
	const char *value;
	size_t node;
};

static int cmp_fact_entry(const void *a, const void *b)
{
	const struct fact_entry *x = a, *y = b;
	int c = strcmp(x->value, y->value);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

struct group {
	size_t start, count;
};

/* Smaller groups first (the odd nodes out), the majority last; ties by value. */
static int cmp_group_size(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;
	const struct fact_entry *e = ctx;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return strcmp(e[x->start].value, e[y->start].value);
}

static const char not_reported[] = "not reported";

/* A value that names something a node has, not its absence ("none", "none selected") or a
 * report that does not state it. */
static bool value_present(const char *v)
{
	return v != not_reported && strncmp(v, "none", 4) != 0;
}

/* The fact's groups e[g[0..ng)], smallest first, as group objects of it and the text line's
 * parts; counts the groups whose value some node reported. */
static int group_recs(const struct fleet *f, const struct fact_entry *e, const struct group *g, size_t ng,
		      size_t *idx, struct report_rec *it, struct strbuf *text, struct strbuf *evidence,
		      size_t *groups_reported)
{
	struct report_rec arr, o;
	char *list = NULL;
	int rc = CD_OK, end;

	report_rec_array(it, "groups", &arr);
	for (size_t i = 0; i < ng && rc == CD_OK; i++) {
		const char *v = e[g[i].start].value;
		char buf[64];
		bool last = i + 1 == ng;

		*groups_reported += v != not_reported;
		for (size_t j = 0; j < g[i].count; j++)
			idx[j] = e[g[i].start + j].node;
		free(list);
		list = NULL;
		if ((rc = fleet_hostlist_of(f, idx, g[i].count, &list)) != CD_OK)
			break;
		report_rec_item(&arr, &o);
		report_field(&o, NULL, "value", rv_str(v == not_reported ? NULL : v));
		report_field(&o, NULL, "nodes", rv_str(list));
		report_field(&o, NULL, "count", rv_int((long long)g[i].count));
		rc = report_rec_end(&o);
		if (ng == 1)
			sb_printf(text, "%s on all %zu", v, g[i].count);
		else if (last && g[i].count > 1)
			sb_printf(text, "%s on the other %zu", v, g[i].count);
		else
			sb_printf(text, "%s on %s%s", v, fleet_text_list(list, g[i].count, buf, sizeof buf), last ? "" : "; ");
		sb_printf(evidence, "%s%s on %s (%zu)", i ? "\n" : "", v, list, g[i].count); /* one evidence line each */
	}
	free(list);
	/* ended either way: the first error wins */
	end = report_rec_end(&arr);
	return rc != CD_OK ? rc : end;
}

static int fact_groups(const struct fleet *f, enum fleet_fact k, struct report_rec *arr, struct report *r)
{
	struct fact_entry *e = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof *e);
	struct group *g = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof *g);
	size_t *idx = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof *idx);
	size_t ng = 0, reported = 0, groups_reported = 0;
	struct strbuf text, evidence;
	struct report_rec it;
	char *list = NULL, *summary = NULL;
	int rc = CD_OK, end;

	sb_init(&text);
	sb_init(&evidence);
	if (!e || !g || !idx) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		e[i].value = f->nodes[i].facts[k] ? f->nodes[i].facts[k] : not_reported;
		e[i].node = i;
		reported += f->nodes[i].facts[k] != NULL;
	}
	if (reported == 0)
		goto out;
	cd_qsort(e, f->n_nodes, sizeof *e, cmp_fact_entry);
	for (size_t i = 0; i < f->n_nodes; i++) {
		if (i == 0 || strcmp(e[i].value, e[i - 1].value) != 0)
			g[ng++] = (struct group){ i, 0 };
		g[ng - 1].count++;
	}
	qsort_r(g, ng, sizeof *g, cmp_group_size, e);
	report_rec_item(arr, &it);
	report_field(&it, NULL, "fact", rv_str(fleet_fact_key(k)));
	rc = group_recs(f, e, g, ng, idx, &it, &text, &evidence, &groups_reported);
	if (rc == CD_OK && !(summary = sb_detach(&text)))
		rc = CD_ENOMEM;
	report_field(&it, NULL, "uniform", rv_bool(groups_reported <= 1));
	if (rc == CD_OK)
		report_field(&it, fleet_fact_label(k), "summary", rv_str(summary));
	end = report_rec_end(&it);
	if (rc == CD_OK)
		rc = end;
	if (rc != CD_OK)
		goto out;
	if (groups_reported > 1) {
		/* The value to converge on is the most common one that is present: a node without
		 * a GPU, a driver or a framework is never the model, however many share that. */
		size_t t = ng, odd = 0, gone = 0;
		struct finding_vars v;
		struct finding *fd;
		char *ev = sb_detach(&evidence), *absent = NULL, *target = NULL;
		const char *gone_value = "";
		if (!ev) {
			rc = CD_ENOMEM;
			goto out;
		}
		for (size_t i = ng; i-- > 0 && t == ng;)
			if (value_present(e[g[i].start].value))
				t = i;
		/* the nodes to change: another present value first, then the ones lacking it */
		for (size_t i = 0; i < ng; i++)
			if (i != t && value_present(e[g[i].start].value))
				for (size_t j = 0; j < g[i].count; j++)
					idx[odd++] = e[g[i].start + j].node;
		for (size_t i = 0; i < ng; i++)
			if (i != t && !value_present(e[g[i].start].value) && e[g[i].start].value != not_reported)
				for (size_t j = 0; j < g[i].count; j++)
					idx[odd + gone++] = e[g[i].start + j].node, gone_value = e[g[i].start].value;
		free(list);
		list = NULL;
		rc = odd ? fleet_hostlist_of(f, idx, odd, &list) : CD_OK;
		if (rc == CD_OK && gone)
			rc = fleet_hostlist_of(f, idx + odd, gone, &absent);
		if (rc == CD_OK && t < ng && ng - 1 != t) {
			for (size_t j = 0; j < g[t].count; j++)
				idx[j] = e[g[t].start + j].node;
			rc = fleet_hostlist_of(f, idx, g[t].count, &target);
		}
		finding_vars_init(&v);
		finding_var(&v, "fact", "%s", fleet_fact_label(k));
		finding_var(&v, "values", "%zu", ng);
		finding_var(&v, "total", "%zu", f->n_nodes);
		finding_flag(&v, "named", true);
		if (rc == CD_OK && odd && t < ng) {
			finding_var(&v, "nodes", "%s", list);
			finding_var(&v, "value", "%s", e[g[t].start].value);
			if (target)
				finding_var(&v, "target", "%s", target);
			else
				finding_var(&v, "target_count", "%zu", g[t].count);
		}
		if (rc == CD_OK && gone) {
			finding_var(&v, "absent", "%s", absent);
			finding_var(&v, "absent_value", "%s", gone_value);
		}
		fd = rc == CD_OK ? finding_make(r, SEV_WARN, "fleet-heterogeneous", fleet_fact_label(k), &v) : NULL;
		for (char *p = ev, *nl; fd && rc == CD_OK && p; p = nl ? nl + 1 : NULL) {
			if ((nl = strchr(p, '\n')))
				*nl = '\0';
			rc = finding_evidence(fd, "%s", p);
		}
		if (!fd && rc == CD_OK)
			rc = CD_ENOMEM;
		free(ev);
		free(absent);
		free(target);
	}
out:
	free(summary);
	free(list);
	sb_free(&text);
	sb_free(&evidence);
	free(idx);
	free(g);
	free(e);
	return rc;
}

static int heterogeneity(const struct fleet *f, struct report_rec *top, struct report *r)
{
	struct report_rec arr;
	int rc = CD_OK, end;
	bool any = false;

	for (size_t i = 0; i < f->n_nodes && !any; i++)
		for (int k = 0; k < FF_COUNT && !any; k++)
			any = f->nodes[i].facts[k] != NULL;
	if (any)
		report_rec_section(top, "Heterogeneity");
	report_rec_array(top, "heterogeneity", &arr);
	for (int k = 0; k < FF_COUNT && rc == CD_OK; k++)
		rc = fact_groups(f, (enum fleet_fact)k, &arr, r);
	/* ended either way: the record frees its cells; the first error wins */
	end = report_rec_end(&arr);
	return rc != CD_OK ? rc : end;
}

/* ---- every node's findings, grouped by id ---- */

struct fentry {
	const struct fleet_finding *fd;
	size_t node;
};

static int cmp_by_id(const void *a, const void *b)
{
	const struct fentry *x = a, *y = b;
	int c = strcmp(x->fd->id, y->fd->id);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static const char *title_of(const struct fentry *e)
{
	return e->fd->title;
}

static const char *fix_of(const struct fentry *e)
{
	return e->fd->fix;
}

typedef const char *(*key_fn)(const struct fentry *e);

static int cmp_by_key(const void *a, const void *b, void *ctx)
{
	key_fn key = *(key_fn *)ctx;
	const struct fentry *x = a, *y = b;
	int c = strcmp(key(x), key(y));
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Calls fn once per run of entries of e[0..n) with one key: the run's node list and first entry. */
typedef int (*run_fn)(void *ctx, const char *list, const struct fentry *first);

static int runs(const struct fleet *f, struct fentry *e, size_t n, key_fn key, void *ctx, run_fn fn,
		size_t *idx)
{
	int rc = CD_OK;

	qsort_r(e, n, sizeof *e, cmp_by_key, &key);
	for (size_t i = 0, j; i < n && rc == CD_OK; i = j) {
		char *list = NULL;
		for (j = i; j < n && strcmp(key(&e[j]), key(&e[i])) == 0; j++)
			idx[j - i] = e[j].node;
		if ((rc = fleet_hostlist_of(f, idx, j - i, &list)) == CD_OK)
			rc = fn(ctx, list, &e[i]);
		free(list);
	}
	return rc;
}

static int title_evidence(void *fd, const char *list, const struct fentry *first)
{
	return finding_evidence(fd, "%s: %s", list, first->fd->title);
}

/* fleet-grouped's relayed lines, the nodes and what they said: a letter each, as the row's */
#define RELAYED 12
static const char *const said_nodes[RELAYED] = { "said_nodes_a", "said_nodes_b", "said_nodes_c", "said_nodes_d",
						 "said_nodes_e", "said_nodes_f", "said_nodes_g", "said_nodes_h",
						 "said_nodes_i", "said_nodes_j", "said_nodes_k", "said_nodes_l" };
static const char *const said[RELAYED] = { "said_a", "said_b", "said_c", "said_d", "said_e", "said_f",
					   "said_g", "said_h", "said_i", "said_j", "said_k", "said_l" };

struct relayed {
	struct finding_vars *v;
	size_t n;
};

/* A node's own fix lines are relayed as what it said (prose lines of the row), never as a line
 * of ours to run. */
static int node_fixes(void *ctx, const char *list, const struct fentry *first)
{
	struct relayed *s = ctx;

	for (const char *p = first->fd->fix; *p; s->n++) {
		size_t len = strcspn(p, "\n");

		if (s->n < RELAYED) {
			finding_var(s->v, said_nodes[s->n], "%s", list);
			finding_var(s->v, said[s->n], "%.*s", (int)len, p);
		}
		p += len + (p[len] == '\n');
	}
	return CD_OK;
}

static int group_findings(const struct fleet *f, struct report *r)
{
	struct fentry *e = NULL;
	size_t n = 0, cap = 0, *idx = NULL;
	int rc = CD_OK;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (size_t k = 0; k < f->nodes[i].n_findings; k++) {
			const struct fleet_finding *fd = &f->nodes[i].findings[k];
			if (fd->severity < SEV_WARN)
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct fentry *q = realloc(e, nc * sizeof *e);
				if (!q) {
					rc = CD_ENOMEM;
					goto out;
				}
				e = q;
				cap = nc;
			}
			e[n++] = (struct fentry){ fd, i };
		}
	if (n == 0)
		goto out;
	if (!(idx = malloc(n * sizeof *idx))) {
		rc = CD_ENOMEM;
		goto out;
	}
	cd_qsort(e, n, sizeof *e, cmp_by_id);
	for (size_t i = 0, j; i < n; i = j) {
		enum severity sev = SEV_WARN;
		struct finding_vars v;
		struct relayed rl;
		struct finding *fd;
		char *list = NULL;
		for (j = i; j < n && strcmp(e[j].fd->id, e[i].fd->id) == 0; j++) {
			if (e[j].fd->severity > sev)
				sev = e[j].fd->severity;
			idx[j - i] = e[j].node;
		}
		TRY(fleet_hostlist_of(f, idx, j - i, &list));
		finding_vars_init(&v);
		finding_var(&v, "title", "%s", e[i].fd->title);
		finding_var(&v, "count", "%zu", j - i);
		finding_var(&v, "total", "%zu", f->n_nodes);
		finding_var(&v, "nodes", "%s", list);
		finding_var(&v, "id", "%s", e[i].fd->id);
		finding_flag(&v, "drains", sev == SEV_ERROR && finding_scope_drains(e[i].fd->id));
		finding_flag(&v, "environment", !finding_scope_drains(e[i].fd->id));
		finding_flag(&v, "said", true);
		/* what the nodes said, before the finding is made of it */
		rl = (struct relayed){ &v, 0 };
		rc = runs(f, e + i, j - i, fix_of, &rl, node_fixes, idx);
		if (rl.n > RELAYED)
			finding_var(&v, "said_more", "%zu", rl.n - RELAYED);
		fd = rc == CD_OK ? finding_make_as(r, sev, "fleet-grouped", e[i].fd->id, list, &v) : NULL;
		free(list);
		if (!fd && rc == CD_OK)
			rc = CD_ENOMEM;
		if (rc == CD_OK)
			rc = runs(f, e + i, j - i, title_of, fd, title_evidence, idx);
		/* runs() reordered e[i..j): still one id, so the outer walk is unaffected */
		if (rc != CD_OK)
			goto out;
	}
out:
	free(idx);
	free(e);
	return rc;
}

/* ---- Slurm: one drain line per set of node-health error ids, so each node gets one reason;
 * the environment's findings of each node beside them, never drained ---- */

struct drain {
	char *reason;
	size_t node;
};

static int cmp_drain(const void *a, const void *b)
{
	const struct drain *x = a, *y = b;
	int c = strcmp(x->reason, y->reason);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Whether the comma-joined list holds id. */
static bool has_id(const char *list, const char *id)
{
	size_t n = strlen(id);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, id, n) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* Each node's ids of one kind, comma-joined, into d (one entry per node that has any): the
 * node-health errors a drain names (and fleet-check-slow where slow[node]), or, with
 * drains false, the warn and error ids that never drain (environment, or a scope unknown
 * to this cudoctor). Sorted by ids, then node, so equal sets are runs. */
static int node_ids(const struct fleet *f, bool drains, const bool *slow, struct drain *d, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *nd = &f->nodes[i];
		struct strbuf sb;
		sb_init(&sb);
		for (size_t k = 0; k < nd->n_findings; k++) {
			const struct fleet_finding *x = &nd->findings[k];
			bool pick = drains ? x->severity == SEV_ERROR && finding_scope_drains(x->id)
					   : x->severity >= SEV_WARN && !finding_scope_drains(x->id);
			if (pick && !has_id(sb.len ? sb.buf : "", x->id))
				sb_printf(&sb, "%s%s", sb.len ? "," : "", x->id);
		}
		/* a GPU of the node far below the fleet under check's load */
		if (drains && slow && slow[i])
			sb_printf(&sb, "%s%s", sb.len ? "," : "", "fleet-check-slow");
		if (sb.len == 0 && !sb.failed) {
			sb_free(&sb);
			continue;
		}
		if (!(d[*n].reason = sb_detach(&sb)))
			return CD_ENOMEM;
		d[(*n)++].node = i;
	}
	cd_qsort(d, *n, sizeof *d, cmp_drain);
	return CD_OK;
}

/* One drain line per run of equal id sets in d[0..n): JSON strings under "slurm", text lines to
 * paste or run. */
static int drain_lines(const struct fleet *f, const struct drain *d, size_t n, size_t *idx, struct report_rec *top)
{
	struct report_rec lines;
	int rc = CD_OK, end;

	report_rec_array(top, "slurm", &lines);
	report_rec_commands(&lines, true); /* each line whole, to be pasted or run */
	for (size_t i = 0, j; i < n && rc == CD_OK; i = j) {
		char *list = NULL, *line = NULL;
		for (j = i; j < n && strcmp(d[j].reason, d[i].reason) == 0; j++)
			idx[j - i] = d[j].node;
		if ((rc = fleet_hostlist_of(f, idx, j - i, &list)) == CD_OK && !(line = fleet_drain_line(list, d[i].reason)))
			rc = CD_ENOMEM;
		if (line) {
			report_rec_push(&lines, rv_str(line));
			report_rec_line(&lines, "%s", line);
		}
		free(line);
		free(list);
	}
	end = report_rec_end(&lines);
	return rc != CD_OK ? rc : end;
}

/* One object per run of equal id sets in d[0..n) that never drain: {nodes, ids}, and its line. */
static int env_sets(const struct fleet *f, const struct drain *d, size_t n, size_t *idx, struct report_rec *top)
{
	struct report_rec env, it;
	int rc = CD_OK, end;

	report_rec_array(top, "environment", &env);
	for (size_t i = 0, j; i < n && rc == CD_OK; i = j) {
		char *list = NULL, buf[64];
		for (j = i; j < n && strcmp(d[j].reason, d[i].reason) == 0; j++)
			idx[j - i] = d[j].node;
		if ((rc = fleet_hostlist_of(f, idx, j - i, &list)) != CD_OK)
			break;
		report_rec_item(&env, &it);
		report_rec_line(&it, "%s: %s", fleet_text_list(list, j - i, buf, sizeof buf), d[i].reason);
		report_field(&it, NULL, "nodes", rv_str(list));
		report_field(&it, NULL, "ids", rv_list(d[i].reason, ","));
		free(list);
		rc = report_rec_end(&it);
	}
	end = report_rec_end(&env);
	return rc != CD_OK ? rc : end;
}

static int slurm_lines(const struct fleet *f, const bool *slow, struct report_rec *top)
{
	struct drain *d = calloc(f->n_nodes ? f->n_nodes : 1, sizeof *d);
	size_t *idx = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof *idx);
	size_t n = 0;
	int rc = CD_OK;

	if (!d || !idx) {
		rc = CD_ENOMEM;
		goto out;
	}
	TRY(node_ids(f, true, slow, d, &n));
	if (n)
		report_rec_section(top, "Slurm");
	TRY(drain_lines(f, d, n, idx, top));
	if (n)
		report_rec_line(top, "after the fix, on each: scontrol update nodename=NODE state=resume");
	for (size_t i = 0; i < n; i++)
		free(d[i].reason);
	TRY(node_ids(f, false, NULL, d, &n));
	if (n)
		report_rec_section(top, "Environment (not the node's health: never drained)");
	TRY(env_sets(f, d, n, idx, top));
out:
	for (size_t i = 0; d && i < n; i++)
		free(d[i].reason);
	free(d);
	free(idx);
	return rc;
}

int fleet_judge(const struct fleet *f, const struct fleet_judge_opts *o, struct report *r)
{
	bool *slow = calloc(f->n_nodes ? f->n_nodes : 1, sizeof *slow);
	struct report_rec top;
	int rc, end;

	report_rec_top(&top, r);
	if (!slow)
		rc = CD_ENOMEM;
	else if ((rc = fleet_judge_inputs(f, o, &top, r)) == CD_OK && (rc = heterogeneity(f, &top, r)) == CD_OK &&
		 (rc = group_findings(f, r)) == CD_OK && (rc = fleet_judge_outliers(f, &top, r, slow)) == CD_OK)
		rc = slurm_lines(f, slow, &top);
	free(slow);
	/* ended either way: the record frees its cells; the first error wins */
	end = report_rec_end(&top);
	return rc != CD_OK ? rc : end;
}
