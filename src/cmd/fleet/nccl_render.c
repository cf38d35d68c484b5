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

#define NR(m) offsetof(struct fleet_nccl_rank, m)

/* A rank's part as rank 0 gathered it (docs/json.md nccl.ranks[]; its rank and times are the
 * caller's: they are where it stands in the result). */
static const struct field rank_fields[] = {
	{ .key = "node", .kind = FK_CHARS, .off = NR(node), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "device", .kind = FK_INT, .off = NR(device), .valid = FIELD_ALWAYS },
	{ .key = "nccl", .kind = FK_CHARS, .off = NR(nccl), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "error", .kind = FK_CHARS, .off = NR(error), .valid = FIELD_ALWAYS, .flags = FIELD_EMPTY_KNOWN },
	{ .key = "wrong_sizes", .kind = FK_INT, .off = NR(wrong), .valid = FIELD_ALWAYS },
};

static const struct field_table rank_table = {
	"nccl.ranks[]", rank_fields, sizeof rank_fields / sizeof rank_fields[0], -1, NULL, NULL,
};

/* Per size: the slowest rank's time, and the bandwidths it allows. */
static void sizes(struct report_rec *o, const struct fleet_nccl_result *res)
{
	const struct fleet_nccl_plan *p = &res->plan;
	struct report_rec arr, it;

	report_rec_array(o, "sizes", &arr);
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
		report_rec_item(&arr, &it);
		report_rec_line(&it, "%4zu MiB  algbw %8.2f GB/s  busbw %8.2f GB/s  slowest rank %d (%s)", p->bytes[k] >> 20,
				algbw / 1e9, busbw / 1e9, slow, res->ranks[slow].node);
		report_field(&it, NULL, "bytes", rv_int((long long)p->bytes[k]));
		report_field(&it, NULL, "seconds", rv_real(worst));
		report_field(&it, NULL, "algbw_gbs", rv_real(algbw / 1e9));
		report_field(&it, NULL, "busbw_gbs", rv_real(busbw / 1e9));
		report_field(&it, NULL, "slowest_rank", rv_int(slow));
		if (report_rec_end(&it) != CD_OK)
			break;
	}
	if (report_rec_end(&arr) != CD_OK)
		return; /* the failure is o's now */
}

int fleet_nccl_render(struct report *r, const struct fleet_nccl_result *res)
{
	const struct fleet_nccl_plan *p = &res->plan;
	struct report_rec top, o, ranks, it, secs;
	int rc = CD_OK;

	report_rec_top(&top, r);
	report_rec_object(&top, "nccl", &o);
	report_rec_section(&o, "NCCL all-reduce across %d ranks (float, sum)", p->nranks);
	report_field(&o, NULL, "nranks", rv_int(p->nranks));
	report_field(&o, NULL, "ran", rv_bool(p->go));
	if (!p->go) {
		report_field(&o, NULL, "why", rv_str(p->why));
		report_rec_line(&o, "not run: %s", p->why);
		TRY(allreduce_failed(r, p->nranks, "fleet", p->why));
	}
	sizes(&o, res);
	report_rec_array(&o, "ranks", &ranks);
	for (int i = 0; p->go && i < res->n_ranks; i++) {
		const struct fleet_nccl_rank *k = &res->ranks[i];

		report_rec_item(&ranks, &it);
		report_rec_line(&it, "rank %d (%s, GPU %d): %s", i, k->node, k->device,
				k->error[0] ? k->error : k->wrong ? "wrong result" : "verified");
		report_field(&it, NULL, "rank", rv_int(i));
		report_fields(&it, &rank_table, k, FIELD_ALL);
		report_rec_array(&it, "seconds", &secs);
		for (int s = 0; s < p->n_sizes; s++)
			report_rec_push(&secs, rv_real(k->seconds[s]));
		if (report_rec_end(&secs) != CD_OK || report_rec_end(&it) != CD_OK)
			break;
		if (k->error[0] || k->wrong) {
			char subj[96];
			snprintf(subj, sizeof subj, "%s rank %d", k->node, i);
			TRY(allreduce_failed(r, p->nranks, subj, k->error[0] ? k->error : "a result differs from the expected sum"));
		}
	}
	TRY(report_rec_end(&ranks));
	TRY(report_rec_end(&o));
	rc = report_rec_end(&top);
out:
	return rc;
}
