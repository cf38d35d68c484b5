/* lab nccl's verdict: every result verified, and with two or more GPUs the all-reduce's bus
 * bandwidth at the largest size between 60% of the slowest link and the link itself (5%
 * over it for clock and timer noise). Bands and sources in docs/lab.md. */
#include "kb/links.h"
#include "lab/nccl_judge.h"
#include "util/err.h"

#include <stdio.h>

const char *const nccl_coll_name[NCCL_COLLS] = { "all-reduce", "all-gather", "reduce-scatter", "broadcast" };

double nccl_bus_factor(enum nccl_coll c, int nranks)
{
	double n = nranks > 0 ? nranks : 1;

	switch (c) {
	case NCCL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case NCCL_ALL_GATHER:
	case NCCL_REDUCE_SCATTER: return (n - 1) / n;
	default: return 1.0;
	}
}

double nccl_nvlink_rate(int cc_major, int cc_minor)
{
	const struct kb_link *k;
	char err[CD_ERRMSG];

	/* the one table of link rates, shared with topo and lab p2p */
	if (kb_links_load(err) != CD_OK || !(k = kb_nvlink_for_cc(cc_major, cc_minor)))
		return 0;
	return k->gbs * 1e9;
}

void judge_nccl(struct lab_result *r, int nranks, size_t verified, size_t wrong, double busbw, size_t top_bytes,
		double link, const char *link_what)
{
	if (wrong) {
		r->wrong_result = true;
		r->verdict = LAB_FAILED;
		snprintf(r->decided, sizeof r->decided, "%zu of %zu collective results differ from the expected values",
			 wrong, verified + wrong);
		return;
	}
	if (nranks < 2) {
		r->verdict = LAB_CONFIRMED;
		snprintf(r->decided, sizeof r->decided,
			 "one rank: all %zu results verified; no link is involved, so bandwidth is not judged "
			 "(all-reduce busbw is 0 by definition for one rank)",
			 verified);
		return;
	}
	if (link <= 0) {
		r->verdict = LAB_INCONCLUSIVE;
		snprintf(r->decided, sizeof r->decided,
			 "%d ranks: all %zu results verified; all-reduce busbw %.1f GB/s at %zu MiB, but the links' "
			 "bandwidth is unknown here",
			 nranks, verified, busbw / 1e9, top_bytes >> 20);
		return;
	}
	double ratio = busbw / link;
	r->verdict = ratio >= 0.60 && ratio <= 1.05 ? LAB_CONFIRMED : LAB_REFUTED;
	snprintf(r->decided, sizeof r->decided,
		 "%d ranks: all %zu results verified; all-reduce busbw %.1f GB/s at %zu MiB = %.0f%% of %s %.1f GB/s "
		 "per direction (band 60%%..105%%)",
		 nranks, verified, busbw / 1e9, top_bytes >> 20, ratio * 100, link_what, link / 1e9);
}
