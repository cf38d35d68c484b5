/* `cudoctor fleet --nccl`'s part of rank 0's report: per size the algbw and busbw (nccl-tests'
 * factor, lab/nccl_judge.c) of the slowest rank, every rank's times, and a finding naming
 * the NCCL or CUDA error when the all-reduce could not run or gave a wrong result. */
#include "cmd/fleet/fleet.h"

#include <stdio.h>

#include "lab/nccl_judge.h"
#include "rules/catalogue.h"
#include "util/err.h"

/* One text for fleet-nccl-failed, whichever run found it: the all-reduce of every rank or
 * the pair rounds (pairs: the option to rerun with). */
int fleet_nccl_failed(struct report *r, int nranks, bool pairs, const char *subject, const char *what)
{
	struct finding_vars v;

	finding_vars_init(&v);
	finding_var(&v, "what", "%s", what);
	finding_var(&v, "nranks", "%d", nranks);
	finding_flag(&v, "pairs", pairs);
	if (!finding_make(r, SEV_CATALOGUE, "fleet-nccl-failed", subject, &v))
		return CD_ENOMEM;
	return CD_OK;
}

static int allreduce_failed(struct report *r, int nranks, const char *subject, const char *what)
{
	char line[640];

	snprintf(line, sizeof line, "the cross-rank NCCL all-reduce failed: %s", what);
	return fleet_nccl_failed(r, nranks, false, subject, line);
}

int fleet_nccl_render(struct report *r, const struct fleet_nccl_result *res)
{
	const struct fleet_nccl_plan *p = &res->plan;
	json_t *j = json_object(), *sizes = json_array(), *ranks = json_array();
	int rc = CD_OK;

	if (!j || !sizes || !ranks || json_object_set_new(j, "nranks", json_integer(p->nranks)) ||
	    json_object_set_new(j, "ran", json_boolean(p->go)) ||
	    (!p->go && json_object_set_new(j, "why", report_json_text(p->why)))) {
		rc = CD_ENOMEM;
		goto out;
	}
	TRY(report_section(r, "NCCL all-reduce across %d ranks (float, sum)", p->nranks));
	if (!p->go) {
		TRY(report_line(r, "not run: %s", p->why));
		TRY(allreduce_failed(r, p->nranks, "fleet", p->why));
	}
	for (int k = 0; p->go && k < p->n_sizes; k++) {
		double worst = 0, algbw, busbw;
		int slow = 0;
		for (int i = 0; i < res->n_ranks; i++)
			if (res->ranks[i].seconds[k] > worst) {
				worst = res->ranks[i].seconds[k];
				slow = i;
			}
		algbw = worst > 0 ? (double)p->bytes[k] / worst : 0;
		busbw = algbw * nccl_bus_factor(NCCL_ALL_REDUCE, p->nranks);
		TRY(report_line(r, "%4zu MiB  algbw %8.2f GB/s  busbw %8.2f GB/s  slowest rank %d (%s)",
				p->bytes[k] >> 20, algbw / 1e9, busbw / 1e9, slow, res->ranks[slow].node));
		if (json_array_append_new(sizes, json_pack("{s:I, s:f, s:f, s:f, s:i}", "bytes", (json_int_t)p->bytes[k],
							   "seconds", worst, "algbw_gbs", algbw / 1e9, "busbw_gbs",
							   busbw / 1e9, "slowest_rank", slow))) {
			rc = CD_ENOMEM;
			goto out;
		}
	}
	for (int i = 0; p->go && i < res->n_ranks; i++) {
		const struct fleet_nccl_rank *k = &res->ranks[i];
		json_t *t = json_array();
		for (int s = 0; t && s < p->n_sizes; s++)
			if (json_array_append_new(t, json_real(k->seconds[s])))
				json_decref(t), t = NULL;
		if (!t || json_array_append_new(ranks, json_pack("{s:i, s:s, s:i, s:s, s:s, s:i, s:o}", "rank", i, "node",
								 k->node, "device", k->device, "nccl", k->nccl,
								 "error", k->error, "wrong_sizes", k->wrong, "seconds", t))) {
			rc = CD_ENOMEM;
			goto out;
		}
		TRY(report_line(r, "rank %d (%s, GPU %d): %s", i, k->node, k->device,
				k->error[0] ? k->error : k->wrong ? "wrong result" : "verified"));
		if (k->error[0] || k->wrong) {
			char subj[96];
			snprintf(subj, sizeof subj, "%s rank %d", k->node, i);
			TRY(allreduce_failed(r, p->nranks, subj, k->error[0] ? k->error : "a result differs from the expected sum"));
		}
	}
	if (json_object_set(j, "sizes", sizes) || json_object_set(j, "ranks", ranks) ||
	    report_json_set(r, "nccl", json_incref(j))) {
		rc = CD_ENOMEM;
		goto out;
	}
out:
	json_decref(sizes);
	json_decref(ranks);
	json_decref(j);
	return rc;
}
