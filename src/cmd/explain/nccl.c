/* explain's NCCL part: the "NCCL log" section and JSON key of a log's facts, and the findings
 * rules/nccl.h makes of them. */
#include "cmd/explain/nccl.h"

#include <stdio.h>

#include "explain/nccl_log.h"
#include "rules/nccl.h"
#include "util/err.h"

static int render(const struct nccl_log *l, struct report *r)
{
	static const char *const hdr[] = { "channel", "from", "to", "transport" };
	json_t *o = json_object(), *vs = json_array(), *chs = json_array();
	size_t shown = l->n_ch < 64 ? l->n_ch : 64;

	if (!o || !vs || !chs) {
		json_decref(o);
		json_decref(vs);
		json_decref(chs);
		return report_json_set(r, "nccl", NULL);
	}
	report_section(r, "NCCL log");
	report_kv(r, "NCCL lines", "%zu", l->nccl_lines);
	for (size_t i = 0; i < l->n_versions; i++) {
		report_kv(r, "version", "%s", l->versions[i]);
		json_array_append_new(vs, report_json_text(l->versions[i]));
	}
	if (l->network[0])
		report_kv(r, "network", "%s", l->network);
	if (l->bootstrap_if[0])
		report_kv(r, "bootstrap interface", "%s", l->bootstrap_if);
	if (l->n_ch) {
		report_table(r, 4, hdr);
		for (size_t i = 0; i < shown; i++) {
			const struct nccl_channel *c = &l->ch[i];
			char ch[16], from[48], to[48];
			snprintf(ch, sizeof ch, "%02d", c->channel);
			snprintf(from, sizeof from, "%d [%s]", c->src_rank, c->src_dev);
			snprintf(to, sizeof to, "%d [%s]", c->dst_rank, c->dst_dev);
			const char *row[] = { ch, from, to, c->via };
			report_table_row(r, row);
		}
		if (shown < l->n_ch + l->n_ch_dropped)
			report_line(r, "(%zu more connections not shown)", l->n_ch + l->n_ch_dropped - shown);
	}
	for (size_t i = 0; i < l->n_ch; i++) {
		const struct nccl_channel *c = &l->ch[i];
		json_array_append_new(chs, json_pack("{s:i, s:i, s:s, s:i, s:s, s:s, s:s}", "channel", c->channel,
						     "src_rank", c->src_rank, "src_device", c->src_dev, "dst_rank",
						     c->dst_rank, "dst_device", c->dst_dev, "transport", c->transport,
						     "via", c->via));
	}
	json_object_set_new(o, "versions", vs);
	json_object_set_new(o, "network", l->network[0] ? report_json_text(l->network) : json_null());
	json_object_set_new(o, "bootstrap_interface", l->bootstrap_if[0] ? report_json_text(l->bootstrap_if) : json_null());
	json_object_set_new(o, "channels", chs);
	return report_json_set(r, "nccl", o);
}

int nccl_explain(struct report *r, const char *text, size_t len, char *err)
{
	struct nccl_log l;
	int rc = nccl_log_parse(text, len, &l, err);

	if (rc != CD_OK)
		return rc;
	rc = nccl_explain_log(r, &l, err);
	nccl_log_free(&l);
	return rc;
}

int nccl_explain_log(struct report *r, const struct nccl_log *l, char *err)
{
	int rc = CD_OK;

	if (l->nccl_lines && (rc = render(l, r)) == CD_OK)
		rc = nccl_rules(l, r, err);
	return rc;
}
