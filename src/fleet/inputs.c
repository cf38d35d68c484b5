/* The fleet's inputs in its report: how many nodes reported and which, each node's object
 * (its facts, findings and samples), the nodes that sent nothing, the inputs skipped, and a
 * finding for each of those and for the nodes whose collection failed. */
#include "fleet/judge.h"

#include <stdio.h>
#include <stdlib.h>

#include "fleet/hostlist.h"
#include "rules/catalogue.h"
#include "rules/scope.h"
#include "util/err.h"

/* A node's findings as the fleet read them, each with its id's scope (rules/scope.h). */
static int node_findings(struct report_rec *node, const struct fleet_node *nd)
{
	struct report_rec arr, it;
	int rc = CD_OK, end;

	report_rec_array(node, "findings", &arr);
	for (size_t k = 0; k < nd->n_findings && rc == CD_OK; k++) {
		report_rec_item(&arr, &it);
		report_field(&it, NULL, "id", rv_str(nd->findings[k].id));
		report_field(&it, NULL, "severity", rv_str(severity_name(nd->findings[k].severity)));
		report_field(&it, NULL, "scope", rv_str(finding_scope_name(finding_scope(nd->findings[k].id))));
		rc = report_rec_end(&it);
	}
	end = report_rec_end(&arr);
	return rc != CD_OK ? rc : end;
}

/* One node's object of "nodes": its name, failure, facts (fleet_fact_table), findings and
 * how many numbers it measured. */
static int node_rec(struct report_rec *nodes, const struct fleet_node *nd)
{
	struct report_rec it, facts;
	int rc, end;

	report_rec_item(nodes, &it);
	report_field(&it, NULL, "name", rv_str(nd->name));
	report_field(&it, NULL, "failure", rv_str(nd->failure));
	report_rec_object(&it, "facts", &facts);
	report_fields(&facts, &fleet_fact_table, nd, FIELD_ALL);
	if ((rc = report_rec_end(&facts)) == CD_OK)
		rc = node_findings(&it, nd);
	report_field(&it, NULL, "samples", rv_int((long long)nd->n_samples));
	end = report_rec_end(&it);
	return rc != CD_OK ? rc : end;
}

/* Every node's object, the nodes expected that sent nothing, and the inputs skipped: JSON
 * only (the text says them as findings). */
static int input_recs(const struct fleet *f, struct report_rec *top)
{
	struct report_rec arr, it;
	int rc = CD_OK, end;

	report_rec_array(top, "nodes", &arr);
	report_rec_text(&arr, REPORT_TEXT_NONE);
	for (size_t i = 0; i < f->n_nodes && rc == CD_OK; i++)
		rc = node_rec(&arr, &f->nodes[i]);
	end = report_rec_end(&arr);
	if (rc == CD_OK && (rc = end) == CD_OK) {
		report_rec_array(top, "missing", &arr);
		for (size_t i = 0; i < f->n_missing; i++)
			report_rec_push(&arr, rv_str(f->missing[i]));
		rc = report_rec_end(&arr);
	}
	if (rc == CD_OK) {
		report_rec_array(top, "skipped", &arr);
		for (size_t i = 0; i < f->n_skipped && rc == CD_OK; i++) {
			report_rec_item(&arr, &it);
			report_field(&it, NULL, "source", rv_str(f->skipped[i].source));
			report_field(&it, NULL, "reason", rv_str(f->skipped[i].reason));
			rc = report_rec_end(&it);
		}
		end = report_rec_end(&arr);
		if (rc == CD_OK)
			rc = end;
	}
	return rc;
}

/* A count of nodes or inputs for a catalogue title (one or many) and, where known, the
 * hostlist its fix lines run on. */
static void nodes_vars(struct finding_vars *v, size_t count, const char *list)
{
	finding_vars_init(v);
	finding_var(v, "count", "%zu", count);
	finding_flag(v, "one", count == 1);
	if (list)
		finding_var(v, "nodes", "%s", list);
}

int fleet_judge_inputs(const struct fleet *f, const struct fleet_judge_opts *o, struct report_rec *top,
		       struct report *r)
{
	struct finding_vars fv;
	size_t *idx = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof *idx), nf = 0;
	char *list = NULL, buf[64];
	struct finding *fd;
	int rc = CD_OK;

	if (!idx) {
		rc = CD_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->n_nodes; i++)
		idx[i] = i;
	TRY(fleet_hostlist_of(f, idx, f->n_nodes, &list));
	report_rec_section(top, "Fleet");
	if (o->expected_nodes >= 0)
		report_fieldf(top, "nodes", "node_count", rv_int((long long)f->n_nodes), "%zu reported of %d started",
			      f->n_nodes, o->expected_nodes);
	else
		report_fieldf(top, "nodes", "node_count", rv_int((long long)f->n_nodes), "%zu reported", f->n_nodes);
	if (f->n_nodes)
		report_field(top, "node list", "node_list", rv_str(fleet_text_list(list, f->n_nodes, buf, sizeof buf)));
	report_field(top, NULL, "expected_nodes", o->expected_nodes >= 0 ? rv_int(o->expected_nodes) : rv_null());
	TRY(input_recs(f, top));
	if (f->n_missing) {
		free(list);
		list = NULL;
		TRY(fleet_hostlist((const char *const *)f->missing, f->n_missing, &list));
		nodes_vars(&fv, f->n_missing, list);
		fd = finding_make(r, SEV_CATALOGUE, "fleet-node-missing", list, &fv);
		if (!fd || finding_evidence(fd, "waited %d s for %s", o->wait_s, list)) {
			rc = CD_ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].failure)
			idx[nf++] = i;
	if (nf) {
		free(list);
		list = NULL;
		TRY(fleet_hostlist_of(f, idx, nf, &list));
		nodes_vars(&fv, nf, list);
		fd = finding_make(r, SEV_CATALOGUE, "fleet-node-failed", list, &fv);
		if (!fd) {
			rc = CD_ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < nf && rc == CD_OK; i++)
			rc = finding_evidence(fd, "%s: %s", f->nodes[idx[i]].name, f->nodes[idx[i]].failure);
		if (rc != CD_OK)
			goto out;
	}
	if (f->n_skipped) {
		nodes_vars(&fv, f->n_skipped, NULL);
		fd = finding_make(r, SEV_CATALOGUE, "fleet-report-skipped", "inputs", &fv);
		if (!fd) {
			rc = CD_ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < f->n_skipped && rc == CD_OK; i++)
			rc = finding_evidence(fd, "%s: %s", f->skipped[i].source, f->skipped[i].reason);
	}
out:
	free(list);
	free(idx);
	return rc;
}
